package container

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ExecSpec is one command to run inside a running container.
type ExecSpec struct {
	Cmd        []string
	Env        []string
	WorkingDir string
	User       string
	Stdout     io.Writer
	Stderr     io.Writer
	// Timeout bounds the command's wall-clock time; zero means none.
	Timeout time.Duration
}

// ExecResult is how an exec ended. When TimedOut or Cancelled is true the
// command may still run inside the container: the engine has no call to
// kill one exec, so callers remove the container to stop it.
type ExecResult struct {
	ExitCode  int
	TimedOut  bool
	Cancelled bool
	Duration  time.Duration
}

// Exec runs s in container id, copying its demultiplexed output to
// s.Stdout and s.Stderr, and waits for it to end, time out, or ctx to end.
func (c *Client) Exec(ctx context.Context, id string, s ExecSpec) (ExecResult, error) {
	start := time.Now()
	body := map[string]any{
		"AttachStdin": false, "AttachStdout": true, "AttachStderr": true, "Tty": false,
		"Cmd": s.Cmd, "Env": s.Env, "WorkingDir": s.WorkingDir, "User": s.User,
	}
	var created struct {
		ID string `json:"Id"`
	}
	if err := c.doJSON(ctx, http.MethodPost, "/containers/"+id+"/exec", nil, body, &created); err != nil {
		return ExecResult{}, fmt.Errorf("exec in %s: %w", id, err)
	}
	runCtx := ctx
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	res := ExecResult{}
	streamErr := c.execStream(runCtx, created.ID, orDiscard(s.Stdout), orDiscard(s.Stderr))
	res.Duration = time.Since(start)
	if runCtx.Err() != nil {
		if ctx.Err() != nil {
			res.Cancelled = true
		} else {
			res.TimedOut = true
		}
		res.ExitCode = -1
		return res, nil
	}
	if streamErr != nil {
		return res, fmt.Errorf("exec in %s: %w", id, streamErr)
	}
	var insp struct {
		Running  bool `json:"Running"`
		ExitCode int  `json:"ExitCode"`
	}
	// The stream ends a moment before the engine records the exit code.
	for i := 0; ; i++ {
		if err := c.doJSON(ctx, http.MethodGet, "/exec/"+created.ID+"/json", nil, nil, &insp); err != nil {
			return res, fmt.Errorf("exec in %s: %w", id, err)
		}
		if !insp.Running || i >= 100 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	res.ExitCode = insp.ExitCode
	return res, nil
}

func (c *Client) execStream(ctx context.Context, execID string, stdout, stderr io.Writer) error {
	body := map[string]any{"Detach": false, "Tty": false}
	resp, err := c.doJSONStream(ctx, "/exec/"+execID+"/start", body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return Demux(resp.Body, stdout, stderr)
}

func (c *Client) doJSONStream(ctx context.Context, path string, in any) (*http.Response, error) {
	r, w := io.Pipe()
	go func() {
		w.CloseWithError(jsonEncode(w, in))
	}()
	return c.do(ctx, http.MethodPost, path, nil, r, "application/json")
}

// Demux splits the engine's multiplexed stream (8-byte frame headers: the
// stream number, three zero bytes, a big-endian length) into stdout and
// stderr. It returns nil at a clean end of stream.
func Demux(r io.Reader, stdout, stderr io.Writer) error {
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read stream frame header: %w", err)
		}
		n := int64(binary.BigEndian.Uint32(hdr[4:]))
		var w io.Writer
		switch hdr[0] {
		case 0, 1:
			w = stdout
		case 2:
			w = stderr
		default:
			return fmt.Errorf("stream frame: unknown stream %d", hdr[0])
		}
		if _, err := io.CopyN(w, r, n); err != nil {
			return fmt.Errorf("read stream frame of %d bytes: %w", n, err)
		}
	}
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

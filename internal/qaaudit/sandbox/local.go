package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/proc"
)

// runLocal runs pytest with an interpreter on this machine, in its own
// process group so that a hanging test and anything it spawned are killed.
// The bootstrap builds the sandbox first; where it cannot, the test does
// not run and the error says why.
func runLocal(ctx context.Context, r *Runner, dir string, _ map[string][]byte, testName string) (rawResult, error) {
	reportPath := filepath.Join(dir, reportName)
	var out limitedBuffer
	out.limit = 4 * r.outputLimit()
	env := r.environment(filepath.Join(dir, homeName))
	res, st, err := r.runBootstrap(ctx, dir, env, pytestArgs(reportPath, testName), &out, r.timeout())
	if err != nil {
		return rawResult{}, fmt.Errorf("run pytest with %s: %w", r.python(), err)
	}
	if !r.NoSandbox && !st.ready && !res.TimedOut && ctx.Err() == nil {
		return rawResult{}, fmt.Errorf("the sandbox could not be built, so the test did not run: %s", st.why())
	}
	raw := rawResult{exitCode: res.ExitCode, timedOut: res.TimedOut, duration: res.Duration, output: out.Bytes(), status: st}
	// The test wrote this folder: a junit.xml it replaced with a link (to
	// a host file) is refused, like one over 16 MiB; the run then has no
	// readable report, which is never evidence.
	if data, err := fsutil.ReadFileIn(dir, reportPath, 16<<20); err == nil {
		raw.junit = data
		if masked := r.mask(string(data)); masked != string(data) {
			// The kept report is uploaded with the audit.
			if err := fsutil.WriteFileAtomicIn(dir, reportPath, []byte(masked), 0o644); err != nil {
				return rawResult{}, fmt.Errorf("mask the JUnit report: %w", err)
			}
		}
	} else if errors.Is(err, fsutil.ErrSymlink) || errors.Is(err, fsutil.ErrTooLarge) {
		raw.output = append(raw.output, []byte("\nsandbox: "+err.Error()+"\n")...)
	} else if !errors.Is(err, os.ErrNotExist) {
		return rawResult{}, fmt.Errorf("read JUnit report: %w", err)
	}
	return raw, nil
}

// runBootstrap runs args (after the interpreter) under the bootstrap for
// the folder dir, from an empty working directory of its own, and
// returns what the sandbox reported on its channel: a file no path
// names, open in the bootstrap as statusFD and closed before pytest
// starts.
func (r *Runner) runBootstrap(ctx context.Context, dir string, env, args []string, out io.Writer, timeout time.Duration) (proc.Result, sandboxStatus, error) {
	start := filepath.Join(dir, rootName)
	if err := os.MkdirAll(start, 0o755); err != nil {
		return proc.Result{}, sandboxStatus{}, err
	}
	status, err := os.CreateTemp(filepath.Dir(dir), ".qa_status_")
	if err != nil {
		return proc.Result{}, sandboxStatus{}, err
	}
	defer status.Close()
	if err := os.Remove(status.Name()); err != nil {
		return proc.Result{}, sandboxStatus{}, err
	}
	res, err := proc.Run(ctx, proc.Cmd{
		Argv:       append(append([]string(nil), r.Wrapper...), r.bootstrapArgv(dir, env, args)...),
		Dir:        start,
		Env:        withoutPythonPath(env),
		Stdout:     out,
		Stderr:     out,
		Timeout:    timeout,
		Grace:      2 * time.Second,
		ExtraFiles: []*os.File{status},
	})
	if err != nil {
		return res, sandboxStatus{}, err
	}
	if _, err := status.Seek(0, io.SeekStart); err != nil {
		return res, sandboxStatus{}, err
	}
	data, err := io.ReadAll(io.LimitReader(status, 64<<10))
	if err != nil {
		return res, sandboxStatus{}, err
	}
	return res, parseStatus(data), nil
}

// withoutPythonPath is env without PYTHONPATH: the bootstrap hands it to
// pytest alone (see bootstrapArgvFor).
func withoutPythonPath(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PYTHONPATH=") {
			out = append(out, kv)
		}
	}
	return out
}

// why words a sandbox that was not built.
func (st sandboxStatus) why() string {
	if len(st.refused) == 0 {
		return "the bootstrap ended before it said the sandbox was ready"
	}
	return strings.Join(st.refused, "; ")
}

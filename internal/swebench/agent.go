package swebench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/benchgate/benchgate/internal/codex"
	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/ralph"
)

// containerAgent runs `codex exec -p local` inside the instance container,
// one exec per phase, each bounded by the phase timeout. stdout (the
// --json events) and stderr go to per-phase log files.
type containerAgent struct {
	dc          *container.Client
	containerID string
	// binary is the codex to run: "codex" on the image's PATH, or the
	// runner's mounted at CodexMountPath.
	binary  string
	codeDir string
	env     []string
	timeout time.Duration
	// idle stops a phase that makes no progress for that long (see
	// codex.Watch); zero means no idle limit.
	idle time.Duration
	logs string
	// root is the output folder the agent can write to.
	root string
	// lastLog is the --json event log of the latest phase.
	lastLog string
	// ledger turns the per-thread running totals a resumed session reports
	// into each phase's own tokens.
	ledger codex.Ledger
}

func (a *containerAgent) Run(ctx context.Context, r ralph.Request) (ralph.Result, error) {
	name := string(r.Phase)
	if r.Pass > 0 {
		name += "_" + strconv.Itoa(r.Pass)
	}
	evPath := filepath.Join(a.logs, "codex_"+name+".jsonl")
	errPath := filepath.Join(a.logs, "codex_"+name+".stderr.log")
	a.lastLog = evPath
	// The logs folder is inside the bind-mounted output folder, where the
	// agent can plant links: never write through one.
	evf, err := fsutil.CreateIn(a.root, evPath)
	if err != nil {
		return ralph.Result{}, err
	}
	defer evf.Close()
	errf, err := fsutil.CreateIn(a.root, errPath)
	if err != nil {
		return ralph.Result{}, err
	}
	defer errf.Close()
	argv := codex.ExecArgv(codex.ExecOptions{Binary: a.binary, Workdir: a.codeDir, Prompt: r.Prompt, ResumeThreadID: r.ResumeThreadID})
	env := append([]string{
		"SWE_BENCH_RUNTIME_PHASE=" + string(r.Phase),
		"SWE_BENCH_EXECUTE_PASS=" + strconv.Itoa(r.Pass),
	}, a.env...)
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var stdout io.Writer = evf
	if a.idle > 0 {
		watch := codex.NewWatch(nil)
		stdout = io.MultiWriter(evf, watch)
		done := make(chan struct{})
		defer close(done)
		go watchIdle(watch, a.idle, done, stop)
	}
	res, err := a.dc.Exec(runCtx, a.containerID, container.ExecSpec{Cmd: argv, Env: env, Stdout: stdout, Stderr: errf, Timeout: a.timeout})
	if err != nil {
		return ralph.Result{}, err
	}
	out := ralph.Result{ExitCode: res.ExitCode, TimedOut: res.TimedOut, Cancelled: res.Cancelled}
	// Only an exec the idle stop ended counts: one that ended by itself
	// just before a late tick did not.
	if res.Cancelled && ctx.Err() == nil && errors.Is(context.Cause(runCtx), errIdle) {
		out.Cancelled, out.IdleTimeout = false, a.idle
	}
	if _, err := evf.Seek(0, 0); err == nil {
		ev, perr := codex.ParseEvents(evf)
		out.ThreadID, out.Failed, out.Errors = ev.ThreadID, ev.Failed, ev.Errors
		out.Usage = ralph.Usage(a.ledger.Share(ev))
		if perr != nil {
			out.Errors = append(out.Errors, fmt.Sprintf("%s: %v", evPath, perr))
		}
	}
	return out, nil
}

// errIdle is the cause that stops a phase without progress.
var errIdle = errors.New("no progress from codex within the idle timeout")

// watchIdle stops the phase (stop with errIdle) once watch has seen no
// progress for idle, checking a few times per idle period; it returns when
// done is closed.
func watchIdle(watch *codex.Watch, idle time.Duration, done <-chan struct{}, stop context.CancelCauseFunc) {
	tick := time.NewTicker(min(max(idle/8, 10*time.Millisecond), 5*time.Second))
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			if watch.Idle() >= idle {
				stop(errIdle)
				return
			}
		}
	}
}

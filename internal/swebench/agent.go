package swebench

import (
	"context"
	"fmt"
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
	codeDir     string
	env         []string
	timeout     time.Duration
	logs        string
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
	argv := codex.ExecArgv(codex.ExecOptions{Binary: "codex", Workdir: a.codeDir, Prompt: r.Prompt, ResumeThreadID: r.ResumeThreadID})
	env := append([]string{
		"SWE_BENCH_RUNTIME_PHASE=" + string(r.Phase),
		"SWE_BENCH_EXECUTE_PASS=" + strconv.Itoa(r.Pass),
	}, a.env...)
	res, err := a.dc.Exec(ctx, a.containerID, container.ExecSpec{Cmd: argv, Env: env, Stdout: evf, Stderr: errf, Timeout: a.timeout})
	if err != nil {
		return ralph.Result{}, err
	}
	out := ralph.Result{ExitCode: res.ExitCode, TimedOut: res.TimedOut, Cancelled: res.Cancelled}
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

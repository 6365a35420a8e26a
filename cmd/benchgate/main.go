// Command benchgate runs AI-agent benchmarks in CI and judges them row by
// row. See the README for the modes.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/benchgate/benchgate/internal/action"
	"github.com/benchgate/benchgate/internal/cli"
	"github.com/benchgate/benchgate/internal/proc"
	"github.com/benchgate/benchgate/internal/textfmt"
)

func main() {
	// The job's tokens are in this process's environment; no child (a
	// benchmark, an agent, a model-written test) may read them from
	// /proc/<pid>/environ. Failure only loses that protection.
	if err := proc.HideEnvironment(); err != nil {
		fmt.Fprintf(os.Stderr, "benchgate: warning: %v\n", err)
	}
	// Whatever a benchmark or agent starts stays this process's
	// descendant, even in a session of its own, so that nothing it
	// started outlives the run (proc.EndDescendants below, and after each
	// attempt of set). Failure only loses that guarantee.
	if err := proc.BecomeSubreaper(); err != nil {
		fmt.Fprintf(os.Stderr, "benchgate: warning: %v\n", err)
	}
	ctx, stop := proc.NotifyContext(context.Background())
	env := cli.ProcessEnv()
	// "benchgate action" is the GitHub Action adapter, which depends on
	// the command line; the command line gets it from here.
	env.Action = action.RunStep
	code := cli.Main(ctx, env, os.Args[1:])
	// After a second signal the run still wrote its status files; the
	// exit code says how it was stopped (130 after a second Ctrl-C).
	if forced := proc.ForcedExitCode(ctx); forced != 0 {
		code = forced
	}
	stop()
	if ended, _ := proc.EndDescendants(); len(ended) > 0 {
		fmt.Fprintf(os.Stderr, "benchgate: ended %s still running at exit\n", textfmt.Count(len(ended), "process", "processes"))
	}
	os.Exit(code)
}

// Command benchgate runs AI-agent benchmarks in CI and judges them row by
// row. See the README for the modes.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/benchgate/benchgate/internal/cli"
	"github.com/benchgate/benchgate/internal/proc"
)

func main() {
	// The job's tokens are in this process's environment; no child (a
	// benchmark, an agent, a model-written test) may read them from
	// /proc/<pid>/environ. Failure only loses that protection.
	if err := proc.HideEnvironment(); err != nil {
		fmt.Fprintf(os.Stderr, "benchgate: warning: %v\n", err)
	}
	ctx, stop := proc.NotifyContext(context.Background())
	code := cli.Main(ctx, cli.ProcessEnv(), os.Args[1:])
	stop()
	os.Exit(code)
}

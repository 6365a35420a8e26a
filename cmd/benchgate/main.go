// Command benchgate runs AI-agent benchmarks in CI and judges them row by
// row. See the README for the modes.
package main

import (
	"context"
	"os"

	"github.com/benchgate/benchgate/internal/cli"
	"github.com/benchgate/benchgate/internal/proc"
)

func main() {
	ctx, stop := proc.NotifyContext(context.Background())
	code := cli.Main(ctx, cli.ProcessEnv(), os.Args[1:])
	stop()
	os.Exit(code)
}

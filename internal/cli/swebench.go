package cli

import (
	"context"
	"fmt"
)

// runSwebench is replaced by the mode's real entry point.
func runSwebench(ctx context.Context, env *Env, args []string) int {
	fmt.Fprintln(env.Stderr, "benchgate: this command is not available in this build")
	return ExitUsage
}

package cli

import (
	"context"
	"fmt"
)

// runReport is replaced by the mode's real entry point.
func runReport(ctx context.Context, env *Env, args []string) int {
	fmt.Fprintln(env.Stderr, "benchgate: this command is not available in this build")
	return ExitUsage
}

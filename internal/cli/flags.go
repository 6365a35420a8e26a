package cli

import (
	"errors"
	"fmt"

	"github.com/benchgate/benchgate/internal/proc"
	"github.com/spf13/pflag"
)

// parseFlags parses args into fs and, when that fails, prints pflag's own
// error (it names the flag and the value: `invalid argument "x" for
// "--repetitions" flag`) with the command's name. ok is false when the
// caller must return code: ExitOK for --help, ExitUsage for a bad flag.
// Every command parses through here so that no flag error is dropped.
func parseFlags(env *Env, fs *pflag.FlagSet, args []string) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return ExitOK, true
	case errors.Is(err, pflag.ErrHelp):
		return ExitOK, false
	}
	fmt.Fprintf(env.Stderr, "benchgate %s: %v (see benchgate %s --help)\n", fs.Name(), err, fs.Name())
	return ExitUsage, false
}

// reapOrphans stops the benchmark and fixture processes that an earlier
// benchgate left running when it was killed with SIGKILL (they would go on
// writing into the folder this run is about to use), and says so.
func reapOrphans(env *Env, cmd string) {
	reaped, err := proc.ReapOrphans()
	if err != nil {
		fmt.Fprintf(env.Stderr, "benchgate %s: %v\n", cmd, err)
		return
	}
	for _, r := range reaped {
		fmt.Fprintf(env.Stderr, "benchgate %s: stopped process %s, left running by a benchgate that was killed\n", cmd, r)
	}
}

package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/verify"
)

// runOrdered is "benchgate ordered": the nine sets in the seed's order,
// the fixture preflight once, stop at the first set that does not pass,
// a consolidated summary, fixture cleanup and the confirmation handoff.
func runOrdered(ctx context.Context, env *Env, args []string) int {
	fs := pflag.NewFlagSet("ordered", pflag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	var bf benchFlags
	bf.register(fs, "run-level folder holding one folder per set (default <bench-dir>/reports/verification-<date>-<model>-by-set)")
	cleanupOnFailure := fs.Bool("cleanup-on-failure", false, "also run the fixture cleanup after a terminal stop")
	confirm := fs.Bool("confirm", false, "run the canonical confirmation commands after all sets passed (default: print them)")
	if code, ok := parseFlags(env, fs, args); !ok {
		return code
	}
	if name := missingValue(fs); name != "" {
		fmt.Fprintf(env.Stderr, "benchgate ordered: Missing value for --%s\n", name)
		return ExitUsage
	}
	if fs.NArg() > 0 && !(fs.NArg() == 1 && fs.Arg(0) == "--") {
		fmt.Fprintf(env.Stderr, "benchgate ordered: unexpected arguments %q\n", fs.Args())
		return ExitUsage
	}
	if env.Getenv != nil && env.Getenv("CLEANUP_ON_FAILURE") == "true" {
		*cleanupOnFailure = true
	}
	reapOrphans(env, "ordered")
	cfg, err := bf.load(env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "benchgate ordered: %v\n", err)
		return ExitUsage
	}
	base := abs(env, bf.outDir)
	if base == "" {
		base = verify.BaseDir(cfg.BenchDir, env.Now(), bf.model)
	}
	res, err := verify.RunOrdered(ctx, verify.OrderedOptions{
		Config: cfg, Provider: bf.provider, Model: bf.model, Repetitions: bf.repetitions, BaseDir: base,
		FixtureManifest: abs(env, bf.manifest), CleanupOnFailure: *cleanupOnFailure, Confirm: *confirm,
		GateProfile: bf.gateProfile, Stats: bf.stats, Report: reporter(), Log: env.Stderr, Stdout: env.Stdout, Now: env.Now,
		Progress: !bf.quiet, OnSet: bf.progress(env, "ordered").onSet,
	})
	if res != nil && env.Result != nil {
		env.Result.Ordered = res
	}
	switch {
	case err != nil:
		fmt.Fprintf(env.Stderr, "benchgate ordered: %v\n", err)
		return exitcode.Of(err)
	case !res.Passed():
		return ExitFailed
	}
	return ExitOK
}

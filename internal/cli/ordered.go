package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/verify"
)

// runOrdered is "benchgate ordered": the nine sets in the seed's order,
// the fixture preflight once, stop at the first set that does not pass,
// a consolidated summary, fixture cleanup and the confirmation handoff.
func runOrdered(ctx context.Context, env *Env, args []string) int {
	return exit(env, "ordered", orderedCommand(ctx, env, args))
}

// orderedFlags is ordered's command line as parsed.
type orderedFlags struct {
	bench                     benchFlags
	cleanupOnFailure, confirm bool
}

// orderedCommand parses ordered's flags, runs the sets and returns what
// ends it: nil when every set passed, exit 1 when one did not, or its
// own error's code.
func orderedCommand(ctx context.Context, env *Env, args []string) error {
	f, run, err := parseOrderedFlags(env, args)
	if !run {
		return err
	}
	reapOrphans(env, "ordered")
	opts, err := f.orderedOptions(env)
	if err != nil {
		return usageError(err)
	}
	res, err := verify.RunOrdered(ctx, opts)
	if res != nil && env.Result != nil {
		env.Result.Ordered = res
	}
	switch {
	case err != nil:
		return err
	case !res.Passed():
		return exitcode.WithCode(ExitFailed, nil)
	}
	return nil
}

// parseOrderedFlags parses and checks ordered's flags; run is false when
// ordered stops there (see parseCommandLine).
func parseOrderedFlags(env *Env, args []string) (f *orderedFlags, run bool, err error) {
	f = &orderedFlags{}
	fs := pflag.NewFlagSet("ordered", pflag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	f.bench.register(fs, "run-level folder holding one folder per set (default <bench-dir>/reports/verification-<date>-<model>-by-set)")
	fs.BoolVar(&f.cleanupOnFailure, "cleanup-on-failure", false, "also run the fixture cleanup after a terminal stop")
	fs.BoolVar(&f.confirm, "confirm", false, "run the canonical confirmation commands after all sets passed (default: print them)")
	if run, err := parseCommandLine(env, fs, args); !run {
		return f, false, err
	}
	if name := missingValue(fs); name != "" {
		return f, false, usagef("Missing value for --%s", name)
	}
	if fs.NArg() > 0 && !(fs.NArg() == 1 && fs.Arg(0) == "--") {
		return f, false, usagef("unexpected arguments %q", fs.Args())
	}
	if env.Getenv != nil && env.Getenv("CLEANUP_ON_FAILURE") == "true" {
		f.cleanupOnFailure = true
	}
	return f, true, nil
}

// orderedOptions loads the benchmark's configuration and says where the
// run's folder is.
func (f *orderedFlags) orderedOptions(env *Env) (verify.OrderedOptions, error) {
	bf := &f.bench
	cfg, err := bf.load(env)
	if err != nil {
		return verify.OrderedOptions{}, err
	}
	base := abs(env, bf.outDir)
	if base == "" {
		base = verify.BaseDir(cfg.BenchDir, env.Now(), bf.model)
	}
	return verify.OrderedOptions{
		Config: cfg, Provider: bf.provider, Model: bf.model, Repetitions: bf.repetitions, BaseDir: base,
		FixtureManifest: abs(env, bf.manifest), CleanupOnFailure: f.cleanupOnFailure, Confirm: f.confirm,
		GateProfile: bf.gateProfile, Stats: bf.stats, Report: reporter(), Log: env.Stderr, Stdout: env.Stdout, Now: env.Now,
		Progress: !bf.quiet, OnSet: bf.progress(env, "ordered").onSet,
	}, nil
}

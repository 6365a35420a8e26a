package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/benchgate/benchgate/internal/bench"
	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/lookback"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/verify"
)

// benchFlags are the flags set and ordered share: the benchmark contract
// and the run identity.
type benchFlags struct {
	config, benchDir, manifest, provider, model, gateProfile string
	repetitions                                              int
	outDir                                                   string
	benchmarkTimeout                                         time.Duration
	stats                                                    bool
	quiet                                                    bool
	progressMD                                               string
	passEnv                                                  []string
}

func (b *benchFlags) register(fs *pflag.FlagSet, outHelp string) {
	fs.StringVar(&b.config, "config", "", "benchmark contract file (JSON; see docs/verify.md); default: the pnpm scripts of @ghx-dev/benchmark")
	fs.StringVar(&b.benchDir, "bench-dir", "", "benchmark package directory (overrides the config's bench_dir; default: the current directory)")
	fs.StringVar(&b.manifest, "fixture-manifest", "", "shared fixture manifest the preflight checks and read-only sets use (default: <bench-dir>/fixtures/latest.json)")
	fs.StringVar(&b.provider, "provider", "", "model provider ID passed to the benchmark (required)")
	fs.StringVar(&b.model, "model", "gpt-5.1-codex-mini", "model ID passed to the benchmark")
	fs.IntVar(&b.repetitions, "repetitions", 1, "iterations per scenario")
	fs.StringVar(&b.outDir, "out-dir", "", outHelp)
	fs.StringVar(&b.gateProfile, "gate-profile", verify.DefaultGateProfile, "report gate profile recorded with the summaries")
	fs.DurationVar(&b.benchmarkTimeout, "benchmark-timeout", 0, "timeout of one benchmark run (overrides the config's benchmark_timeout)")
	fs.BoolVar(&b.stats, "stats", false, "add the statistical gate to the report and record it in tracking.json (docs/statistics.md)")
	fs.BoolVar(&b.quiet, "quiet", false, "no progress lines while the benchmark runs (by default a line per batch of new rows and at least every 30 s)")
	fs.StringArrayVar(&b.passEnv, "pass-env", nil, "a variable of benchgate's environment the benchmark and fixture commands also get (repeat; NAME or PREFIX*); by default they get only PATH, HOME, locale, proxy and certificate settings, Node/pnpm settings and the model keys, never GITHUB_TOKEN or the runner's file commands")
	fs.StringVar(&b.progressMD, "progress-md", "", "rewrite this Markdown file with a table of what has finished so far (the Action passes its job summary)")
}

// progress returns the growing table of --progress-md, or nil.
func (b *benchFlags) progress(env *Env, cmd string) *progressMD {
	if b.progressMD == "" {
		return nil
	}
	return &progressMD{path: abs(env, b.progressMD), log: env.Stderr, cmd: cmd}
}

// load resolves the contract: defaults, then the config file, then flags.
func (b *benchFlags) load(env *Env) (bench.Config, error) {
	cfg := bench.Default(env.Dir)
	if b.config != "" {
		var err error
		if cfg, err = bench.Load(abs(env, b.config), cfg); err != nil {
			return cfg, err
		}
	}
	if b.benchDir != "" {
		cfg.BenchDir = abs(env, b.benchDir)
	}
	if err := bench.CheckPassEnv("--pass-env", b.passEnv); err != nil {
		return cfg, exitcode.Usagef("%v", err)
	}
	cfg.PassEnv = append(cfg.PassEnv, b.passEnv...)
	if b.benchmarkTimeout < 0 {
		return cfg, exitcode.Usagef("--benchmark-timeout: expected a positive duration, got %v", b.benchmarkTimeout)
	}
	if b.benchmarkTimeout > 0 {
		cfg.BenchmarkTimeout = bench.Duration(b.benchmarkTimeout)
	}
	if b.provider == "" {
		return cfg, exitcode.Usagef("--provider is required (for example --provider openai)")
	}
	if b.repetitions < 1 {
		return cfg, exitcode.Usagef("--repetitions: expected an integer >= 1, got %d", b.repetitions)
	}
	// Run outside the benchmark package, the default contract finds no
	// scenario sets: say where benchgate looked and how to point it at
	// the package.
	sets := cfg.Path(cfg.ScenarioSets)
	f, err := os.Open(sets)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, exitcode.Usagef("scenario sets: %v: run benchgate in the benchmark package (the folder holding %s), or give --bench-dir <benchmark package> or --config <contract JSON> (docs/verify.md)",
			err, filepath.Base(sets))
	}
	if err == nil {
		f.Close()
	}
	origin := "the default contract (the pnpm scripts of @ghx-dev/benchmark)"
	fix := "install it or put it on PATH, or give --config <contract JSON> naming the benchmark's commands (examples/bench.json runs the simulator, benchsim)"
	if b.config != "" {
		origin = abs(env, b.config)
		fix = "install it or put it on PATH (the simulator: go build -o bin/benchsim ./cmd/benchsim in benchgate's repository, then export PATH=\"$PWD/bin:$PATH\")"
	}
	if err := cfg.CheckPrograms(origin); err != nil {
		return cfg, &exitcode.SetupError{Err: err, Fix: fix}
	}
	return cfg, nil
}

// missingValue names the first text flag given as "" or followed by
// another flag instead of its value (`--set --provider openai` would
// otherwise verify a set named "--provider"), or returns "".
func missingValue(fs *pflag.FlagSet) string {
	name := ""
	fs.Visit(func(f *pflag.Flag) {
		switch f.Value.Type() {
		case "string", "stringArray":
			if name == "" && emptyValue(f) {
				name = f.Name
			}
		}
	})
	return name
}

func abs(env *Env, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(env.Dir, p)
}

// runSet is "benchgate set": one scenario set, paired modes, row
// validation, at most two scenario-level reruns, tracking.json.
func runSet(ctx context.Context, env *Env, args []string) int {
	return exit(env, "set", setCommand(ctx, env, args))
}

// setFlags is set's command line as parsed.
type setFlags struct {
	bench         benchFlags
	set           string
	scenarioIDs   []string
	skipPreflight bool
	lookback      lookback.Options
}

// setCommand parses set's flags, runs the set and returns what ends it:
// nil when the set passed, exit 1 when it did not (its tracking file
// says why) or its own error's code.
func setCommand(ctx context.Context, env *Env, args []string) error {
	f, run, err := parseSetFlags(env, args)
	if !run {
		return err
	}
	reapOrphans(env, "set")
	opts, err := f.setOptions(env)
	if err != nil {
		return usageError(err)
	}
	res, err := verify.RunSet(ctx, opts)
	if res != nil {
		if res.TrackingPath != "" {
			fmt.Fprintln(env.Stdout, res.TrackingPath)
		}
		if env.Result != nil {
			env.Result.Set = res
		}
	}
	switch {
	case err != nil:
		return err
	case !res.Passed():
		return exitcode.WithCode(ExitFailed, nil)
	}
	return nil
}

// parseSetFlags parses and checks set's flags; run is false when set
// stops there (see parseCommandLine).
func parseSetFlags(env *Env, args []string) (f *setFlags, run bool, err error) {
	f = &setFlags{}
	fs := pflag.NewFlagSet("set", pflag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	f.bench.register(fs, "set folder (default <bench-dir>/reports/verification-<date>-<model>-by-set/<set>)")
	fs.StringVar(&f.set, "set", "", "scenario set to verify (required)")
	fs.StringArrayVar(&f.scenarioIDs, "scenario-id", nil, "verify only this scenario of the set (repeatable)")
	fs.BoolVar(&f.skipPreflight, "skip-preflight", false, "do not check the shared fixture manifest first")
	f.lookback.Register(fs, true)
	if run, err := parseCommandLine(env, fs, args); !run {
		return f, false, err
	}
	if name := missingValue(fs); name != "" {
		return f, false, usagef("Missing value for --%s", name)
	}
	if fs.NArg() > 0 && !(fs.NArg() == 1 && fs.Arg(0) == "--") {
		return f, false, usagef("unexpected arguments %q", fs.Args())
	}
	if f.set == "" {
		return f, false, usagef("--set is required (for example --set pr-exec)")
	}
	if err := bench.CheckSetName(f.set); err != nil && f.bench.outDir == "" {
		return f, false, usagef("--set: %v", err)
	}
	return f, true, nil
}

// setOptions loads the benchmark's configuration and the baseline or
// history given, and says where the set's folder is.
func (f *setFlags) setOptions(env *Env) (verify.SetOptions, error) {
	bf := &f.bench
	cfg, err := bf.load(env)
	if err != nil {
		return verify.SetOptions{}, err
	}
	if err := f.lookback.Load(env.Dir); err != nil {
		return verify.SetOptions{}, err
	}
	out := abs(env, bf.outDir)
	if out == "" {
		out = filepath.Join(verify.BaseDir(cfg.BenchDir, env.Now(), bf.model), f.set)
	}
	return verify.SetOptions{
		Config: cfg, Set: f.set, Provider: bf.provider, Model: bf.model, Repetitions: bf.repetitions,
		ScenarioIDs: f.scenarioIDs, OutDir: out, SkipPreflight: f.skipPreflight, FixtureManifest: abs(env, bf.manifest),
		GateProfile: bf.gateProfile, Stats: bf.stats, Report: reporter(), Log: env.Stderr, Now: env.Now,
		Lookback: setLookback(env, &f.lookback), Progress: !bf.quiet, OnAttempt: bf.progress(env, "set").onAttempt,
	}, nil
}

// reporter returns the in-process report the set runs over its merged
// rows. The gate is computed but not enforced here (Gate: false): the set
// records its verdict, and row validation alone decides progression.
func reporter() verify.Reporter {
	return func(ctx context.Context, req verify.ReportRequest) (bool, error) {
		res, err := report.Run(ctx, report.Options{
			SuitePaths:         req.SuitePaths,
			Dir:                req.Dir,
			GateProfile:        req.GateProfile,
			ExpectationsConfig: req.ExpectationsConfig,
			SummaryJSON:        req.SummaryJSON,
			SummaryMD:          req.SummaryMD,
			SkipBadRows:        true,
			Stdout:             req.Stdout,
			Stats:              report.StatsOptions{Enabled: req.Stats != nil},
		})
		if err != nil {
			return false, err
		}
		if st := res.Stats; st != nil && req.Stats != nil {
			*req.Stats = verify.StatsRecord{Verdict: string(st.Verdict), Passed: st.Passed, Reason: st.Reason, Lines: st.StatsLines(), JSON: res.StatsJSON, MD: res.StatsMD}
		}
		return res.Gate.Passed, nil
	}
}

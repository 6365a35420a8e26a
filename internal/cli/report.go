package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/lookback"
	"github.com/benchgate/benchgate/internal/report"
)

// runReport is `benchgate report`: Metric System v2 summary and gate over
// suite JSONL rows, with the benchmark report's flags. It exits 1 only
// when --gate is given and the gate fails; bad input exits 2 and writes
// no summary.
func runReport(ctx context.Context, env *Env, args []string) int {
	return exit(env, "report", reportCommand(ctx, env, args))
}

// reportOptions is report's command line as parsed: the report
// package's options and the baseline and history flags, with the flag
// set that tells which were given.
type reportOptions struct {
	report   report.Options
	lookback lookback.Options
	fs       *pflag.FlagSet
}

// reportCommand parses, checks and runs report, and returns what ends
// it: nil, the gate's failure (exit 1) or a usage error (exit 2).
func reportCommand(ctx context.Context, env *Env, args []string) error {
	o, run, err := parseReportOptions(env, args)
	if !run {
		return err
	}
	if err := o.validate(env.Dir); err != nil {
		return err
	}
	o.report.Dir = env.Dir
	o.report.Stdout = env.Stdout
	if env.Now != nil {
		o.report.Now = env.Now
	}
	if err := o.lookback.Load(env.Dir); err != nil {
		return usageError(err)
	}
	if msg := outputIsInput(env, o.report, &o.lookback); msg != "" {
		return usageError(errors.New(msg))
	}
	res, err := report.Run(ctx, o.report)
	if res != nil && env.Result != nil {
		env.Result.Report = res
	}
	printReportNotes(env, res)
	if res != nil && o.lookback.Any() && (err == nil || errors.Is(err, report.ErrGateFailed)) {
		if lerr := o.compareLookback(env, res, err); lerr != nil {
			return lerr
		}
	}
	if err != nil {
		err = exitcode.Rename(err, reportFlags)
		if errors.Is(err, report.ErrGateFailed) {
			return exitcode.WithCode(ExitFailed, err)
		}
		return usageError(err)
	}
	return nil
}

// parseReportOptions parses report's flags; run is false when report
// stops there (see parseCommandLine).
func parseReportOptions(env *Env, args []string) (o *reportOptions, run bool, err error) {
	o = &reportOptions{fs: pflag.NewFlagSet("report", pflag.ContinueOnError)}
	fs, opts := o.fs, &o.report
	fs.SetOutput(env.Stderr)
	fs.StringArrayVar(&opts.SuitePaths, "suite-jsonl", nil, "suite JSONL file (repeatable); default: the latest results/*-<mode>-suite.jsonl per mode")
	fs.BoolVar(&opts.Gate, "gate", false, "exit 1 when gate v2 fails, and print its checks")
	fs.StringVar(&opts.GateProfile, "gate-profile", report.ProfileVerifyPR, "gate profile: verify_pr (alias pr_fast) or verify_release")
	fs.StringVar(&opts.ExpectationsConfig, "expectations-config", "", "model-aware thresholds file (default config/expectations.json when it exists)")
	fs.StringVar(&opts.ExpectationsModel, "expectations-model", "", "provider/model entry of the expectations file (default: the rows' model)")
	fs.StringVar(&opts.SummaryJSON, "summary-json", "reports/latest-summary.json", "summary JSON output path")
	fs.StringVar(&opts.SummaryMD, "summary-md", "reports/latest-summary.md", "summary Markdown output path")
	fs.BoolVar(&opts.SkipBadRows, "skip-bad-rows", false, "skip malformed rows (counted and listed on stderr) instead of stopping")
	o.lookback.Register(fs, true)
	fs.BoolVar(&opts.Stats.Enabled, "stats", false, "add the statistical gate: paired confidence intervals per efficiency check, written to latest-stats.{json,md}; with --gate it decides the exit code")
	fs.Float64Var(&opts.Stats.Confidence, "stats-confidence", 0.95, "family-wise confidence of the statistical gate, between 0.5 and 0.999")
	fs.BoolVar(&opts.Stats.AllowUndecided, "stats-allow-undecided", false, "let inconclusive and underpowered checks pass the statistical gate")
	fs.IntVar(&opts.Stats.BenchmarkScenarios, "stats-benchmark-scenarios", 0, "how many scenarios the benchmark has in all: the scenario scope's planner asks for no more, and says when no feasible size decides (0: unknown)")
	fs.StringVar(&opts.Stats.Scope, "stats-scope", "suite", "what the statistical gate's verdict is about: suite (these scenarios, beyond the noise of their repetitions) or scenarios (scenarios like these; for large suites)")
	fs.StringVar(&opts.Stats.JSON, "stats-json", "", "statistical gate JSON output (default latest-stats.json beside --summary-json)")
	fs.StringVar(&opts.Stats.MD, "stats-md", "", "statistical gate Markdown output (default latest-stats.md beside --summary-json)")
	fs.BoolVar(&opts.Stats.Plan, "plan", false, "print the power planner: how many scenarios and repetitions would decide each efficiency check with 80% power (needs --stats; the plan is in latest-stats.{json,md} either way)")
	// Only report's gate can be told to let undecided checks pass.
	opts.Stats.UndecidedHint = "--stats-allow-undecided lets this pass"
	run, err = parseCommandLine(env, fs, args)
	if run && fs.NArg() > 0 {
		return o, false, usagef("unexpected argument %q", fs.Arg(0))
	}
	return o, run, err
}

// validate checks every value before anything is read, and says every
// wrong one, so one fix of the command line fixes them all.
func (o *reportOptions) validate(dir string) error {
	var ps problems
	for _, name := range []string{"suite-jsonl", "gate-profile", "expectations-config", "expectations-model", "summary-json", "summary-md", "baseline", "history", "run-record", "stats-json", "stats-md"} {
		if f := o.fs.Lookup(name); f.Changed && emptyValue(f) {
			ps = append(ps, "Missing value for --"+name)
		}
	}
	if given := statsFlagsGiven(o.fs); !o.report.Stats.Enabled && len(given) > 0 {
		ps = append(ps, strings.Join(given, ", ")+" needs --stats")
	}
	if _, err := report.ParseProfile(o.report.GateProfile); err != nil {
		ps = append(ps, "--gate-profile: "+err.Error())
	}
	if err := report.CheckStatsOptions(dir, o.report); err != nil {
		ps = append(ps, exitcode.Rename(err, reportFlags).Error())
	}
	if msg := conflictingPaths(dir, o.report); msg != "" {
		ps = append(ps, msg)
	}
	for _, err := range o.lookback.CheckValues() {
		ps = append(ps, err.Error())
	}
	if len(ps) > 0 {
		return ps
	}
	return nil
}

// printReportNotes says on stderr what report warned about and the
// malformed rows it skipped.
func printReportNotes(env *Env, res *report.Result) {
	if res == nil {
		return
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "benchgate report: warning: %s\n", w)
	}
	if res.SkippedRows > 0 {
		for _, pe := range res.BadRows {
			fmt.Fprintf(env.Stderr, "benchgate report: skipped %v\n", pe)
		}
		fmt.Fprintf(env.Stderr, "benchgate report: skipped %d malformed row(s)\n", res.SkippedRows)
	}
}

// compareLookback compares the summary with the baseline or history
// given (runErr is report's own outcome): an error of theirs exits 2,
// and with --gate a regression against the baseline fails a gate that
// passed.
func (o *reportOptions) compareLookback(env *Env, res *report.Result, runErr error) error {
	x := &o.lookback
	x.Gate = res
	ex, err := x.Apply(env.Dir, res.SuitePaths, lookback.SummaryModes(res.Summary), filepath.Dir(res.SummaryJSON), env.Stdout)
	if ex.Found() {
		found(env)(ex)
	}
	if err != nil {
		return usageError(err)
	}
	if runErr == nil && o.report.Gate && ex.Comparison != nil && ex.Comparison.Regressed() {
		return exitcode.WithCode(ExitFailed, fmt.Errorf("regressed against the baseline %s; %s tells which metric", x.Baseline, ex.StatsMD))
	}
	return nil
}

// reportFlags are the flags of report by the option key the report
// package names in its errors.
var reportFlags = map[string]string{
	"stats_confidence": "--stats-confidence", "stats_scope": "--stats-scope", "stats_benchmark_scenarios": "--stats-benchmark-scenarios", "stats_json": "--stats-json", "stats_md": "--stats-md",
	"summary_json": "--summary-json", "summary_md": "--summary-md", "suite_jsonl": "--suite-jsonl",
}

// statsFlagsGiven names the --stats-* flags given on the command line.
func statsFlagsGiven(fs *pflag.FlagSet) []string {
	var out []string
	for _, n := range []string{"stats-confidence", "stats-allow-undecided", "stats-scope", "stats-benchmark-scenarios", "stats-json", "stats-md", "plan"} {
		if fs.Lookup(n).Changed {
			out = append(out, "--"+n)
		}
	}
	return out
}

// emptyValue reports a value flag given as "" or followed by another flag
// instead of its value (`--summary-json --gate`), as the benchmark's
// report does ("Missing value for --flag").
func emptyValue(f *pflag.Flag) bool {
	missing := func(v string) bool { return v == "" || strings.HasPrefix(v, "--") }
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		for _, v := range sv.GetSlice() {
			if missing(v) {
				return true
			}
		}
		return false
	}
	return missing(f.Value.String())
}

// conflictingPaths names a path given twice where that cannot be meant:
// the same file as both summaries (the Markdown would overwrite the JSON
// and the run would still exit 0), or the same suite file twice (its rows
// would count double in every median and rate).
func conflictingPaths(dir string, opts report.Options) string {
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return filepath.Clean(p)
	}
	if abs(opts.SummaryJSON) == abs(opts.SummaryMD) {
		return fmt.Sprintf("--summary-json and --summary-md are the same file (%s); give two different paths", opts.SummaryJSON)
	}
	seen := map[string]string{}
	for _, p := range opts.SuitePaths {
		if first, ok := seen[abs(p)]; ok {
			return fmt.Sprintf("--suite-jsonl %s is given twice (first as %s); each suite file may be given once", p, first)
		}
		seen[abs(p)] = p
	}
	return ""
}

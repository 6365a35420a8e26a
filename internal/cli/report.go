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
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	var opts report.Options
	fs.StringArrayVar(&opts.SuitePaths, "suite-jsonl", nil, "suite JSONL file (repeatable); default: the latest results/*-<mode>-suite.jsonl per mode")
	fs.BoolVar(&opts.Gate, "gate", false, "exit 1 when gate v2 fails, and print its checks")
	fs.StringVar(&opts.GateProfile, "gate-profile", report.ProfileVerifyPR, "gate profile: verify_pr (alias pr_fast) or verify_release")
	fs.StringVar(&opts.ExpectationsConfig, "expectations-config", "", "model-aware thresholds file (default config/expectations.json when it exists)")
	fs.StringVar(&opts.ExpectationsModel, "expectations-model", "", "provider/model entry of the expectations file (default: the rows' model)")
	fs.StringVar(&opts.SummaryJSON, "summary-json", "reports/latest-summary.json", "summary JSON output path")
	fs.StringVar(&opts.SummaryMD, "summary-md", "reports/latest-summary.md", "summary Markdown output path")
	fs.BoolVar(&opts.SkipBadRows, "skip-bad-rows", false, "skip malformed rows (counted and listed on stderr) instead of stopping")
	var extras lookback.Options
	extras.Register(fs, true)
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
	if code, ok := parseFlags(env, fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "benchgate report: unexpected argument %q\n", fs.Arg(0))
		return ExitUsage
	}
	// Every value is checked before anything is read, and every wrong
	// one is said, so one fix of the command line fixes them all.
	var problems []string
	for _, name := range []string{"suite-jsonl", "gate-profile", "expectations-config", "expectations-model", "summary-json", "summary-md", "baseline", "history", "run-record", "stats-json", "stats-md"} {
		if f := fs.Lookup(name); f.Changed && emptyValue(f) {
			problems = append(problems, "Missing value for --"+name)
		}
	}
	if given := statsFlagsGiven(fs); !opts.Stats.Enabled && len(given) > 0 {
		problems = append(problems, strings.Join(given, ", ")+" needs --stats")
	}
	if _, err := report.ParseProfile(opts.GateProfile); err != nil {
		problems = append(problems, "--gate-profile: "+err.Error())
	}
	if err := report.CheckStatsOptions(env.Dir, opts); err != nil {
		problems = append(problems, exitcode.Rename(err, reportFlags).Error())
	}
	if msg := conflictingPaths(env.Dir, opts); msg != "" {
		problems = append(problems, msg)
	}
	for _, err := range extras.CheckValues() {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintf(env.Stderr, "benchgate report: %s\n", p)
		}
		return ExitUsage
	}
	opts.Dir = env.Dir
	opts.Stdout = env.Stdout
	if env.Now != nil {
		opts.Now = env.Now
	}
	if err := extras.Load(env.Dir); err != nil {
		fmt.Fprintf(env.Stderr, "benchgate report: %v\n", err)
		return ExitUsage
	}
	if msg := outputIsInput(env, opts, &extras); msg != "" {
		fmt.Fprintf(env.Stderr, "benchgate report: %s\n", msg)
		return ExitUsage
	}
	res, err := report.Run(ctx, opts)
	if res != nil && env.Result != nil {
		env.Result.Report = res
	}
	if res != nil {
		for _, w := range res.Warnings {
			fmt.Fprintf(env.Stderr, "benchgate report: warning: %s\n", w)
		}
	}
	if res != nil && res.SkippedRows > 0 {
		for _, pe := range res.BadRows {
			fmt.Fprintf(env.Stderr, "benchgate report: skipped %v\n", pe)
		}
		fmt.Fprintf(env.Stderr, "benchgate report: skipped %d malformed row(s)\n", res.SkippedRows)
	}
	if res != nil && extras.Any() && (err == nil || errors.Is(err, report.ErrGateFailed)) {
		extras.Gate = res
		ex, xerr := extras.Apply(env.Dir, res.SuitePaths, lookback.SummaryModes(res.Summary), filepath.Dir(res.SummaryJSON), env.Stdout)
		if ex.Found() {
			found(env)(ex)
		}
		if xerr != nil {
			fmt.Fprintf(env.Stderr, "benchgate report: %v\n", xerr)
			return ExitUsage
		}
		if err == nil && opts.Gate && ex.Comparison != nil && ex.Comparison.Regressed() {
			fmt.Fprintf(env.Stderr, "benchgate report: regressed against the baseline %s; %s tells which metric\n", extras.Baseline, ex.StatsMD)
			return ExitFailed
		}
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "benchgate report: %v\n", exitcode.Rename(err, reportFlags))
		if errors.Is(err, report.ErrGateFailed) {
			return ExitFailed
		}
		return ExitUsage
	}
	return ExitOK
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

// Package lookback looks beyond one run: it compares the run with a
// baseline (an earlier run's suite files, run record or summary), names
// the flaky scenarios and new failures from a history of earlier runs,
// writes this run's record for later ones, and keeps what it found in
// latest-stats.{json,md}. report and set use it; the Action renders its
// Result.
package lookback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/benchgate/benchgate/internal/baseline"
	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/history"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/runrecord"
	"github.com/benchgate/benchgate/internal/verify"
)

// StatsJSONName and StatsMDName are the stats files written beside the
// summaries.
const (
	StatsJSONName = "latest-stats.json"
	StatsMDName   = "latest-stats.md"
)

// Options are the flags that look beyond this run: a baseline to
// compare with, earlier runs to find flaky scenarios in, and the run
// record that makes this run a baseline for later ones. report takes
// them all; set takes --history and --run-record.
type Options struct {
	Baseline, History, RunRecord string
	TolerancePct                 float64
	Window                       int

	// Base and Past are the folders Load read.
	Base, Past *runrecord.Folder

	// Gate is report --stats's statistical gate, written again here with
	// the baseline and history sections so that one latest-stats file
	// holds them all.
	Gate *report.Result
}

// Register adds the flags to fs; withBaseline adds --baseline and
// --baseline-tolerance.
func (x *Options) Register(fs *pflag.FlagSet, withBaseline bool) {
	if withBaseline {
		fs.StringVar(&x.Baseline, "baseline", "", "compare with an earlier run: a folder (or file) holding its suite files, run-record.json or latest-summary.json")
		fs.Float64Var(&x.TolerancePct, "baseline-tolerance", baseline.DefaultTolerancePct, "growth in percent of active tokens, latency or tool calls allowed against the baseline")
	}
	fs.StringVar(&x.History, "history", "", "folder of earlier runs (suite files or run-record.json, at any depth) to name flaky scenarios from")
	fs.IntVar(&x.Window, "history-window", history.DefaultWindow, "most recent runs per mode looked at, this run included")
	fs.StringVar(&x.RunRecord, "run-record", "", "write this run's per-scenario record here (a later run's --baseline or --history reads it)")
}

// Any says a flag that looks beyond this run was given.
func (x *Options) Any() bool { return x.Baseline != "" || x.History != "" || x.RunRecord != "" }

// CheckValues says what is wrong with the numbers, every one of them, so
// a command can report them with its other bad values at once.
func (x *Options) CheckValues() []error {
	var errs []error
	if !baseline.ToleranceOK(x.TolerancePct) {
		errs = append(errs, exitcode.Usagef("--baseline-tolerance: expected %s, got %v", baseline.ToleranceExpected, x.TolerancePct))
	}
	if x.Window < 1 {
		errs = append(errs, exitcode.Usagef("--history-window: expected an integer >= 1, got %d", x.Window))
	}
	return errs
}

// Load checks the values and reads the baseline and history folders
// (relative paths from dir) before anything is written, so a wrong
// folder writes nothing.
func (x *Options) Load(dir string) error {
	if errs := x.CheckValues(); len(errs) > 0 {
		return errors.Join(errs...)
	}
	var err error
	if x.Baseline != "" {
		if x.Base, err = runrecord.ReadPath(Abs(dir, x.Baseline)); err != nil {
			return exitcode.Usagef("--baseline: %v", err)
		}
	}
	if x.History != "" {
		if x.Past, err = runrecord.ReadPath(Abs(dir, x.History)); err != nil {
			return exitcode.Usagef("--history: %v", err)
		}
	}
	return nil
}

// Abs is path from dir, unless it is absolute or empty.
func Abs(dir, path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// Result is what a mode found looking beyond its run: the baseline
// comparison and the history (flaky scenarios, new failures, the trend),
// with the stats files holding them. The Action renders it, never the
// files.
type Result struct {
	Comparison *baseline.Comparison
	History    *history.Report
	StatsJSON  string
	StatsMD    string
}

// Found says the result holds a comparison or a history.
func (r *Result) Found() bool { return r != nil && (r.Comparison != nil || r.History != nil) }

// Apply reads this run's suites into a record and writes the record, the
// baseline comparison and the flaky scenarios. dir resolves relative
// paths; statsDir is where the stats files go (the summaries' folder).
func (x *Options) Apply(dir string, suites []string, summary []runrecord.SummaryMode, statsDir string, out io.Writer) (*Result, error) {
	cur, err := runrecord.FromSuites(suites)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	if x.RunRecord != "" {
		p := Abs(dir, x.RunRecord)
		if err := runrecord.Write(p, cur); err != nil {
			return nil, err
		}
		fmt.Fprintf(out, "Wrote %s\n", p)
	}
	if x.Base != nil {
		// The statistical gate's scope, so that --baseline asks what
		// --stats asks (the suite scope by default).
		opts := baseline.Options{TolerancePct: x.TolerancePct}
		if g := x.Gate; g != nil && g.Stats != nil {
			opts.Scope = g.Stats.Scope
		}
		if res.Comparison, err = baseline.Compare(x.Baseline, cur, x.Base, summary, opts); err != nil {
			return nil, err
		}
	}
	if x.Past != nil {
		res.History = history.Analyze(x.Past.Runs, cur, x.Window)
	}
	if !res.Found() {
		return res, nil
	}
	res.StatsJSON, res.StatsMD = filepath.Join(statsDir, StatsJSONName), filepath.Join(statsDir, StatsMDName)
	doc := map[string]any{}
	var md []string
	if g := x.Gate; g != nil && g.Stats != nil {
		res.StatsJSON, res.StatsMD = g.StatsJSON, g.StatsMD
		if err := mergeStats(doc, g.Stats); err != nil {
			return nil, err
		}
		md = append(md, report.StatsMarkdown(g.Stats))
	}
	if res.Comparison != nil {
		doc["baseline"] = res.Comparison
		md = append(md, res.Comparison.Markdown())
	}
	if res.History != nil {
		doc["history"] = res.History
		md = append(md, res.History.Markdown())
	}
	if err := fsutil.WriteJSONAtomic(res.StatsJSON, doc); err != nil {
		return nil, err
	}
	text := "# Benchmark statistics\n\n" + strings.Join(md, "\n")
	if err := fsutil.WriteFileAtomic(res.StatsMD, []byte(text), 0o644); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "Wrote %s\n", res.StatsJSON)
	fmt.Fprintf(out, "Wrote %s\n", res.StatsMD)
	if c := res.Comparison; c != nil {
		fmt.Fprintf(out, "Benchmark baseline result: %s (%s)\n", c.Verdict, x.Baseline)
	}
	if h := res.History; h != nil {
		for _, s := range h.NewFailures {
			fmt.Fprintf(out, "Benchmark new failure: %s %s: %s\n", s.Mode, s.ID, s.Label())
		}
		for _, s := range h.Flaky {
			fmt.Fprintf(out, "Benchmark flaky scenario: %s %s: %s\n", s.Mode, s.ID, s.Label())
		}
	}
	return res, nil
}

// mergeStats puts the statistical gate's keys into doc.
func mergeStats(doc map[string]any, st *report.StatsReport) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, &doc)
}

// SummaryModes are the per-mode figures of a summary a baseline holding
// only a summary is compared with.
func SummaryModes(s *report.Summary) []runrecord.SummaryMode {
	if s == nil {
		return nil
	}
	out := make([]runrecord.SummaryMode, 0, len(s.Modes))
	for _, m := range s.Modes {
		out = append(out, runrecord.SummaryMode{Mode: m.Mode, Runs: m.Runs, SuccessRate: m.SuccessRate,
			MedianTokensActive: m.MedianTokensActive, MedianLatencyMs: m.MedianLatencyMs, MedianToolCalls: m.MedianToolCalls})
	}
	return out
}

// SetHook is set's hook: after the set's report, the lookback runs over
// its merged suite files, writes the stats files into the set folder,
// hands what it found to found, and the flaky scenarios go into
// tracking.json. nil when no flag was given.
func (x *Options) SetHook(dir string, found func(*Result)) verify.Lookback {
	if !x.Any() {
		return nil
	}
	return func(_ context.Context, suites []string, outDir string) ([]verify.FlakyScenario, error) {
		var summary []runrecord.SummaryMode
		if f, err := runrecord.ReadPath(filepath.Join(outDir, runrecord.SummaryFileName)); err == nil && len(f.Summaries) > 0 {
			summary = f.Summaries[0].Modes
		}
		ex, err := x.Apply(dir, suites, summary, outDir, io.Discard)
		if err != nil {
			return nil, err
		}
		if ex.Found() && found != nil {
			found(ex)
		}
		if ex.History == nil {
			return nil, nil
		}
		out := []verify.FlakyScenario{}
		for _, s := range ex.History.Flaky {
			out = append(out, verify.FlakyScenario{Mode: s.Mode, ScenarioID: s.ID, RunsSeen: s.EarlierSeen, RunsPassed: s.EarlierPassed, FailingNow: s.FailingNow, Label: s.Label()})
		}
		return out, nil
	}
}

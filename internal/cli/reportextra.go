package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/benchgate/benchgate/internal/action"
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

// runExtras are the flags that look beyond this run: a baseline to
// compare with, earlier runs to find flaky scenarios in, and the run
// record that makes this run a baseline for later ones. report takes
// them all; set takes --history and --run-record.
type runExtras struct {
	baseline, history, runRecord string
	tolerance                    float64
	window                       int

	base *runrecord.Folder
	past *runrecord.Folder

	// gate is report --stats's statistical gate, written again here with
	// the baseline and history sections so that one latest-stats file
	// holds them all.
	gate *report.Result
}

func (x *runExtras) register(fs *pflag.FlagSet, withBaseline bool) {
	if withBaseline {
		fs.StringVar(&x.baseline, "baseline", "", "compare with an earlier run: a folder (or file) holding its suite files, run-record.json or latest-summary.json")
		fs.Float64Var(&x.tolerance, "baseline-tolerance", baseline.DefaultTolerancePct, "growth in percent of active tokens, latency or tool calls allowed against the baseline")
	}
	fs.StringVar(&x.history, "history", "", "folder of earlier runs (suite files or run-record.json, at any depth) to name flaky scenarios from")
	fs.IntVar(&x.window, "history-window", history.DefaultWindow, "most recent runs per mode looked at, this run included")
	fs.StringVar(&x.runRecord, "run-record", "", "write this run's per-scenario record here (a later run's --baseline or --history reads it)")
}

func (x *runExtras) any() bool { return x.baseline != "" || x.history != "" || x.runRecord != "" }

// load checks the values and reads the baseline and history folders
// before anything is written, so a wrong folder writes nothing.
func (x *runExtras) load(env *Env) error {
	if x.tolerance < 0 || x.tolerance >= 100 {
		return exitcode.Usagef("--baseline-tolerance: expected a percentage from 0 to below 100, got %v", x.tolerance)
	}
	if x.window < 1 {
		return exitcode.Usagef("--history-window: expected an integer >= 1, got %d", x.window)
	}
	var err error
	if x.baseline != "" {
		if x.base, err = runrecord.ReadPath(abs(env, x.baseline)); err != nil {
			return exitcode.Usagef("--baseline: %v", err)
		}
	}
	if x.history != "" {
		if x.past, err = runrecord.ReadPath(abs(env, x.history)); err != nil {
			return exitcode.Usagef("--history: %v", err)
		}
	}
	return nil
}

// extrasResult is what the extras found.
type extrasResult struct {
	Comparison *baseline.Comparison
	History    *history.Report
	StatsJSON  string
	StatsMD    string
}

// apply reads this run's suites into a record and writes the record, the
// baseline comparison and the flaky scenarios. statsDir is where the stats
// files go (the summaries' folder).
func (x *runExtras) apply(env *Env, suites []string, summary []runrecord.SummaryMode, statsDir string, out io.Writer) (*extrasResult, error) {
	cur, err := runrecord.FromSuites(suites)
	if err != nil {
		return nil, err
	}
	res := &extrasResult{}
	if x.runRecord != "" {
		p := abs(env, x.runRecord)
		if err := runrecord.Write(p, cur); err != nil {
			return nil, err
		}
		fmt.Fprintf(out, "Wrote %s\n", p)
	}
	if x.base != nil {
		if res.Comparison, err = baseline.Compare(x.baseline, cur, x.base, summary, baseline.Options{TolerancePct: x.tolerance}); err != nil {
			return nil, err
		}
	}
	if x.past != nil {
		res.History = history.Analyze(x.past.Runs, cur, x.window)
	}
	if res.Comparison == nil && res.History == nil {
		return res, nil
	}
	defer func() {
		// The Action renders what was found from here, never from the files.
		if env.Result != nil {
			env.Result.Lookback = &action.Lookback{Comparison: res.Comparison, History: res.History, StatsJSON: res.StatsJSON, StatsMD: res.StatsMD}
		}
	}()
	res.StatsJSON, res.StatsMD = filepath.Join(statsDir, StatsJSONName), filepath.Join(statsDir, StatsMDName)
	doc := map[string]any{}
	var md []string
	if g := x.gate; g != nil && g.Stats != nil {
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
		fmt.Fprintf(out, "Benchmark baseline result: %s (%s)\n", c.Verdict, x.baseline)
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

func summaryModes(s *report.Summary) []runrecord.SummaryMode {
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

// lookback is set's hook: after the set's report, the extras run over its
// merged suite files, write the stats files into the set folder, and the
// flaky scenarios go into tracking.json. nil when no extra was asked for.
func (x *runExtras) lookback(env *Env) verify.Lookback {
	if !x.any() {
		return nil
	}
	return func(_ context.Context, suites []string, outDir string) ([]verify.FlakyScenario, error) {
		var summary []runrecord.SummaryMode
		if f, err := runrecord.ReadPath(filepath.Join(outDir, runrecord.SummaryFileName)); err == nil && len(f.Summaries) > 0 {
			summary = f.Summaries[0].Modes
		}
		ex, err := x.apply(env, suites, summary, outDir, io.Discard)
		if err != nil || ex.History == nil {
			return nil, err
		}
		out := []verify.FlakyScenario{}
		for _, s := range ex.History.Flaky {
			out = append(out, verify.FlakyScenario{Mode: s.Mode, ScenarioID: s.ID, RunsSeen: s.EarlierSeen, RunsPassed: s.EarlierPassed, FailingNow: s.FailingNow, Label: s.Label()})
		}
		return out, nil
	}
}

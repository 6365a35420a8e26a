package action

import (
	"fmt"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/baseline"
	"github.com/benchgate/benchgate/internal/history"
	"github.com/benchgate/benchgate/internal/jobsummary"
	"github.com/benchgate/benchgate/internal/prcomment"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/stats"
	"github.com/benchgate/benchgate/internal/suite"
	"github.com/benchgate/benchgate/internal/testenv/gfm"
	"github.com/benchgate/benchgate/internal/testenv/mermaid"
)

// TestCommentBody: the comment opens with the marker and the verdict,
// shows the efficiency deltas with their intervals, the baseline's
// regression, the failing and flaky scenarios (ten, the rest counted)
// and links to the run and each artifact; it renders on GitHub and fits
// a comment, also for a nine-set run of 300 scenarios each.
func TestCommentBody(t *testing.T) {
	marker := prcomment.Marker("bench", "bench", "report")
	check := func(e report.EfficiencyCheck) report.EfficiencyCheck { return e }
	res := &results{Gate: &report.GateResult{Profile: "verify_pr"}}
	s := &stepResult{
		Plan: &Plan{Mode: "report", Args: []string{"report", "--gate", "--stats"}}, Res: res, Code: 1,
		Stats: []statsEntry{{Verdict: "fail", Checks: []report.EfficiencyCheck{
			check(report.EfficiencyCheck{Metric: "tokens_active", Result: stats.Result{Scenarios: 12, EstimatePct: -30, LowPct: -33.4, HighPct: -26.3, MinReductionPct: 15, Verdict: stats.Fail}}),
			check(report.EfficiencyCheck{Metric: "latency", Result: stats.Result{Scenarios: 12, EstimatePct: 10, LowPct: -5, HighPct: 20, MinReductionPct: 15, Verdict: stats.Inconclusive,
				Plan: &stats.Plan{Summary: "about 34 scenarios at 3 repetitions would give 80% power to decide it at the observed reduction (10.00%; this run's 12 give 31%)"}}}),
			check(report.EfficiencyCheck{Metric: "tool_calls", Result: stats.Result{Scenarios: 0, MinReductionPct: 20, Verdict: stats.Underpowered}}),
		}}},
		Lookback: &Lookback{
			Comparison: &baseline.Comparison{Verdict: baseline.Fail, TolerancePct: 10, Modes: []baseline.Mode{{Mode: "ghx",
				Efficiency: []baseline.Efficiency{{Result: stats.Result{Name: "active_tokens", Verdict: stats.Fail, EstimatePct: -30, LowPct: -33.4, HighPct: -26.3, Scenarios: 12}}}}}},
			History: &history.Report{Flaky: []history.Scenario{{Mode: "ghx", ID: "s-003", RunsSeen: 3, RunsPassed: 2, Outcomes: "FPP"}},
				Modes: []history.ModeRuns{{Mode: "agent_direct", Trend: points(3, 100, 1000, 20000)}, {Mode: "ghx", Trend: points(3, 90, 500, 10000)}}},
		},
		Artifacts:   []artifact{{Name: "benchgate-bench-run", ID: 42}, {Name: "failed-upload", Err: fmt.Errorf("no")}},
		RunURL:      "https://github.com/o/r/actions/runs/7",
		ArtifactURL: func(id int64) string { return fmt.Sprintf("https://github.com/o/r/actions/runs/7/artifacts/%d", id) },
	}
	res.Suites = map[string]*suiteStats{"ghx": {}}
	res.SuiteOrder = []string{"ghx"}
	for i := 0; i < 14; i++ {
		res.Suites["ghx"].Violations = append(res.Suites["ghx"].Violations, violation(fmt.Sprintf("s-%03d|<x>", i)))
	}
	s.Verdict = judge(s.Plan, res, s.Stats, s.Lookback, 1)
	body := commentBody(marker, s)
	gfm.Require(t, "comment", body)
	for _, want := range []string{
		marker + "\n### benchgate report: fail (gate not enforced)\n\n**FAIL** (exit code 1), decided by the statistical gate",
		"| tokens_active | -30.00% | [-33.40%, -26.30%] | 12 | 15.00% | FAIL |",
		"| tool_calls | 0.00% | – | 0 | 20.00% | UNDERPOWERED |",
		"**To decide**: latency: about 34 scenarios at 3 repetitions would give 80% power to decide it at the observed reduction (10.00%; this run's 12 give 31%).",
		"**Against the baseline**: FAIL: ghx active_tokens +30.0% [+26.3%, +33.4%], tolerance +10%.",
		"**Failing scenarios** (14): `ghx/s-000|<x>`,", "`ghx/s-009|<x>` and 4 more.",
		"**Flaky scenarios** (1): `ghx/s-003 (flaky: passed 2 of 3 recent runs)`.",
		"**Trend** (up to 3 runs, oldest → newest): ghx success rate 90.0% → 92.0%, median active tokens 500 → 510, median wall latency 10.0 s → 10.2 s; agent_direct success rate 100.0% → 102.0%, median active tokens 1000 → 1020, median wall latency 20.0 s → 20.4 s.",
		"[job summary](https://github.com/o/r/actions/runs/7) · [benchgate-bench-run](https://github.com/o/r/actions/runs/7/artifacts/42)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("comment lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "failed-upload") {
		t.Error("an artifact that failed to upload is linked")
	}

	// Nine sets of 300 scenarios, every stats line long: the comment
	// still fits and keeps its verdict and links.
	ws := t.TempDir()
	big := bigOrdered(t, ws)
	var entries []statsEntry
	for _, set := range big.Sets {
		entries = append(entries, statsEntry{Set: set.Tracking.Set, Verdict: "inconclusive", Lines: []string{strings.Repeat("tokens_active 1.00% [-2.00%, 3.00%] ", 200)}})
	}
	bs := &stepResult{Plan: &Plan{Mode: "ordered"}, Res: big, Code: 1, Stats: entries, RunURL: s.RunURL}
	bs.Verdict = judge(bs.Plan, big, entries, nil, 1)
	body = commentBody(marker, bs)
	if len(body) > prcomment.MaxBody {
		t.Fatalf("comment of %d bytes", len(body))
	}
	gfm.Require(t, "comment of nine sets", body)
	if !strings.Contains(body, "(1200 more left out") && !strings.Contains(body, "and 1190 more") {
		t.Errorf("the failing scenarios are not counted:\n%s", body[:2000])
	}
	c := &prcomment.Comment{Repository: "o/r", PullRequest: 1, Marker: marker, Body: body}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
}

func violation(id string) suite.Diagnostic {
	return suite.Diagnostic{Mode: "ghx", File: "ghx-suite.jsonl", Line: 1, ScenarioID: id, Field: "success", Got: "false"}
}

// points is a trend of n runs growing by 1% of their first value a run.
func points(n int, success, tokens, latency float64) []history.Point {
	var out []history.Point
	for i := 0; i < n; i++ {
		f := 1 + float64(i)/100
		s, tk, l := success+float64(i), tokens*f, latency*f
		out = append(out, history.Point{Source: fmt.Sprintf("run-%d", i), SuccessRatePct: &s, MedianActiveTokens: &tk, MedianLatencyMs: &l})
	}
	return out
}

// TestTrendCharts: with a history, the summary shows the success rate,
// median active tokens and median latency of the last runs both modes
// have, agent_direct as bars and ghx as a line, drawn by the real
// mermaid; runs only one mode has are left out.
func TestTrendCharts(t *testing.T) {
	var doc jobsummary.Doc
	sec := doc.Section("Baseline and history")
	trendCharts(sec, &history.Report{Modes: []history.ModeRuns{{Mode: "agent_direct", Trend: points(4, 100, 1000, 20000)}, {Mode: "ghx", Trend: points(6, 90, 500, 10000)}}})
	md := doc.Render(jobsummary.MaxBytes)
	gfm.Require(t, "trend", md)
	charts := mermaid.Charts(md)
	if len(charts) != 3 || !strings.Contains(md, "Trend over the last 4 runs of both modes") {
		t.Fatalf("%d charts:\n%s", len(charts), md)
	}
	if !strings.Contains(charts[1], "line [510, 515, 520, 525]") || !strings.Contains(charts[1], "bar [1000, 1010, 1020, 1030]") {
		t.Errorf("tokens chart:\n%s", charts[1])
	}
	for i, svg := range mermaid.Render(t, charts...) {
		if !strings.Contains(svg, `class="bar-plot-0"`) || !strings.Contains(svg, `class="line-plot-1"`) {
			t.Errorf("chart %d does not draw both modes", i+1)
		}
	}
	var none jobsummary.Doc
	trendCharts(none.Section("x"), &history.Report{Modes: []history.ModeRuns{{Mode: "ghx", Trend: points(5, 90, 500, 10000)}}})
	if strings.Contains(none.Render(jobsummary.MaxBytes), "mermaid") {
		t.Error("a trend of one mode was drawn")
	}
}

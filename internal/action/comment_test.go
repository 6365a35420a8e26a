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
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"github.com/benchgate/benchgate/internal/testsupport/mermaid"
)

// TestCommentBody: the comment is the verdict: the headline, every
// check in one table with the statistics' own "how much more" sentence,
// the baseline's regression, the failing scenarios (new failures first,
// ten, the rest counted), the flaky ones judged on earlier runs, and
// links to the run and each artifact; it renders on GitHub and fits a
// comment, also for a nine-set run of 300 scenarios each.
func TestCommentBody(t *testing.T) {
	marker := prcomment.Marker("bench", "bench", "report")
	st := &report.StatsReport{Verdict: stats.Fail, Efficiency: []report.EfficiencyCheck{
		{Metric: "tokens_active", Check: "efficiency_tokens_active_reduction", V2Value: -28, Result: stats.Result{Scenarios: 12, EstimatePct: -30, LowPct: -33.4, HighPct: -26.3, MinReductionPct: 15, Verdict: stats.Fail, Confidence: 0.9833}},
		{Metric: "latency", Check: "efficiency_latency_reduction", V2Value: 12, Result: stats.Result{Confidence: 0.975, Scenarios: 12, EstimatePct: 10, LowPct: -5, HighPct: 20, MinReductionPct: 15, Verdict: stats.Inconclusive,
			Scope: stats.ScopeSuite, ScopeText: "on these 12 scenarios (3 repetitions per arm), beyond the noise of the repetitions; it claims nothing about scenarios outside this suite",
			ToDecide: "about 34 scenarios at 3 repetitions would give 80% power to decide it at the observed reduction (10.00%; this run's 12 give 31%)"}},
		{Metric: "tool_calls", Check: "efficiency_tool_call_reduction", Result: stats.Result{Scenarios: 0, MinReductionPct: 20, Verdict: stats.Underpowered}},
	}}
	lb := &Lookback{
		Comparison: &baseline.Comparison{Verdict: baseline.Fail, TolerancePct: 10, Modes: []baseline.Mode{{Mode: "ghx",
			Efficiency: []baseline.Efficiency{{Result: stats.Result{Name: "active_tokens", Verdict: stats.Fail, EstimatePct: -30, LowPct: -33.4, HighPct: -26.3, Scenarios: 12}}}}}},
		History: &history.Report{Flaky: []history.Scenario{{Mode: "ghx", ID: "s-003", RunsSeen: 4, RunsPassed: 3, EarlierSeen: 3, EarlierPassed: 2, Outcomes: "FPPP"}},
			NewFailures: []history.Scenario{{Mode: "ghx", ID: "s-012|<x>"}}},
	}
	res := &results{Suites: map[string]*suiteStats{"ghx": {Iterations: map[string]int{}}}, SuiteOrder: []string{"ghx"}}
	for i := 0; i < 14; i++ {
		id := fmt.Sprintf("s-%03d|<x>", i)
		res.Suites["ghx"].Violations = append(res.Suites["ghx"].Violations, violation(id))
		res.Suites["ghx"].Iterations[id] = 5
	}
	plan := &Plan{Mode: "report", Args: []string{"report", "--gate", "--stats"}}
	s := &stepResult{Plan: plan, Res: res, Code: 1,
		Artifacts:   []artifact{{Name: "benchgate-bench-run", ID: 42}, {Name: "failed-upload", Err: fmt.Errorf("no")}},
		RunURL:      "https://github.com/o/r/actions/runs/7",
		ArtifactURL: func(id int64) string { return fmt.Sprintf("https://github.com/o/r/actions/runs/7/artifacts/%d", id) },
	}
	s.Verdict = judgeOf(plan, res, &Result{Report: &report.Result{Stats: st}, Lookback: lb}, 1)
	linkArtifacts(s.Verdict, s.Artifacts, s.ArtifactURL, func(p string) string { return p })
	body := commentBody(marker, s)
	gfm.Require(t, "comment", body)
	for _, want := range []string{
		marker + "\n❌ **benchgate report: fail**: active-token reduction -30.00% [-33.40%, -26.30%], needs ≥ 15.00%; latency reduction 10.00% [-5.00%, 20.00%], needs ≥ 15.00% (undecided); and 2 more · 2 checks failed, 2 undecided, 14 scenarios failing (1 new against the history)",
		"| ❌ | active-token reduction | -30.00% [-33.40%, -26.30%] | ≥ 15.00% | **decided the exit code**; paired estimate over 12 scenarios, 98.33% interval; gate v2's median of per-scenario reductions: -28.00% |",
		"| ⚠️ | tool-call reduction | not measured | ≥ 20.00% | **decided the exit code**; no scenario has values in both modes; gate v2's median of per-scenario reductions: 0.00% |",
		"latency: about 34 scenarios at 3 repetitions would give 80% power to decide it at the observed reduction (10.00%; this run's 12 give 31%) |",
		// The scope a maintainer reads: what the verdict is about.
		"| ⚠️ | latency reduction | 10.00% [-5.00%, 20.00%] | ≥ 15.00% | **decided the exit code**; on these 12 scenarios (3 repetitions per arm), beyond the noise of the repetitions; it claims nothing about scenarios outside this suite; ",
		"| ❌ | ghx: active_tokens change against the baseline | 30.00% [26.30%, 33.40%] | ≤ 10.00% |",
		"**Failing scenarios** (14):\n\n- **new** `s-012|‹x>`: 1 of 5 iterations failed in ghx; first error: `success: expected true, got false`",
		"- and 4 more (job summary)",
		"**Flaky in earlier runs** (1): `ghx/s-003` (passed 2 of 3 earlier runs).",
		"[benchgate-bench-run](https://github.com/o/r/actions/runs/7/artifacts/42)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("comment lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "failed-upload") {
		t.Error("an artifact that failed to upload is linked")
	}
	if n := strings.Count(body, "about 34 scenarios"); n != 1 {
		t.Errorf("the planner's sentence is in the comment %d times, want once", n)
	}

	// Nine sets of 300 scenarios: the comment still fits and keeps its
	// verdict and links.
	ws := t.TempDir()
	big := bigOrdered(t, ws)
	bs := &stepResult{Plan: &Plan{Mode: "ordered"}, Res: big, Code: 1, RunURL: s.RunURL}
	bs.Verdict = judgeOf(bs.Plan, big, nil, 1)
	body = commentBody(marker, bs)
	if len(body) > prcomment.MaxBody {
		t.Fatalf("comment of %d bytes", len(body))
	}
	gfm.Require(t, "comment of nine sets", body)
	if !strings.Contains(body, "- and 1190 more") {
		t.Errorf("the failing scenarios are not counted:\n%s", body[:2000])
	}
	c := &prcomment.Comment{Repository: "o/r", PullRequest: 1, Marker: marker, Body: body}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
}

func violation(id string) suite.Diagnostic {
	return suite.Diagnostic{Mode: "ghx", File: "ghx-suite.jsonl", Line: 1, ScenarioID: id, Field: "success", Expected: "true", Got: "false"}
}

// points is a trend of n runs growing by 1% of their first value a run;
// the success rate falls by one point a run, so it never passes 100%.
func points(n int, success, tokens, latency float64) []history.Point {
	var out []history.Point
	for i := 0; i < n; i++ {
		f := 1 + float64(i)/100
		s, tk, l := success-float64(i), tokens*f, latency*f
		out = append(out, history.Point{Source: fmt.Sprintf("run-%d", i), SuccessRatePct: &s, MedianActiveTokens: &tk, MedianLatencyMs: &l})
	}
	return out
}

// TestTrendCharts: with a history, the summary shows the success rate,
// median active tokens and median latency of the last runs both modes
// have, agent_direct as bars and ghx as a line, drawn by the real
// mermaid; runs only one mode has are left out.
// TestFixtureRatesAreRates: the trends the tests and docs images draw
// never show a success rate above 100% (one did, in docs/images).
func TestFixtureRatesAreRates(t *testing.T) {
	for _, pts := range [][]history.Point{points(4, 100, 1000, 20000), points(6, 90, 500, 10000), points(6, 97, 1000, 20000), points(6, 95, 500, 10000), points(3, 100, 1000, 20000)} {
		for _, p := range pts {
			if r := *p.SuccessRatePct; r < 0 || r > 100 {
				t.Errorf("fixture run %s has a success rate of %v%%", p.Source, r)
			}
		}
	}
}

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

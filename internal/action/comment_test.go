package action

import (
	"fmt"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/baseline"
	"github.com/benchgate/benchgate/internal/history"
	"github.com/benchgate/benchgate/internal/prcomment"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/stats"
	"github.com/benchgate/benchgate/internal/suite"
	"github.com/benchgate/benchgate/internal/testenv/gfm"
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
			History: &history.Report{Flaky: []history.Scenario{{Mode: "ghx", ID: "s-003", RunsSeen: 3, RunsPassed: 2, Outcomes: "FPP"}}},
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

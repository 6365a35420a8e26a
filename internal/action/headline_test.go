package action

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"

	"github.com/benchgate/benchgate/internal/baseline"
	"github.com/benchgate/benchgate/internal/jobsummary"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/stats"
	"github.com/benchgate/benchgate/internal/suite"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"github.com/benchgate/benchgate/internal/verdict"
	"github.com/benchgate/benchgate/internal/verify"
)

// judgeOf judges a finished step the way Run does, with no event.
func judgeOf(p *Plan, res *results, m *Result, code int) *verdict.Verdict {
	if m == nil {
		m = &Result{}
	}
	return judge(judgeInput{Plan: p, Res: res, Mode: m, Code: code, Status: Status(code), Getenv: func(string) string { return "" }, Rel: func(s string) string { return s }})
}

// gateOf is a report whose gate v2 has the given checks.
func gateOf(checks ...report.Check) *Result {
	g := report.GateResult{Profile: "verify_pr", Passed: true, Checks: checks}
	for _, c := range checks {
		g.Passed = g.Passed && c.Passed
	}
	return &Result{Report: &report.Result{Summary: &report.Summary{}, Gate: g}}
}

func chk(name string, value, threshold float64, op string) report.Check {
	ok := value >= threshold
	if op == "<=" {
		ok = value <= threshold
	}
	return report.Check{Name: name, Value: value, Threshold: threshold, Operator: op, Passed: ok}
}

// TestJudge: the headline names what decided the exit code with its
// value against its threshold; "not enforced" appears only when the
// user turned the gate off, and then says what would have failed. The
// cases are checked by hand against the figures.
func TestJudge(t *testing.T) {
	toolCalls := chk("efficiency_tool_call_reduction", 16.67, 20, ">=")
	tokens := chk("efficiency_tokens_active_reduction", 61.10, 15, ">=")
	success := chk("reliability_success_rate_non_inferior", 0, -5, ">=")
	collapse := []report.Check{chk("reliability_success_rate_non_inferior", -30, -5, ">="), chk("reliability_output_validity", 85, 97, ">="),
		chk("reliability_timeout_stall_rate", 5, 2, "<="), chk("reliability_runner_failure_rate", 0, 2, "<=")}
	statsOf := func(v stats.Verdict, allow bool, effs ...report.EfficiencyCheck) *Result {
		m := gateOf(success, toolCalls)
		passed := v == stats.Pass || (allow && v != stats.Fail)
		m.Report.Stats = &report.StatsReport{Verdict: v, Passed: passed, AllowUndecided: allow, Reliability: []report.Check{success}, Efficiency: effs}
		return m
	}
	underpowered := report.EfficiencyCheck{Metric: "tokens_active", Check: "efficiency_tokens_active_reduction", V2Value: 61.10,
		Result: stats.Result{Scenarios: 4, EstimatePct: 31.61, LowPct: -7.81, HighPct: 57.25, MinReductionPct: 15, Verdict: stats.Underpowered, Confidence: 0.9833}}
	clear := report.EfficiencyCheck{Metric: "tokens_active", Check: "efficiency_tokens_active_reduction", V2Value: 61.10,
		Result: stats.Result{Scenarios: 12, EstimatePct: 62.84, LowPct: 55, HighPct: 70, MinReductionPct: 15, Verdict: stats.Pass, Confidence: 0.9833}}
	regressed := &Lookback{Comparison: &baseline.Comparison{Verdict: baseline.Fail, TolerancePct: 10, Modes: []baseline.Mode{{Mode: "ghx",
		Efficiency: []baseline.Efficiency{{Result: stats.Result{Name: "active_tokens", Verdict: stats.Fail, EstimatePct: -30, LowPct: -33.4, HighPct: -26.3, Scenarios: 12}}}}}}}
	set := func(name, status string, gate *verify.GateRecord, failing int) *setResult {
		s := &setResult{Tracking: verify.Tracking{Set: name, FinalStatus: status, Gate: gate}, Suites: map[string]*suiteStats{"ghx": {Iterations: map[string]int{"s-1": 4}}}, SuiteOrder: []string{"ghx"}}
		for i := 0; i < failing; i++ {
			s.Suites["ghx"].Violations = append(s.Suites["ghx"].Violations, suite.Diagnostic{Mode: "ghx", File: "ghx-suite.jsonl", Line: i + 1, ScenarioID: "s-1", Field: "success", Got: "false"})
		}
		return s
	}
	ordered := &Result{Ordered: &verify.OrderedResult{Summary: &verify.Consolidated{}}}
	for i, name := range []string{"pr-exec", "pr-thread-mutations", "issues", "release-delivery", "workflows", "projects-v2", "pr-review-reads", "ci-diagnostics", "ci-log-analysis"} {
		st := "not_run"
		switch {
		case i < 2:
			st = "pass"
		case i == 2:
			st = "terminal_fail"
		}
		ordered.Ordered.Summary.Sets = append(ordered.Ordered.Summary.Sets, verify.SetSummary{Set: name, Status: st})
	}
	tests := []struct {
		name  string
		mode  string
		args  []string
		res   results
		m     *Result
		code  int
		want  string // the headline's start, up to the counts
		also  []string
		never []string
	}{
		{name: "report without gate, gate failed", mode: "report", m: gateOf(success, toolCalls),
			want: "⚠️ **benchgate report: not enforced**: 1 of 2 checks would have failed (gate: false): tool-call reduction 16.67%, needs ≥ 20.00% · 0 scenarios failing", never: []string{"checks failed", ": pass"}},
		{name: "report without gate, all pass", mode: "report", m: gateOf(success, tokens),
			want: "✅ **benchgate report: pass**: all 2 checks pass (not enforced: gate: false); closest to its threshold: success rate change, ghx against agent_direct +0.00 points, needs ≥ -5.00 points · 0 checks failed"},
		{name: "report with gate failing", mode: "report", args: []string{"--gate"}, m: gateOf(success, toolCalls), code: 1,
			want: "❌ **benchgate report: fail**: tool-call reduction 16.67%, needs ≥ 20.00% · 1 check failed, 0 scenarios failing", never: []string{"not enforced"}},
		{name: "report with gate, reliability collapse", mode: "report", args: []string{"--gate"}, m: gateOf(collapse...), code: 1,
			want: "❌ **benchgate report: fail**: success rate change, ghx against agent_direct -30.00 points, needs ≥ -5.00 points; output validity (ghx) 85.00%, needs ≥ 97.00%; and 1 more · 3 checks failed"},
		{name: "report with gate passing and a regression", mode: "report", args: []string{"--gate"}, m: gateOf(success, tokens), code: 1,
			want: "❌ **benchgate report: fail**: ghx: active_tokens change against the baseline 30.00% [26.30%, 33.40%], needs ≤ 10.00%"},
		{name: "report with gate and stats: the statistical gate passes though v2's failed", mode: "report", args: []string{"--gate", "--stats"}, m: statsOf(stats.Pass, false, clear),
			want: "✅ **benchgate report: pass**: all 2 checks pass", also: []string{"gate v2's median of per-scenario reductions: 61.10%"}, never: []string{"not enforced", "tool-call"}},
		{name: "report with gate and stats, underpowered", mode: "report", args: []string{"--gate", "--stats"}, m: statsOf(stats.Underpowered, false, underpowered), code: 1,
			want: "❌ **benchgate report: fail**: active-token reduction 31.61% [-7.81%, 57.25%], needs ≥ 15.00% (undecided) · 0 checks failed"},
		{name: "report with undecided allowed", mode: "report", args: []string{"--gate", "--stats", "--stats-allow-undecided"}, m: statsOf(stats.Underpowered, true, underpowered),
			want: "⚠️ **benchgate report: pass**: 1 of 2 checks pass; undecided, and allowed to pass: active-token reduction 31.61%"},
		{name: "report with stats, no gate", mode: "report", args: []string{"--stats"}, m: statsOf(stats.Underpowered, false, underpowered),
			want: "⚠️ **benchgate report: not enforced**: 1 of 2 checks would have failed (gate: false): active-token reduction 31.61% [-7.81%, 57.25%], needs ≥ 15.00% (undecided) · 0 scenarios failing"},
		{name: "report stopped on bad input", mode: "report", args: []string{"--gate"}, res: results{ModeError: "--stats-confidence: expected 0.5 to 0.999, got 95"}, code: 2,
			want: "❌ **benchgate report: error**: stopped before judging: bad input or setup: --stats-confidence: expected 0.5 to 0.999, got 95", never: []string{"checks failed"}},
		{name: "report that could not run", mode: "report", args: []string{"--gate"}, res: results{ModeError: "no suite files under results/"}, code: 1,
			want: "❌ **benchgate report: fail**: stopped before judging: no suite files under results/", never: []string{"checks failed"}},
		{name: "ordered stopped by its preflight", mode: "ordered", res: results{ModeError: "preflight: fixtures/latest.json: no such file"}, code: 1,
			want: "❌ **benchgate ordered: fail**: stopped before judging: preflight: fixtures/latest.json: no such file"},
		{name: "set passing by rows, its gate recorded as failed", mode: "set", res: results{Sets: []*setResult{set("pr-exec", "pass", &verify.GateRecord{Ran: true, Passed: false, Profile: "verify_pr"}, 0)}},
			want: "✅ **benchgate set: pass**: the check passes · 0 checks failed", also: []string{"| ❌ | pr-exec: gate verify_pr | FAIL | – | recorded only"}, never: []string{"not enforced"}},
		{name: "set that wrote no rows", mode: "set", code: 1,
			res:  results{Sets: []*setResult{{Tracking: verify.Tracking{Set: "pr-exec", FinalStatus: "terminal_fail", Error: "zero rows", RowsExpected: map[string]int{"ghx": 4, "agent_direct": 4}}}}},
			want: "❌ **benchgate set: fail**: pr-exec: failing rows after reruns (success, output_valid, error null): terminal_fail, 0 of 8 rows written: zero rows · 1 check failed"},
		{name: "set failing by rows, its gate passed", mode: "set", res: results{Sets: []*setResult{set("pr-exec", "terminal_fail", &verify.GateRecord{Ran: true, Passed: true, Profile: "verify_pr"}, 2)}}, code: 1,
			want: "❌ **benchgate set: fail**: pr-exec: failing rows after reruns (success, output_valid, error null) 2 rows, needs ≤ 0 rows · 1 check failed, 1 scenario failing", never: []string{"not enforced"}},
		{name: "ordered stopping at set 3", mode: "ordered", m: ordered, code: 1,
			res:  results{Sets: []*setResult{set("pr-exec", "pass", &verify.GateRecord{Ran: true, Passed: false, Profile: "verify_pr"}, 0), set("pr-thread-mutations", "pass", nil, 0), set("issues", "terminal_fail", nil, 3)}},
			want: "❌ **benchgate ordered: fail**: issues: failing rows after reruns (success, output_valid, error null) 3 rows, needs ≤ 0 rows · 1 check failed (and 1 recorded only), 1 scenario failing, 6 of 9 sets not run", never: []string{"not enforced"}},
		{name: "swebench with fail-on never", mode: "swebench-batch", code: 0,
			res:  results{Batch: &batchResult{Instances: []instanceStatus{{InstanceID: "a", Status: "success"}, {InstanceID: "b", Status: "failed", FailureReasonCode: "patch_check"}, {InstanceID: "c", Status: "incomplete"}}}},
			want: "⚠️ **benchgate swebench-batch: not enforced**: 2 of 3 instances did not succeed (fail-on: never)", also: []string{"- `b`: `failed: patch_check`", "- `c`: `incomplete`"}, never: []string{"checks failed", "scenario", "swebench-batch: fail", "swebench-batch: pass", "`c`: failed"}},
		{name: "qa-audit", mode: "qa-audit", code: 1, res: results{Audit: &auditResult{Cases: []auditCase{{Verdict: "Valid"}, {ID: "q2", Verdict: "Incorrect"}, {Verdict: "Valid"}}}},
			want: "❌ **benchgate qa-audit: fail**: questions not Valid 1 question, needs ≤ 0 questions · 1 check failed, 1 of 3 questions failing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.res
			m := tc.m
			if m == nil {
				m = &Result{}
			}
			if tc.name == "report with gate passing and a regression" {
				m.Lookback = regressed
			}
			v := judgeOf(&Plan{Mode: tc.mode, Args: append([]string{tc.mode}, tc.args...)}, &res, m, tc.code)
			h := v.Headline()
			if !strings.HasPrefix(h, tc.want) {
				t.Errorf("headline\n%s\nwant it to start\n%s", h, tc.want)
			}
			all := h + "\n" + strings.Join(v.Blocks(), "\n")
			for _, w := range tc.also {
				if !strings.Contains(all, w) {
					t.Errorf("comment lacks %q:\n%s", w, all)
				}
			}
			for _, w := range tc.never {
				if strings.Contains(all, w) {
					t.Errorf("comment has %q:\n%s", w, all)
				}
			}
			if err := v.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

// bigOrdered is a nine-set ordered run of 300 scenarios per set, both
// modes, three repetitions, whose four failing sets have every row failing and whose own
// Markdown summaries are long: far more than GitHub's 1 MiB.
func bigOrdered(t *testing.T, ws string) *results {
	res := &results{}
	sets := []string{"pr-exec", "pr-thread-mutations", "issues", "release-delivery", "workflows", "projects-v2", "pr-review-reads", "ci-diagnostics", "ci-log-analysis"}
	for i, name := range sets {
		dir := filepath.Join(ws, "out", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		failing := i%2 == 1
		s := &setResult{Dir: dir, TrackingPath: filepath.Join(dir, "tracking.json"), Suites: map[string]*suiteStats{}, SuiteOrder: []string{"agent_direct", "ghx"}}
		s.Tracking = verify.Tracking{Set: name, Provider: "openai", Model: "gpt/<null>", FinalStatus: "pass",
			Gate:         &verify.GateRecord{Ran: true, Passed: i%3 == 0, Profile: "verify_pr", Stats: &verify.StatsRecord{Verdict: "inconclusive"}},
			RowsExpected: map[string]int{"agent_direct": 300, "ghx": 300}, RowsActual: map[string]int{"agent_direct": 300, "ghx": 300}}
		var md strings.Builder
		md.WriteString("# Benchmark Validation Summary\n\n| Mode | Model | Runs |\n|---|---|---:|\n")
		for _, m := range s.SuiteOrder {
			st := &suiteStats{Rows: 300, Active: map[string][]float64{}, Latency: map[string][]float64{}}
			for k := 0; k < 300; k++ {
				id := fmt.Sprintf("%s-scenario-%03d-wf-001", name, k)
				st.Active[id] = []float64{float64(700 + k), float64(710 + k)}
				st.Latency[id] = []float64{float64(30000 + 10*k)}
				for rep := 0; failing && rep < 3; rep++ {
					st.Violations = append(st.Violations, suite.Diagnostic{Mode: m, File: filepath.Join(dir, m+"-suite.jsonl"), Line: 3*k + rep + 1, ScenarioID: id, Iteration: rep, Field: "success", Got: "false"})
				}
				fmt.Fprintf(&md, "| %s | openai/gpt/<null> | %d |\n", id, k)
			}
			s.Suites[m] = st
		}
		if failing {
			s.Tracking.FinalStatus = "terminal_fail"
			for k := 0; k < 300; k++ {
				s.Tracking.FailingScenarios = append(s.Tracking.FailingScenarios, fmt.Sprintf("%s-scenario-%03d-wf-001", name, k))
			}
		}
		s.SummaryMD = filepath.Join(dir, "latest-summary.md")
		if err := os.WriteFile(s.SummaryMD, []byte(md.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		res.Sets = append(res.Sets, s)
	}
	return res
}

// TestSummaryOf300ScenariosNineSets: a nine-set ordered run of 300
// scenarios each is measured and kept under 1 MiB; the table of all sets
// opens it, whole, and what was left out says where it is.
func TestSummaryOf300ScenariosNineSets(t *testing.T) {
	ws := t.TempDir()
	res := bigOrdered(t, ws)
	r := &reporter{a: githubactions.New(githubactions.WithWriter(io.Discard), githubactions.WithGetenv(func(string) string { return "" })), workspace: ws}
	p := &Plan{Mode: "ordered", Args: []string{"ordered", "--provider", "openai"}, WorkDir: ws, OutDir: filepath.Join(ws, "out")}
	v := judgeOf(p, res, nil, 1)
	doc := r.buildSummary(p, res, 1, 10, 2700, v)
	full := doc.Render(1 << 30)
	if len(full) <= jobsummary.MaxBytes {
		t.Fatalf("the whole summary is %d bytes, not more than the limit: the test proves nothing", len(full))
	}
	out := doc.Render(jobsummary.MaxBytes - 1)
	if len(out) >= jobsummary.MaxBytes {
		t.Fatalf("summary is %d bytes", len(out))
	}
	t.Logf("whole %d bytes, written %d bytes", len(full), len(out))
	gfm.Require(t, "job summary", out)
	top := out[:strings.Index(out, "\n## Set ")]
	if !strings.HasPrefix(top, "❌ **benchgate ordered: fail**: pr-thread-mutations: failing rows after reruns (success, output_valid, error null) 1800 rows, needs ≤ 0 rows; release-delivery: failing rows after reruns (success, output_valid, error null) 1800 rows, needs ≤ 0 rows; and 2 more · 4 checks failed (and 6 recorded only), 1200 scenarios failing\n") {
		t.Errorf("headline:\n%s", top[:600])
	}
	for _, s := range res.Sets {
		row := fmt.Sprintf("| [%s](#set-%s-%s) | %s |", s.Tracking.Set, s.Tracking.Set, s.Tracking.FinalStatus, s.Tracking.FinalStatus)
		if !strings.Contains(top, row) {
			t.Errorf("top table lacks %q", row)
		}
	}
	if !strings.Contains(top, "and 295 more") {
		t.Error("the failing scenarios of a set are not counted in the top table")
	}
	// The failing sets keep their details longer than the passing ones.
	if !strings.Contains(out, "Left out of this summary to stay under GitHub's size limit; see out/pr-exec") {
		t.Errorf("no passing set was left out with a pointer to its folder")
	}
	if !strings.Contains(out, "| out/pr-thread-mutations/agent_direct-suite.jsonl:1 |") {
		t.Errorf("the failing set's rows were left out before the passing sets")
	}
}

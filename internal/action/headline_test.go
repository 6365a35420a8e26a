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
	"github.com/benchgate/benchgate/internal/suite"
	"github.com/benchgate/benchgate/internal/testenv/gfm"
	"github.com/benchgate/benchgate/internal/verify"
)

// TestJudge: the headline names what decided the exit code, and says
// "gate not enforced" exactly when a gate ran without deciding it.
func TestJudge(t *testing.T) {
	set := func(name, status string, gate *verify.GateRecord) *setResult {
		return &setResult{Tracking: verify.Tracking{Set: name, FinalStatus: status, Gate: gate}}
	}
	gateFail := &report.GateResult{Profile: "verify_pr", Passed: false}
	gatePass := &report.GateResult{Profile: "verify_pr", Passed: true}
	regressed := &Lookback{Comparison: &baseline.Comparison{Verdict: baseline.Fail}}
	tests := []struct {
		name        string
		mode        string
		args        []string
		res         results
		stats       []statsEntry
		lb          *Lookback
		code        int
		title       string
		decided     string
		notEnforced []string
	}{
		{"report without gate, gate failed", "report", nil, results{Gate: gateFail}, nil, nil, 0,
			"benchgate report: pass (gate not enforced)", "writing the summaries", []string{"gate verify_pr: FAIL"}},
		{"report without gate, gate passed, regressed", "report", nil, results{Gate: gatePass}, nil, regressed, 0,
			"benchgate report: pass (gate not enforced)", "writing the summaries", []string{"gate verify_pr: PASS", "against the baseline: FAIL"}},
		{"report with gate failing", "report", []string{"--gate"}, results{Gate: gateFail}, nil, nil, 1,
			"benchgate report: fail", "the gate verify_pr (gate: true): FAIL", nil},
		{"report with gate and a regression", "report", []string{"--gate"}, results{Gate: gatePass}, nil, regressed, 1,
			"benchgate report: fail", "against the baseline: FAIL", nil},
		{"report with gate and stats", "report", []string{"--gate", "--stats"}, results{Gate: gateFail}, []statsEntry{{Verdict: "pass"}}, nil, 0,
			"benchgate report: pass (gate not enforced)", "the statistical gate (gate: true, stats: true): PASS", []string{"gate verify_pr: FAIL (the statistical gate decides instead)"}},
		{"report with stats but no gate", "report", []string{"--stats"}, results{Gate: gatePass}, []statsEntry{{Verdict: "underpowered"}}, nil, 0,
			"benchgate report: pass (gate not enforced)", "writing the summaries", []string{"gate verify_pr: PASS", "statistical gate: UNDERPOWERED"}},
		{"report that could not run", "report", []string{"--gate"}, results{ModeError: "no suite files"}, nil, nil, 1,
			"benchgate report: fail", "the report could not be written: no suite files", nil},
		{"report without any gate result", "report", nil, results{}, nil, nil, 0,
			"benchgate report: pass", "writing the summaries", nil},
		{"bad input", "set", nil, results{ModeError: "unknown flag"}, nil, nil, 2,
			"benchgate set: error", "bad input before judging anything: unknown flag", nil},
		{"set failing by rows, gate passed", "set", nil, results{Sets: []*setResult{set("pr-exec", "terminal_fail", &verify.GateRecord{Ran: true, Passed: true, Profile: "verify_pr"})}}, nil, nil, 1,
			"benchgate set: fail (gate not enforced)", "final status terminal_fail", []string{"gate verify_pr: PASS"}},
		{"set whose gate did not run", "set", nil, results{Sets: []*setResult{set("pr-exec", "pass", &verify.GateRecord{Ran: false})}}, nil, nil, 0,
			"benchgate set: pass", "final status pass", nil},
		{"ordered with a recorded stats verdict", "ordered", nil, results{Sets: []*setResult{set("pr-exec", "pass", nil), set("issues", "terminal_fail", nil)}},
			[]statsEntry{{Set: "pr-exec", Verdict: "inconclusive"}}, nil, 1,
			"benchgate ordered: fail (gate not enforced)", "1 passed, issues terminal_fail", []string{"pr-exec statistical gate: INCONCLUSIVE"}},
		{"swebench incomplete", "swebench-batch", nil, results{Batch: &batchResult{Instances: []instanceStatus{{Status: "success"}, {Status: "incomplete"}}}}, nil, nil, 20,
			"benchgate swebench-batch: incomplete", "1 success, 0 failed, 1 incomplete", nil},
		{"qa-audit", "qa-audit", nil, results{Audit: &auditResult{Cases: []auditCase{{Verdict: "Valid"}, {Verdict: "Incorrect"}, {Verdict: "Valid"}}}}, nil, nil, 1,
			"benchgate qa-audit: fail", "2 Valid, 1 Incorrect", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.res
			v := judge(&Plan{Mode: tc.mode, Args: append([]string{tc.mode}, tc.args...)}, &res, tc.stats, tc.lb, tc.code)
			if got := v.Title(tc.mode); got != tc.title {
				t.Errorf("title %q, want %q", got, tc.title)
			}
			if !strings.Contains(v.DecidedBy, tc.decided) {
				t.Errorf("decided by %q, want it to say %q", v.DecidedBy, tc.decided)
			}
			if strings.Join(v.NotEnforced, "|") != strings.Join(tc.notEnforced, "|") {
				t.Errorf("not enforced %q, want %q", v.NotEnforced, tc.notEnforced)
			}
			s := v.Sentence(func(s string) string { return s })
			if (len(tc.notEnforced) > 0) != strings.Contains(s, "Gate not enforced") {
				t.Errorf("sentence %q", s)
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
	v := judge(p, res, nil, nil, 1)
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
	if !strings.HasPrefix(top, "## benchgate ordered: fail (gate not enforced)\n\n**FAIL** (exit code 1)") {
		t.Errorf("headline:\n%s", top[:200])
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

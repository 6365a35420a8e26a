package verify

import (
	"flag"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestConsolidatedMarkdownGolden(t *testing.T) {
	base := t.TempDir()
	write := func(set string, tr Tracking) {
		if err := tr.write(filepath.Join(base, set, "tracking.json")); err != nil {
			t.Fatal(err)
		}
	}
	pass := true
	write("pr-exec", Tracking{Set: "pr-exec", FinalStatus: StatusPass,
		RowsExpected: map[string]int{"agent_direct": 9, "ghx": 9}, RowsActual: map[string]int{"agent_direct": 9, "ghx": 9},
		Checks: Checks{Success: Counts{Pass: 18}, OutputValid: Counts{Pass: 18}, ErrorNull: Counts{Pass: 18}},
		Reruns: []Rerun{{Attempt: 1, ScenarioIDs: []string{"pr-branch-update-001"}, Result: "pass"}},
		Gate:   &GateRecord{Ran: true, Passed: pass}})
	write("pr-thread-mutations", Tracking{Set: "pr-thread-mutations", FinalStatus: StatusTerminalFail,
		RowsExpected: map[string]int{"agent_direct": 4, "ghx": 4}, RowsActual: map[string]int{"agent_direct": 4, "ghx": 3},
		Checks:           Checks{Success: Counts{Pass: 6, Fail: 1}, OutputValid: Counts{Pass: 7}, ErrorNull: Counts{Pass: 6, Fail: 1}},
		FailingScenarios: []string{"pr-comment-reply-001", "row-count-mismatch: expected=4 agent_direct=4 ghx=3"},
		Reruns:           []Rerun{{Attempt: 1}, {Attempt: 2}},
		Gate:             &GateRecord{Ran: true}})
	c := &Consolidated{Provider: "openai", Model: "gpt-5.1-codex-mini", Repetitions: 1, Preflight: "pass",
		Status: StatusTerminalFail, StoppedAt: "pr-thread-mutations",
		Confirmation: []Confirmation{{Name: "verify_pr", Command: "BENCH_MODEL_ID=gpt-5.3-codex pnpm run benchmark:verify:pr"}}}
	collect(c, base, nil)
	got := consolidatedMarkdown(c)
	gfm.Require(t, "consolidated summary", got)
	golden := filepath.Join("testdata", "consolidated.golden.md")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("consolidated markdown differs from %s:\n%s", golden, got)
	}
	if c.Totals["sets_not_run"] != 7 || c.Checks.Success.Fail != 1 || c.Checks.Success.Pass != 24 {
		t.Errorf("totals %v checks %+v", c.Totals, c.Checks)
	}
}

// TestConsolidatedStatsColumn: with a statistical gate recorded in a
// set's tracking, the consolidated summary carries its verdict per set,
// in the JSON and as a Stats column; sets without one show "-".
func TestConsolidatedStatsColumn(t *testing.T) {
	base := t.TempDir()
	write := func(set string, tr Tracking) {
		if err := tr.write(filepath.Join(base, set, "tracking.json")); err != nil {
			t.Fatal(err)
		}
	}
	write("pr-exec", Tracking{Set: "pr-exec", FinalStatus: StatusPass,
		Gate: &GateRecord{Ran: true, Passed: true, Stats: &StatsRecord{Verdict: "inconclusive", Reason: "inconclusive: efficiency_latency_reduction"}}})
	write("issues", Tracking{Set: "issues", FinalStatus: StatusPass, Gate: &GateRecord{Ran: true, Passed: true}})
	c := &Consolidated{Provider: "openai", Model: "m", Repetitions: 1, Preflight: "pass", Status: StatusPass}
	collect(c, base, nil)
	verdicts := map[string]string{}
	for _, s := range c.Sets {
		verdicts[s.Set] = s.StatsVerdict
	}
	if verdicts["pr-exec"] != "inconclusive" || verdicts["issues"] != "" {
		t.Errorf("stats verdicts %v, want pr-exec inconclusive and issues empty", verdicts)
	}
	md := consolidatedMarkdown(c)
	gfm.Require(t, "consolidated summary with stats", md)
	for _, want := range []string{
		"| Reruns | Gate | Stats | Failing scenarios |",
		"|---|---|---|---|---|---|---|---|---|---|",
		"| 0 | PASS | INCONCLUSIVE | - |",
		"| `issues` | with_seed | pass | - | - | 0 | PASS | - | - |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("consolidated markdown lacks %q:\n%s", want, md)
		}
	}
}

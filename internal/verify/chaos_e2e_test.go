package verify_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/verify"
)

// chaos writes a failures file for benchsim's chaos switches and points
// the fixture's benchmark at it.
func (f *fixture) chaos(rules ...map[string]any) {
	f.t.Helper()
	f.failures = filepath.Join(f.dir, "chaos.json")
	writeJSON(f.t, f.failures, map[string]any{"rules": rules})
}

type rule = map[string]any

// TestSetChaos runs set through the built binary against a benchmark that
// honours the CLI contract but misbehaves on switches, and checks, besides
// each case's own expectations, what must hold in every case: no broken
// set passes, reruns stay within two and each asks only for scenarios of
// the attempt before it, the preflight runs once, each attempt's files
// hold what tracking.json says it read, and a passing set's suite files
// hold exactly the expected, passing rows.
func TestSetChaos(t *testing.T) {
	const (
		approve = "pr-review-submit-approve-001"
		comment = "pr-review-submit-comment-001"
		branch  = "pr-branch-update-001"
		merge   = "pr-merge-execute-001"
	)
	tests := []struct {
		name        string
		rules       []rule
		extra       []string
		overrides   map[string]any
		wantCode    int
		wantStatus  string
		wantReruns  []verify.Rerun
		wantFailing []string // exact, when set
		wantStderr  []string
		// check looks at what is particular to the case.
		check func(t *testing.T, out string, tr verify.Tracking)
	}{
		{name: "healthy", rules: nil, wantCode: 0, wantStatus: "pass", wantReruns: []verify.Rerun{}, wantFailing: []string{}},
		{
			name: "flaky passes on its rerun", rules: []rule{{"scenario": branch, "behavior": "flaky"}},
			wantCode: 0, wantStatus: "pass", wantReruns: []verify.Rerun{{Attempt: 1, ScenarioIDs: []string{branch}, Result: "pass"}},
			wantFailing: []string{},
			check: func(t *testing.T, out string, tr verify.Tracking) {
				// Each attempt records what was failing when it ended.
				if got := strings.Join(tr.Attempts[0].FailingScenarios, ","); got != branch {
					t.Errorf("attempt 0 failing_scenarios %q, want %s", got, branch)
				}
				if len(tr.Attempts[1].FailingScenarios) != 0 {
					t.Errorf("attempt 1 failing_scenarios %q, want none", tr.Attempts[1].FailingScenarios)
				}
				// The failing row of attempt 0 is still where the benchmark
				// wrote it; the merged file holds the rerun's passing row.
				attempt0 := readFile(t, tr.Attempts[0].SuiteFiles["agent_direct"])
				if !strings.Contains(attempt0, `"scenario_id":"`+branch+`"`) || !strings.Contains(attempt0, `"success":false`) {
					t.Errorf("attempt 0's file lost its failing row:\n%s", attempt0)
				}
				if merged := readFile(t, filepath.Join(out, "agent_direct-suite.jsonl")); strings.Contains(merged, `"success":false`) {
					t.Errorf("merged file holds a failing row:\n%s", merged)
				}
			},
		},
		{
			name: "always failing is terminal after two reruns", rules: []rule{{"scenario": merge, "behavior": "always_fail", "field": "output_valid"}},
			wantCode: 1, wantStatus: "terminal_fail",
			wantReruns:  []verify.Rerun{{Attempt: 1, ScenarioIDs: []string{merge}, Result: "fail"}, {Attempt: 2, ScenarioIDs: []string{merge}, Result: "fail"}},
			wantFailing: []string{merge}, wantStderr: []string{"/attempt-2/ghx-suite.jsonl:1: ghx row: scenario " + merge + " (iteration 1): output_valid: expected true, got false"},
		},
		{
			// A failing row followed by a passing duplicate: both stay in
			// the merged file, the duplicate names both lines of its file.
			name: "duplicate row always: failing row stays visible", rules: []rule{{"scenario": comment, "behavior": "duplicate", "mode": "agent_direct"}},
			wantCode: 1, wantStatus: "terminal_fail",
			wantReruns: []verify.Rerun{{Attempt: 1, ScenarioIDs: []string{comment}, Result: "fail"}, {Attempt: 2, ScenarioIDs: []string{comment}, Result: "fail"}},
			wantStderr: []string{"/attempt-2/agent_direct-suite.jsonl:2: agent_direct row: scenario " + comment + " (iteration 1): scenario_id/iteration: expected one row per scenario and iteration, got two rows, lines 1 and 2 of "},
			check: func(t *testing.T, out string, tr verify.Tracking) {
				merged := readFile(t, filepath.Join(out, "agent_direct-suite.jsonl"))
				if strings.Count(merged, `"scenario_id":"`+comment+`"`) != 2 || !strings.Contains(merged, `"success":false`) {
					t.Errorf("merged file must hold both rows, the failing one included:\n%s", merged)
				}
				if tr.Checks.Success.Fail != 1 {
					t.Errorf("checks.success = %+v, want one failure", tr.Checks.Success)
				}
				if !slices.Contains(tr.FailingScenarios, comment) {
					t.Errorf("failing_scenarios %v lacks %s", tr.FailingScenarios, comment)
				}
				// Attempt 0's file keeps both of its rows as written.
				if a0 := readFile(t, tr.Attempts[0].SuiteFiles["agent_direct"]); strings.Count(a0, `"scenario_id":"`+comment+`"`) != 2 {
					t.Errorf("attempt 0's file lost a row:\n%s", a0)
				}
			},
		},
		{
			name: "duplicate row on the full run only: the rerun's single row passes", rules: []rule{{"scenario": comment, "behavior": "duplicate", "attempt": "set"}},
			wantCode: 0, wantStatus: "pass", wantReruns: []verify.Rerun{{Attempt: 1, ScenarioIDs: []string{comment}, Result: "pass"}},
			wantFailing: []string{},
			check: func(t *testing.T, out string, tr verify.Tracking) {
				if n := tr.Attempts[0].Rows["ghx"]; n != 10 {
					t.Errorf("attempt 0 read %d ghx lines, want 10 (the duplicate kept)", n)
				}
			},
		},
		{
			// The benchmark ignores --scenario: the rerun's rows for other
			// scenarios are unexpected rows of that rerun, never merged, and
			// no later rerun targets a scenario that passed in attempt 0.
			name: "rerun ignores its scope", rules: []rule{{"scenario": branch, "behavior": "flaky"}, {"set": "pr-exec", "behavior": "ignore_selector"}},
			wantCode: 1, wantStatus: "terminal_fail",
			wantReruns: []verify.Rerun{{Attempt: 1, ScenarioIDs: []string{branch}, Result: "fail"}},
			wantStderr: []string{"/attempt-1/agent_direct-suite.jsonl:1: agent_direct row: scenario " + approve + " (iteration 1): scenario_id: expected one of the scenarios rerun 1 asked for (" + branch + "), got " + approve + " (unexpected row, not merged)"},
			check: func(t *testing.T, out string, tr verify.Tracking) {
				if !slices.Contains(tr.FailingScenarios, "unexpected:"+approve) || slices.Contains(tr.FailingScenarios, approve) {
					t.Errorf("failing_scenarios %v: want unexpected:%s and not %s itself", tr.FailingScenarios, approve, approve)
				}
				if tr.RowsActual["agent_direct"] != 9 || tr.RowsActual["ghx"] != 9 {
					t.Errorf("rows_actual %v: the unexpected rows were merged", tr.RowsActual)
				}
				if got := countLines(t, filepath.Join(out, "ghx-suite.jsonl")); got != 9 {
					t.Errorf("merged ghx file holds %d rows, want 9", got)
				}
			},
		},
		{
			name: "zero rows in a rerun are terminal", rules: []rule{{"scenario": branch, "behavior": "flaky"}, {"set": "pr-exec", "mode": "ghx", "behavior": "zero_rows", "attempt": "rerun"}},
			wantCode: 1, wantStatus: "terminal_fail",
			wantReruns: []verify.Rerun{{Attempt: 1, ScenarioIDs: []string{branch}, Result: "fail"}},
			wantStderr: []string{"ghx wrote zero rows in rerun 1 (a zero-row output is terminal)"},
		},
		{
			name: "zero rows in attempt 0 are terminal at once", rules: []rule{{"set": "pr-exec", "mode": "agent_direct", "behavior": "zero_rows"}},
			wantCode: 1, wantStatus: "terminal_fail", wantReruns: []verify.Rerun{},
			wantStderr: []string{"agent_direct wrote zero rows in attempt 0"},
		},
		{
			name: "crash on the full run: the rerun supplies the rows, the fragment stays in attempt 0", rules: []rule{{"set": "pr-exec", "mode": "ghx", "behavior": "crash", "attempt": "set"}},
			wantCode: 0, wantStatus: "pass", wantFailing: []string{},
			wantReruns: []verify.Rerun{{Attempt: 1, ScenarioIDs: []string{"pr-checks-rerun-all-001", "pr-reviewers-request-001", "pr-assignees-update-001", branch, merge}, Result: "pass"}},
			check: func(t *testing.T, out string, tr verify.Tracking) {
				if a0 := readFile(t, tr.Attempts[0].SuiteFiles["ghx"]); !strings.HasSuffix(a0, `"mode":`) {
					t.Errorf("attempt 0's ghx file does not end in the truncated line:\n%s", a0)
				}
			},
		},
		{
			name: "crash in every run: terminal, the last fragment located", rules: []rule{{"set": "pr-exec", "mode": "ghx", "behavior": "crash"}},
			wantCode: 1, wantStatus: "terminal_fail",
			wantReruns: []verify.Rerun{
				{Attempt: 1, ScenarioIDs: []string{"pr-checks-rerun-all-001", "pr-reviewers-request-001", "pr-assignees-update-001", branch, merge}, Result: "fail"},
				{Attempt: 2, ScenarioIDs: []string{"pr-assignees-update-001", branch, merge}, Result: "fail"}},
			wantStderr: []string{"/attempt-2/ghx-suite.jsonl:2: ghx row: scenario (no scenario_id): mode: expected one of agent_direct, mcp, ghx, got end of line (truncated row)"},
			check: func(t *testing.T, out string, tr verify.Tracking) {
				var fragments []string
				for _, f := range tr.FailingScenarios {
					if strings.HasPrefix(f, "unidentified-row:") {
						fragments = append(fragments, f)
					}
				}
				// Attempt 0's and rerun 1's fragments were superseded by the
				// reruns; rerun 2's was not.
				if len(fragments) != 1 || !strings.Contains(fragments[0], "attempt-2/ghx-suite.jsonl:2") {
					t.Errorf("fragments %v, want only rerun 2's", fragments)
				}
			},
		},
		{
			name: "extra iteration is named and rerun", rules: []rule{{"scenario": approve, "behavior": "extra_iteration", "mode": "ghx", "attempt": "set"}},
			wantCode: 0, wantStatus: "pass", wantFailing: []string{},
			wantReruns: []verify.Rerun{{Attempt: 1, ScenarioIDs: []string{approve}, Result: "pass"}},
			wantStderr: []string{"rerun 1 of 2 for 1 failing scenario(s): " + approve},
		},
		{
			name: "extra iteration always: terminal, named with file, line and scenario", rules: []rule{{"scenario": approve, "behavior": "extra_iteration", "mode": "ghx"}},
			extra:    []string{"--repetitions", "1"},
			wantCode: 1, wantStatus: "terminal_fail", wantFailing: []string{approve, "row-count-mismatch: expected=9 agent_direct=9 ghx=10"},
			wantReruns: []verify.Rerun{{Attempt: 1, ScenarioIDs: []string{approve}, Result: "fail"}, {Attempt: 2, ScenarioIDs: []string{approve}, Result: "fail"}},
			wantStderr: []string{"/attempt-2/ghx-suite.jsonl:2: ghx row: scenario " + approve + " (iteration 2): iteration: expected an iteration from 1 to 1 (--repetitions 1), got 2 (an extra iteration)"},
		},
		{
			name: "wrong mode in a row is rerun", rules: []rule{{"scenario": merge, "behavior": "wrong_mode", "mode": "agent_direct", "attempt": "set"}},
			wantCode: 0, wantStatus: "pass", wantFailing: []string{},
			wantReruns: []verify.Rerun{{Attempt: 1, ScenarioIDs: []string{merge}, Result: "pass"}},
		},
		{
			name: "wrong mode always is terminal", rules: []rule{{"scenario": merge, "behavior": "wrong_mode", "mode": "agent_direct"}},
			wantCode: 1, wantStatus: "terminal_fail", wantFailing: []string{merge},
			wantStderr: []string{"agent_direct row: scenario " + merge + ` (iteration 1): mode: expected "agent_direct", got "ghx"`},
		},
		{
			// suite's rule (the report's) refuses an upper-case scenario_id;
			// the row is still its scenario's, so the scenario is rerun.
			name: "upper-case scenario ID in a row belongs to its scenario", rules: []rule{{"scenario": merge, "behavior": "upper_case_id", "mode": "ghx", "attempt": "set"}},
			wantCode: 0, wantStatus: "pass", wantFailing: []string{},
			wantReruns: []verify.Rerun{{Attempt: 1, ScenarioIDs: []string{merge}, Result: "pass"}},
		},
		{
			name: "a row for a scenario nobody asked for is terminal at once", rules: []rule{{"set": "pr-exec", "mode": "ghx", "behavior": "unrequested", "scenario": "issue-close-001"}},
			wantCode: 1, wantStatus: "terminal_fail", wantReruns: []verify.Rerun{}, wantFailing: []string{"unexpected:issue-close-001"},
			wantStderr: []string{"/attempt-0/ghx-suite.jsonl:10: ghx row: scenario issue-close-001 (iteration 1): scenario_id: expected one of the scenarios attempt 0 asked for"},
		},
		{
			name: "malformed line in every run", rules: []rule{{"scenario": comment, "behavior": "malformed", "mode": "agent_direct"}},
			wantCode: 1, wantStatus: "terminal_fail",
			wantReruns: []verify.Rerun{{Attempt: 1, ScenarioIDs: []string{comment}, Result: "fail"}, {Attempt: 2, ScenarioIDs: []string{comment}, Result: "fail"}},
		},
		{
			name: "rerun by upper-case --scenario-id", rules: []rule{{"scenario": branch, "behavior": "flaky"}},
			extra:    []string{"--scenario-id", "PR-BRANCH-UPDATE-001", "--scenario-id", " pr-merge-execute-001 "},
			wantCode: 0, wantStatus: "pass", wantReruns: []verify.Rerun{}, wantFailing: []string{},
			check: func(t *testing.T, out string, tr verify.Tracking) {
				if got := strings.Join(tr.ResolvedScenarios, ","); got != branch+","+merge || tr.RowsExpected["ghx"] != 2 {
					t.Errorf("resolved %s rows_expected %v", got, tr.RowsExpected)
				}
			},
		},
		{
			name: "seed fails", rules: []rule{{"behavior": "fixtures_fail", "action": "seed"}},
			wantCode: 1, wantStatus: "fail", wantReruns: []verify.Rerun{}, wantStderr: []string{"fixture seed exited 1", "fixtures seed: simulated failure"},
		},
		{
			name: "status fails", rules: []rule{{"behavior": "fixtures_fail", "action": "status"}},
			wantCode: 1, wantStatus: "fail", wantReruns: []verify.Rerun{}, wantStderr: []string{"fixture preflight: fixtures status exited 1"},
		},
		{
			name: "hang past the timeout", rules: []rule{{"set": "pr-exec", "mode": "ghx", "behavior": "hang"}},
			extra: []string{"--benchmark-timeout", "1s"}, overrides: map[string]any{"grace": "200ms"},
			wantCode: 1, wantStatus: "terminal_fail", wantStderr: []string{"benchmark ghx was stopped after its timeout of 1s;", "ghx wrote zero rows in attempt 0"},
		},
		{
			// Every row passes, but the report cannot read its
			// expectations: the set does not pass without its summaries.
			name: "summaries not written", rules: nil, overrides: map[string]any{"expectations_config": "no-such-expectations.json"},
			wantCode: 1, wantStatus: "fail", wantReruns: []verify.Rerun{}, wantFailing: []string{},
			wantStderr: []string{"every row passed, but the summaries could not be written", "no-such-expectations.json"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "none.json", tc.overrides)
			f.chaos(tc.rules...)
			code, _, stderr := f.run(f.setArgs("pr-exec", tc.extra...)...)
			out := filepath.Join(f.dir, "out", "pr-exec")
			tr := readTracking(t, filepath.Join(out, "tracking.json"))
			if code != tc.wantCode || tr.FinalStatus != tc.wantStatus {
				t.Fatalf("exit %d status %q, want %d %q\nstderr:\n%s", code, tr.FinalStatus, tc.wantCode, tc.wantStatus, stderr)
			}
			for _, s := range tc.wantStderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			if tc.wantReruns != nil {
				if len(tr.Reruns) != len(tc.wantReruns) {
					t.Fatalf("reruns %+v, want %+v", tr.Reruns, tc.wantReruns)
				}
				for i, r := range tc.wantReruns {
					got := tr.Reruns[i]
					if got.Attempt != r.Attempt || got.Result != r.Result || strings.Join(got.ScenarioIDs, ",") != strings.Join(r.ScenarioIDs, ",") {
						t.Errorf("rerun %d = %+v, want %+v", i, got, r)
					}
				}
			}
			if tc.wantFailing != nil && strings.Join(tr.FailingScenarios, ",") != strings.Join(tc.wantFailing, ",") {
				t.Errorf("failing_scenarios %q, want %q", tr.FailingScenarios, tc.wantFailing)
			}
			checkChaosInvariants(t, out, tr, code)
			if tc.check != nil {
				tc.check(t, out, tr)
			}
		})
	}
}

// checkChaosInvariants checks what must hold whatever the benchmark did.
func checkChaosInvariants(t *testing.T, out string, tr verify.Tracking, code int) {
	t.Helper()
	if tr.State != "done" || (code == 0) != (tr.FinalStatus == verify.StatusPass) {
		t.Errorf("exit %d with final_status %q state %q", code, tr.FinalStatus, tr.State)
	}
	if len(tr.Reruns) > verify.MaxReruns {
		t.Errorf("%d reruns", len(tr.Reruns))
	}
	preflights := 0
	for _, c := range tr.Commands {
		if c.Step == "preflight" {
			preflights++
		}
	}
	if preflights != 1 {
		t.Errorf("preflight ran %d times", preflights)
	}
	if tr.SeedID != "" && tr.SeedID != tr.RunID+"-pr-exec-seed" {
		t.Errorf("seed_id %q, want %s-pr-exec-seed", tr.SeedID, tr.RunID)
	}
	for i, a := range tr.Attempts {
		if a.Attempt != i {
			t.Errorf("attempt %d recorded as %d", i, a.Attempt)
		}
		if i > 0 {
			// A rerun asks only for scenarios the attempt before it asked
			// for, and it is the rerun tracking.json records.
			for _, id := range a.ScenarioIDs {
				if !slices.Contains(tr.Attempts[i-1].ScenarioIDs, id) {
					t.Errorf("attempt %d asks for %s, which attempt %d did not run", i, id, i-1)
				}
			}
			if i <= len(tr.Reruns) && strings.Join(tr.Reruns[i-1].ScenarioIDs, ",") != strings.Join(a.ScenarioIDs, ",") {
				t.Errorf("rerun %d records %v, attempt asked for %v", i, tr.Reruns[i-1].ScenarioIDs, a.ScenarioIDs)
			}
		}
		for mode, path := range a.SuiteFiles {
			if !strings.Contains(path, filepath.Join("_run", tr.RunID, "attempt-")) {
				t.Errorf("attempt %d %s file %s is not under _run/<run-id>/", i, mode, path)
			}
			// The file still holds exactly the lines that were judged.
			data, err := os.ReadFile(path)
			if err != nil && a.Rows[mode] > 0 {
				t.Errorf("attempt %d: %v", i, err)
			}
			if n := len(bytes.FieldsFunc(data, func(r rune) bool { return r == '\n' })); n != a.Rows[mode] {
				t.Errorf("attempt %d %s file holds %d lines, tracking.json read %d", i, mode, n, a.Rows[mode])
			}
		}
	}
	if tr.FinalStatus != verify.StatusPass {
		if tr.FinalStatus == verify.StatusTerminalFail && len(tr.FailingScenarios) == 0 && !strings.Contains(tr.Error, "zero rows") {
			t.Errorf("terminal_fail without failing scenarios: %s", tr.Error)
		}
		return
	}
	// A passing set: every merged row passes and each mode has exactly the
	// expected rows.
	for _, mode := range []string{"agent_direct", "ghx"} {
		data := readFile(t, filepath.Join(out, mode+"-suite.jsonl"))
		lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
		if len(lines) != tr.RowsExpected[mode] {
			t.Errorf("passing set: %s holds %d rows, want %d", mode, len(lines), tr.RowsExpected[mode])
		}
		for i, l := range lines {
			var row struct {
				Mode        string          `json:"mode"`
				Success     bool            `json:"success"`
				OutputValid bool            `json:"output_valid"`
				Error       json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal([]byte(l), &row); err != nil || row.Mode != mode || !row.Success || !row.OutputValid || string(row.Error) != "null" {
				t.Errorf("passing set: %s line %d is not a passing row: %s", mode, i+1, l)
			}
		}
	}
	if c := tr.Checks; c.Success.Fail+c.OutputValid.Fail+c.ErrorNull.Fail != 0 || len(tr.Failures) != 0 {
		t.Errorf("passing set with failures: %+v %v", c, tr.Failures)
	}
	if !tr.Gate.Ran || tr.Gate.SummaryJSON == "" {
		t.Errorf("passing set without summaries: %+v", tr.Gate)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestSetScenarioIDsOneRule runs set over a set file that writes its IDs
// with spaces and in upper case: --scenario-id finds them by the same
// rule, rows_expected counts them, and the benchmark is given the set
// file's spelling. A set-file entry that fails the rule is named with its
// value, exit 2.
func TestSetScenarioIDsOneRule(t *testing.T) {
	bench := copyExamples(t)
	writeJSON(t, filepath.Join(bench, "scenario-sets.json"), map[string]any{
		"odd": []string{" pr-view-001 ", "Repo-View-001"},
	})
	data := readFile(t, filepath.Join(bench, "scenarios", "repo-view-001.json"))
	if err := os.WriteFile(filepath.Join(bench, "scenarios", "Repo-View-001.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, "none.json", map[string]any{"bench_dir": bench})
	code, _, stderr := f.run(f.setArgs("odd", "--scenario-id", "PR-VIEW-001", "--scenario-id", "repo-view-001", "--skip-preflight")...)
	if code == 2 {
		t.Fatalf("exit 2: IDs of the set file not found by the same rule\n%s", stderr)
	}
	tr := readTracking(t, filepath.Join(f.dir, "out", "odd", "tracking.json"))
	if got := strings.Join(tr.ResolvedScenarios, ","); got != "pr-view-001,repo-view-001" || tr.RowsExpected["ghx"] != 2 {
		t.Errorf("resolved %s, rows_expected %v; want pr-view-001,repo-view-001 and 2", got, tr.RowsExpected)
	}
	var argv string
	for _, c := range tr.Commands {
		if c.Step == "attempt-0-ghx" {
			argv = strings.Join(c.Argv, " ")
		}
	}
	if !strings.Contains(argv, "--scenario pr-view-001 --scenario Repo-View-001") {
		t.Errorf("benchmark argv %q: want the set file's spellings", argv)
	}
	// The benchmark echoes Repo-View-001 in its rows, which suite's rule
	// refuses; the row is still repo-view-001's, never an unexpected one.
	for _, s := range tr.FailingScenarios {
		if strings.HasPrefix(s, "unexpected:") || s == "pr-view-001" {
			t.Errorf("failing_scenarios %v", tr.FailingScenarios)
		}
	}
	if !slices.Contains(tr.FailingScenarios, "repo-view-001") {
		t.Errorf("failing_scenarios %v lacks repo-view-001", tr.FailingScenarios)
	}

	writeJSON(t, filepath.Join(bench, "scenario-sets.json"), map[string]any{"bad": []string{"pr-view-001", "pr view 001"}})
	code, _, stderr = f.run(f.setArgs("bad", "--skip-preflight")...)
	if code != 2 || !strings.Contains(stderr, `set "bad" item 2: scenario id "pr view 001": expected`) {
		t.Errorf("bad entry: exit %d, stderr %q", code, stderr)
	}
}

package verify

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/bench"
)

// TestJudgeAttempts judges hand-written attempts: which scenarios fail,
// which a rerun may target, and what the diagnostics name. The expected
// verdicts were worked out by hand from the seed's rules.
func TestJudgeAttempts(t *testing.T) {
	good := goodLine(t)
	// row returns a suite line of scenario id, iteration it, passing or
	// not; "frag" is a truncated line.
	row := func(id string, it int, pass bool) string {
		if id == "frag" {
			return `{"timestamp":"2026-01-01T00:00:00Z","mode":`
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(good), &m); err != nil {
			t.Fatal(err)
		}
		m["scenario_id"], m["iteration"], m["success"] = id, it, pass
		if !pass {
			m["error"] = map[string]any{"type": "assertion_failed", "message": "no"}
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	type att struct {
		ids  []string
		rows []string // "id:iteration" or "id:iteration:fail" or "frag", same in both modes
	}
	tests := []struct {
		name        string
		reps        int
		attempts    []att
		wantFailing string
		wantRerun   string
		wantDiag    string
		wantActual  int
	}{
		{name: "all pass", reps: 1, attempts: []att{{nil, []string{"a-001:1", "b-001:1"}}}, wantActual: 2},
		{name: "a rerun replaces the failing row", reps: 1, attempts: []att{
			{nil, []string{"a-001:1:fail", "b-001:1"}}, {[]string{"a-001"}, []string{"a-001:1"}}}, wantActual: 2},
		{name: "a failing attempt 0 asks for a rerun", reps: 1, attempts: []att{{nil, []string{"a-001:1:fail", "b-001:1"}}},
			wantFailing: "a-001", wantRerun: "a-001", wantActual: 2},
		{name: "rows a rerun did not ask for are unexpected and not merged", reps: 1, attempts: []att{
			{nil, []string{"a-001:1:fail", "b-001:1"}}, {[]string{"a-001"}, []string{"a-001:1", "b-001:1:fail"}}},
			wantFailing: "unexpected:b-001", wantDiag: "attempt-1/ghx-suite.jsonl:2: ghx row: scenario b-001 (iteration 1): scenario_id: expected one of the scenarios rerun 1 asked for (a-001), got b-001 (unexpected row, not merged)",
			wantActual: 2},
		{name: "a failing row and its passing duplicate both stay", reps: 1, attempts: []att{{nil, []string{"a-001:1:fail", "a-001:1", "b-001:1"}}},
			wantFailing: "a-001,row-count-mismatch: expected=2 agent_direct=3 ghx=3", wantRerun: "a-001",
			wantDiag: "attempt-0/ghx-suite.jsonl:2: ghx row: scenario a-001 (iteration 1): scenario_id/iteration: expected one row per scenario and iteration, got two rows, lines 1 and 2 of", wantActual: 3},
		{name: "a fragment is superseded by the rerun of what its attempt left out", reps: 1, attempts: []att{
			{nil, []string{"a-001:1", "frag"}}, {[]string{"b-001"}, []string{"b-001:1"}}}, wantActual: 2},
		{name: "a fragment stays while its attempt is the latest", reps: 1, attempts: []att{{nil, []string{"a-001:1", "frag"}}},
			wantFailing: "b-001,unidentified-row:_run/r/attempt-0/agent_direct-suite.jsonl:2,unidentified-row:_run/r/attempt-0/ghx-suite.jsonl:2,row-count-mismatch: expected=2 agent_direct=1 ghx=1",
			wantRerun:   "b-001", wantActual: 1},
		{name: "a stray fragment beside complete rows no rerun can replace", reps: 1, attempts: []att{{nil, []string{"a-001:1", "frag", "b-001:1"}}},
			wantFailing: "unidentified-row:_run/r/attempt-0/agent_direct-suite.jsonl:2,unidentified-row:_run/r/attempt-0/ghx-suite.jsonl:2", wantActual: 2},
		{name: "an extra iteration fails its scenario", reps: 2, attempts: []att{{nil, []string{"a-001:1", "a-001:2", "a-001:3", "b-001:1", "b-001:2"}}},
			wantFailing: "a-001,row-count-mismatch: expected=4 agent_direct=5 ghx=5", wantRerun: "a-001",
			wantDiag: "attempt-0/ghx-suite.jsonl:3: ghx row: scenario a-001 (iteration 3): iteration: expected an iteration from 1 to 2 (--repetitions 2), got 3 (an extra iteration)", wantActual: 5},
		{name: "a rerun without the scenario's rows leaves it missing", reps: 1, attempts: []att{
			{nil, []string{"a-001:1:fail", "b-001:1"}}, {[]string{"a-001"}, nil}},
			wantFailing: "a-001,row-count-mismatch: expected=2 agent_direct=1 ghx=1", wantRerun: "a-001",
			wantDiag: "attempt-1/ghx-suite.jsonl: ghx row: scenario a-001 (iteration 1): row: expected one row for this scenario and iteration, got none", wantActual: 1},
		{name: "the second rerun asks only for what the first left failing", reps: 1, attempts: []att{
			{nil, []string{"a-001:1:fail", "b-001:1:fail"}}, {[]string{"a-001", "b-001"}, []string{"a-001:1", "b-001:1:fail"}}},
			wantFailing: "b-001", wantRerun: "b-001", wantActual: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := &set{opts: SetOptions{Repetitions: tc.reps, OutDir: dir}, resolved: []string{"a-001", "b-001"}}
			s.t = &Tracking{RowsExpected: map[string]int{}, RowsActual: map[string]int{}}
			for _, m := range bench.Modes {
				s.t.RowsExpected[m] = 2 * tc.reps
			}
			for n, a := range tc.attempts {
				ids := a.ids
				if ids == nil {
					ids = s.resolved
				}
				at := newAttempt(n, ids, filepath.Join(dir, "_run", "r", fmt.Sprintf("attempt-%d", n)))
				for _, mode := range bench.Modes {
					var lines []string
					for _, r := range a.rows {
						parts := strings.Split(r, ":")
						if parts[0] == "frag" {
							lines = append(lines, row("frag", 0, false))
							continue
						}
						var it int
						fmt.Sscan(parts[1], &it)
						lines = append(lines, strings.Replace(row(parts[0], it, len(parts) < 3), `"mode":"ghx"`, `"mode":"`+mode+`"`, 1))
					}
					rows, err := parseRows(strings.NewReader(strings.Join(lines, "\n")), at.files[mode], mode)
					if err != nil {
						t.Fatal(err)
					}
					at.rows[mode] = rows
				}
				s.attempts = append(s.attempts, at)
			}
			rerun := s.evaluate()
			if got := strings.Join(s.t.FailingScenarios, ","); got != tc.wantFailing {
				t.Errorf("failing %q, want %q", got, tc.wantFailing)
			}
			if got := strings.Join(rerun, ","); got != tc.wantRerun {
				t.Errorf("rerun %q, want %q", got, tc.wantRerun)
			}
			if s.t.RowsActual["ghx"] != tc.wantActual {
				t.Errorf("rows_actual %v, want %d", s.t.RowsActual, tc.wantActual)
			}
			if tc.wantDiag != "" {
				found := false
				for _, p := range s.t.Failures {
					found = found || strings.Contains(p.String(), tc.wantDiag)
				}
				if !found {
					t.Errorf("no diagnostic %q in %v", tc.wantDiag, s.t.Failures)
				}
			}
		})
	}
}

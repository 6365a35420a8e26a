package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/suite"
)

// goodLine is the first row of a real ghx suite.
func goodLine(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "suites", "2026-02-25-ghx-suite.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return line
}

// TestSetRow: suite's diagnostics, located and carrying the file's mode,
// plus the row-count contract's own checks (identity and mode).
func TestSetRow(t *testing.T) {
	good := goodLine(t)
	edit := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("row lacks %q", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	tests := []struct {
		name      string
		line      string
		wantID    string
		wantIter  int
		wantField []string
	}{
		{"passing row", good, "issue-triage-comment-wf-001", 1, nil},
		{"failed success", edit(`"success":true`, `"success":false`), "issue-triage-comment-wf-001", 1, []string{"success"}},
		{"runner error row", edit(`"success":true,"output_valid":true`, `"success":false,"output_valid":false`),
			"issue-triage-comment-wf-001", 1, []string{"success", "output_valid"}},
		{"string true is not true", edit(`"success":true`, `"success":"true"`), "issue-triage-comment-wf-001", 1, []string{"success"}},
		{"malformed row still names its scenario", edit(`"latency_ms_wall":22252`, `"latency_ms_wall":"fast"`), "issue-triage-comment-wf-001", 1, []string{"latency_ms_wall"}},
		{"wrong mode", edit(`"mode":"ghx"`, `"mode":"agent_direct"`), "issue-triage-comment-wf-001", 1, []string{"mode"}},
		{"iteration 0", edit(`"iteration":1`, `"iteration":0`), "issue-triage-comment-wf-001", 0, []string{"iteration"}},
		{"empty scenario", edit(`"scenario_id":"issue-triage-comment-wf-001"`, `"scenario_id":""`), "", 1, []string{"scenario_id"}},
		{"no scenario", edit(`"scenario_id":"issue-triage-comment-wf-001",`, ``), "", 1, []string{"scenario_id"}},
		{"truncated", `{"scenario_id":`, "", 0, []string{"scenario_id"}},
		{"array", `[1,2]`, "", 0, []string{"row"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := parseRows(strings.NewReader("\n"+tc.line+"\n"), "f.jsonl", "ghx")
			if err != nil || len(rows) != 1 {
				t.Fatalf("rows %v, err %v", rows, err)
			}
			r := rows[0]
			if r.ScenarioID != tc.wantID || r.Iteration != tc.wantIter {
				t.Errorf("id %q iteration %d, want %q %d", r.ScenarioID, r.Iteration, tc.wantID, tc.wantIter)
			}
			var fields []string
			for _, p := range r.Problems {
				fields = append(fields, p.Field)
				if p.File != "f.jsonl" || p.Line != 2 || p.Mode != "ghx" || p.ScenarioID != r.ScenarioID {
					t.Errorf("problem not located: %+v", p)
				}
			}
			if strings.Join(fields, ",") != strings.Join(tc.wantField, ",") {
				t.Errorf("problems %v, want %v", r.Problems, tc.wantField)
			}
			if string(r.Raw) != tc.line {
				t.Errorf("raw line not kept: %q", r.Raw)
			}
		})
	}
}

func TestParseRowsLineNumbers(t *testing.T) {
	in := "\n" + goodLine(t) + "\n\n" + "garbage\n"
	rows, err := parseRows(strings.NewReader(in), "s.jsonl", "ghx")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Line != 2 || rows[1].Line != 4 || len(rows[0].Problems) != 0 || len(rows[1].Problems) != 1 {
		t.Fatalf("rows %+v", rows)
	}
	want := `s.jsonl:4: ghx row: scenario (no scenario_id): row: expected a JSON object, got "garbage"`
	if got := rows[1].Problems[0].String(); got != want {
		t.Errorf("diagnostic %q, want %q", got, want)
	}
}

// FuzzParseRows checks that no input crashes the reader and that every
// row either passes or carries a located problem, and that a row set
// passes is one report reads and passes.
func FuzzParseRows(f *testing.F) {
	f.Add([]byte(`{"scenario_id":"a-001","iteration":1,"success":true,"output_valid":true,"error":null}` + "\n"))
	f.Add([]byte("{\"scenario_id\":\"a-001\",\"iteration\":1e400}\n{}\n"))
	f.Add([]byte("\x00\xff\n[]\nnull\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := parseRows(strings.NewReader(string(data)), "fuzz.jsonl", "ghx")
		if err != nil {
			return
		}
		for _, r := range rows {
			pass := r.SuccessOK && r.OutputValidOK && r.ErrorNullOK
			if len(r.Problems) == 0 {
				var strict suite.Row
				err := suite.Read(strings.NewReader(string(r.Raw)), "fuzz.jsonl", suite.ReadOptions{}, func(row *suite.Row) error {
					strict = *row
					return nil
				})
				if err != nil || len(strict.Violations()) > 0 {
					t.Fatalf("set passes a row report rejects (%v): %q", err, r.Raw)
				}
			}
			if !pass && len(r.Problems) == 0 {
				t.Fatalf("failing row without a problem: %+v", r)
			}
			for _, p := range r.Problems {
				if p.Line != r.Line || p.Line < 1 {
					t.Fatalf("problem line %d, row line %d", p.Line, r.Line)
				}
			}
		}
	})
}

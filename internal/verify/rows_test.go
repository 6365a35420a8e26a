package verify

import (
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/suite"
)

func TestParseRow(t *testing.T) {
	tests := []struct {
		name      string
		line      string
		mode      string
		wantID    string
		wantIter  int
		wantField []string
	}{
		{"passing row", `{"mode":"ghx","scenario_id":"pr-view-001","iteration":1,"success":true,"output_valid":true,"error":null}`, "ghx", "pr-view-001", 1, nil},
		{"failed success", `{"scenario_id":"a-001","iteration":2,"success":false,"output_valid":true,"error":null}`, "ghx", "a-001", 2, []string{"success"}},
		{"runner error row", `{"scenario_id":"a-001","iteration":1,"success":false,"output_valid":false,"error":{"type":"runner_error","message":"x"}}`, "ghx", "a-001", 1, []string{"success", "output_valid", "error"}},
		{"missing error field is not null", `{"scenario_id":"a-001","iteration":1,"success":true,"output_valid":true}`, "ghx", "a-001", 1, []string{"error"}},
		{"string true is not true", `{"scenario_id":"a-001","iteration":1,"success":"true","output_valid":true,"error":null}`, "ghx", "a-001", 1, []string{"success"}},
		{"wrong mode", `{"mode":"agent_direct","scenario_id":"a-001","iteration":1,"success":true,"output_valid":true,"error":null}`, "ghx", "a-001", 1, []string{"mode"}},
		{"bad iteration", `{"scenario_id":"a-001","iteration":1.5,"success":true,"output_valid":true,"error":null}`, "ghx", "a-001", 0, []string{"iteration"}},
		{"no scenario", `{"iteration":1,"success":true,"output_valid":true,"error":null}`, "ghx", "", 1, []string{"scenario_id"}},
		{"not json", `{"scenario_id":`, "ghx", "", 0, []string{"row"}},
		{"array", `[1,2]`, "ghx", "", 0, []string{"row"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := parseRow([]byte(tc.line), "f.jsonl", 7, tc.mode)
			if r.ScenarioID != tc.wantID || r.Iteration != tc.wantIter {
				t.Errorf("id %q iteration %d, want %q %d", r.ScenarioID, r.Iteration, tc.wantID, tc.wantIter)
			}
			var fields []string
			for _, p := range r.Problems {
				fields = append(fields, p.Field)
				if p.File != "f.jsonl" || p.Line != 7 || p.Mode != tc.mode {
					t.Errorf("problem not located: %+v", p)
				}
			}
			if strings.Join(fields, ",") != strings.Join(tc.wantField, ",") {
				t.Errorf("problems %v, want %v", fields, tc.wantField)
			}
		})
	}
}

func TestParseRowsLineNumbers(t *testing.T) {
	in := "\n" + `{"scenario_id":"a-001","iteration":1,"success":true,"output_valid":true,"error":null}` + "\n\n" + "garbage\n"
	rows, err := parseRows(strings.NewReader(in), "s.jsonl", "ghx")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Line != 2 || rows[1].Line != 4 || len(rows[1].Problems) != 1 {
		t.Fatalf("rows %+v", rows)
	}
	want := "s.jsonl:4: ghx row: scenario (no scenario_id): row: expected a JSON object, got invalid character"
	if got := rows[1].Problems[0].String(); !strings.HasPrefix(got, want) {
		t.Errorf("diagnostic %q, want prefix %q", got, want)
	}
}

// FuzzParseRows checks that no input crashes the reader and that every
// row either passes or carries a located problem.
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
				// A row set passes must be one report reads and passes.
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

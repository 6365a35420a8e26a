package action

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/suite"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
	"github.com/benchgate/benchgate/internal/verify"
)

// TestSameVerdictEverywhere feeds the same rows to the three places a
// user meets them: set (verify.ReadRows, lenient), report (report.Run,
// strict) and the Action's annotations (readSuite). A row must fail in all
// three or in none, each failure located at the row's line, and the rows
// after a bad one must still be read by the lenient readers.
func TestSameVerdictEverywhere(t *testing.T) {
	real, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "suites", "2026-02-25-ghx-suite.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	good, _, _ := strings.Cut(string(real), "\n")
	edit := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("row lacks %q", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	const (
		pass      = ""
		malformed = "malformed" // report refuses the file at the row
	)
	tests := []struct {
		name string
		line string
		// fail is "" for a passing row, malformed for a line that is not
		// a valid row, or the summary metric in which report counts the
		// broken rule.
		fail  string
		field string // the field every reader names
	}{
		{"good row", good, pass, ""},
		{"byte-order mark and a repeated key", "\ufeff" + edit(`"error":null`, `"error":{"type":"runner_error","message":"x"},"error":null`), pass, ""},
		{"success false", edit(`"success":true`, `"success":false`), "successRate", "success"},
		{"output_valid false", edit(`"output_valid":true`, `"output_valid":false`), "outputValidityRate", "output_valid"},
		{"error object", edit(`"error":null`, `"error":{"type":"runner_error","message":"boom"}`), "runnerFailureRate", "error"},
		{"tokens missing", edit(`"tokens":{"input":282,"output":85,"reasoning":8,"cache_read":11520,"cache_write":0,"total":11895},`, ``), malformed, "tokens"},
		{"latency is text", edit(`"latency_ms_wall":22252`, `"latency_ms_wall":"fast"`), malformed, "latency_ms_wall"},
		{"number out of range", edit(`"latency_ms_wall":22252`, `"latency_ms_wall":1.7e308`), malformed, "latency_ms_wall"},
		{"success as text", edit(`"success":true`, `"success":"true"`), malformed, "success"},
		{"truncated JSON", good[:len(good)/2], malformed, "row"},
		{"not an object", `[1,2,3]`, malformed, "row"},
		{"line over the limit", `{"pad":"` + strings.Repeat("x", suite.MaxLineBytes) + `"}`, malformed, "row"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The row under test, then a good row that must still be read.
			dir := t.TempDir()
			path := filepath.Join(dir, "ghx-suite.jsonl")
			if err := os.WriteFile(path, []byte(tc.line+"\n"+good+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			wantFail := tc.fail != pass

			// set
			rows, err := verify.ReadRows(path, "ghx")
			if err != nil {
				t.Fatalf("set: %v", err)
			}
			if len(rows) != 2 {
				t.Fatalf("set read %d rows, want 2", len(rows))
			}
			if setFails := len(rows[0].Problems) > 0; setFails != wantFail {
				t.Errorf("set: fails = %v, want %v (%v)", setFails, wantFail, rows[0].Problems)
			}
			if len(rows[1].Problems) != 0 || rows[1].Line != 2 {
				t.Errorf("set: the good row after it = %+v", rows[1].Problems)
			}
			for _, p := range rows[0].Problems {
				if p.File != path || p.Line != 1 {
					t.Errorf("set: problem not located at %s:1: %+v", path, p)
				}
			}
			if wantFail && rows[0].Problems[0].Field != tc.field {
				t.Errorf("set: first problem names %q, want %q", rows[0].Problems[0].Field, tc.field)
			}

			// report
			res, err := report.Run(context.Background(), report.Options{SuitePaths: []string{path}, Dir: dir,
				SummaryJSON: filepath.Join(dir, "s.json"), SummaryMD: filepath.Join(dir, "s.md")})
			switch {
			case tc.fail == malformed:
				if err == nil || !strings.Contains(err.Error(), path+":1: "+tc.field+": ") {
					t.Errorf("report: err = %v, want the row refused at %s:1 naming %s", err, path, tc.field)
				}
			case err != nil:
				t.Fatalf("report: %v", err)
			default:
				m := res.Summary.Modes.Get("ghx")
				got := map[string]bool{"successRate": m.SuccessRate < 100, "outputValidityRate": m.OutputValidityRate < 100,
					"runnerFailureRate": m.RunnerFailureRate > 0}
				for metric, counted := range got {
					if counted != (metric == tc.fail) {
						t.Errorf("report: %s counts the row as failing = %v, want %v", metric, counted, metric == tc.fail)
					}
				}
			}

			// the Action
			st, err := readSuite(path)
			if err != nil {
				t.Fatalf("action: %v", err)
			}
			actionFails := false
			for _, v := range st.Violations {
				if v.Line == 1 {
					actionFails = true
				} else {
					t.Errorf("action: the good row is annotated: %+v", v)
				}
			}
			if actionFails != wantFail || st.Rows != 2 {
				t.Errorf("action: fails = %v over %d rows, want %v over 2", actionFails, st.Rows, wantFail)
			}
			if wantFail && st.Violations[0].Field != tc.field {
				t.Errorf("action: first annotation names %q, want %q", st.Violations[0].Field, tc.field)
			}
		})
	}
}

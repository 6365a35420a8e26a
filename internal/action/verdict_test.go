package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/suite"
	"github.com/benchgate/benchgate/internal/testenv"
	"github.com/benchgate/benchgate/internal/verify"
)

// TestSameVerdictEverywhere feeds the same rows to the three readers a
// user meets: set (verify.ReadRows, lenient), report (suite.ReadFile,
// strict) and the Action's annotations (readSuite). Each row must fail in
// all three or in none, and the rows after a bad one must still be read
// by the lenient readers.
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
	tests := []struct {
		name string
		line string
		fail bool
	}{
		{"good row", good, false},
		{"success false", edit(`"success":true`, `"success":false`), true},
		{"output_valid false", edit(`"output_valid":true`, `"output_valid":false`), true},
		{"error object", edit(`"error":null`, `"error":{"type":"runner_error","message":"boom"}`), true},
		{"tokens missing", edit(`"tokens":{"input":282,"output":85,"reasoning":8,"cache_read":11520,"cache_write":0,"total":11895},`, ``), true},
		{"latency is text", edit(`"latency_ms_wall":22252`, `"latency_ms_wall":"fast"`), true},
		{"number out of range", edit(`"latency_ms_wall":22252`, `"latency_ms_wall":1.7e308`), true},
		{"truncated JSON", good[:len(good)/2], true},
		{"not an object", `[1,2,3]`, true},
		{"line over the limit", `{"pad":"` + strings.Repeat("x", suite.MaxLineBytes) + `"}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The row under test, then a good row that must still be read.
			path := filepath.Join(t.TempDir(), "ghx-suite.jsonl")
			if err := os.WriteFile(path, []byte(tc.line+"\n"+good+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}

			rows, err := verify.ReadRows(path, "ghx")
			if err != nil {
				t.Fatalf("set: %v", err)
			}
			if len(rows) != 2 {
				t.Fatalf("set read %d rows, want 2", len(rows))
			}
			if setFails := len(rows[0].Problems) > 0; setFails != tc.fail {
				t.Errorf("set: fails = %v, want %v (%v)", setFails, tc.fail, rows[0].Problems)
			}
			if len(rows[1].Problems) != 0 || rows[1].Line != 2 {
				t.Errorf("set: the good row after it = %+v", rows[1].Problems)
			}
			for _, p := range rows[0].Problems {
				if p.File != path || p.Line != 1 {
					t.Errorf("set: problem not located at %s:1: %+v", path, p)
				}
			}

			var reportFails bool
			err = suite.ReadFile(path, func(r *suite.Row) error {
				if r.Line == 1 && len(r.Violations()) > 0 {
					reportFails = true
				}
				return nil
			})
			if pe, ok := err.(*suite.ParseError); ok {
				reportFails = true
				if pe.Line != 1 || !strings.HasPrefix(pe.Error(), path+":1: ") {
					t.Errorf("report: error not located at line 1: %v", pe)
				}
			} else if err != nil {
				t.Fatalf("report: %v", err)
			}
			if reportFails != tc.fail {
				t.Errorf("report: fails = %v, want %v", reportFails, tc.fail)
			}

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
			if actionFails != tc.fail || st.Rows != 2 {
				t.Errorf("action: fails = %v over %d rows, want %v over 2", actionFails, st.Rows, tc.fail)
			}
		})
	}
}

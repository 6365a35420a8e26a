package action_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportStatsStep runs `benchgate action` in report mode with stats
// on the real 2026-02-25 suites: four scenarios are underpowered, so the
// gate fails unless undecided checks are allowed; the outputs carry the
// verdict and one line per metric, and the job summary shows them.
func TestReportStatsStep(t *testing.T) {
	real, err := filepath.Abs(filepath.Join("..", "..", "testdata", "suites"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		inputs   map[string]string
		wantCode int
		// wantError is the step's error annotation; "" for none.
		wantError string
	}{
		{"undecided fails the gate", map[string]string{"stats": "true"}, 1,
			"::error title=benchgate report::❌ benchgate report: fail: " +
				"active-token reduction 31.61%25 [-7.81%25, 57.25%25], needs ≥ 15.00%25 (undecided); " +
				"latency reduction 25.86%25 [0.94%25, 48.96%25], needs ≥ 15.00%25 (undecided); and 1 more · 0 checks failed, 3 undecided, 0 scenarios failing; "},
		{"undecided allowed", map[string]string{"stats": "true", "stats-allow-undecided": "true"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := map[string]string{"mode": "report", "suite-jsonl": "cur/2026-02-25-agent_direct-suite.jsonl\ncur/2026-02-25-ghx-suite.jsonl", "gate": "true", "upload-artifacts": "false"}
			for k, v := range tt.inputs {
				in[k] = v
			}
			s := newStep(t, in)
			for _, m := range []string{"agent_direct", "ghx"} {
				data, err := os.ReadFile(filepath.Join(real, "2026-02-25-"+m+"-suite.jsonl"))
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(s.ws, "cur", "2026-02-25-"+m+"-suite.jsonl")
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s.run(t)
			if s.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", s.code, tt.wantCode, s.stdout)
			}
			errs := annotationLines(s.stdout, "::error")
			switch {
			case tt.wantError == "" && len(errs) > 0:
				t.Errorf("error annotations on a passing step: %q", errs)
			case tt.wantError != "" && (len(errs) != 1 || !strings.HasPrefix(errs[0], tt.wantError)):
				t.Errorf("error annotations %q, want one starting %q (the statistical gate decides, not v2's tool-call check)", errs, tt.wantError)
			}
			out := s.outputs(t)
			if out["stats-verdict"] != "underpowered" {
				t.Errorf("stats-verdict: expected underpowered, got %q", out["stats-verdict"])
			}
			lines := strings.Split(out["stats-lines"], "\n")
			if len(lines) != 3 || !strings.HasPrefix(lines[0], "tokens_active 31.61% [-7.81%, 57.25%] n=4 threshold 15.00% UNDERPOWERED [") {
				t.Errorf("stats-lines: expected 3 lines, tokens first, got %q", out["stats-lines"])
			}
			if !strings.HasSuffix(out["stats-json"], "latest-stats.json") {
				t.Errorf("stats-json: expected the stats file, got %q", out["stats-json"])
			}
			sum := s.summary(t)
			// The power planner says, for each undecided check, what
			// would decide it.
			for _, w := range []string{"## Statistical gate", "**UNDERPOWERED**", "- `latency 25.86% [0.94%, 48.96%] n=4 threshold 15.00% UNDERPOWERED [",
				"Power planner: tokens_active: about ", "; latency: about ", "; tool_calls: about ", " scenarios at 5 repetitions would give 80% power to decide it at the observed reduction (25.86%; this run's 4 give 0%)"} {
				if !strings.Contains(sum, w) {
					t.Errorf("job summary lacks %q:\n%s", w, sum)
				}
			}
		})
	}
}

// annotationLines are the lines of out that start with prefix.
func annotationLines(out, prefix string) []string {
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			got = append(got, l)
		}
	}
	return got
}

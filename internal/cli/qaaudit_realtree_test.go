package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// noModelEnv is the environment without any model key, as on a machine
// that has none.
func noModelEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.Contains(k, "API_KEY") || strings.HasPrefix(k, "GEMINI") || strings.HasPrefix(k, "GOOGLE") || strings.HasPrefix(k, "OPENAI") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// TestQAAuditRealTreesWithoutModelOrLibrary audits the benchmark's real
// question trees (../shared/data/adk: upstream at 5187c37, and the
// before-fixes state d7e1048) as a user types it, with no model key and a
// Python without google.adk: every case loads with its snippet, no model
// is called, nothing is called Incorrect, and every case is Inconclusive
// with "not installed" in its reason.
func TestQAAuditRealTreesWithoutModelOrLibrary(t *testing.T) {
	py := testenv.Python(t)
	if exec.Command(py, "-c", "import google.adk").Run() == nil {
		t.Skipf("%s has google.adk; this test needs a Python without it", py)
	}
	data := testenv.SharedData(t)
	dir := t.TempDir()
	bin := testenv.Benchgate(t)
	tests := []struct {
		tree  string
		kinds map[string]int // cases per benchmark_type
		// snippets is how many multiple_choice cases show code from a
		// code_snippet_ref; unclosed is how many of those sections have
		// no end marker (read to the end of the file, with a warning).
		snippets, unclosed int
	}{
		{"upstream-5187c37", map[string]int{"multiple_choice": 140, "api_understanding": 54, "fix_error": 24}, 46, 2},
		{"upstream-d7e1048", map[string]int{"multiple_choice": 121}, 29, 0},
	}
	for _, tt := range tests {
		t.Run(tt.tree, func(t *testing.T) {
			root := filepath.Join(data, "adk", tt.tree)
			out := filepath.Join(dir, tt.tree)
			code, log, _ := runBinary(t, dir, noModelEnv(), bin, "qa-audit", "--python", py, "--require-module", "google.adk",
				"--repo-root", root, "--out-dir", out, filepath.Join(root, "benchmarks", "benchmark_definitions"))
			if code != ExitFailed {
				t.Fatalf("exit %d, want 1 (every case Inconclusive):\n%s", code, log)
			}
			raw, err := os.ReadFile(filepath.Join(out, "quality_report.json"))
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Model  string `json:"model"`
				Totals struct {
					Cases, Incorrect, Inconclusive, Skipped, Errors int
					ModelCalls                                      int `json:"model_calls"`
				} `json:"totals"`
				Cases []struct {
					ID, Kind, Verdict, Reason, Skipped, Error, Question string
					Problems                                            []json.RawMessage
					Warnings                                            []struct{ Field, Message string }
					Snippet                                             *struct{ Lines int } `json:"code_snippet"`
				} `json:"cases"`
			}
			if err := json.Unmarshal(raw, &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Model != "none" || rep.Totals.ModelCalls != 0 || rep.Totals.Incorrect != 0 || rep.Totals.Errors != 0 || rep.Totals.Skipped != 0 {
				t.Errorf("model %q, totals %+v: want no model, no call, nothing Incorrect, skipped or failed", rep.Model, rep.Totals)
			}
			kinds := map[string]int{}
			unclosed := 0
			for _, c := range rep.Cases {
				kinds[c.Kind]++
				if len(c.Problems) > 0 || c.Skipped != "" || c.Error != "" {
					t.Errorf("%s did not load or run: problems %s, skipped %q, error %q", c.ID, c.Problems, c.Skipped, c.Error)
				}
				if c.Verdict != "Inconclusive" || !strings.Contains(c.Reason, "not installed") {
					t.Errorf("%s: %s (%q), want Inconclusive because the library is not installed", c.ID, c.Verdict, c.Reason)
				}
				for _, w := range c.Warnings {
					if w.Field == "code_snippet_ref.section" && strings.Contains(w.Message, "never closed") {
						unclosed++
					}
				}
			}
			for k, n := range tt.kinds {
				if kinds[k] != n {
					t.Errorf("%d %s cases in the report, want %d (all: %v)", kinds[k], k, n, kinds)
				}
			}
			if len(kinds) != len(tt.kinds) || rep.Totals.Cases != len(rep.Cases) {
				t.Errorf("kinds %v, %d cases, totals %d", kinds, len(rep.Cases), rep.Totals.Cases)
			}
			if unclosed != tt.unclosed {
				t.Errorf("%d cases warn of an unclosed snippet section, want %d", unclosed, tt.unclosed)
			}
			snippets := 0
			for _, c := range rep.Cases {
				if c.Snippet != nil && c.Snippet.Lines > 0 {
					snippets++
				}
			}
			if snippets != tt.snippets {
				t.Errorf("%d cases show resolved code, want %d", snippets, tt.snippets)
			}
			if strings.Contains(log, "API key") || strings.Contains(log, "model check") {
				t.Errorf("the run mentions a model:\n%s", log)
			}
		})
	}
}

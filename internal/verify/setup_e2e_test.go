package verify_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBrokenSetupIsExitTwoAndWritesNothing runs the built benchgate with
// the setup mistakes a user makes before any benchmark runs: each is
// exit 2, names the file and what was expected, and leaves no
// tracking.json (nor any set folder) that would read as a judged set.
func TestBrokenSetupIsExitTwoAndWritesNothing(t *testing.T) {
	manifests := map[string]string{
		"truncated":   `{"version": 1, "repo": {"full_na`,
		"empty":       ``,
		"wrong shape": `[{"version": 1}]`,
		"no repo":     `{"version": 1, "resources": {}}`,
	}
	for name, content := range manifests {
		for _, cmd := range []string{"set", "ordered"} {
			t.Run(cmd+" with a "+name+" fixture manifest", func(t *testing.T) {
				f := newFixture(t, "none.json", nil)
				if err := os.WriteFile(f.manifest, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(f.dir, "out")
				args := []string{"ordered", "--config", f.config, "--provider", "openai", "--fixture-manifest", f.manifest, "--out-dir", out}
				if cmd == "set" {
					args = f.setArgs("ci-diagnostics")
				}
				code, _, stderr := f.run(args...)
				if code != 2 {
					t.Fatalf("exit %d, want 2\n%s", code, stderr)
				}
				if !strings.Contains(stderr, "fixture manifest "+f.manifest) || !strings.Contains(stderr, "--fixture-manifest") {
					t.Errorf("the message does not name the manifest and what to do:\n%s", stderr)
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("exit 2 left %s behind", out)
				}
			})
		}
	}

	t.Run("malformed scenario-sets.json", func(t *testing.T) {
		f := newFixture(t, "none.json", nil)
		sets := filepath.Join(f.dir, "sets.json")
		if err := os.WriteFile(sets, []byte(`{"pr-exec": ["pr-view-001",`), 0o644); err != nil {
			t.Fatal(err)
		}
		f = newFixture(t, "none.json", map[string]any{"scenario_sets": sets})
		code, _, stderr := f.run(f.setArgs("pr-exec")...)
		if code != 2 || !strings.Contains(stderr, sets) {
			t.Fatalf("exit %d, want 2 naming %s:\n%s", code, sets, stderr)
		}
		if _, err := os.Stat(filepath.Join(f.dir, "out")); err == nil {
			t.Errorf("exit 2 left a set folder behind")
		}
	})

	t.Run("unknown placeholder in the benchmark argv", func(t *testing.T) {
		f := newFixture(t, "none.json", map[string]any{"benchmark": []string{"benchsim", "benchmark", "{mode}", "{repetitions}",
			"--provider", "{provider}", "--model", "{model_id}", "--output-jsonl", "{output_jsonl}", "{selector}"}})
		code, _, stderr := f.run(f.setArgs("ci-diagnostics")...)
		if code != 2 || !strings.Contains(stderr, f.config) || !strings.Contains(stderr, `benchmark[7] "{model_id}": unknown placeholder {model_id}`) {
			t.Fatalf("exit %d, want 2 naming %s and the placeholder:\n%s", code, f.config, stderr)
		}
		if _, err := os.Stat(filepath.Join(f.dir, "out")); err == nil {
			t.Errorf("exit 2 left a set folder behind")
		}
	})

	t.Run("outside a benchmark package", func(t *testing.T) {
		f := newFixture(t, "none.json", nil)
		cmd := f.command("set", "--set", "pr-exec", "--provider", "openai")
		cmd.Dir = t.TempDir()
		outb, _ := cmd.CombinedOutput()
		out := string(outb)
		if cmd.ProcessState.ExitCode() != 2 {
			t.Fatalf("exit %d, want 2\n%s", cmd.ProcessState.ExitCode(), out)
		}
		for _, w := range []string{"scenario-sets.json", "--bench-dir", "--config"} {
			if !strings.Contains(out, w) {
				t.Errorf("message lacks %q:\n%s", w, out)
			}
		}
		if _, err := os.Stat(filepath.Join(cmd.Dir, "reports")); err == nil {
			t.Errorf("exit 2 wrote a reports folder in the current directory")
		}
	})
}

package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStrayInput(t *testing.T) {
	for _, c := range []struct {
		name     string
		fromJSON bool
		want     string // "" when the variable is read or unrelated
	}{
		{"INPUT_SUITE-JSONL", false, ""},
		{"INPUT_MODE", false, ""},
		{"INPUT_SUITE_JSONL", false, "INPUT_SUITE_JSONL is not read: the input suite-jsonl is read from INPUT_SUITE-JSONL"},
		{"INPUT_WORKING_DIRECTORY", false, "the input working-directory is read from INPUT_WORKING-DIRECTORY"},
		{"INPUT_SUITE-JSON", false, "INPUT_SUITE-JSON is not an input of benchgate; did you mean suite-jsonl (INPUT_SUITE-JSONL)?"},
		{"INPUT_REPETITION", false, "did you mean repetitions"},
		{"INPUT_GATE_PROFILE", false, "the input gate-profile is read from INPUT_GATE-PROFILE"},
		{"INPUT_NODE-VERSION", false, ""},
		{"INPUT_TOKEN", false, ""},
		// A runner's own copy of an input given under with: (act sets
		// them for composite steps, GitHub's runner does not).
		{"INPUT_SUITE-JSONL", true, ""},
		{"INPUT_SUITE-JSON", true, "this action reads its inputs from `with:`; give `suite-jsonl:` under `with:` instead"},
		{"INPUT_SUITE_JSONL", true, "give `suite-jsonl:` under `with:`"},
	} {
		got := strayInput(c.name, c.fromJSON)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("strayInput(%s, %v) = %q, want %q", c.name, c.fromJSON, got, c.want)
		}
	}
}

// TestStrayInputsAreWarnedInTheStep: the step warns with the right name
// and still runs.
func TestStrayInputsAreWarnedInTheStep(t *testing.T) {
	h := newHarness(t, map[string]string{"mode": "report", "suite-jsonl": "a-suite.jsonl"})
	h.result = &Result{}
	h.environ = []string{"PATH=/bin", "INPUT_SUITE_JSONL=results/x-suite.jsonl", "INPUT_GATE=true", "INPUT_OTHER-ACTION=1"}
	h.run(func(dir string, args []string) int { return 0 })
	log := h.stdout.String()
	if !strings.Contains(log, "::warning title=benchgate%3A INPUT_SUITE_JSONL is not read::INPUT_SUITE_JSONL is not read: the input suite-jsonl is read from INPUT_SUITE-JSONL") {
		t.Errorf("no warning naming suite-jsonl:\n%s", log)
	}
	if strings.Contains(log, "INPUT_GATE ") || strings.Contains(log, "INPUT_OTHER-ACTION") {
		t.Errorf("warned about a variable that is read or unrelated:\n%s", log)
	}
}

func TestSuiteJSONLGlobs(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []string{"results/ghx-suite.jsonl", "results/agent_direct-suite.jsonl", "results/notes.txt"} {
		if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	get := func(in map[string]string) func(string) string { return func(k string) string { return in[k] } }
	p, err := BuildPlan(get(map[string]string{"mode": "report", "suite-jsonl": "results/*-suite.jsonl\nother.jsonl"}), ws, "1-1")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(p.Args, " ")
	want := "--suite-jsonl " + filepath.Join(ws, "results/agent_direct-suite.jsonl") + " --suite-jsonl " + filepath.Join(ws, "results/ghx-suite.jsonl") + " --suite-jsonl other.jsonl"
	if !strings.Contains(got, want) {
		t.Errorf("args %q, want them to contain %q", got, want)
	}
	// Relative to working-directory.
	p, err = BuildPlan(get(map[string]string{"mode": "report", "working-directory": "results", "suite-jsonl": "ghx-*.jsonl"}), ws, "1-1")
	if err != nil || !strings.Contains(strings.Join(p.Args, " "), "--suite-jsonl "+filepath.Join(ws, "results/ghx-suite.jsonl")) {
		t.Errorf("pattern relative to working-directory: %v %q", err, p.Args)
	}
	_, err = BuildPlan(get(map[string]string{"mode": "report", "suite-jsonl": "reports/*-suite.jsonl"}), ws, "1-1")
	if err == nil || !strings.Contains(err.Error(), `input "suite-jsonl": expected a path or a pattern that matches files (no file matches `+filepath.Join(ws, "reports/*-suite.jsonl")+`), got "reports/*-suite.jsonl"`) {
		t.Errorf("empty match: %v", err)
	}
	_, err = BuildPlan(get(map[string]string{"mode": "report", "suite-jsonl": "results/[-suite.jsonl"}), ws, "1-1")
	if err == nil || !strings.Contains(err.Error(), "a valid glob pattern") {
		t.Errorf("bad pattern: %v", err)
	}
}

func TestNamedBaselineFolderMustExist(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "bench", "prev"), 0o755); err != nil {
		t.Fatal(err)
	}
	get := func(in map[string]string) func(string) string { return func(k string) string { return in[k] } }
	in := map[string]string{"mode": "set", "set": "pr-exec", "provider": "openai", "working-directory": "bench", "baseline": "prev"}
	if _, err := BuildPlan(get(in), ws, "1-1"); err != nil {
		t.Errorf("an existing folder relative to working-directory: %v", err)
	}
	in["baseline"] = "baselines/main"
	_, err := BuildPlan(get(in), ws, "1-1")
	if err == nil || !strings.Contains(err.Error(), `input "baseline": expected an existing folder or file (`+filepath.Join(ws, "bench", "baselines/main")+` does not exist), or base-branch`) {
		t.Errorf("missing named baseline: %v", err)
	}
	in["baseline"] = BaseBranch
	if _, err := BuildPlan(get(in), ws, "1-1"); err != nil {
		t.Errorf("base-branch: %v", err)
	}
	// A mode that takes no baseline ignores it (and warns elsewhere).
	if _, err := BuildPlan(get(map[string]string{"mode": "ordered", "provider": "openai", "baseline": "nowhere"}), ws, "1-1"); err != nil {
		t.Errorf("ordered with a baseline: %v", err)
	}
}

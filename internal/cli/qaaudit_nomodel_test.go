package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestQAAuditNeedsNoModelForExecutionProofs runs the binary as a user
// would on api_understanding cases, with no model flag and no API key in
// the environment: the cases are proven and the run exits by its
// verdicts, not with "no API key". Adding a multiple_choice case makes the
// model necessary, and the error says why.
func TestQAAuditNeedsNoModelForExecutionProofs(t *testing.T) {
	py := testenv.Python(t)
	dir := t.TempDir()
	bin := testenv.Benchgate(t)
	apiCases := `benchmarks:
- id: stdlib:json_decoder
  category: Core classes
  question: Which class decodes JSON documents?
  rationale: json.decoder.JSONDecoder decodes.
  benchmark_type: api_understanding
  template: identifier
  answers:
  - answer_template: StringMatchAnswer
    answer: JSONDecoder
    fully_qualified_class_name: [json.decoder.JSONDecoder]
  file: Lib/json/decoder.py
- id: stdlib:json_no_such_thing
  category: Core classes
  question: Which class decodes JSON lazily?
  rationale: None does.
  benchmark_type: api_understanding
  template: identifier
  answers:
  - answer_template: StringMatchAnswer
    answer: NoSuchThing
    fully_qualified_class_name: [json.decoder.NoSuchThing]
  file: Lib/json/decoder.py
`
	mc := `- id: stdlib:mc
  category: Core classes
  question: What does len("ab") return?
  options:
    A: "2"
    B: "3"
  correct_answer: A
  rationale: two characters.
  benchmark_type: multiple_choice
`
	os.WriteFile(filepath.Join(dir, "api.benchmark.yaml"), []byte(apiCases), 0o644)
	os.WriteFile(filepath.Join(dir, "mixed.benchmark.yaml"), []byte(apiCases+mc), 0o644)
	// No model variables at all, as on a machine without any key.
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.Contains(k, "API_KEY") || strings.HasPrefix(k, "GEMINI") || strings.HasPrefix(k, "GOOGLE") {
			continue
		}
		env = append(env, kv)
	}
	run := func(file, out string, extra ...string) (int, string) {
		cmd := exec.Command(bin, append([]string{"qa-audit", "--python", py, "--output-dir", out, file}, extra...)...)
		cmd.Dir, cmd.Env = dir, env
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), b.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, b.String()
	}

	code, out := run("api.benchmark.yaml", "out-api")
	if code != ExitFailed || strings.Contains(out, "API key") {
		t.Fatalf("exit %d, want 1 (one case is Incorrect) and no model error:\n%s", code, out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "out-api", "quality_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Model string `json:"model"`
		Cases []struct {
			ID      string `json:"id"`
			Verdict string `json:"verdict"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range rep.Cases {
		got[c.ID] = c.Verdict
	}
	if got["stdlib:json_decoder"] != "Valid" || got["stdlib:json_no_such_thing"] != "Incorrect" || rep.Model != "none" {
		t.Errorf("verdicts %v, model %q; want Valid and Incorrect with model none", got, rep.Model)
	}

	code, out = run("mixed.benchmark.yaml", "out-mixed")
	if code != ExitUsage || !strings.Contains(out, "a model is needed because 1 multiple_choice case(s) are selected; --kinds api_understanding,fix_error") {
		t.Errorf("mixed file: exit %d, want 2 naming why a model is needed:\n%s", code, out)
	}

	// --kinds leaves the multiple_choice case out: no model needed.
	code, out = run("mixed.benchmark.yaml", "out-kinds", "--kinds", "api_understanding,fix_error")
	if code != ExitFailed || strings.Contains(out, "API key") {
		t.Fatalf("--kinds: exit %d, want 1 and no model error:\n%s", code, out)
	}
	raw, err = os.ReadFile(filepath.Join(dir, "out-kinds", "quality_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep.Cases = nil
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 2 || rep.Model != "none" {
		t.Errorf("--kinds report: %d cases, model %q; want the 2 api_understanding cases and model none", len(rep.Cases), rep.Model)
	}

	// A library the benchmark needs (--require-module) that does not
	// import settles the multiple_choice case without a model.
	code, out = run("mixed.benchmark.yaml", "out-nolib", "--require-module", "module_that_is_not_installed")
	if code != ExitFailed || strings.Contains(out, "API key") {
		t.Fatalf("--require-module: exit %d, want 1 and no model error:\n%s", code, out)
	}
	raw, err = os.ReadFile(filepath.Join(dir, "out-nolib", "quality_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var nolib struct {
		Cases []struct {
			ID, Verdict, Reason string
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &nolib); err != nil {
		t.Fatal(err)
	}
	for _, c := range nolib.Cases {
		if c.ID == "stdlib:mc" && (c.Verdict != "Inconclusive" || !strings.Contains(c.Reason, "module_that_is_not_installed") || !strings.Contains(c.Reason, "not installed")) {
			t.Errorf("multiple_choice case without its library: %+v", c)
		}
	}
	if len(nolib.Cases) != 3 {
		t.Errorf("%d cases in the report, want 3", len(nolib.Cases))
	}

	// A bad --kinds value names the flag and the value.
	code, out = run("mixed.benchmark.yaml", "out-bad", "--kinds", "api_understanding,essay")
	if code != ExitUsage || !strings.Contains(out, `--kinds "api_understanding,essay"`) || !strings.Contains(out, `"essay"`) {
		t.Errorf("bad --kinds: exit %d:\n%s", code, out)
	}
}

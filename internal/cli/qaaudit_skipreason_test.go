package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/qaaudit/qreport"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/testsupport/agentfake"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestQAAuditEngineerReadsTheSkipReason runs the built binary against the
// scripted OpenAI-compatible model on a multiple_choice question about
// ADK, with a Python that does not have ADK and no --require-module: the
// proof engineer's tests import google.adk and are skipped. The tool
// result the engineer's model is sent back says why (the module is not
// installed), not only that every test was skipped, and the option
// results, the case's reason and the Markdown say the same.
func TestQAAuditEngineerReadsTheSkipReason(t *testing.T) {
	py := testenv.Python(t)
	if exec.Command(py, "-c", "import google.adk").Run() == nil {
		t.Skipf("%s has google.adk; this test needs a Python without it", py)
	}
	bin := testenv.Benchgate(t)
	dir := t.TempDir()
	const question = `benchmarks:
- id: adk:agent_name
  category: agents
  question: Which keyword names an LlmAgent?
  options:
    A: The name keyword
    B: The title keyword
  correct_answer: A
  explanation: every agent has a name.
  benchmark_type: multiple_choice
`
	if err := os.WriteFile(filepath.Join(dir, "adk.benchmark.yaml"), []byte(question), 0o644); err != nil {
		t.Fatal(err)
	}
	adkTest := func(kw string) string {
		return "from google.adk.agents import LlmAgent\n\n\ndef test_option():\n    LlmAgent(" + kw + "=\"a\", model=\"m\")\n"
	}
	model := agentfake.New(map[string]string{
		"The name keyword":  adkTest("name"),
		"The title keyword": adkTest("title"),
	}, nil)
	defer model.Close()

	code, out, _ := runBinary(t, dir, append(os.Environ(), "OPENAI_API_KEY=sk-local-123456"), bin, "qa-audit",
		"--model-backend", "openai", "--model", "m", "--model-url", model.URL+"/v1",
		"--python", py, "--output-dir", "out", "--max-remediations", "0", "--jobs", "1", "adk.benchmark.yaml")
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d (the case is Inconclusive)\n%s", code, ExitFailed, out)
	}
	const why = "google.adk is not installed in this Python"

	// The tool results the engineer's model was sent.
	var results []string
	for _, body := range model.Bodies("proof_engineer") {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal([]byte(body), &req); err != nil {
			t.Fatal(err)
		}
		for _, m := range req.Messages {
			if m.Role == "tool" {
				results = append(results, m.Content)
			}
		}
	}
	if len(results) == 0 {
		t.Fatalf("the engineer was never sent a tool result\n%s", out)
	}
	for _, r := range results {
		if !strings.Contains(r, why) {
			t.Errorf("a tool result the engineer read does not say why its test was skipped:\n%s", r)
		}
	}

	rep, err := qreport.Read(filepath.Join(dir, "out", "quality_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 1 || rep.Cases[0].Verdict != verdict.Inconclusive || len(rep.Cases[0].Options) == 0 {
		t.Fatalf("report: %+v", rep.Cases)
	}
	c := rep.Cases[0]
	for _, o := range c.Options {
		if o.Outcome != sandbox.StatusSkipped || !strings.Contains(o.Message, why) {
			t.Errorf("option %s: outcome %s, message %q; want skipped saying %q", o.Key, o.Outcome, o.Message, why)
		}
	}
	if !strings.Contains(c.Reason, why) {
		t.Errorf("the case's reason does not say why: %q", c.Reason)
	}
	md, err := os.ReadFile(filepath.Join(dir, "out", "quality_report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), why) {
		t.Errorf("the Markdown does not say why:\n%s", md)
	}
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestQAAuditRefusalIsNoWorkflowCommand runs the built binary as the
// weekly workflow's plain run: step does, on a question file whose case
// ID holds a line break and a workflow command (and one with an image and
// a mention): the case is refused as malformed, and no line of stdout or
// stderr is a workflow command the runner would read, while the refusal
// still names the ID. The report's Markdown shows the IDs inert.
func TestQAAuditRefusalIsNoWorkflowCommand(t *testing.T) {
	py := testenv.Python(t)
	bin := testenv.Benchgate(t)
	dir := t.TempDir()
	const question = `benchmarks:
  - id: "q1\n::warning title=forged::pwned\n##[error]old style"
    category: x
    question: Which json function writes a string?
    rationale: json.dumps
    benchmark_type: api_understanding
    template: identifier
    answers:
      - answer_template: StringMatchAnswer
        answer: dumps
        fully_qualified_class_name:
          - json.dumps
  - id: "q2 ![t](https://evil.example/p.png) @octo-org/everyone"
    category: x
    question: Which json function reads a string?
    rationale: json.loads
    benchmark_type: api_understanding
    template: identifier
    answers:
      - answer_template: StringMatchAnswer
        answer: loads
        fully_qualified_class_name:
          - json.loads
`
	if err := os.WriteFile(filepath.Join(dir, "q.benchmark.yaml"), []byte(question), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runBinary(t, dir, os.Environ(), bin, "qa-audit", "--python", py, "--output-dir", "out",
		"--max-remediations", "0", "--kinds", "api_understanding", "q.benchmark.yaml")
	if code == ExitOK {
		t.Fatalf("exit 0 on malformed cases\n%s", stdout)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if t2 := strings.TrimSpace(l); strings.HasPrefix(t2, "::") || strings.HasPrefix(t2, "##[") {
			t.Errorf("the runner would read a workflow command: %q\n%s", l, stdout)
		}
	}
	if !strings.Contains(stdout, "skipped: malformed case") || !strings.Contains(stdout, "warning title=forged") {
		t.Errorf("the refusal does not name the case:\n%s", stdout)
	}
	md, err := os.ReadFile(filepath.Join(dir, "out", "quality_report.md"))
	if err != nil {
		t.Fatal(err)
	}
	gfm.RequireInert(t, "quality_report.md", string(md))
}

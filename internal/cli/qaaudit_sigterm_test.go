package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestQAAuditStopsQuicklyOnSIGTERM audits a large question file with the
// real binary and stops it with SIGTERM once the audit is under way: it
// must exit within 5 seconds with a complete, valid report that lists
// every case, the unaudited ones marked as such.
func TestQAAuditStopsQuicklyOnSIGTERM(t *testing.T) {
	py := testenv.Python(t)
	dir := t.TempDir()
	bin := testenv.Benchgate(t)
	const cases = 3000
	var b strings.Builder
	b.WriteString("benchmarks:\n")
	for i := 0; i < cases; i++ {
		fmt.Fprintf(&b, `- id: stdlib:json_decoder_%d
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
`, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.benchmark.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "qa-audit", "--model-backend", "openai", "--model", "m", "--model-url", "http://127.0.0.1:9/v1",
		"--python", py, "--output-dir", "out", "big.benchmark.yaml")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=sk-local-123456")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "out", "quality_report.json")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(report); err == nil && strings.Count(out.String(), "\n") >= 3 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the audit never got under way:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("qa-audit still running 30 s after SIGTERM")
	}
	if took := time.Since(stopped); took > 5*time.Second {
		t.Errorf("qa-audit took %s to stop after SIGTERM, want at most 5 s", took.Round(time.Millisecond))
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Cases []struct {
			ID    string `json:"id"`
			Error string `json:"error"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("report after SIGTERM is not valid JSON: %v", err)
	}
	if len(rep.Cases) != cases {
		t.Fatalf("report lists %d cases, want %d", len(rep.Cases), cases)
	}
	if last := rep.Cases[cases-1]; !strings.HasPrefix(last.Error, "not audited") {
		t.Errorf("last case %+v, want it marked not audited", last)
	}
}

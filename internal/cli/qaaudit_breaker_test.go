package cli

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testenv"
)

// TestQAAuditGivesUpOnADeadModelEndpoint audits ten multiple_choice cases
// against an endpoint that refuses every connection: after three failed
// calls in a row the model is no longer called, the run ends in seconds,
// says so once, and the report lists the error once with its cases.
func TestQAAuditGivesUpOnADeadModelEndpoint(t *testing.T) {
	py := testenv.Python(t)
	dir := t.TempDir()
	bin := buildBenchgate(t, dir)
	// A port nothing listens on: open one and close it again.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	var b strings.Builder
	b.WriteString("benchmarks:\n")
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "- id: t:mc_%d\n  category: c\n  question: What does len(\"ab\") return?\n  options:\n    A: \"2\"\n    B: \"3\"\n  correct_answer: A\n  rationale: two characters.\n  benchmark_type: multiple_choice\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "mc.benchmark.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "qa-audit", "--model-backend", "openai", "--model", "m", "--model-url", "http://"+dead+"/v1",
		"--python", py, "--output-dir", "out", "mc.benchmark.yaml")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=sk-local-123456")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitFailed {
		t.Fatalf("err %v, want exit %d\n%s", err, ExitFailed, out.String())
	}
	if took := time.Since(start); took > 60*time.Second {
		t.Errorf("took %s against a dead endpoint", took)
	}
	if n := strings.Count(out.String(), "stopped calling the model after 3 failed calls in a row"); n != 1 {
		t.Errorf("the breaker is reported %d times, want once:\n%s", n, out.String())
	}
	md, err := os.ReadFile(filepath.Join(dir, "out", "quality_report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "### 3 case(s): model m at http://"+dead) || !strings.Contains(string(md), "### 7 case(s): model endpoint unavailable") {
		t.Errorf("the report does not group the errors:\n%s", md)
	}
	if n := strings.Count(string(md), "connection refused"); n > 2 {
		t.Errorf("the connection error is repeated %d times in the report", n)
	}
}

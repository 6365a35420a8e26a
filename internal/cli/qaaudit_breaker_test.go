package cli

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// mcFile writes n multiple_choice cases and returns the file name.
func mcFile(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("benchmarks:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "- id: t:mc_%d\n  category: c\n  question: What does len(\"ab\") return?\n  options:\n    A: \"2\"\n    B: \"3\"\n  correct_answer: A\n  rationale: two characters.\n  benchmark_type: multiple_choice\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "mc.benchmark.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return "mc.benchmark.yaml"
}

func runBinary(t *testing.T, dir string, env []string, bin string, args ...string) (int, string, time.Duration) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), took
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), took
}

// TestQAAuditChecksTheModelOnceFirst audits ten multiple_choice cases
// against an endpoint that refuses every connection: the one check call
// before the first case fails and ends the run as broken setup (exit 2),
// quickly, once, and before any case is judged.
func TestQAAuditChecksTheModelOnceFirst(t *testing.T) {
	py := testenv.Python(t)
	dir := t.TempDir()
	bin := testenv.Benchgate(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	file := mcFile(t, dir, 10)
	code, out, took := runBinary(t, dir, append(os.Environ(), "OPENAI_API_KEY=sk-local-123456"), bin, "qa-audit", "--model-backend", "openai", "--model", "m", "--model-url", "http://"+dead+"/v1",
		"--python", py, "--output-dir", "out", file)
	if code != ExitUsage {
		t.Fatalf("exit %d, want %d\n%s", code, ExitUsage, out)
	}
	if took > 30*time.Second {
		t.Errorf("took %s against a dead endpoint", took)
	}
	if n := strings.Count(out, "model check failed"); n != 1 {
		t.Errorf("the failed check is reported %d times, want once:\n%s", n, out)
	}
	if n := strings.Count(out, "connection refused"); n != 1 {
		t.Errorf("the connection error appears %d times, want once:\n%s", n, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "quality_report.json")); err == nil {
		t.Errorf("a report was written although no case was audited")
	}
}

// TestQAAuditGivesUpOnAModelEndpointThatDies audits ten multiple_choice
// cases against an endpoint that answers the check call and then fails
// every call: after three failed calls in a row the model is no longer
// called, the run says so once, and the report lists each identical
// error once with the count of its cases. With cases audited in parallel,
// the calls already in flight when the third failure arrives still end
// (one more per extra job, at most).
func TestQAAuditGivesUpOnAModelEndpointThatDies(t *testing.T) {
	py := testenv.Python(t)
	bin := testenv.Benchgate(t)
	for _, jobs := range []int{1, 2} {
		t.Run(fmt.Sprintf("jobs=%d", jobs), func(t *testing.T) {
			dir := t.TempDir()
			var mu sync.Mutex
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				calls++
				n := calls
				mu.Unlock()
				if n == 1 {
					io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"OK"},"finish_reason":"stop"}]}`)
					return
				}
				http.Error(w, `{"error":{"message":"the model is overloaded"}}`, http.StatusServiceUnavailable)
			}))
			defer srv.Close()
			file := mcFile(t, dir, 10)
			code, out, took := runBinary(t, dir, append(os.Environ(), "OPENAI_API_KEY=sk-local-123456"), bin, "qa-audit", "--model-backend", "openai", "--model", "m", "--model-url", srv.URL+"/v1",
				"--python", py, "--output-dir", "out", "--jobs", fmt.Sprint(jobs), file)
			if code != ExitFailed {
				t.Fatalf("exit %d, want %d\n%s", code, ExitFailed, out)
			}
			if took > 60*time.Second {
				t.Errorf("took %s against a failing endpoint", took)
			}
			if n := strings.Count(out, "stopped calling the model after 3 failed calls in a row"); n != 1 {
				t.Errorf("the breaker is reported %d times, want once:\n%s", n, out)
			}
			if !strings.Contains(out, "the multiple_choice cases after that end with its error (audit errors: Inconclusive, counted in the errors)") ||
				!strings.Contains(out, "0 inconclusive, 0 skipped, 10 errors") {
				t.Errorf("the breaker's line and the totals disagree:\n%s", out)
			}
			mu.Lock()
			failed := calls - 1
			mu.Unlock()
			if failed < 3 || failed > 3+jobs-1 {
				t.Errorf("%d failed calls reached the endpoint after the check, want 3 to %d", failed, 3+jobs-1)
			}
			checkProgressWords(t, out, filepath.Join(dir, "out", "quality_report.json"))
			md, err := os.ReadFile(filepath.Join(dir, "out", "quality_report.md"))
			if err != nil {
				t.Fatal(err)
			}
			// The report shows the endpoint's URL with an invisible word
			// joiner that keeps it from becoming a link.
			shown := strings.ReplaceAll(string(md), "\u2060", "")
			if !strings.Contains(shown, fmt.Sprintf("### %d case(s): model m at %s", failed, srv.URL)) ||
				!strings.Contains(string(md), fmt.Sprintf("### %d case(s): model endpoint unavailable", 10-failed)) {
				t.Errorf("the report does not group the errors (%d failed calls):\n%s", failed, md)
			}
			if n := strings.Count(string(md), "the model is overloaded"); n > 2 {
				t.Errorf("the endpoint's error is repeated %d times in the report", n)
			}
		})
	}
}

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestQAAuditAdversarialBankThroughTheBinary runs benchgate qa-audit, as a
// user types it, on fix_error cases of the adversarial bank
// (testdata/qabank-adversarial, in the layout of the benchmark's tree)
// that need the sandbox's whole case folder, its loopback and its limits:
// a data file beside the code, a server on 127.0.0.1, unfixed code whose
// memory grows without bound (stopped by --test-memory, named in the
// report's JSON and Markdown), and a Windows-only name.
func TestQAAuditAdversarialBankThroughTheBinary(t *testing.T) {
	py := testenv.Python(t)
	bin := testenv.Benchgate(t)
	root := filepath.Join(t.TempDir(), "bank")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "testdata", "qabank-adversarial"))); err != nil {
		t.Fatal(err)
	}
	defs := filepath.Join("benchmarks", "benchmark_definitions")
	code, log, _ := runBinary(t, root, noModelEnv(), bin, "qa-audit", "--python", py, "--test-timeout", "60s", "--test-memory", "512MiB",
		"--case", "adversarial_fix:01_data_file", "--case", "adversarial_fix:09_loopback", "--case", "adversarial_fix:13_unfixed_memory_runaway",
		"--case", "adversarial_api:os_startfile", defs)
	if code != ExitFailed {
		t.Fatalf("exit %d, want 1 (os.startfile is Inconclusive):\n%s", code, log)
	}
	if strings.Contains(log, "refused the local sandbox") && os.Getenv("BENCHGATE_TEST_REQUIRE") == "1" {
		t.Fatalf("the kernel refused the sandbox:\n%s", log)
	}
	raw, err := os.ReadFile(filepath.Join(root, "qa-audit", "quality_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Cases []struct {
			ID, Verdict, Reason string
			Attempts            []struct {
				Options []struct{ Key, Message, Limit string } `json:"options"`
			} `json:"attempts"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"adversarial_fix:01_data_file":              "Valid",
		"adversarial_fix:09_loopback":               "Valid",
		"adversarial_fix:13_unfixed_memory_runaway": "Valid",
		"adversarial_api:os_startfile":              "Inconclusive",
	}
	if len(rep.Cases) != len(want) {
		t.Fatalf("%d cases, want %d:\n%s", len(rep.Cases), len(want), log)
	}
	limited := false
	for _, c := range rep.Cases {
		if c.Verdict != want[c.ID] {
			t.Errorf("%s: %s (%s), want %s", c.ID, c.Verdict, c.Reason, want[c.ID])
		}
		for _, at := range c.Attempts {
			for _, o := range at.Options {
				if o.Limit != "" {
					limited = true
					if c.ID != "adversarial_fix:13_unfixed_memory_runaway" || o.Key != "unfixed" || o.Limit != "memory" ||
						!strings.Contains(o.Message, "stopped by the memory limit (512 MiB)") {
						t.Errorf("%s %s: limit %q message %q", c.ID, o.Key, o.Limit, o.Message)
					}
				}
			}
		}
		if c.ID == "adversarial_api:os_startfile" && !strings.Contains(c.Reason, "win32") {
			t.Errorf("os.startfile: reason %q does not name the platform", c.Reason)
		}
	}
	if !limited {
		t.Error("no option names the memory limit")
	}
	md, _ := os.ReadFile(filepath.Join(root, "qa-audit", "quality_report.md"))
	if !strings.Contains(string(md), "## Stopped by a sandbox limit (1)") || !strings.Contains(string(md), "stopped by the memory limit (512 MiB)") {
		t.Errorf("the Markdown report does not name the limit:\n%s", md)
	}
}

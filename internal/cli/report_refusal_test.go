package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestReportRefusalIsNoWorkflowCommand runs the built binary's report, as
// a plain run: step would, on a ghx suite whose scenario IDs hold a line
// break followed by a workflow command (new and old style): the suites are
// refused as not comparable, the refusal names the IDs escaped, and no
// line of its output is a workflow command the runner would read.
func TestReportRefusalIsNoWorkflowCommand(t *testing.T) {
	bin := testenv.Benchgate(t)
	dir := t.TempDir()
	ad, ghx := firstRow(t, "2026-02-25-agent_direct-suite.jsonl"), firstRow(t, "2026-02-25-ghx-suite.jsonl")
	rows := withID(t, ghx, "s-001\n::warning title=forged::pwned") + "\n" + withID(t, ghx, "s-003\n##[error]old style") + "\n"
	for name, text := range map[string]string{"ad.jsonl": ad + "\n", "ghx.jsonl": rows} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, extra := range [][]string{nil, {"--skip-bad-rows"}} {
		args := append([]string{"report", "--suite-jsonl", "ad.jsonl", "--suite-jsonl", "ghx.jsonl", "--summary-md", "s.md", "--summary-json", "s.json"}, extra...)
		code, out, _ := runBinary(t, dir, os.Environ(), bin, args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", extra, code, ExitUsage, out)
		}
		if !strings.Contains(out, "warning title=forged") && !strings.Contains(out, "scenario_id") {
			t.Errorf("%v: the refusal does not name the ID:\n%s", extra, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if t2 := strings.TrimSpace(l); strings.HasPrefix(t2, "::") || strings.HasPrefix(t2, "##[") {
				t.Errorf("%v: the runner would read a workflow command: %q\n%s", extra, l, out)
			}
		}
	}
}

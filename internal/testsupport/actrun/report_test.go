package actrun

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestReportGateWorkflow runs .github/workflows/examples/report-gate.yml
// on the real 2026-02-25 suites: the step's status and exit code are
// those of `benchgate report --gate` run by hand on the same files (the
// verify_pr gate fails on tool calls), the job fails, the next step gets
// the outputs, and the annotation names the check that failed.
func TestReportGateWorkflow(t *testing.T) {
	root := testenv.RepoRoot(t)
	repo := t.TempDir()
	copyTree(t, filepath.Join(root, ".github", "workflows", "examples"), filepath.Join(repo, ".github", "workflows"))
	suites := []string{"agent_direct-suite.jsonl", "ghx-suite.jsonl"}
	for _, s := range suites {
		if err := copyFile(filepath.Join(root, "testdata", "suites", "2026-02-25-"+s), filepath.Join(repo, "reports", "suites", s)); err != nil {
			t.Fatal(err)
		}
	}
	gitCommitAll(t, repo)

	// The same files judged by hand.
	bin := testenv.Benchgate(t)
	byHand := exec.Command(bin, "report", "--suite-jsonl", filepath.Join(repo, "reports", "suites", suites[0]),
		"--suite-jsonl", filepath.Join(repo, "reports", "suites", suites[1]), "--gate", "--gate-profile", "verify_pr",
		"--summary-json", filepath.Join(t.TempDir(), "s.json"), "--summary-md", filepath.Join(t.TempDir(), "s.md"))
	out, err := byHand.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "[FAIL] efficiency_tool_call_reduction") {
		t.Fatalf("benchgate report by hand: %v, want exit 1 with the tool-call check failing:\n%s", err, out)
	}

	r := newRunner(t)
	artifacts := t.TempDir()
	res := r.exec(t, Run{Repo: repo, Workflow: ".github/workflows/report-gate.yml", Event: "push", ArtifactDir: artifacts})
	checkJobs(t, res, map[string]string{"report": "failure"})
	outs := res.Outputs("report")
	if outs["status"] != "fail" || outs["exit-code"] != "1" {
		t.Errorf("outputs status=%q exit-code=%q, want fail and 1 as by hand", outs["status"], outs["exit-code"])
	}
	if got := res.Output("report"); !strings.Contains(got, "report fail: benchgate-results/") {
		t.Errorf("the next step did not get the status and summary-md outputs; output:\n%s", tail(got, 3000))
	}
	if errs := strings.Join(res.Commands("report", "error"), "\n"); !strings.Contains(errs, "title=benchgate report::❌ benchgate report: fail: tool-call reduction 16.67%25, needs ≥ 20.00%25") {
		t.Errorf("no error annotation names the failing gate check; annotations:\n%s", errs)
	}
	jobSummary(t, artifacts, "benchgate-report-run", "❌ **benchgate report: fail**", "tool-call reduction")
}

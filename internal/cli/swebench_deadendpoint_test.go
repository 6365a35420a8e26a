package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/swebench"
	"github.com/benchgate/benchgate/internal/testsupport/deadendpoint"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestSwebenchBatchStopsOnADeadEndpoint runs the built benchgate with the
// real Codex CLI against an endpoint whose /models answers (so the batch
// starts) and whose /responses answers 200 and then sends nothing. With a
// short --idle-timeout and --endpoint-check-timeout, each instance ends in
// its plan phase, and after three the endpoint check stops the batch: the
// fourth instance never runs, the manifest keeps the stop and its counts
// agree with batch.counts.
func TestSwebenchBatchStopsOnADeadEndpoint(t *testing.T) {
	codexBin := testenv.Codex(t)
	dc := swebenchtest.Docker(t)
	host := testenv.DockerHost(t)
	bin := testenv.Benchgate(t)
	const model = "qwen3-coder-next-FP8"
	srv := deadendpoint.New(t, deadendpoint.Stall, model)
	dir := t.TempDir()
	var ids []string
	for n := 1; n <= 4; n++ {
		id := fmt.Sprintf("acme__clidead-%d", n)
		swebenchtest.ImportRealCodexImage(t, dc, "sweb.eval.arm64."+id+":latest")
		ids = append(ids, id)
	}
	dataset := swebenchtest.DatasetFile(t, dir, ids...)
	results := filepath.Join(dir, "results")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "swebench", "batch", "--instance-file", dataset, "--results-dir", results, "--network", "host",
		"--codex-binary", codexBin, "--base-url", srv.BaseURL, "--model", model, "--max-loops", "1",
		"--phase-timeout", "10m", "--idle-timeout", "2s", "--endpoint-check-timeout", "2s")
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+host)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitFailed {
		t.Fatalf("exit %v, want %d; stdout:\n%s\nstderr:\n%s", err, ExitFailed, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"start acme__clidead-1 (1/4)",
		"batch stopped after 3 instances in a row failed with runtime_error and the endpoint preflight fails: model endpoint probe: POST " + srv.BaseURL + "/responses: HTTP 200, then the body did not arrive",
		"1 instance(s) not run",
		"total=4 success=0 failed=4 incomplete=0 not_run=1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "start acme__clidead-4") {
		t.Errorf("the fourth instance started after the stop:\n%s", out)
	}
	roots, _ := filepath.Glob(filepath.Join(results, "*"))
	if len(roots) != 1 {
		t.Fatalf("run roots %v", roots)
	}
	swebenchtest.NoLeaks(t, dc, swebench.LabelManifestDir+"="+roots[0])
	var m swebench.Manifest
	swebenchtest.ReadJSON(t, filepath.Join(roots[0], swebench.ManifestFile), &m)
	if !strings.Contains(m.Batch.Stopped, "HTTP 200, then the body did not arrive") || m.Counts != m.Batch.Counts || m.Counts.NotRun != 1 {
		t.Errorf("manifest: stopped %q, counts %+v, batch.counts %+v", m.Batch.Stopped, m.Counts, m.Batch.Counts)
	}
	for _, id := range ids[:3] {
		var st swebench.Status
		swebenchtest.ReadJSON(t, filepath.Join(roots[0], id, id+".status.json"), &st)
		if len(st.Phases) != 1 || !st.Phases[0].IdleTimeout || !strings.Contains(st.FailureReasonDetail, "plan: no progress from codex for 2s (--idle-timeout)") {
			t.Errorf("%s: %s %q phases %+v, want the plan phase ended by the idle timeout", id, st.Status, st.FailureReasonDetail, st.Phases)
		}
	}
	if m.Batch.Args["idle_timeout"] != "2s" || m.Batch.Args["endpoint_check_timeout"] != "2s" {
		t.Errorf("batch args %v lack the timeouts", m.Batch.Args)
	}
}

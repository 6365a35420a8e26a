package swebench

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestMixedBatchThroughTheBinary runs `benchgate swebench batch` as a
// user types it over five instances whose agents (the fake codex, one
// behaviour per instance) end differently: a plain fix and a committed
// fix succeed with the prediction computed from their trees; an agent
// that archives without changing anything is no_change; a Latin-1 edit
// fails the patch check; a blocked agent is blocked. The batch goes on,
// exits 1, and predictions.jsonl has one row per instance, a patch for
// the successes only.
func TestMixedBatchThroughTheBinary(t *testing.T) {
	dc := dockerClient(t)
	dir := t.TempDir()
	ids := []string{"acme__success-1", "acme__commit-1", "acme__archive_no_patch-1", "acme__latin1-1", "acme__blocked-1"}
	for _, id := range ids {
		importImage(t, dc, ImageName(DefaultImageTemplate, id), true)
	}
	dataset := datasetFile(t, dir, ids...)
	results := filepath.Join(dir, "results")
	cmd := exec.Command(testenv.Benchgate(t), "swebench", "batch", "--instance-file", dataset, "--dataset-file", dataset, "--results-dir", results,
		"--max-loops", "1", "--network", "none", "--env", "FAKE_CODEX_SCENARIO=byid")
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+testenv.DockerHost(t))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1 (a failed instance); stdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	m := regexp.MustCompile(`run_root=(\S+) total=5 success=2 failed=3 incomplete=0 not_run=0`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("stdout lacks the run root and counts:\n%s", stdout.String())
	}
	root := m[1]
	noLeaks(t, dc, LabelManifestDir+"="+root)
	for id, want := range map[string]string{
		"acme__success-1":          "status=success reason=null",
		"acme__commit-1":           "status=success reason=null",
		"acme__archive_no_patch-1": "status=failed reason=no_change",
		"acme__latin1-1":           "status=failed reason=runtime_error",
		"acme__blocked-1":          "status=failed reason=blocked",
	} {
		if !strings.Contains(stdout.String(), id+" "+want) {
			t.Errorf("stdout lacks %q:\n%s", id+" "+want, stdout.String())
		}
	}
	b, err := os.ReadFile(filepath.Join(root, "predictions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(rows) != 5 {
		t.Fatalf("%d rows in predictions.jsonl, want 5:\n%s", len(rows), b)
	}
	for _, id := range ids {
		var row Pred
		found := false
		for _, r := range rows {
			if got, err := DecodePred([]byte(r), id); err == nil {
				row, found = got, true
			}
		}
		if !found {
			t.Errorf("no row for %s", id)
			continue
		}
		success := id == "acme__success-1" || id == "acme__commit-1"
		if success {
			// Both changed f from "old" to "new"; the committed one too.
			assertGitDiff(t, dc, ImageName(DefaultImageTemplate, id), row.ModelPatch)
		} else if row.ModelPatch != "" {
			t.Errorf("%s failed but has a prediction of %d bytes", id, len(row.ModelPatch))
		}
	}
	st, err := ReadStatus(filepath.Join(root, "acme__latin1-1", "acme__latin1-1.status.json"))
	if err != nil || st.PatchCheck != PatchNotUTF8 {
		t.Errorf("the Latin-1 instance: patch_check %q (%v), want %q", st.PatchCheck, err, PatchNotUTF8)
	}
}

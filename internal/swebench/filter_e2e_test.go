package swebench

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestFilterDriverThroughTheBinary: the agent sets a clean filter in the
// repository's config and names the file it fixes with it in
// .gitattributes. The prediction holds the file's bytes ("new"), not
// what the filter prints ("NEW"), and the run is a success whose patch
// reproduces the tree.
func TestFilterDriverThroughTheBinary(t *testing.T) {
	dc := dockerClient(t)
	dir := t.TempDir()
	id := "acme__filter-1"
	importImage(t, dc, ImageName(DefaultImageTemplate, id), true)
	out := filepath.Join(dir, "out", id)
	cmd := exec.Command(testenv.Benchgate(t), "swebench", "run", "--instance-id", id, "--output-dir", out, "--dataset-file", datasetFile(t, dir, id),
		"--max-loops", "1", "--network", "none", "--env", "FAKE_CODEX_SCENARIO=filter")
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+testenv.DockerHost(t))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		st, _ := os.ReadFile(filepath.Join(out, "status.json"))
		t.Fatalf("exit %v; stdout:\n%s\nstderr:\n%s\nstatus.json:\n%s", err, stdout.String(), stderr.String(), st)
	}
	b, err := os.ReadFile(PathsFor(out, id).Pred)
	if err != nil {
		t.Fatal(err)
	}
	row, err := DecodePred(b, id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(row.ModelPatch, "+new\n") || strings.Contains(row.ModelPatch, "NEW") {
		t.Errorf("model_patch holds what the filter printed, not the file:\n%s", row.ModelPatch)
	}
}

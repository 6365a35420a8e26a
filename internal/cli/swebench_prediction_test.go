package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/failcode"
	"github.com/benchgate/benchgate/internal/swebench"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// runBenchgate runs the built binary and returns its exit code, stdout
// and stderr.
func runBenchgate(t *testing.T, bin, host string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+host)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

var countsLine = regexp.MustCompile(`(?m)^run_root=(\S+) total=(\d+) success=(\d+) failed=(\d+) incomplete=(\d+) not_run=(\d+)$`)

// checkOneTruth checks that the printed counts line, the manifest's
// counts and batch.counts are the same, and that the manifest's entries
// say what the status files say; it returns the counts.
func checkOneTruth(t *testing.T, root, stdout string) swebench.Counts {
	t.Helper()
	m := countsLine.FindAllStringSubmatch(stdout, -1)
	if len(m) == 0 {
		t.Fatalf("no counts line in:\n%s", stdout)
	}
	last := m[len(m)-1]
	n := func(i int) int { v, _ := strconv.Atoi(last[i]); return v }
	printed := swebench.Counts{Total: n(2), Success: n(3), Failed: n(4), Incomplete: n(5), NotRun: n(6)}
	man, err := swebench.ReadManifest(filepath.Join(root, swebench.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if man.Counts != printed || man.Batch == nil || man.Batch.Counts != printed {
		t.Errorf("counts disagree: printed %+v, counts %+v, batch.counts %+v", printed, man.Counts, man.Batch.Counts)
	}
	for _, id := range man.Batch.InstanceOrder {
		st, err := swebench.ReadStatus(swebench.PathsFor(filepath.Join(root, id), id).Status)
		e := man.Instances[id]
		if err == nil && (e.Status != st.Status || !sameCode(e.FailureReasonCode, st.FailureReasonCode)) {
			t.Errorf("%s: manifest entry %s/%v, status file %s/%v", id, e.Status, e.FailureReasonCode, st.Status, st.FailureReasonCode)
		}
	}
	return printed
}

func sameCode(a, b *failcode.Code) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// predictionRows reads predictions.jsonl as raw lines by instance ID.
func predictionRows(t *testing.T, root string) map[string][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "predictions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]byte{}
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var p swebench.Pred
		if err := json.Unmarshal(line, &p); err != nil {
			t.Fatalf("predictions.jsonl row %.80q: %v", line, err)
		}
		rows[p.InstanceID] = line
	}
	return rows
}

// checkRowApplies applies a success's predictions.jsonl row in a fresh
// container of its image as the harness does and returns the output.
func checkRowApplies(t *testing.T, dc *container.Client, image string, row []byte) string {
	t.Helper()
	var p swebench.Pred
	if err := json.Unmarshal(row, &p); err != nil {
		t.Fatal(err)
	}
	code, out := swebenchtest.ApplyAsHarness(t, dc, image, []byte(p.ModelPatch), `echo "f=$(cat /testbed/f)"`)
	if code != 0 {
		t.Errorf("%s: the prediction does not apply as the harness applies it (exit %d):\n%s", p.InstanceID, code, out)
	}
	return out
}

// TestSwebenchPredictionsApplyAsHarness runs one batch through the built
// binary over agent behaviours whose patches the harness treats
// differently from a plain `git apply`: a Latin-1 file, 8 MB of HTML, a
// patch with CRLF line ends, and `git add -N .` in an image with
// untracked build output. Every success's predictions.jsonl row is its
// .pred byte for byte and applies in a fresh container; every patch the
// harness cannot apply as written is a named failure with an empty row.
func TestSwebenchPredictionsApplyAsHarness(t *testing.T) {
	dc := swebenchtest.Docker(t)
	host := testenv.DockerHost(t)
	bin := testenv.Benchgate(t)
	dir := t.TempDir()
	cases := []struct {
		id, check, detail string
		success           bool
	}{
		{id: "acme__success-1", check: "applies", success: true},
		{id: "acme__latin1-2", check: "not_utf8", detail: "in the diff of f) holds bytes of another encoding"},
		{id: "acme__markup-3", check: "applies", success: true},
		{id: "acme__crlf-4", check: "applies", success: true},
		// The prediction is computed from the tree: the image's build
		// output the agent's `git add -N .` put in its patch file is not in it.
		{id: "acme__addall-5", check: "applies", success: true},
	}
	var ids []string
	for _, c := range cases {
		ids = append(ids, c.id)
		ref := swebench.ImageName(swebench.DefaultImageTemplate, c.id)
		if c.id == "acme__addall-5" {
			swebenchtest.ImportImageWithUntracked(t, dc, ref, true, map[string]string{"build/out.o": "built\n"})
		} else {
			swebenchtest.ImportImage(t, dc, ref, true)
		}
	}
	dataset := swebenchtest.DatasetFile(t, dir, ids...)
	code, stdout, stderr := runBenchgate(t, bin, host, "swebench", "batch", "--instance-file", dataset, "--results-dir", filepath.Join(dir, "results"),
		"--max-loops", "1", "--network", "none", "--env", "FAKE_CODEX_SCENARIO=byid")
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitFailed, stdout, stderr)
	}
	root := countsLine.FindStringSubmatch(stdout)[1]
	counts := checkOneTruth(t, root, stdout)
	if counts.Success != 4 || counts.Failed != 1 {
		t.Errorf("counts %+v, want 4 successes and 1 failure", counts)
	}
	rows := predictionRows(t, root)
	for _, c := range cases {
		p := swebench.PathsFor(filepath.Join(root, c.id), c.id)
		st, err := swebench.ReadStatus(p.Status)
		if err != nil {
			t.Fatal(err)
		}
		if st.PatchCheck != c.check || !strings.Contains(st.FailureReasonDetail, c.detail) || (st.Status == "success") != c.success {
			t.Errorf("%s: %s patch_check=%s detail %q; want patch_check=%s, detail with %q", c.id, st.Status, st.PatchCheck, st.FailureReasonDetail, c.check, c.detail)
		}
		pred, err := os.ReadFile(p.Pred)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(rows[c.id], pred) {
			t.Errorf("%s: the predictions.jsonl row (%d bytes) is not the .pred (%d bytes)", c.id, len(rows[c.id]), len(pred))
		}
		var row swebench.Pred
		_ = json.Unmarshal(rows[c.id], &row)
		if !c.success {
			if row.ModelPatch != "" {
				t.Errorf("%s: a failure's row carries a patch", c.id)
			}
			continue
		}
		patch, err := os.ReadFile(p.Patch)
		if err != nil {
			t.Fatal(err)
		}
		// The agent's CRLF rewrite and its `git add -N .` stay in its own
		// patch file only; the others wrote the prediction's bytes.
		if same := row.ModelPatch == string(patch); same != (c.id != "acme__crlf-4" && c.id != "acme__addall-5") {
			t.Errorf("%s: model_patch (%d bytes) equal to the agent's patch (%d bytes): %v", c.id, len(row.ModelPatch), len(patch), same)
		}
		out := checkRowApplies(t, dc, swebench.ImageName(swebench.DefaultImageTemplate, c.id), rows[c.id])
		if !strings.Contains(out, "f=new\n") {
			t.Errorf("%s: f after the harness applied the row:\n%.2000s", c.id, out)
		}
	}
	// The markup stays markup: the 8 MB patch is one row about its own size.
	if n := len(rows["acme__markup-3"]); n < 8_000_000 || n > 9_500_000 {
		t.Errorf("the markup row is %d bytes; want about the patch's 8.2 MB (HTML escaping makes it 39 MB)", n)
	}
}

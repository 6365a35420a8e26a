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

	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/swebench"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// startBatch starts the built binary's batch and returns the command and
// its stdout.
func startBatch(t *testing.T, bin, host string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	var stdout bytes.Buffer
	cmd := exec.Command(bin, append([]string{"swebench", "batch"}, args...)...)
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+host)
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stdout
}

// waitFor polls until cond holds or the process ends first.
func waitFor(t *testing.T, what string, out *bytes.Buffer, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s never happened; output:\n%s", what, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// onlyRoot returns the one run root under results.
func onlyRoot(t *testing.T, results string) string {
	t.Helper()
	var root string
	waitFor(t, "the run root", &bytes.Buffer{}, func() bool {
		names, _ := filepath.Glob(filepath.Join(results, "2*"))
		if len(names) == 1 {
			root = names[0]
		}
		return root != ""
	})
	return root
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestSwebenchKillWindowsThenResume kills the built binary with SIGKILL
// at each point where the run root's files disagree until the next
// invocation, then resumes: the printed counts, the manifest's counts and
// batch.counts are equal, and every manifest entry says what its status
// file says.
//   - before the status file: the instance's codex is running;
//   - between the status file and the manifest entry: the test holds the
//     manifest's lock, so the runner has written the status file and waits
//     for the lock when it is killed;
//   - during the predictions rewrite: the state a kill there leaves (an
//     older predictions.jsonl with fewer rows, stale batch.counts, a
//     resume without an end time) is made from a finished batch here;
//     TestSwebenchKillDuringPredictionsRewrite kills a batch there.
func TestSwebenchKillWindowsThenResume(t *testing.T) {
	dc := swebenchtest.Docker(t)
	host := testenv.DockerHost(t)
	bin := testenv.Benchgate(t)
	ids := []string{"acme__kw-1", "acme__kw-2", "acme__kw-3"}
	for _, id := range ids {
		swebenchtest.ImportImage(t, dc, swebench.ImageName(swebench.DefaultImageTemplate, id), true)
	}
	for _, window := range []string{"before status", "between status and manifest", "during predictions"} {
		t.Run(window, func(t *testing.T) {
			dir := t.TempDir()
			results := filepath.Join(dir, "results")
			dataset := swebenchtest.DatasetFile(t, dir, ids...)
			common := []string{"--instance-file", dataset, "--max-loops", "1", "--network", "none"}
			var root string
			switch window {
			case "before status":
				cmd, out := startBatch(t, bin, host, append(common, "--results-dir", results, "--env", "FAKE_CODEX_SCENARIO=hang")...)
				root = onlyRoot(t, results)
				waitFor(t, "the first execute phase", out, func() bool {
					return exists(filepath.Join(root, ids[0], "logs", "codex_execute_1.jsonl"))
				})
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			case "between status and manifest":
				cmd, out := startBatch(t, bin, host, append(common, "--results-dir", results, "--env", "FAKE_CODEX_SCENARIO=longcommand", "--env", "FAKE_CODEX_COMMAND_TIME=2s")...)
				root = onlyRoot(t, results)
				p := swebench.PathsFor(filepath.Join(root, ids[1]), ids[1])
				waitFor(t, "the second instance's execute phase", out, func() bool {
					return exists(filepath.Join(p.Logs, "codex_execute_1.jsonl"))
				})
				lock, err := fsutil.LockFile(filepath.Join(root, swebench.ManifestFile) + ".lock")
				if err != nil {
					t.Fatal(err)
				}
				waitFor(t, "the second instance's status file", out, func() bool { return exists(p.Status) })
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				lock.Unlock()
				var m swebench.Manifest
				swebenchtest.ReadJSON(t, filepath.Join(root, swebench.ManifestFile), &m)
				if m.Instances[ids[1]].Status != "running" {
					t.Fatalf("the kill did not land between the status file and the manifest: entry %+v", m.Instances[ids[1]])
				}
			case "during predictions":
				code, stdout, _ := runBenchgate(t, bin, host, append([]string{"swebench", "batch"}, append(common, "--results-dir", results, "--env", "FAKE_CODEX_SCENARIO=success")...)...)
				if code != ExitOK {
					t.Fatalf("exit %d:\n%s", code, stdout)
				}
				root = onlyRoot(t, results)
				// Resume once more, killed after predictions.jsonl: the
				// manifest still has the first invocation's end and counts
				// and the resume's start without an end; the predictions
				// file is the earlier one, or a stale one with fewer rows.
				path := filepath.Join(root, swebench.ManifestFile)
				var m map[string]any
				swebenchtest.ReadJSON(t, path, &m)
				batch := m["batch"].(map[string]any)
				batch["counts"] = map[string]any{"total": 3, "success": 1, "failed": 2, "incomplete": 0, "not_run": 2}
				batch["resumes"] = []any{map[string]any{"args": map[string]any{}, "start_time": time.Now().UTC().Format(time.RFC3339Nano)}}
				b, _ := json.Marshal(m)
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				rows, _ := os.ReadFile(filepath.Join(root, "predictions.jsonl"))
				first, _, _ := bytes.Cut(rows, []byte("\n"))
				if err := os.WriteFile(filepath.Join(root, "predictions.jsonl"), append(first, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, stdout, stderr := runBenchgate(t, bin, host, append([]string{"swebench", "batch"}, append(common, "--resume", root, "--env", "FAKE_CODEX_SCENARIO=success")...)...)
			if code != ExitOK {
				t.Fatalf("resume: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			counts := checkOneTruth(t, root, stdout)
			if counts != (swebench.Counts{Total: 3, Success: 3}) {
				t.Errorf("counts %+v after the resume, want 3 successes", counts)
			}
			rows := predictionRows(t, root)
			for _, id := range ids {
				if out := checkRowApplies(t, dc, swebench.ImageName(swebench.DefaultImageTemplate, id), rows[id]); !strings.Contains(out, "f=new\n") {
					t.Errorf("%s: f after the harness applied the row:\n%s", id, out)
				}
			}
		})
	}
}

// TestSwebenchNarrowedResumeKeepsTheRoot resumes a batch whose instance
// failed with missing_image, once the image is there, with a filter
// that selects only that instance: it runs again, and the run root keeps
// every instance (predictions, instance order, counts). A resume with a
// wider instance file then widens the root.
func TestSwebenchNarrowedResumeKeepsTheRoot(t *testing.T) {
	dc := swebenchtest.Docker(t)
	host := testenv.DockerHost(t)
	bin := testenv.Benchgate(t)
	dir := t.TempDir()
	ids := []string{"acme__nr-1", "acme__nr-2", "acme__nr-3", "acme__nr-4"}
	for _, id := range ids[:3] {
		swebenchtest.ImportImage(t, dc, swebench.ImageName(swebench.DefaultImageTemplate, id), true)
	}
	dataset := swebenchtest.DatasetFile(t, dir, ids...)
	common := []string{"swebench", "batch", "--max-loops", "1", "--network", "none", "--env", "FAKE_CODEX_SCENARIO=success"}
	code, stdout, stderr := runBenchgate(t, bin, host, append(common, "--instance-file", dataset, "--results-dir", filepath.Join(dir, "results"))...)
	if code != ExitFailed || !strings.Contains(stdout, "acme__nr-4 status=failed reason=missing_image") {
		t.Fatalf("first batch: exit %d\n%s\n%s", code, stdout, stderr)
	}
	root := countsLine.FindStringSubmatch(stdout)[1]
	checkOneTruth(t, root, stdout)

	// After the image is built: retry only the missing image, narrowed.
	swebenchtest.ImportImage(t, dc, swebench.ImageName(swebench.DefaultImageTemplate, ids[3]), true)
	code, stdout, stderr = runBenchgate(t, bin, host, append(common, "--resume", root, "--retry-failed", "missing_image", "--filter", "^acme__nr-4$")...)
	if code != ExitOK {
		t.Fatalf("narrowed resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if strings.Count(stdout, "start ") != 1 || !strings.Contains(stdout, "start acme__nr-4 (1/1)") {
		t.Errorf("the narrowed resume ran other instances than acme__nr-4:\n%s", stdout)
	}
	if counts := checkOneTruth(t, root, stdout); counts != (swebench.Counts{Total: 4, Success: 4}) {
		t.Errorf("counts %+v, want the root's 4 instances, all successes", counts)
	}
	rows := predictionRows(t, root)
	if len(rows) != 4 {
		t.Errorf("predictions.jsonl has %d rows, want the root's 4", len(rows))
	}
	for _, id := range ids {
		checkRowApplies(t, dc, swebench.ImageName(swebench.DefaultImageTemplate, id), rows[id])
	}
	order, _ := os.ReadFile(filepath.Join(root, "instance_order.txt"))
	if string(order) != strings.Join(ids, "\n")+"\n" {
		t.Errorf("instance_order.txt %q, want the root's 4 instances", order)
	}

	// A wider instance file widens the root.
	wider := append(ids, "acme__nr-5")
	widerFile := filepath.Join(dir, "wider.jsonl")
	if err := os.Rename(swebenchtest.DatasetFile(t, dir, wider...), widerFile); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runBenchgate(t, bin, host, append(common, "--resume", root, "--instance-file", widerFile)...)
	if code != ExitFailed || !strings.Contains(stdout, "acme__nr-5 status=failed reason=missing_image") {
		t.Fatalf("wider resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if counts := checkOneTruth(t, root, stdout); counts != (swebench.Counts{Total: 5, Success: 4, Failed: 1}) {
		t.Errorf("counts %+v, want 5 instances", counts)
	}
	var m swebench.Manifest
	swebenchtest.ReadJSON(t, filepath.Join(root, swebench.ManifestFile), &m)
	if len(m.Batch.InstanceOrder) != 5 {
		t.Errorf("batch.instance_order %v, want the 5 instances of the wider file", m.Batch.InstanceOrder)
	}
}

// TestSwebenchMergeRefusesMixedScopes merges two shards of which one was
// run with an extra --filter: refused with exit 2 naming the difference,
// merged with --allow-scope-mismatch and a warning.
func TestSwebenchMergeRefusesMixedScopes(t *testing.T) {
	host := testenv.DockerHost(t)
	bin := testenv.Benchgate(t)
	dir := t.TempDir()
	ids := []string{"acme__ms-1", "acme__ms-2", "acme__ms-3", "acme__ms-4", "acme__ms-5"}
	dataset := swebenchtest.DatasetFile(t, dir, ids...)
	var roots []string
	for i, extra := range [][]string{nil, {"--filter", "ms-[1-4]"}} {
		// No image exists: each instance fails fast with missing_image.
		args := append([]string{"swebench", "batch", "--instance-file", dataset, "--shard", []string{"1/2", "2/2"}[i], "--network", "none",
			"--results-dir", filepath.Join(dir, "results", []string{"a", "b"}[i]), "--fail-on", "never"}, extra...)
		code, stdout, stderr := runBenchgate(t, bin, host, args...)
		if code != ExitOK {
			t.Fatalf("shard %d: exit %d\n%s\n%s", i+1, code, stdout, stderr)
		}
		roots = append(roots, countsLine.FindStringSubmatch(stdout)[1])
	}
	out := filepath.Join(dir, "merged")
	code, stdout, stderr := runBenchgate(t, bin, host, append([]string{"swebench", "merge", "--output-dir", out}, roots...)...)
	want := `has --filter none, shard 2/2 (` + roots[1] + `) has --filter "ms-[1-4]"`
	if code != ExitUsage || !strings.Contains(stderr, want) || !strings.Contains(stderr, "--allow-scope-mismatch") {
		t.Errorf("merge of mixed scopes: exit %d, want %d naming the difference (%s)\nstdout:\n%s\nstderr:\n%s", code, ExitUsage, want, stdout, stderr)
	}
	if exists(out) {
		t.Errorf("a refused merge wrote %s", out)
	}
	code, stdout, stderr = runBenchgate(t, bin, host, append([]string{"swebench", "merge", "--allow-scope-mismatch", "--fail-on", "never", "--output-dir", out}, roots...)...)
	if code != ExitOK || !strings.Contains(stderr, "warning: scopes differ") || !strings.Contains(stdout, "total=5 ") {
		t.Errorf("merge told to go on: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var m swebench.Manifest
	swebenchtest.ReadJSON(t, filepath.Join(out, swebench.ManifestFile), &m)
	if len(m.ScopeMismatch) == 0 {
		t.Error("the merged manifest does not record the scope mismatch")
	}
}

// TestSwebenchKillDuringPredictionsRewrite kills the built binary with
// SIGKILL while it writes predictions.jsonl: the test watches the run
// root (inotify) for the rewrite's temporary file and, once it appears,
// takes the manifest's lock, so the batch cannot record its end, and
// kills it. Three 8 MB predictions make the write long enough to land in;
// an attempt whose batch got to its manifest first is repeated. The next
// resume's counts, batch.counts and printed line are equal and every row
// applies.
func TestSwebenchKillDuringPredictionsRewrite(t *testing.T) {
	dc := swebenchtest.Docker(t)
	host := testenv.DockerHost(t)
	bin := testenv.Benchgate(t)
	dir := t.TempDir()
	ids := []string{"acme__markup-1", "acme__markup-2", "acme__markup-3"}
	for _, id := range ids {
		swebenchtest.ImportImage(t, dc, swebench.ImageName(swebench.DefaultImageTemplate, id), true)
	}
	common := []string{"swebench", "batch", "--max-loops", "1", "--network", "none", "--env", "FAKE_CODEX_SCENARIO=byid"}
	code, stdout, stderr := runBenchgate(t, bin, host, append(common, "--instance-file", swebenchtest.DatasetFile(t, dir, ids...), "--results-dir", filepath.Join(dir, "results"))...)
	if code != ExitOK {
		t.Fatalf("first batch: exit %d\n%s\n%s", code, stdout, stderr)
	}
	root := countsLine.FindStringSubmatch(stdout)[1]
	// Each resume adds an instance without an image (missing_image at
	// once), so the rewrite changes predictions.jsonl.
	killed := false
	for attempt := 0; attempt < 8 && !killed; attempt++ {
		wider := append(append([]string{}, ids...), fmt.Sprintf("acme__noimage-%d", attempt+1))
		wdir := filepath.Join(dir, fmt.Sprintf("w%d", attempt))
		if err := os.Mkdir(wdir, 0o755); err != nil {
			t.Fatal(err)
		}
		fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := syscall.InotifyAddWatch(fd, root, syscall.IN_CREATE); err != nil {
			t.Fatal(err)
		}
		cmd, out := startBatch(t, bin, host, append(common[2:], "--resume", root, "--instance-file", swebenchtest.DatasetFile(t, wdir, wider...))...)
		buf := make([]byte, 64<<10)
		for !killed {
			n, err := syscall.Read(fd, buf)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(buf[:n], []byte(".predictions.jsonl.tmp-")) {
				continue
			}
			lock, err := fsutil.LockFile(filepath.Join(root, swebench.ManifestFile) + ".lock")
			if err != nil {
				t.Fatal(err)
			}
			var m swebench.Manifest
			swebenchtest.ReadJSON(t, filepath.Join(root, swebench.ManifestFile), &m)
			last := m.Batch.Resumes[len(m.Batch.Resumes)-1]
			if last.EndTime.IsZero() {
				_ = cmd.Process.Kill()
				killed = true
			}
			_ = cmd.Wait()
			lock.Unlock()
			break
		}
		syscall.Close(fd)
		if !killed {
			t.Logf("attempt %d: the batch recorded its end before the kill; again\n%s", attempt+1, out)
		}
	}
	if !killed {
		t.Fatal("no attempt killed the batch during its predictions rewrite")
	}
	code, stdout, stderr = runBenchgate(t, bin, host, append(common, "--resume", root)...)
	if code != ExitFailed {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	counts := checkOneTruth(t, root, stdout)
	var m swebench.Manifest
	swebenchtest.ReadJSON(t, filepath.Join(root, swebench.ManifestFile), &m)
	if counts.Success != 3 || counts.Total != len(m.Batch.InstanceOrder) || counts.Failed != counts.Total-3 {
		t.Errorf("counts %+v over the root's %d instances, want its 3 successes and the rest failed", counts, len(m.Batch.InstanceOrder))
	}
	rows := predictionRows(t, root)
	if len(rows) != counts.Total {
		t.Errorf("%d rows, want %d", len(rows), counts.Total)
	}
	for _, id := range ids {
		checkRowApplies(t, dc, swebench.ImageName(swebench.DefaultImageTemplate, id), rows[id])
	}
}

// TestSwebenchDuplicateRecordOutsideScope: a dataset file with two records
// of an instance the batch does not run is no reason to refuse it; a
// second record of an instance in scope is (exit 2, naming the line).
func TestSwebenchDuplicateRecordOutsideScope(t *testing.T) {
	host := testenv.DockerHost(t)
	bin := testenv.Benchgate(t)
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds.jsonl")
	rec := `{"instance_id":"%s","problem_statement":"Fix it."}` + "\n"
	if err := os.WriteFile(ds, []byte(fmt.Sprintf(rec+rec+rec, "acme__dup-1", "acme__dup-2", "acme__dup-2")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ids  string
		code int
		want string
	}{
		{"acme__dup-1\n", ExitFailed, "acme__dup-1 status=failed reason=missing_image"},
		{"acme__dup-1\nacme__dup-2\n", ExitUsage, ds + ":3: a second record of instance acme__dup-2 (the first is at " + ds + ":2)"},
	} {
		ids := filepath.Join(dir, "ids.txt")
		if err := os.WriteFile(ids, []byte(tc.ids), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runBenchgate(t, bin, host, "swebench", "batch", "--instance-file", ids, "--dataset-file", ds, "--network", "none",
			"--results-dir", filepath.Join(dir, "results"))
		if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
			t.Errorf("scope %q: exit %d, want %d with %q\n%s%s", tc.ids, code, tc.code, tc.want, stdout, stderr)
		}
	}
}

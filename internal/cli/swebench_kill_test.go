package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/swebench"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// startHangingRun starts `benchgate swebench run` on an instance whose
// codex hangs in the execute phase and returns once that phase runs.
func startHangingRun(t *testing.T, bin, host, dir, id, out string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "swebench", "run", "--instance-id", id, "--output-dir", out, "--network", "none",
		"--dataset-file", swebenchtest.DatasetFile(t, dir, id), "--env", "FAKE_CODEX_SCENARIO=hang")
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+host)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(out, "logs", "codex_execute_1.jsonl")); err == nil {
			return cmd, &stderr
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("execute never started; stderr: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSwebenchSIGKILLContainerIsReaped kills benchgate with SIGKILL while
// its agent runs: the container (whose entry point sleeps forever) is
// left, and the next run on this engine removes it.
func TestSwebenchSIGKILLContainerIsReaped(t *testing.T) {
	dc := swebenchtest.Docker(t)
	host := testenv.DockerHost(t)
	dir := t.TempDir()
	bin := testenv.Benchgate(t)
	killed, next := "acme__killed-1", "acme__next-2"
	swebenchtest.ImportImage(t, dc, "sweb.eval.arm64."+killed+":latest", true)
	swebenchtest.ImportImage(t, dc, "sweb.eval.arm64."+next+":latest", true)
	out := filepath.Join(dir, "out-killed")
	cmd, _ := startHangingRun(t, bin, host, dir, killed, out)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	left, err := dc.List(context.Background(), swebench.LabelOutputDir+"="+out)
	if err != nil || len(left) != 1 {
		t.Fatalf("containers after SIGKILL: %v %v; the test needs the leaked one", left, err)
	}

	var stderr bytes.Buffer
	run := exec.Command(bin, "swebench", "run", "--instance-id", next, "--output-dir", filepath.Join(dir, "out-next"), "--network", "none",
		"--dataset-file", swebenchtest.DatasetFile(t, dir, next), "--env", "FAKE_CODEX_SCENARIO=success")
	run.Env = append(os.Environ(), "DOCKER_HOST="+host)
	run.Stderr = &stderr
	if err := run.Run(); err != nil {
		t.Fatalf("next run: %v\n%s", err, stderr.String())
	}
	swebenchtest.NoLeaks(t, dc, swebench.LabelOutputDir+"="+out)
	name := strings.TrimPrefix(left[0].Names[0], "/")
	if !strings.Contains(stderr.String(), "removed container "+name+", left by a benchgate run that was killed") {
		t.Errorf("the next run does not say it removed %s:\n%s", name, stderr.String())
	}
}

// TestSwebenchSameInstanceTwice runs one instance ID twice at the same
// time into two folders: each run keeps its own container, and stopping
// one leaves the other running.
func TestSwebenchSameInstanceTwice(t *testing.T) {
	dc := swebenchtest.Docker(t)
	host := testenv.DockerHost(t)
	dir := t.TempDir()
	bin := testenv.Benchgate(t)
	id := "acme__twice-3"
	swebenchtest.ImportImage(t, dc, "sweb.eval.arm64."+id+":latest", true)
	outA, outB := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	a, _ := startHangingRun(t, bin, host, dir, id, outA)
	b, stderrB := startHangingRun(t, bin, host, dir, id, outB)
	defer func() {
		b.Process.Kill()
		b.Wait()
		swebench.ReapContainers(context.Background(), dc)
		swebenchtest.NoLeaks(t, dc, swebench.LabelOutputDir+"="+outB)
	}()
	list, err := dc.List(context.Background(), swebench.LabelInstance+"="+id)
	if err != nil || len(list) != 2 {
		t.Fatalf("containers of %s: %d (%v), want 2", id, len(list), err)
	}
	a.Process.Kill()
	a.Wait()
	time.Sleep(500 * time.Millisecond)
	if b.ProcessState != nil {
		t.Fatalf("the second run ended when the first was stopped:\n%s", stderrB.String())
	}
	left, _ := dc.List(context.Background(), swebench.LabelOutputDir+"="+outB)
	if len(left) != 1 || left[0].State != "running" {
		t.Errorf("the second run's container: %+v", left)
	}
	// Leave nothing behind: the killed run's container is reaped here.
	if _, err := swebench.ReapContainers(context.Background(), dc); err != nil {
		t.Fatal(err)
	}
	swebenchtest.NoLeaks(t, dc, swebench.LabelOutputDir+"="+outA)
}

// TestSwebenchManifestRecordsInvocations runs a batch, resumes it with
// --retry-failed, and merges it: the manifest keeps the first start time
// and arguments (secrets by name only), lists the resume, and the merged
// manifest has its batch fields and error logs in the merged folder.
func TestSwebenchManifestRecordsInvocations(t *testing.T) {
	dc := swebenchtest.Docker(t)
	host := testenv.DockerHost(t)
	dir := t.TempDir()
	ids := []string{"acme__man-1", "acme__man-2"}
	swebenchtest.ImportImage(t, dc, "sweb.eval.arm64.acme__man-1:latest", true)
	dataset := swebenchtest.DatasetFile(t, dir, ids...)
	env, stdout, stderr := swebenchEnv(t, dir, map[string]string{"DOCKER_HOST": host, "MY_KEY": "sk-secret-value"})
	first := time.Date(2026, 11, 22, 3, 4, 5, 0, time.UTC)
	env.Now = func() time.Time { return first }
	args := []string{"batch", "--instance-file", dataset, "--max-loops", "1", "--network", "none",
		"--env", "FAKE_CODEX_SCENARIO=success", "--env", "SECRETISH=sk-do-not-record", "--api-key-env", "MY_KEY", "--filter", "^acme__"}
	if code := Main(context.Background(), env, append([]string{"swebench"}, args...)); code != ExitFailed {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	m := regexp.MustCompile(`run_root=(\S+) `).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("no run root in %q", stdout)
	}
	root := m[1]
	env.Now = func() time.Time { return first.Add(time.Hour) }
	if code := Main(context.Background(), env, append([]string{"swebench"}, append(args, "--resume", root, "--retry-failed", "all")...)); code != ExitFailed {
		t.Fatalf("resume exit %d; stderr %s", code, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(root, swebench.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "sk-secret-value") || strings.Contains(string(raw), "sk-do-not-record") {
		t.Fatalf("the manifest records a secret value:\n%s", raw)
	}
	var man swebench.Manifest
	if err := json.Unmarshal(raw, &man); err != nil {
		t.Fatal(err)
	}
	b := man.Batch
	if b == nil || !b.StartTime.Equal(first) || b.Args["api_key_env"] != "MY_KEY" || b.Args["filter"] != "^acme__" || b.Args["network"] != "none" {
		t.Fatalf("batch info %+v", b)
	}
	if len(b.Resumes) != 1 || !b.Resumes[0].StartTime.Equal(first.Add(time.Hour)) || b.Resumes[0].Args["retry_failed"] != "all" {
		t.Errorf("resumes %+v", b.Resumes)
	}
	out := filepath.Join(dir, "merged")
	if code := Main(context.Background(), env, []string{"swebench", "merge", "--output-dir", out, root}); code != ExitFailed {
		t.Fatalf("merge exit %d; stderr %s", code, stderr)
	}
	var merged swebench.Manifest
	swebenchtest.ReadJSON(t, filepath.Join(out, swebench.ManifestFile), &merged)
	if merged.Batch == nil || merged.Batch.StartTime.IsZero() || merged.Batch.Args == nil {
		t.Fatalf("merged batch info %+v", merged.Batch)
	}
	failed := merged.Instances["acme__man-2"]
	if !strings.HasPrefix(failed.ErrorLog, out+string(filepath.Separator)) {
		t.Errorf("merged error_log %q points outside %s", failed.ErrorLog, out)
	}
	// Merging again replaces the earlier merge; with --fail-on never a
	// failed instance is a result, not an exit code, and the counts
	// printed are the manifest's.
	stdout.Reset()
	if code := Main(context.Background(), env, []string{"swebench", "merge", "--fail-on", "never", "--output-dir", out, root}); code != ExitOK {
		t.Fatalf("merge --fail-on never exit %d; stderr %s", code, stderr)
	}
	swebenchtest.ReadJSON(t, filepath.Join(out, swebench.ManifestFile), &merged)
	c := merged.Counts
	if want := fmt.Sprintf("total=%d success=%d failed=%d incomplete=%d", c.Total, c.Success, c.Failed, c.Incomplete); !strings.Contains(stdout.String(), want) || c.Failed != 1 {
		t.Errorf("merge printed %q, manifest counts %+v", stdout, c)
	}
}

// TestSwebenchMergeNamesMissingShards: the shards' manifests say k/n;
// merging shard 1/3 alone exits 2 naming shards 2/3 and 3/3, and writes
// nothing; --allow-missing-shards merges it and says what is missing.
func TestSwebenchMergeNamesMissingShards(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "shard1")
	err := swebench.UpdateManifest(root, time.Now(), func(m *swebench.Manifest) {
		m.Batch = &swebench.BatchInfo{InstanceOrder: []string{"acme__a-1"}, Shard: "1/3", StartTime: time.Now()}
	})
	if err != nil {
		t.Fatal(err)
	}
	env, stdout, stderr := swebenchEnv(t, dir, nil)
	out := filepath.Join(dir, "merged")
	if code := Main(context.Background(), env, []string{"swebench", "merge", "--output-dir", out, root}); code != ExitUsage {
		t.Fatalf("exit %d, want %d; stderr %s", code, ExitUsage, stderr)
	}
	if !strings.Contains(stderr.String(), "missing shard 2/3, 3/3 of 3") {
		t.Errorf("stderr %q does not name the missing shards", stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused merge wrote %s", out)
	}
	stderr.Reset()
	if code := Main(context.Background(), env, []string{"swebench", "merge", "--allow-missing-shards", "--output-dir", out, root}); code != ExitFailed {
		t.Fatalf("exit %d, want %d (its instance never ran); stderr %s", code, ExitFailed, stderr)
	}
	if !strings.Contains(stderr.String(), "merged without shard 2/3, 3/3") || !strings.Contains(stdout.String(), "total=1 success=0 failed=1") {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
}

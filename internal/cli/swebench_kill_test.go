package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/swebench"
	"github.com/benchgate/benchgate/internal/swebench/swebenchtest"
	"github.com/benchgate/benchgate/internal/testenv"
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
	bin := buildBenchgate(t, dir)
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
	bin := buildBenchgate(t, dir)
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

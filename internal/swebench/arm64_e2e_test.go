package swebench

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/testsupport/fakeresponses"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// arm64Runner is a machine like the users' SWE-bench runners: the arm64
// benchgate and the arm64 Codex CLI (as `codex` on PATH), arm64 instance
// images on the Docker engine. Off arm64 every one of them runs under
// qemu-user, which scripts/test-env.sh registers with binfmt_misc.
type arm64Runner struct {
	dir, bin, path, host string
	dc                   *container.Client
}

func newArm64Runner(t *testing.T) *arm64Runner {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the arm64 benchgate and Codex CLI, emulated off arm64")
	}
	codexArm := swebenchtest.CodexArm64(t)
	r := &arm64Runner{dir: t.TempDir(), host: testenv.DockerHost(t), dc: swebenchtest.Docker(t)}
	r.bin = testenv.Binary(t, testenv.Build{Dir: filepath.Join(testenv.RepoRoot(t), "cmd", "benchgate"),
		Flags: []string{"-trimpath"}, Env: []string{"CGO_ENABLED=0", "GOARCH=arm64"}})
	for _, b := range []string{r.bin, codexArm} {
		f, err := elf.Open(b)
		if err != nil {
			t.Fatal(err)
		}
		if f.Machine != elf.EM_AARCH64 {
			t.Fatalf("%s is for %s, want arm64", b, f.Machine)
		}
		f.Close()
	}
	// The runner's PATH: benchgate and codex by those names.
	bindir := filepath.Join(r.dir, "bin")
	if err := os.MkdirAll(bindir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"benchgate": r.bin, "codex": codexArm} {
		if err := os.Symlink(target, filepath.Join(bindir, name)); err != nil {
			t.Fatal(err)
		}
	}
	r.path = bindir + string(os.PathListSeparator) + os.Getenv("PATH")
	if out, err := exec.Command(r.bin, "--help").CombinedOutput(); err != nil {
		t.Fatalf("the arm64 benchgate does not run on this machine (is qemu-aarch64 registered with binfmt_misc?): %v\n%s", err, out)
	}
	return r
}

// command is a shell command line run as a user types it on the runner,
// in folder dir.
func (r *arm64Runner) command(dir, line string) *exec.Cmd {
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+r.path, "DOCKER_HOST="+r.host)
	return cmd
}

// run runs a command line and returns its output and exit code.
func (r *arm64Runner) run(t *testing.T, dir, line string) (string, int) {
	t.Helper()
	out, err := r.command(dir, line).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	}
	t.Fatalf("%s: %v", line, err)
	return "", 0
}

// applies checks that patch applies in a fresh container of image as the
// harness applies it first (git apply in the code folder).
func (r *arm64Runner) applies(t *testing.T, image, id, patch string) {
	t.Helper()
	var out bytes.Buffer
	files := []container.File{{Path: "/tmp/model.patch", Data: []byte(patch)}}
	if code := swebenchtest.RunInImage(t, r.dc, image, &out, files, "git", "apply", "--verbose", "/tmp/model.patch"); code != 0 {
		t.Errorf("%s: the prediction does not apply in a fresh arm64 container (exit %d):\n%s\n%s", id, code, out.String(), patch)
	}
}

// TestArm64PrepareImagesExamples runs the examples of `swebench
// prepare-images --help` as written, on an arm64 image with the arm64
// Codex CLI on PATH: the dry run lists the images, the build puts codex
// into the image (its version label read by running it), and a second
// build leaves the image as it is.
func TestArm64PrepareImagesExamples(t *testing.T) {
	r := newArm64Runner(t)
	// The examples name files of the repository's examples/ folder.
	ws := filepath.Join(r.dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", filepath.Join(testenv.RepoRoot(t), "examples"), ws).CombinedOutput(); err != nil {
		t.Fatalf("copy examples: %v\n%s", err, out)
	}
	const id = "apache__druid-13704"
	ref := ImageName(DefaultImageTemplate, id)
	swebenchtest.ImportArm64Image(t, r.dc, ref)
	before, err := r.dc.ImageInspect(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}

	help, code := r.run(t, ws, "benchgate swebench prepare-images --help")
	if code != 0 {
		t.Fatalf("--help: exit %d\n%s", code, help)
	}
	var examples []string
	_, text, _ := strings.Cut(help, "Examples:\n")
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "benchgate swebench prepare-images") {
			examples = append(examples, l)
		}
	}
	if len(examples) != 2 || !strings.Contains(examples[0], "--dry-run") || !strings.Contains(examples[1], "--codex-binary codex") {
		t.Fatalf("prepare-images examples %q: want the dry run and the build with codex from PATH", examples)
	}
	out, code := r.run(t, ws, examples[0])
	if code != 0 || !strings.Contains(out, "would prepare "+ref) {
		t.Errorf("%s: exit %d, want 0 and %q:\n%s", examples[0], code, "would prepare "+ref, out)
	}
	out, code = r.run(t, ws, examples[1])
	if code != 0 || !strings.Contains(out, "prepared "+ref+" with codex codex-cli 0.169.") {
		t.Fatalf("%s: exit %d, want 0 and the image prepared with codex-cli 0.169:\n%s", examples[1], code, out)
	}
	img, err := r.dc.ImageInspect(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if img.Architecture != "arm64" || !strings.HasPrefix(img.Config.Labels[LabelCodexVersion], "codex-cli 0.169.") || img.Config.WorkingDir != before.Config.WorkingDir {
		t.Errorf("prepared image: architecture %q, labels %v, working folder %q; want arm64, the codex version, %q",
			img.Architecture, img.Config.Labels, img.Config.WorkingDir, before.Config.WorkingDir)
	}
	var ver bytes.Buffer
	if c := swebenchtest.RunInImage(t, r.dc, ref, &ver, nil, "/usr/local/bin/codex", "--version"); c != 0 || !strings.HasPrefix(ver.String(), "codex-cli 0.169.") {
		t.Errorf("codex in the prepared image: exit %d, %q", c, ver.String())
	}
	// A name that is not on PATH is refused with where it was looked for.
	out, code = r.run(t, ws, strings.Replace(examples[1], "--codex-binary codex", "--codex-binary codex-missing", 1))
	if code != 2 || !strings.Contains(out, "--codex-binary codex-missing: no such program in PATH") {
		t.Errorf("a --codex-binary name not on PATH: exit %d, want 2 and where it was looked for:\n%s", code, out)
	}
	out, code = r.run(t, ws, examples[1])
	if code != 0 || !strings.Contains(out, "unchanged "+ref+": it already holds this codex (codex-cli 0.169.") {
		t.Errorf("second %s: exit %d, want 0 and unchanged:\n%s", examples[1], code, out)
	}
	if again, err := r.dc.ImageInspect(context.Background(), ref); err != nil || again.ID != img.ID {
		t.Errorf("the second prepare changed the image: %s -> %s (%v)", img.ID, again.ID, err)
	}
}

// TestArm64BatchShardsMerge runs a batch of four arm64 instances as two
// shards of the arm64 benchgate, with the arm64 Codex CLI mounted into
// each container, against the scripted Responses server, and merges the
// shards: a success in a prepared image, a success with codex mounted, a
// blocked plan and a missing image. Each success's row of the merged
// predictions.jsonl applies in a fresh arm64 container.
func TestArm64BatchShardsMerge(t *testing.T) {
	r := newArm64Runner(t)
	prepared, mounted, blocked, missing := "acme__arm64-1", "acme__arm64-2", "acme__arm64-3", "acme__arm64-4"
	ids := []string{prepared, mounted, blocked, missing}
	for _, id := range []string{prepared, mounted, blocked} {
		swebenchtest.ImportArm64Image(t, r.dc, ImageName(DefaultImageTemplate, id))
	}
	if out, code := r.run(t, r.dir, "benchgate swebench prepare-images --codex-binary codex --instance-id "+prepared); code != 0 {
		t.Fatalf("prepare-images: exit %d\n%s", code, out)
	}
	agent := &swebenchtest.Agent{Outcome: map[string]string{prepared: "success", mounted: "success", blocked: "blocked"}}
	srv := fakeresponses.New([]string{"qwen3-coder-next-FP8"}, agent.Script(40)...)
	defer srv.Close()
	dataset := swebenchtest.DatasetFile(t, r.dir, ids...)

	var roots []string
	for k := 1; k <= 2; k++ {
		results := filepath.Join(r.dir, fmt.Sprintf("shard-%d", k))
		line := fmt.Sprintf("benchgate swebench batch --instance-file %s --shard %d/2 --results-dir %s --base-url %s --codex-binary codex --max-loops 1 --fail-on never",
			dataset, k, results, srv.BaseURL())
		out, code := r.run(t, r.dir, line)
		if code != 0 {
			t.Fatalf("shard %d/2: exit %d\n%s", k, code, out)
		}
		found, _ := filepath.Glob(filepath.Join(results, "*", ManifestFile))
		if len(found) != 1 {
			t.Fatalf("shard %d/2: %d run roots under %s\n%s", k, len(found), results, out)
		}
		roots = append(roots, filepath.Dir(found[0]))
	}
	if v := srv.Violations(); len(v) > 0 {
		t.Errorf("Responses protocol violations: %q", v)
	}
	merged := filepath.Join(r.dir, "merged")
	if out, code := r.run(t, r.dir, "benchgate swebench merge --fail-on never --output-dir "+merged+" "+strings.Join(roots, " ")); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, out)
	}
	for _, root := range roots {
		for _, id := range ids {
			swebenchtest.NoLeaks(t, r.dc, LabelOutputDir+"="+filepath.Join(root, id))
		}
	}

	var m Manifest
	swebenchtest.ReadJSON(t, filepath.Join(merged, ManifestFile), &m)
	want := map[string]string{prepared: "success", mounted: "success", blocked: "failed/blocked", missing: "failed/missing_image"}
	for id, w := range want {
		e := m.Instances[id]
		got := e.Status
		if e.FailureReasonCode != nil {
			got += "/" + string(*e.FailureReasonCode)
		}
		if got != w {
			t.Errorf("merged manifest %s: %s (%s), want %s", id, got, e.FailureReasonDetail, w)
		}
		if w == "success" && !strings.HasPrefix(e.CodexVersion, "codex-cli 0.169.") {
			t.Errorf("%s ran codex %q, want the arm64 codex-cli 0.169", id, e.CodexVersion)
		}
	}
	if m.Counts != (Counts{Total: 4, Success: 2, Failed: 2}) {
		t.Errorf("merged counts %+v, want 4 = 2 successes + 2 failures", m.Counts)
	}

	b, err := os.ReadFile(filepath.Join(merged, "predictions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(rows) != len(ids) {
		t.Fatalf("predictions.jsonl has %d rows, want %d:\n%s", len(rows), len(ids), b)
	}
	for _, row := range rows {
		var p Pred
		if err := json.Unmarshal([]byte(row), &p); err != nil {
			t.Fatalf("predictions.jsonl row %q: %v", row, err)
		}
		if want[p.InstanceID] != "success" {
			if p.ModelPatch != "" {
				t.Errorf("%s (%s) has a patch in predictions.jsonl", p.InstanceID, want[p.InstanceID])
			}
			continue
		}
		if !strings.Contains(p.ModelPatch, "\n-code\n+fixed code\n") {
			t.Errorf("%s: model_patch is not the agent's edit:\n%s", p.InstanceID, p.ModelPatch)
		}
		// A fresh container of the original image: the prepared one's
		// codex layer does not touch /testbed.
		r.applies(t, ImageName(DefaultImageTemplate, p.InstanceID), p.InstanceID, p.ModelPatch)
	}
}

// TestArm64ConcurrentRunsKeepTheirContainers runs two instances at once
// with the arm64 benchgate: the second starts, and ends, while the first
// one's agent is thinking. Each run starts by removing containers of runs
// that were killed, judged by the owner label (pid and start time); under
// qemu-user a process reading its own /proc/<pid>/stat gets a start time
// of the emulator's, so a run named itself with a value by which the
// other took it for dead and removed its live container. Both must end in
// success, and the owner label must be the kernel's view of the process.
func TestArm64ConcurrentRunsKeepTheirContainers(t *testing.T) {
	r := newArm64Runner(t)
	first, second := "acme__arm64conc-1", "acme__arm64conc-2"
	for _, id := range []string{first, second} {
		swebenchtest.ImportArm64Image(t, r.dc, ImageName(DefaultImageTemplate, id))
	}
	agent := &swebenchtest.Agent{Outcome: map[string]string{first: "success", second: "success"},
		Arrived: make(chan struct{}, 1), Release: make(chan struct{})}
	agent.Hold.Store(&first)
	srv := fakeresponses.New([]string{"qwen3-coder-next-FP8"}, agent.Script(20)...)
	defer srv.Close()
	dataset := swebenchtest.DatasetFile(t, r.dir, first, second)
	runLine := func(id string) string {
		return fmt.Sprintf("exec benchgate swebench run --instance-id %s --dataset-file %s --output-dir %s --base-url %s --codex-binary codex --max-loops 1",
			id, dataset, filepath.Join(r.dir, "out", id), srv.BaseURL())
	}

	var firstOut bytes.Buffer
	a := r.command(r.dir, runLine(first))
	a.Stdout, a.Stderr = &firstOut, &firstOut
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	released := false
	release := func() {
		if !released {
			released = true
			agent.Hold.Store(nil)
			close(agent.Release)
		}
	}
	defer func() {
		release()
		if a.ProcessState == nil {
			_ = a.Process.Kill()
			_ = a.Wait()
		}
	}()
	select {
	case <-agent.Arrived:
	case <-time.After(10 * time.Minute): // a guard only: the first request arrives in seconds
		t.Fatalf("the first run never asked the model:\n%s", firstOut.String())
	}
	list, err := r.dc.List(context.Background(), LabelInstance+"="+first)
	if err != nil || len(list) != 1 {
		t.Fatalf("containers of %s while its agent thinks: %v %v", first, list, err)
	}
	owner := list[0].Labels[LabelOwner]
	pid, _, _ := strings.Cut(owner, ".")
	if kernel := kernelStartTime(t, pid); owner != pid+"."+kernel {
		t.Errorf("owner label %q of the first run, want %s.%s: the pid and the start time the kernel gives every other process", owner, pid, kernel)
	}

	out, code := r.run(t, r.dir, runLine(second))
	if code != 0 {
		t.Errorf("second run: exit %d\n%s", code, out)
	}
	if left, err := r.dc.List(context.Background(), LabelInstance+"="+first); err != nil || len(left) != 1 {
		t.Errorf("the first run's container after the second run: %v %v; the second run removed a live run's container:\n%s", left, err, out)
	}
	release()
	if err := a.Wait(); err != nil {
		t.Errorf("first run: %v\n%s", err, firstOut.String())
	}
	for _, id := range []string{first, second} {
		var st Status
		swebenchtest.ReadJSON(t, PathsFor(filepath.Join(r.dir, "out", id), id).Status, &st)
		if st.Status != "success" {
			t.Errorf("%s: %s (%s), want success", id, st.Status, st.FailureReasonDetail)
		}
		swebenchtest.NoLeaks(t, r.dc, LabelInstance+"="+id)
	}
}

// kernelStartTime is field 22 of /proc/<pid>/stat read by this process,
// another than pid: the kernel's own value, which no emulator rewrites.
func kernelStartTime(t *testing.T, pid string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndexByte(b, ')')
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 20 {
		t.Fatalf("/proc/%s/stat: %q", pid, b)
	}
	return fields[19]
}

package swebench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// attackerCodex is a `codex` that does what a hostile or confused agent
// could do in its container: plant symbolic links in the bind-mounted
// output folder, pointing at host paths, for benchgate to follow on the
// host. ATTACK picks the link: "log" links the next phase's event log to
// a host file (benchgate would overwrite it), "patch" links the patch to
// a root-only host file and claims success (benchgate would publish it).
// "manifest-zero", "manifest-fifo" and "manifest-host" replace the
// run_manifest.json in the output folder (the manifest folder of a
// single run) by a link to /dev/zero, a FIFO or a link to a host JSON
// file; "lock-fifo" replaces its lock file by a FIFO; "plans-host"
// replaces the plans folder by a link to a host folder ($HOSTDIR) whose
// blocked/ plan holds a secret.
// "privilege" leaves what would give a local user root: a setuid-root
// and a setgid copy of busybox, device nodes (when mknod is allowed), a
// FIFO, and a loop that keeps planting a setuid-root binary and a FIFO
// until the container is removed; "privilege-hang" does the same and
// then hangs in the execute phase, for a benchgate to be killed there.
const attackerCodex = `#!/bin/sh
case "$1" in --version) echo "codex-cli 0.169.0 (attacker)"; exit 0;; esac
echo '{"type":"thread.started","thread_id":"t-'"$SWE_BENCH_RUNTIME_PHASE"'"}'
echo '{"type":"turn.started"}'
if [ "$SWE_BENCH_RUNTIME_PHASE" = plan ]; then
  echo "1. fix" > "$SWE_BENCH_PLANS_DIR/EXECUTION_PLAN.md"
  if [ "$ATTACK" = privilege ] || [ "$ATTACK" = privilege-hang ]; then
    out="$SWE_BENCH_OUTPUT_DIR"
    mkdir -p "$out/logs" "$out/plans/deep"
    cp /bin/busybox "$out/logs/rootsh" && chmod 4755 "$out/logs/rootsh"
    cp /bin/busybox "$out/plans/deep/groupsh" && chmod 2755 "$out/plans/deep/groupsh"
    if mknod "$out/null" c 1 3 2>/dev/null || mknod "$out/sda" b 8 0 2>/dev/null; then echo made > "$out/mknod.txt"; else echo denied > "$out/mknod.txt"; fi
    mkfifo "$out/logs/fifo"
    # Re-plant behind benchgate until the container is removed.
    setsid sh -c 'while :; do cp /bin/busybox "$1/plans/loopsh" 2>/dev/null; chmod 6755 "$1/plans/loopsh"; mkfifo "$1/loopfifo" 2>/dev/null; sleep 0.05; done' sh "$out" </dev/null >/dev/null 2>&1 &
    while [ ! -p "$out/loopfifo" ]; do sleep 0.01; done
  fi
  if [ "$ATTACK" = log ]; then
    ln -sf "$VICTIM" "$SWE_BENCH_OUTPUT_DIR/logs/codex_execute_1.jsonl"
  fi
else
  m="$SWE_BENCH_OUTPUT_DIR/run_manifest.json"
  case "$ATTACK" in
    patch) ln -sf "$SECRET" "$SWE_BENCH_PATCH_PATH" ;;
    manifest-zero) rm -f "$m" && ln -s /dev/zero "$m" ;;
    manifest-fifo) rm -f "$m" && mkfifo "$m" ;;
    manifest-host) rm -f "$m" && ln -s "$VICTIM" "$m" ;;
    lock-fifo) rm -f "$m.lock" && mkfifo "$m.lock" ;;
    plans-host) rm -rf "$SWE_BENCH_PLANS_DIR" && ln -s "$HOSTDIR" "$SWE_BENCH_PLANS_DIR" ;;
    privilege-hang) sleep 3600 ;;
  esac
  if [ "$ATTACK" != plans-host ]; then
    mkdir -p "$SWE_BENCH_PLANS_DIR/archive"
    mv "$SWE_BENCH_PLANS_DIR/SPECIFICATION.md" "$SWE_BENCH_PLANS_DIR/EXECUTION_PLAN.md" "$SWE_BENCH_PLANS_DIR/archive/"
  fi
fi
echo '{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0}}'
`

func importAttackerImage(t *testing.T, dc *container.Client, ref string) {
	t.Helper()
	bb, err := os.ReadFile(testenv.Busybox(t))
	if err != nil {
		t.Fatal(err)
	}
	var base bytes.Buffer
	files := []container.File{{Path: "/bin/busybox", Mode: 0o755, Data: bb}, {Path: "/testbed/README", Data: []byte("code\n")}, {Path: "/tmp/.keep"},
		{Path: "/usr/local/bin/codex", Mode: 0o755, Data: []byte(attackerCodex)}}
	if err := container.WriteTar(&base, files); err != nil {
		t.Fatal(err)
	}
	var rootfs bytes.Buffer
	if err := writeTarWithLinks(&rootfs, base.Bytes(), []string{"sh", "sleep", "cat", "ln", "mv", "mkdir", "echo", "chown", "cp", "chmod", "mknod", "mkfifo", "rm", "setsid"}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := dc.ImageImport(ctx, &rootfs, ref, "ENV PATH=/usr/local/bin:/usr/bin:/bin", "WORKDIR /testbed", `CMD ["/bin/sh"]`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.ImageRemove(context.Background(), ref) })
}

// TestAgentLinksNeverReachTheHost runs the attacker agent in a real
// container: no host file is written through its links, no host file's
// content reaches the patch or the prediction, and the instance fails
// with a detail that names the refused link.
func TestAgentLinksNeverReachTheHost(t *testing.T) {
	dc := dockerClient(t)
	host := t.TempDir()
	victim := filepath.Join(host, "authorized_keys")
	secret := filepath.Join(host, "id_rsa")
	if err := os.WriteFile(victim, []byte("host file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("-----BEGIN PRIVATE KEY----- host secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tmpl := "sweb.eval.arm64.{id}:attacker"
	for i, attack := range []string{"log", "patch"} {
		t.Run(attack, func(t *testing.T) {
			dir := t.TempDir()
			id := "evil__agent" + strings.Repeat("x", i) + "-1"
			importAttackerImage(t, dc, ImageName(tmpl, id))
			o := baseOptions(t, dc, datasetFile(t, dir, id), tmpl, "")
			o.Env = []string{"ATTACK=" + attack, "VICTIM=" + victim, "SECRET=" + secret}
			o.InstanceID, o.OutputDir = id, filepath.Join(dir, "out", id)
			st, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(victim); string(b) != "host file\n" {
				t.Fatalf("the host file was overwritten through the agent's link: %q", b)
			}
			p := PathsFor(o.OutputDir, id)
			for _, f := range []string{p.Pred, p.Patch, p.Status} {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if bytes.Contains(b, []byte("host secret")) {
					t.Fatalf("%s holds the host secret:\n%s", f, b)
				}
			}
			if info, err := os.Lstat(p.Patch); err != nil || info.Mode()&os.ModeSymlink != 0 {
				t.Errorf("the patch is still a link after the run: %v", err)
			}
			if st.Status != "failed" || !strings.Contains(st.FailureReasonDetail, "symbolic link") {
				t.Errorf("status %s detail %q, want failed naming the symbolic link", st.Status, st.FailureReasonDetail)
			}
		})
	}
}

// TestAgentLeavesNothingPrivileged runs the privilege attacker as root
// (benchgate in this process when the tests run as root) and as a
// non-root runner user (the built binary under another uid): after the
// run, nothing in the output folder is setuid or setgid, no device node,
// FIFO or socket is left, mknod was refused in the container, the runner
// log names what was removed or cleared, and with a non-root runner every
// file belongs to it.
func TestAgentLeavesNothingPrivileged(t *testing.T) {
	dc := dockerClient(t)
	t.Run("root runner", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("the tests do not run as root; the non-root case below covers this user")
		}
		dir := t.TempDir()
		id := "evil__privilege-1"
		tmpl := "sweb.eval.arm64.{id}:attacker"
		importAttackerImage(t, dc, ImageName(tmpl, id))
		o := baseOptions(t, dc, datasetFile(t, dir, id), tmpl, "")
		o.Env = []string{"ATTACK=privilege"}
		o.InstanceID, o.OutputDir = id, filepath.Join(dir, "out", id)
		if _, err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		checkNothingPrivileged(t, o.OutputDir, -1)
	})
	t.Run("non-root runner", func(t *testing.T) {
		uid := os.Getuid()
		base, err := os.MkdirTemp("", "benchgate-nonroot-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(base) })
		if err := os.Chmod(base, 0o755); err != nil {
			t.Fatal(err)
		}
		id := "evil__privilege-2"
		importAttackerImage(t, dc, ImageName(DefaultImageTemplate, id))
		bin := filepath.Join(base, "benchgate")
		b, err := os.ReadFile(testenv.Benchgate(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, b, 0o755); err != nil {
			t.Fatal(err)
		}
		dataset := datasetFile(t, base, id)
		if err := os.Chmod(dataset, 0o644); err != nil {
			t.Fatal(err)
		}
		outRoot := filepath.Join(base, "out")
		if err := os.Mkdir(outRoot, 0o755); err != nil {
			t.Fatal(err)
		}
		// The engine's socket is root's: a proxy on a socket anyone can
		// open forwards every byte to it, as a runner user in the docker
		// group would reach the engine.
		sock := proxyDocker(t, filepath.Join(base, "docker.sock"))
		argv := []string{bin, "swebench", "run", "--instance-id", id, "--output-dir", filepath.Join(outRoot, id), "--network", "none",
			"--dataset-file", dataset, "--env", "ATTACK=privilege"}
		if uid == 0 {
			uid = 4321
			if err := os.Chown(outRoot, uid, uid); err != nil {
				t.Fatal(err)
			}
			argv = append([]string{"setpriv", "--reuid=4321", "--regid=4321", "--clear-groups", "--"}, argv...)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + base, "DOCKER_HOST=unix://" + sock}
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatalf("%v\n%s", err, out)
		} else if ok && ee.ExitCode() != 1 && ee.ExitCode() != 20 {
			t.Fatalf("exit %d, want 1 or 20 (a failed or incomplete instance)\n%s", ee.ExitCode(), out)
		}
		checkNothingPrivileged(t, filepath.Join(outRoot, id), uid)
	})
}

// checkNothingPrivileged walks dir without following links and fails on
// any setuid or setgid bit, any device node, FIFO or socket, and, when
// owner >= 0, any file that is not owner's. The agent must have tried:
// its mknod was refused, and its loop ran.
func checkNothingPrivileged(t *testing.T, dir string, owner int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		m := info.Mode()
		if m&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
			t.Errorf("%s is %v after the run", p, m)
		}
		if m&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe|fs.ModeSocket) != 0 {
			t.Errorf("%s is still there: %v", p, m)
		}
		if st, ok := info.Sys().(*syscall.Stat_t); owner >= 0 && ok && int(st.Uid) != owner {
			t.Errorf("%s belongs to uid %d, want the runner's %d", p, st.Uid, owner)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "mknod.txt")); err != nil || string(b) != "denied\n" {
		t.Errorf("mknod in the container: %q %v, want denied", b, err)
	}
	for _, f := range []string{"logs/rootsh", "plans/loopsh"} {
		if _, err := os.Lstat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the agent's %s is not there, so the attack did not run: %v", f, err)
		}
	}
	log, err := os.ReadFile(filepath.Join(dir, "logs", "runner.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"logs/rootsh", "plans/deep/groupsh", "logs/fifo", "loopfifo"} {
		if !strings.Contains(string(log), filepath.Join(dir, f)) {
			t.Errorf("runner.log does not name %s:\n%s", f, log)
		}
	}
}

// proxyDocker listens on a unix socket at path, open to every user, and
// forwards each connection to the test engine's socket.
func proxyDocker(t *testing.T, path string) string {
	t.Helper()
	target := strings.TrimPrefix(testenv.DockerHost(t), "unix://")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				e, err := net.Dial("unix", target)
				if err != nil {
					return
				}
				defer e.Close()
				done := make(chan struct{}, 2)
				go func() { io.Copy(e, c); e.(*net.UnixConn).CloseWrite(); done <- struct{}{} }()
				go func() { io.Copy(c, e); c.(*net.UnixConn).CloseWrite(); done <- struct{}{} }()
				<-done
				<-done
			}()
		}
	}()
	return path
}

// TestAgentCannotMisleadTheHostReads plants, in the output folder that is
// also the manifest folder, what the manifest and plan readers on the
// host would follow or block on. Each run ends in bounded time with an
// error that names the refused file, no host file is read into any
// output or changed, and a plans folder linked to a host folder tells
// the state machine nothing about the host folder's files.
func TestAgentCannotMisleadTheHostReads(t *testing.T) {
	dc := dockerClient(t)
	host := t.TempDir()
	victim := filepath.Join(host, "other_manifest.json")
	victimJSON := `{"instances":{"host__secret-1":{"instance_id":"host__secret-1","status":"success","output_dir":"/root/host-secret"}}}`
	if err := os.WriteFile(victim, []byte(victimJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	hostPlans := filepath.Join(host, "plans")
	for _, f := range []string{"blocked/EXECUTION_PLAN.md", "blocked/SPECIFICATION.md", "archive/EXECUTION_PLAN.md", "archive/SPECIFICATION.md"} {
		p := filepath.Join(hostPlans, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("host-secret plan text\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tmpl := "sweb.eval.arm64.{id}:attacker"
	// A FIFO is removed by the walk after the container is gone (and
	// named in the runner log), before the manifest is written; a link
	// stays, and the manifest update refuses it. ReadManifest's own
	// refusals are in TestReadManifestRefuses.
	tests := []struct {
		attack  string
		wantErr string // the error of Run, after the output folder's path
	}{
		{"manifest-zero", "/run_manifest.json is a symbolic link; refused"},
		{"manifest-fifo", ""},
		{"manifest-host", "/run_manifest.json is a symbolic link; refused"},
		{"lock-fifo", ""},
		{"plans-host", ""},
	}
	for i, tc := range tests {
		t.Run(tc.attack, func(t *testing.T) {
			dir := t.TempDir()
			id := "evil__reads" + strings.Repeat("x", i) + "-1"
			importAttackerImage(t, dc, ImageName(tmpl, id))
			o := baseOptions(t, dc, datasetFile(t, dir, id), tmpl, "")
			o.MaxLoops = 2
			o.Env = []string{"ATTACK=" + tc.attack, "VICTIM=" + victim, "HOSTDIR=" + hostPlans}
			o.InstanceID, o.OutputDir = id, filepath.Join(dir, "out", id)
			type result struct {
				st  Status
				err error
			}
			done := make(chan result, 1)
			go func() {
				st, err := Run(context.Background(), o)
				done <- result{st, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(5 * time.Minute): // a last-resort guard: a FIFO read blocks forever
				t.Fatal("Run did not return")
			}
			if tc.wantErr == "" {
				if r.err != nil {
					t.Fatal(r.err)
				}
			} else if r.err == nil || !strings.Contains(r.err.Error(), o.OutputDir+tc.wantErr) {
				t.Fatalf("Run: %v, want an error naming %s", r.err, o.OutputDir+tc.wantErr)
			}
			if strings.HasSuffix(tc.attack, "-fifo") {
				name := map[string]string{"manifest-fifo": "run_manifest.json", "lock-fifo": "run_manifest.json.lock"}[tc.attack]
				log, _ := os.ReadFile(filepath.Join(o.OutputDir, "logs", "runner.log"))
				if want := filepath.Join(o.OutputDir, name) + " is a named pipe (FIFO): removed"; !strings.Contains(string(log), want) {
					t.Errorf("runner.log does not say %q:\n%s", want, log)
				}
				m, err := ReadManifest(filepath.Join(o.OutputDir, ManifestFile))
				if err != nil || m.Instances[id].Status != r.st.Status {
					t.Errorf("manifest after the FIFO was removed: %+v %v", m.Instances, err)
				}
			}
			if b, _ := os.ReadFile(victim); string(b) != victimJSON {
				t.Errorf("the host JSON file changed: %q", b)
			}
			err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || !d.Type().IsRegular() {
					return err
				}
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if bytes.Contains(b, []byte("host__secret")) || bytes.Contains(b, []byte("host-secret")) {
					t.Errorf("%s holds host content:\n%s", p, b)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if tc.attack == "plans-host" {
				// The host folder has blocked/ and archive/ plans: read
				// through the link, the run would stop as blocked after
				// the first pass. It runs every pass instead, and every
				// phase saw the plans where they really are: nowhere.
				if r.st.Status != "incomplete" || len(r.st.Phases) != 5 {
					t.Errorf("status %s after %d phases (%s), want incomplete after all 5", r.st.Status, len(r.st.Phases), r.st.FailureReasonDetail)
				}
				for _, ph := range r.st.Phases[1:] {
					if ph.StateAfter != "root" {
						t.Errorf("%s pass %d: plan state %s, want root", ph.Phase, ph.Pass, ph.StateAfter)
					}
				}
			}
		})
	}
}

// TestKilledRunsLeftoversAreScrubbed kills the built binary with SIGKILL
// while the privilege attacker's loop runs in its container: the next
// run on the engine removes that container and, since the killed run
// could not, scrubs its output folder, naming what it found.
func TestKilledRunsLeftoversAreScrubbed(t *testing.T) {
	dc := dockerClient(t)
	dir := t.TempDir()
	killed := "evil__killed-1"
	importAttackerImage(t, dc, ImageName(DefaultImageTemplate, killed))
	out1 := filepath.Join(dir, "out", killed)
	cmd := exec.Command(testenv.Benchgate(t), "swebench", "run", "--instance-id", killed, "--output-dir", out1, "--network", "none",
		"--dataset-file", datasetFile(t, dir, killed), "--env", "ATTACK=privilege-hang")
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+testenv.DockerHost(t))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// The execute phase's log exists once the plan phase (the planting)
	// is over.
	for {
		if _, err := os.Stat(filepath.Join(out1, "logs", "codex_execute_1.jsonl")); err == nil {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("benchgate ended before the execute phase: %v\n%s", err, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	if info, err := os.Lstat(filepath.Join(out1, "logs", "rootsh")); err != nil || info.Mode()&fs.ModeSetuid == 0 {
		t.Fatalf("the attack left no setuid file before the reap: %v %v", info, err)
	}

	id := "evil__after-1"
	tmpl := "sweb.eval.arm64.{id}:attacker"
	importAttackerImage(t, dc, ImageName(tmpl, id))
	o := baseOptions(t, dc, datasetFile(t, dir, id), tmpl, "")
	o.InstanceID, o.OutputDir = id, filepath.Join(dir, "out", id)
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(out1, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if m := info.Mode(); m&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeDevice|fs.ModeNamedPipe|fs.ModeSocket) != 0 {
			t.Errorf("%s is %v after the reap", p, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(o.OutputDir, "logs", "runner.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"removed container benchgate-swebench-" + killed, filepath.Join(out1, "logs", "rootsh") + " is a setuid file"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("runner.log does not say %q:\n%s", want, log)
		}
	}
}

// TestHandOverScript runs the hand-over (as for a runner that is not
// root) on a folder of awkward names in the real engine: names that look
// like options, with spaces, a newline, leading dots; a link into the
// container's own tree and one to a host file outside the folder. Every
// file below the folder ends up the runner's, without setuid or setgid
// bits, the FIFO is gone, and nothing a link points at is changed.
func TestHandOverScript(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("planting root-owned setuid files needs root")
	}
	dc := dockerClient(t)
	id := "acme__handover-1"
	ref := ImageName("sweb.eval.arm64.{id}:handover", id)
	importImage(t, dc, ref, true)
	base := t.TempDir()
	dir := filepath.Join(base, "out")
	outside := filepath.Join(base, "host-suid")
	if err := os.WriteFile(outside, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(outside, 0o755|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	names := []string{"-rf", "a b", ".h", "..x", "nl\nname", "d/e/f", "d/.g/-n"}
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o755|os.ModeSetuid|os.ModeSetgid); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "d", "p p"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"ln-bin": "/bin", "d/ln-host": outside} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	o := Options{InstanceID: id, OutputDir: dir, Owner: "4321:4321", Docker: dc}
	var log strings.Builder
	o.handOver(ref, func(format string, a ...any) { fmt.Fprintf(&log, format+"\n", a...) })
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if m := info.Mode(); m&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeNamedPipe) != 0 {
			t.Errorf("%q is %v after the hand-over", p, m)
		}
		if st := info.Sys().(*syscall.Stat_t); st.Uid != 4321 || st.Gid != 4321 {
			t.Errorf("%q belongs to %d:%d, want 4321:4321", p, st.Uid, st.Gid)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(outside)
	if err != nil || info.Mode() != 0o755|os.ModeSetuid || info.Sys().(*syscall.Stat_t).Uid != 0 {
		t.Errorf("the host file a link points at changed: %v %v", info.Mode(), err)
	}
	for _, n := range []string{"-rf", "a b", `nl\nname`, "d/.g/-n", "d/p p"} {
		if !strings.Contains(log.String(), filepath.Join(dir, n)) {
			t.Errorf("the log does not name %q:\n%s", n, log.String())
		}
	}
	if strings.Contains(log.String(), "hand the output folder over") {
		t.Errorf("the hand-over failed:\n%s", log.String())
	}
}

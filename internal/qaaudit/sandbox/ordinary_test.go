package sandbox

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// ordinaryUID is the user the test runs the sandbox as when it is root:
// the host's nobody, an ordinary user with no capability.
const ordinaryUID = 65534

// TestOrdinaryUserLimitsHoldOrAreNamed runs the sandbox as an ordinary
// user (this test binary again, as nobody, when it runs as root), as on
// a GitHub-hosted runner: a fork bomb is stopped by the process limit, a
// disk filler by the tmpfs sizes, and a memory hog spread over four
// processes, each below the per-process limit, is stopped by the test's
// cgroup where there is one; where there is none, Unenforced says that
// memory is limited only per process before any test runs, and the hog
// indeed gets its memory (what the statement says is what happens).
func TestOrdinaryUserLimitsHoldOrAreNamed(t *testing.T) {
	python := testenv.Python(t)
	if os.Getenv("BENCHGATE_SANDBOX_ORDINARY") == "" && os.Getuid() == 0 {
		runAsOrdinaryUser(t, python)
		return
	}
	work := os.Getenv("BENCHGATE_SANDBOX_WORK")
	if work == "" {
		work = t.TempDir()
	}
	lim := Limits{MemoryBytes: 256 << 20, Processes: 16, FolderBytes: 32 << 20, TmpBytes: 8 << 20, FileBytes: 16 << 20}
	r := &Runner{Python: python, WorkDir: work, Timeout: 2 * time.Minute, Limits: lim}
	if _, err := r.Preflight(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("uid %d; sandbox: %s", os.Getuid(), r.Describe())
	run := func(name, src string) Outcome {
		out, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:" + name, Option: "A", Source: []byte(src)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out
	}
	bomb := run("fork", "import os, time\n\ndef test_option():\n    while True:\n        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n")
	if bomb.Status == StatusPassed || bomb.Status == StatusTimeout || bomb.Limit != LimitProcesses {
		t.Errorf("fork bomb: status %s limit %q message %q, want stopped by the process limit\n%s", bomb.Status, bomb.Limit, bomb.Message, bomb.Output)
	}
	disk := run("disk", `import errno, os

def fill(folder, limit):
    total = 0
    try:
        for i in range(64):
            with open(os.path.join(folder, "fill%d.bin" % i), "wb") as f:
                for _ in range(4):
                    f.write(b"x" * (1 << 20))
                    total += 1 << 20
    except OSError as e:
        assert e.errno == errno.ENOSPC, e
    finally:
        for i in range(64):
            p = os.path.join(folder, "fill%d.bin" % i)
            if os.path.exists(p):
                os.remove(p)
    assert total <= limit, "wrote %d MiB into %s" % (total >> 20, folder)

def test_option():
    fill(".", 32 << 20)
    fill("/tmp", 8 << 20)
    fill("/dev/shm", 8 << 20)
`)
	if disk.Status != StatusPassed {
		t.Errorf("disk filler: status %s message %q, want each tmpfs full at its size\n%s", disk.Status, disk.Message, disk.Output)
	}
	hog := run("memory", `import subprocess, sys

CHILD = "import sys\nb = b'x' * (200 << 20)\nprint('holding', flush=True)\nsys.stdin.read()\n"

def test_option():
    ps = [subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in range(4)]
    held = [p.stdout.readline() for p in ps]
    for p in ps:
        p.stdin.close()
        p.wait()
    assert all(p.returncode == 0 for p in ps), [p.returncode for p in ps]
`)
	u := r.Unenforced()
	switch {
	case r.cgroup != "":
		if u != "" || hog.Status == StatusPassed || hog.Limit != LimitMemory {
			t.Errorf("with a cgroup (%s): unenforced %q, memory hog status %s limit %q; want nothing unenforced and the hog stopped", r.cgroup, u, hog.Status, hog.Limit)
		}
	default:
		if !strings.Contains(u, "memory is not limited in total, only per process (address space 256 MiB) and by the 16 processes a test may have, up to 4 GiB") {
			t.Errorf("without a cgroup the audit does not say memory is unlimited in total: %q", u)
		}
		if hog.Status != StatusPassed {
			t.Errorf("without a cgroup, 4 × 200 MiB under 256 MiB per process: status %s %q; the statement says it passes\n%s", hog.Status, hog.Message, hog.Output)
		}
	}
}

// runAsOrdinaryUser runs this test again as nobody, in a work folder
// that user owns, and fails with its output if it fails.
func runAsOrdinaryUser(t *testing.T, python string) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "sandbox-ordinary-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "sandbox.test")
	if err := copyFile(self, bin); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil || os.Chown(work, ordinaryUID, ordinaryUID) != nil {
		t.Fatalf("work folder for uid %d: %v", ordinaryUID, err)
	}
	cmd := exec.Command(bin, "-test.run", "^TestOrdinaryUserLimitsHoldOrAreNamed$", "-test.v", "-test.count=1")
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "BENCHGATE_SANDBOX_ORDINARY=1", "BENCHGATE_SANDBOX_WORK=" + work,
		"BENCHGATE_TEST_PYTHON=" + python, "BENCHGATE_TEST_REQUIRE=" + os.Getenv("BENCHGATE_TEST_REQUIRE")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: ordinaryUID, Gid: ordinaryUID}}
	out, err := cmd.CombinedOutput()
	t.Logf("as uid %d:\n%s", ordinaryUID, out)
	if err != nil {
		t.Fatalf("the sandbox as an ordinary user: %v", err)
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

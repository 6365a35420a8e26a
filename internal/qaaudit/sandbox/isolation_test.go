package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestLimitsStopARunawayTestAndSayWhich runs tests that each exhaust one
// resource and checks that the kernel stopped them at the limit, and that
// the outcome names that limit.
func TestLimitsStopARunawayTestAndSayWhich(t *testing.T) {
	python := testenv.Python(t)
	tests := []struct {
		name   string
		limits Limits
		src    string
		limit  string
		text   string
	}{
		{"memory", Limits{MemoryBytes: 512 << 20}, "def test_option():\n    grow = []\n    while True:\n        grow.append(bytearray(1 << 20))\n",
			LimitMemory, "stopped by the memory limit (512 MiB)"},
		{"cpu", Limits{CPUSeconds: 2}, "def test_option():\n    while True:\n        pass\n",
			LimitCPU, "stopped by the CPU time limit (2 s)"},
		{"file size", Limits{FileBytes: 1 << 20}, "def test_option():\n    with open('big.bin', 'wb') as f:\n        f.write(b'x' * (4 << 20))\n",
			LimitFileSize, "stopped by the file size limit (1 MiB)"},
		{"processes", Limits{Processes: 16}, "import subprocess\n\ndef test_option():\n    ps = [subprocess.Popen(['sleep', '30']) for _ in range(64)]\n",
			LimitProcesses, "stopped by the process limit (16)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Runner{Python: python, WorkDir: t.TempDir(), Timeout: 2 * time.Minute, Limits: tt.limits}
			start := time.Now()
			out, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "A", Source: []byte(tt.src)})
			if err != nil {
				t.Fatal(err)
			}
			if out.Status == StatusPassed || out.Status == StatusTimeout || out.Limit != tt.limit || !strings.HasPrefix(out.Message, tt.text) {
				t.Fatalf("status %s limit %q message %q after %s; want limit %q, message starting %q\n%s", out.Status, out.Limit, out.Message, time.Since(start), tt.limit, tt.text, out.Output)
			}
		})
	}
}

// TestSandboxHidesTheMachine checks what a test sees of this machine: no
// file outside its folder (a 0600 file beside it, the checkout's .git), no
// write outside its folder reaching this machine, and a loopback that
// works.
func TestSandboxHidesTheMachine(t *testing.T) {
	python := testenv.Python(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "token")
	if err := os.WriteFile(secret, []byte("ghp_secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A checkout on PYTHONPATH (the benchmark's repository root): its
	// modules are readable, its .git is not.
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), []byte("[http] extraheader = AUTHORIZATION: basic c2VjcmV0"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "helpers.py"), []byte("ANSWER = 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hostTmp := filepath.Join(os.TempDir(), "qa-sandbox-escape-"+filepath.Base(outside))
	defer os.Remove(hostTmp)
	src := `import os, socket, threading

def test_no_file_outside():
    assert not os.path.exists(` + pyStr(secret) + `)
    assert not os.path.exists(` + pyStr(outside) + `)

def test_checkout_without_git():
    import helpers
    assert helpers.ANSWER == 42
    assert not os.path.exists(` + pyStr(filepath.Join(repo, ".git", "config")) + `)

def test_writes_stay_inside():
    with open(` + pyStr(hostTmp) + `, "w") as f:
        f.write("escaped")
    open("inside.txt", "w").write("ok")
    assert open("inside.txt").read() == "ok"

def test_cannot_write_the_interpreter():
    import sys
    try:
        open(os.path.join(os.path.dirname(os.path.realpath(sys.executable)), "qa-sandbox-probe"), "w")
    except OSError:
        return
    raise AssertionError("wrote beside the interpreter")

def test_no_new_privileges():
    assert "NoNewPrivs:\t1" in open("/proc/self/status").read()

def test_loopback():
    srv = socket.create_server(("127.0.0.1", 0))
    port = srv.getsockname()[1]
    threading.Thread(target=lambda: srv.accept()[0].sendall(b"pong"), daemon=True).start()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
        assert c.recv(4) == b"pong"
`
	r := &Runner{Python: python, WorkDir: t.TempDir(), Keep: true, Env: []string{"PYTHONPATH=" + repo}}
	out, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "A", Source: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != StatusPassed {
		t.Fatalf("status %s: %s\n%s", out.Status, out.Message, out.Output)
	}
	if _, err := os.Stat(hostTmp); err == nil {
		t.Errorf("the test wrote %s on this machine", hostTmp)
	}
	// The test's folder in the sandbox is a copy on a tmpfs: only the
	// JUnit report comes back.
	if _, err := os.Stat(filepath.Join(filepath.Dir(out.TestPath), "inside.txt")); err == nil {
		t.Errorf("a file the test wrote in its folder reached this machine")
	}
	if out.JUnitPath == "" {
		t.Errorf("the JUnit report did not come back")
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"2GiB": 2 << 30, "512MiB": 512 << 20, "1g": 1 << 30, "4096": 4096, "64k": 64 << 10, "3MB": 3 << 20} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1G", "2 gigs", "1.5G", "G"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

// FuzzParseSize: any text either parses to a positive size that a
// second parse of its byte count gives back, or is an error naming it.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"2GiB", "512MiB", "1g", "4096", "0", "-1G", "9999999999999999999T", " 3 kb ", "1.5G"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", s)) {
				t.Fatalf("error %q does not name the value %q", err, s)
			}
			return
		}
		if n <= 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		if again, err := ParseSize(fmt.Sprint(n)); err != nil || again != n {
			t.Fatalf("ParseSize(%d) = %d, %v", n, again, err)
		}
	})
}

// TestDiskIsBoundedInTotal runs a test that writes file after file, each
// below the file size limit, into its folder, /tmp and /dev/shm: each
// fills up at its size (the folder's in total, not per file), and none of
// it reaches this machine's disk.
func TestDiskIsBoundedInTotal(t *testing.T) {
	python := testenv.Python(t)
	src := `import errno, os

def fill(folder):
    total = 0
    try:
        for i in range(64):
            try:
                with open(os.path.join(folder, "fill%d.bin" % i), "wb") as f:
                    for _ in range(4):
                        f.write(b"x" * (1 << 20))
                        total += 1 << 20
            except OSError as e:
                assert e.errno == errno.ENOSPC, e
                return total
        raise AssertionError("wrote %d MiB into %s without end" % (total >> 20, folder))
    finally:
        for i in range(64):
            if os.path.exists(os.path.join(folder, "fill%d.bin" % i)):
                os.remove(os.path.join(folder, "fill%d.bin" % i))

def test_folder():
    assert fill(".") <= 32 << 20

def test_tmp():
    assert fill("/tmp") <= 8 << 20

def test_shm():
    assert fill("/dev/shm") <= 8 << 20
`
	r := &Runner{Python: python, WorkDir: t.TempDir(), Keep: true, Limits: Limits{FolderBytes: 32 << 20, TmpBytes: 8 << 20, FileBytes: 16 << 20}}
	out, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "A", Source: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != StatusPassed {
		t.Fatalf("status %s: %s\n%s", out.Status, out.Message, out.Output)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out.TestPath), "fill*.bin")); len(left) > 0 {
		t.Errorf("the test's files reached this machine: %v", left)
	}
}

// TestMemoryIsLimitedInTotal runs a test whose four children each hold
// 300 MiB, under a memory limit of 512 MiB: each is below the limit of
// one process, but together they are above it, and the test's cgroup
// stops them and says so. Where this machine gives the test no cgroup
// (an ordinary user), the report says why and the test is skipped.
func TestMemoryIsLimitedInTotal(t *testing.T) {
	python := testenv.Python(t)
	src := `import subprocess, sys

CHILD = "import sys\nb = b'x' * (300 << 20)\nprint('holding', flush=True)\nsys.stdin.read()\n"

def test_option():
    ps = [subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in range(4)]
    held = [p.stdout.readline() for p in ps]
    for p in ps:
        p.stdin.close()
        p.wait()
    assert all(p.returncode == 0 for p in ps), [p.returncode for p in ps]
`
	r := &Runner{Python: python, WorkDir: t.TempDir(), Limits: Limits{MemoryBytes: 512 << 20}, Timeout: 2 * time.Minute}
	if _, err := r.Preflight(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if r.cgroup == "" {
		if os.Getuid() == 0 && os.Getenv("BENCHGATE_TEST_REQUIRE") == "1" {
			t.Fatalf("no cgroup for the test as root: %s", r.noCgroup)
		}
		t.Skipf("no cgroup for the test here: %s", r.noCgroup)
	}
	if d := r.Describe(); !strings.Contains(d, "memory 512 MiB in total with its tmpfs and 256 processes in a cgroup of its own") {
		t.Errorf("the description does not state the cgroup: %s", d)
	}
	out, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "A", Source: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status == StatusPassed || out.Limit != LimitMemory || !strings.HasPrefix(out.Message, "stopped by the memory limit (512 MiB)") {
		t.Fatalf("status %s limit %q message %q\n%s", out.Status, out.Limit, out.Message, out.Output)
	}
}

package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/proc"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

const (
	passing = "def test_option():\n    assert sorted([3, 1, 2]) == [1, 2, 3]\n"
	raising = "import pytest\n\ndef test_option():\n    with pytest.raises(ZeroDivisionError):\n        1 / 0\n"
	failing = "def test_option():\n    assert 'a'.upper() == 'a', 'upper() changes case'\n"
	throws  = "def test_option():\n    {}['missing']\n"
	syntax  = "def test_option(:\n    pass\n"
	badImp  = "import module_that_does_not_exist\n\ndef test_option():\n    pass\n"
	hangs   = "import time\n\ndef test_option():\n    time.sleep(60)\n"
	noTests = "def helper():\n    return 1\n"
	skipped = "import pytest\n\n@pytest.mark.skip(reason='needs a GPU')\ndef test_option():\n    pass\n"
	xfailed = "import pytest\n\n@pytest.mark.xfail(reason='known bug 12')\ndef test_option():\n    assert False\n"
	modSkip = "import pytest\n\npytest.skip('not on this platform', allow_module_level=True)\n\ndef test_option():\n    pass\n"
	// A module that imports a package that is not installed at its top,
	// run with the missing-package guard as conftest.py.
	notInst = "import package_that_is_not_installed.sub\n\ndef test_option():\n    pass\n"
	fixErr  = "import pytest\n\n@pytest.fixture\ndef broken():\n    raise RuntimeError('fixture broke')\n\ndef test_option(broken):\n    pass\n"
	support = "from snippet import answer\n\ndef test_option():\n    assert answer() == 42\n"
)

func TestRunTestClassifiesRealPytest(t *testing.T) {
	python := testenv.Python(t)
	tests := []struct {
		name     string
		src      string
		support  map[string][]byte
		status   Status
		evidence bool
		truth    bool
		exit     int
		message  string
	}{
		{"pass", passing, nil, StatusPassed, true, true, 0, ""},
		{"expected exception", raising, nil, StatusPassed, true, true, 0, ""},
		{"assertion failure", failing, nil, StatusFailed, true, false, 1, "upper() changes case"},
		{"exception in body", throws, nil, StatusFailed, true, false, 1, "KeyError"},
		{"syntax error", syntax, nil, StatusCollectionError, false, false, 2, "collection failure"},
		{"import error", badImp, nil, StatusCollectionError, false, false, 2, "collection failure"},
		{"no tests", noTests, nil, StatusNoTests, false, false, 5, "no tests"},
		{"skipped", skipped, nil, StatusSkipped, false, false, 0, "skipped: needs a GPU"},
		{"xfail", xfailed, nil, StatusSkipped, false, false, 0, "skipped: xfail: known bug 12"},
		{"module skips itself", modSkip, nil, StatusSkipped, false, false, 5, "skipped: not on this platform"},
		{"package not installed at the top", notInst, map[string][]byte{"conftest.py": []byte(MissingPackageGuard)}, StatusSkipped, false, false, 5,
			"skipped: package_that_is_not_installed is not installed in this Python: No module named 'package_that_is_not_installed'"},
		{"fixture error", fixErr, nil, StatusError, false, false, 1, "fixture broke"},
		{"support file", support, map[string][]byte{"snippet.py": []byte("def answer():\n    return 42\n")}, StatusPassed, true, true, 0, ""},
	}
	r := &Runner{Python: python, Timeout: 60 * time.Second, WorkDir: t.TempDir(), Keep: true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := r.RunTest(context.Background(), TestSpec{CaseID: "suite:case " + tt.name, Option: "B", Source: []byte(tt.src), SupportFiles: tt.support})
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != tt.status || out.Evidence != tt.evidence || out.ExitCode != tt.exit {
				t.Fatalf("outcome = %s evidence=%v exit=%d (%s)\n%s", out.Status, out.Evidence, out.ExitCode, out.Message, out.Output)
			}
			if truth, ev := out.Proven(); truth != tt.truth || ev != tt.evidence {
				t.Errorf("Proven() = %v, %v", truth, ev)
			}
			if !strings.Contains(out.Message, tt.message) {
				t.Errorf("message %q does not contain %q", out.Message, tt.message)
			}
			if filepath.Base(out.TestPath) != "test_option_B.py" {
				t.Errorf("test path %q", out.TestPath)
			}
			if got, _ := os.ReadFile(out.TestPath); string(got) != tt.src {
				t.Errorf("kept test file = %q", got)
			}
			if out.Duration <= 0 {
				t.Error("no duration")
			}
		})
	}
}

func TestEachOptionGetsItsOwnFolder(t *testing.T) {
	python := testenv.Python(t)
	work := t.TempDir()
	r := &Runner{Python: python, WorkDir: work, Keep: true}
	// Option A leaves a file behind; option B must not see it.
	a := "import os\n\ndef test_option():\n    open('left_over.txt', 'w').write('x')\n    assert os.path.exists('left_over.txt')\n"
	b := "import os\n\ndef test_option():\n    assert not os.path.exists('left_over.txt')\n"
	oa, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "A", Source: []byte(a)})
	if err != nil {
		t.Fatal(err)
	}
	ob, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "B", Source: []byte(b)})
	if err != nil {
		t.Fatal(err)
	}
	if oa.Status != StatusPassed || ob.Status != StatusPassed {
		t.Fatalf("statuses %s, %s\n%s", oa.Status, ob.Status, ob.Output)
	}
	if filepath.Dir(oa.TestPath) == filepath.Dir(ob.TestPath) {
		t.Error("options share a folder")
	}
	if _, err := os.Stat(oa.JUnitPath); err != nil {
		t.Errorf("JUnit report not kept: %v", err)
	}
}

func TestFoldersAreRemovedUnlessKept(t *testing.T) {
	python := testenv.Python(t)
	work := t.TempDir()
	r := &Runner{Python: python, WorkDir: work}
	out, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "A", Source: []byte(passing)})
	if err != nil || out.Status != StatusPassed {
		t.Fatalf("%v %s", err, out.Status)
	}
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	if out.JUnitPath != "" {
		t.Errorf("JUnit path %q of a removed folder", out.JUnitPath)
	}
}

func TestHangingTestTimesOutAndIsKilled(t *testing.T) {
	python := testenv.Python(t)
	work := t.TempDir()
	// The test starts a grandchild that would outlive a plain kill; its
	// argument is unique, so that it can be found on this machine (it has
	// another pid inside the sandbox's PID namespace).
	arg := fmt.Sprintf("60.%d", time.Now().UnixNano()%1000000)
	src := "import subprocess, time\n\ndef test_option():\n    p = subprocess.Popen(['sleep', '" + arg + "'])\n    time.sleep(60)\n"
	r := &Runner{Python: python, Timeout: 3 * time.Second, WorkDir: work}
	start := time.Now()
	out, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "C", Source: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != StatusTimeout || out.Evidence {
		t.Fatalf("status = %s evidence=%v", out.Status, out.Evidence)
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("timeout took %s", time.Since(start))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		pid := findProcess("sleep\x00" + arg + "\x00")
		if pid == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %s still runs after the timeout", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// findProcess returns the pid of a live process whose command line holds
// cmdline, or "".
func findProcess(cmdline string) string {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(data), cmdline) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && !strings.Contains(string(stat), ") Z ") {
			return e.Name()
		}
	}
	return ""
}

func pyStr(s string) string { return "'" + strings.ReplaceAll(s, "'", "\\'") + "'" }

func TestEnvironmentIsScrubbed(t *testing.T) {
	python := testenv.Python(t)
	parent := map[string]string{
		"PATH":           os.Getenv("PATH"),
		"GITHUB_TOKEN":   "ghs_secret",
		"GEMINI_API_KEY": "AIza-secret",
		"LANG":           "C.UTF-8",
		"PYTHONPATH":     "/somewhere",
		"ADK_FLAVOUR":    "allowed",
	}
	src := `import os

def test_option():
    env = dict(os.environ)
    assert "GITHUB_TOKEN" not in env, "token leaked"
    assert "GEMINI_API_KEY" not in env, "key leaked"
    assert "PYTHONPATH" not in env
    assert env["ADK_FLAVOUR"] == "allowed"
    assert env["EXTRA"] == "1"
    assert env["PYTHONDONTWRITEBYTECODE"] == "1"
    assert env["HOME"].startswith(os.getcwd())
    assert os.path.isdir(env["HOME"])
    # BENCHGATE_OWNER names the benchgate process (pid and start time) so
    # that a later run can stop what a killed one left; it holds no secret.
    assert set(env) <= {"PATH", "HOME", "LANG", "PYTHONDONTWRITEBYTECODE", "ADK_FLAVOUR", "EXTRA", "PYTEST_CURRENT_TEST", "PYTEST_VERSION", "BENCHGATE_OWNER"}, sorted(env)
`
	r := &Runner{Python: python, WorkDir: t.TempDir(), AllowEnv: []string{"ADK_FLAVOUR", "HOME"}, Env: []string{"EXTRA=1"},
		Getenv: func(k string) string { return parent[k] }}
	out, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "D", Source: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != StatusPassed {
		t.Fatalf("status %s: %s\n%s", out.Status, out.Message, out.Output)
	}
}

func TestBadSpecsAreRejected(t *testing.T) {
	r := &Runner{Python: "python3", WorkDir: t.TempDir()}
	tests := []struct {
		name string
		spec TestSpec
		err  string
	}{
		{"option with slash", TestSpec{Option: "A/B", Source: []byte(passing)}, "letters, digits"},
		{"empty option", TestSpec{Option: "", Source: []byte(passing)}, "letters, digits"},
		{"empty source", TestSpec{CaseID: "s:c", Option: "A"}, "empty test source"},
		{"support escapes", TestSpec{Option: "A", Source: []byte(passing), SupportFiles: map[string][]byte{"../x.py": nil}}, "leaves the sandbox"},
		{"support absolute", TestSpec{Option: "A", Source: []byte(passing), SupportFiles: map[string][]byte{"/etc/x": nil}}, "relative path"},
		{"support replaces test", TestSpec{Option: "A", Source: []byte(passing), SupportFiles: map[string][]byte{"./test_option_A.py": nil}}, "would replace"},
		{"file name with folder", TestSpec{Option: "A", Source: []byte(passing), FileName: "../test_agent.py"}, "plain .py file name"},
		{"file name not python", TestSpec{Option: "A", Source: []byte(passing), FileName: "test_agent.sh"}, "plain .py file name"},
		{"support replaces named test", TestSpec{Option: "A", Source: []byte(passing), FileName: "test_agent.py", SupportFiles: map[string][]byte{"test_agent.py": nil}}, "would replace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := r.RunTest(context.Background(), tt.spec); err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
		})
	}
}

func TestMissingInterpreterIsAnError(t *testing.T) {
	r := &Runner{Python: filepath.Join(t.TempDir(), "no-python"), WorkDir: t.TempDir()}
	if _, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "A", Source: []byte(passing)}); err == nil || !strings.Contains(err.Error(), "no-python") {
		t.Fatalf("err = %v", err)
	}
}

func TestCancelledContextIsAnError(t *testing.T) {
	python := testenv.Python(t)
	ctx, cancel := context.WithCancel(context.Background())
	r := &Runner{Python: python, WorkDir: t.TempDir()}
	go func() { time.Sleep(500 * time.Millisecond); cancel() }()
	out, err := r.RunTest(ctx, TestSpec{CaseID: "s:c", Option: "A", Source: []byte(hangs)})
	if err == nil || out.Evidence {
		t.Fatalf("err = %v, outcome %+v", err, out)
	}
}

func TestWrapperTakesTheNetworkAway(t *testing.T) {
	python := testenv.Python(t)
	if err := exec.Command("unshare", "--net", "--", "true").Run(); err != nil {
		t.Skipf("unshare --net is not permitted here: %v", err)
	}
	src := "def test_option():\n    lines = open('/proc/net/dev').read().splitlines()[2:]\n    names = sorted(l.split(':')[0].strip() for l in lines)\n    assert names == ['lo'], names\n"
	// Without the wrapper the test sees this machine's interfaces, which
	// include more than loopback on every runner but an isolated one.
	hostStatus := StatusFailed
	if dev, err := os.ReadFile("/proc/net/dev"); err == nil && len(strings.Split(strings.TrimSpace(string(dev)), "\n")) == 3 {
		hostStatus = StatusPassed
	}
	_ = hostStatus // every local run now has a network namespace of its own
	tests := []struct {
		name    string
		wrapper []string
		status  Status
	}{
		{"unwrapped sees loopback only", nil, StatusPassed},
		{"unshare --net leaves loopback only", []string{"unshare", "--net", "--"}, StatusPassed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Runner{Python: python, Wrapper: tt.wrapper, WorkDir: t.TempDir()}
			out, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "A", Source: []byte(src)})
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != tt.status {
				t.Fatalf("status %s: %s\n%s", out.Status, out.Message, out.Output)
			}
		})
	}
}

func TestLongOutputIsTruncated(t *testing.T) {
	python := testenv.Python(t)
	src := "def test_option():\n    print('x' * 300000)\n    assert False, 'THE END'\n"
	r := &Runner{Python: python, WorkDir: t.TempDir(), OutputLimit: 4096}
	out, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "A", Source: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != StatusFailed {
		t.Fatalf("status %s", out.Status)
	}
	if len(out.Output) > 4096+100 || !strings.Contains(out.Output, "omitted") || !strings.Contains(out.Output, "THE END") {
		t.Errorf("output of %d bytes, tail kept=%v", len(out.Output), strings.Contains(out.Output, "THE END"))
	}
}

func TestRealParentTokenIsNotVisible(t *testing.T) {
	python := testenv.Python(t)
	t.Setenv("GITHUB_TOKEN", "ghs_from_the_parent")
	t.Setenv("OPENAI_API_KEY", "sk-from-the-parent")
	src := "import os\n\ndef test_option():\n    leaked = [k for k, v in os.environ.items() if 'from-the-parent' in v or 'from_the_parent' in v]\n    assert not leaked, leaked\n"
	r := &Runner{Python: python, WorkDir: t.TempDir()}
	out, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "A", Source: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != StatusPassed {
		t.Fatalf("status %s: %s\n%s", out.Status, out.Message, out.Output)
	}
}

// TestLocalSandboxCannotReachTokensOrNetwork is the attacker's test: a
// model-written test that reads the environment of the process that
// started it (where the job's tokens are) and connects to a server on
// this machine. Both must fail, for a sandbox Python run as root too.
func TestLocalSandboxCannotReachTokensOrNetwork(t *testing.T) {
	python := testenv.Python(t)
	if err := proc.HideEnvironment(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("reached"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	src := fmt.Sprintf(`import socket

def test_cannot_read_parent_environment():
    try:
        data = open("/proc/%d/environ", "rb").read()
    except (PermissionError, FileNotFoundError):
        # Not readable, or (in a PID namespace of its own) not there.
        return
    raise AssertionError("read %%d bytes of benchgate's environment" %% len(data))

def test_cannot_connect():
    s = socket.socket()
    s.settimeout(3)
    try:
        s.connect(("127.0.0.1", %d))
    except OSError:
        return
    raise AssertionError("connected to a server on this machine")
`, os.Getpid(), port)
	r := &Runner{Python: python, WorkDir: t.TempDir()}
	out, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "A", Source: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != StatusPassed {
		t.Fatalf("status %s: %s\n%s", out.Status, out.Message, out.Output)
	}
}

// TestLinkedJUnitReportIsNotRead: a test that replaces its own JUnit
// report with a link to a host file gets no report read through it.
func TestLinkedJUnitReportIsNotRead(t *testing.T) {
	python := testenv.Python(t)
	secret := filepath.Join(t.TempDir(), "secret.xml")
	if err := os.WriteFile(secret, []byte(`<testsuites><testsuite name="x" tests="1" failures="0" errors="0" skipped="0"><testcase classname="t" name="test_option"/></testsuite></testsuites>`), 0o644); err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`import atexit, os

def relink():
    os.remove("junit.xml") if os.path.exists("junit.xml") else None
    os.symlink(%q, "junit.xml")

def test_option():
    atexit.register(relink)
    assert False, "this option is false"
`, secret)
	r := &Runner{Python: python, WorkDir: t.TempDir()}
	out, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "A", Source: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status == StatusPassed {
		t.Fatalf("the linked report was read: status %s", out.Status)
	}
	if !strings.Contains(out.Output, "not kept: junit.xml (Too many levels of symbolic links)") {
		t.Errorf("output does not say the link was refused:\n%s", out.Output)
	}
}

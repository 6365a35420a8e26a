package cli

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/qaaudit/qreport"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// secretToken is the secret of the attack tests: in a 0600 file of the
// user running benchgate, and in the credential files of the checkout.
const secretToken = "ghp_sandboxAttackSecret0123456789"

// ordinaryUID is the user the binary runs as for "an ordinary user"
// (setpriv, no passwd entry needed), as a GitHub-hosted runner runs it.
const ordinaryUID = 4321

// attackBank lays out a benchmark repository under root, with the
// credential files a runner leaves at its root (each holding
// secretToken), whose one
// fix_error case folder holds modules named like those the sandbox's
// bootstrap imports (json.py, ctypes.py, platform.py), and whose root holds
// a sitecustomize.py (the root is on PYTHONPATH for the case's checks).
// Each of them, wherever it runs, reads secret and writes what it got to
// markers/<name> and beside the checkout: on this machine that file must
// never appear. Each then hands over to the real module, so that pytest
// still works where the module runs inside the sandbox. The case's test
// asserts that sitecustomize ran (inside the sandbox) and could not read
// the secret, so the case is Valid only when the sandbox held.
func attackBank(t *testing.T, root, secret, markers string) {
	t.Helper()
	attack := fmt.Sprintf(`import os as _os
import sys as _sys

try:
    SEEN = open(%q).read()
except OSError as _e:
    SEEN = "unreadable: %%s" %% _e
for _p in (_os.path.join(%q, __name__), _os.path.join(%q, "escaped-" + __name__)):
    try:
        with open(_p, "w") as _f:
            _f.write(SEEN)
    except OSError:
        pass
if __name__ != "sitecustomize":
    # Hand over to the real module of the standard library.
    _me = _sys.modules.pop(__name__)
    _saved = list(_sys.path)
    _here = _os.path.dirname(_os.path.abspath(__file__))
    _sys.path[:] = [p for p in _sys.path if p not in ("", ".") and _os.path.abspath(p) != _here]
    try:
        import importlib as _il
        _real = _il.import_module(__name__)
    finally:
        _sys.path[:] = _saved
    _sys.modules[__name__] = _real
    globals().update({k: v for k, v in vars(_real).items() if k not in ("__name__", "__file__", "__spec__", "__loader__")})
`, secret, markers, root)
	caseDir := filepath.Join(root, "benchmarks", "benchmark_definitions", "fix_errors", "cases", "01_shadow")
	files := map[string]string{
		"sitecustomize.py": attack,
		"benchmarks/benchmark_definitions/fix_errors/benchmark.yaml": `benchmarks:
  - id: attack:01_shadow
    name: '01_shadow'
    benchmark_type: fix_error
    test_file: benchmarks/benchmark_definitions/fix_errors/cases/01_shadow/test_agent.py
    unfixed_file: benchmarks/benchmark_definitions/fix_errors/cases/01_shadow/unfixed.py
    fixed_file: benchmarks/benchmark_definitions/fix_errors/cases/01_shadow/fixed.py
    description: Return the answer.
`,
		"benchmarks/benchmark_definitions/fix_errors/cases/01_shadow/test_agent.py": fmt.Sprintf(`import os


def test_answer():
    import fixed
    assert fixed.answer() == 42
    import sitecustomize
    assert sitecustomize.SEEN.startswith("unreadable"), sitecustomize.SEEN
    # What a runner and a cloud-auth action leave in the checkout, on
    # PYTHONPATH: quoted in the failure if it can be read.
    for name in ("gha-creds-0a1b2c.json", ".netrc", ".npmrc", ".pypirc", ".git/config", ".docker/config.json"):
        try:
            data = open(os.path.join(%q, name)).read()
        except OSError:
            data = ""
        assert "ghp_" not in data, data
`, root),
		"benchmarks/benchmark_definitions/fix_errors/cases/01_shadow/fixed.py":   "def answer():\n    return 42\n",
		"benchmarks/benchmark_definitions/fix_errors/cases/01_shadow/unfixed.py": "def answer():\n    return 41\n",
	}
	for _, name := range []string{"gha-creds-0a1b2c.json", ".netrc", ".npmrc", ".pypirc", ".git/config", ".docker/config.json"} {
		files[name] = "credentials " + secretToken + "\n"
	}
	for _, name := range []string{"json.py", "ctypes.py", "platform.py"} {
		files[filepath.ToSlash(filepath.Join(strings.TrimPrefix(caseDir, root+"/"), name))] = attack
	}
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sharedTempDir is a folder every user may enter (t.TempDir is root's
// alone), removed after the test.
func sharedTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "qa-sandbox-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// sharedBinary copies bin into dir, where every user may run it (the
// tests' build cache may be root's alone).
func sharedBinary(t *testing.T, dir, bin string) string {
	t.Helper()
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "benchgate")
	if err := os.WriteFile(p, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// chownTree gives everything under dir to uid.
func chownTree(t *testing.T, dir string, uid int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runAs runs the binary in dir as root, or as ordinaryUID through setpriv.
func runAs(t *testing.T, asRoot bool, dir string, env []string, bin string, args ...string) (int, string) {
	t.Helper()
	argv := append([]string{bin}, args...)
	if !asRoot {
		argv = append([]string{"setpriv", fmt.Sprintf("--reuid=%d", ordinaryUID), fmt.Sprintf("--regid=%d", ordinaryUID), "--clear-groups", "--"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// userEnv is the environment of a run: no model keys, and a HOME of the
// run's own.
func userEnv(home string) []string {
	env := []string{"HOME=" + home}
	for _, kv := range noModelEnv() {
		if !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return env
}

// TestQAAuditCaseFilesRunOnlyInsideTheSandbox runs the binary, as root and
// as an ordinary user, on a case whose folder holds json.py, ctypes.py and
// platform.py and whose repository root holds sitecustomize.py: none of
// them may run before the sandbox is complete. Each writes a marker on
// this machine wherever it can: none may appear, the secret (a 0600 file
// of the user running benchgate) must appear in no file of the audit, and
// the case is Valid, which its test makes true only where sitecustomize
// ran inside the sandbox and could not read the secret.
func TestQAAuditCaseFilesRunOnlyInsideTheSandbox(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run the binary as root and as an ordinary user")
	}
	py := testenv.Python(t)
	for _, asRoot := range []bool{true, false} {
		name := map[bool]string{true: "as root", false: "as an ordinary user"}[asRoot]
		t.Run(name, func(t *testing.T) {
			base := sharedTempDir(t)
			bin := sharedBinary(t, base, testenv.Benchgate(t))
			root, markers, home := filepath.Join(base, "bank"), filepath.Join(base, "markers"), filepath.Join(base, "home")
			const token = secretToken
			for _, d := range []string{markers, home} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			secret := filepath.Join(home, "token")
			if err := os.WriteFile(secret, []byte(token), 0o600); err != nil {
				t.Fatal(err)
			}
			attackBank(t, root, secret, markers)
			if !asRoot {
				chownTree(t, base, ordinaryUID)
			}
			code, log := runAs(t, asRoot, root, userEnv(home), bin, "qa-audit", "--python", py, "--test-timeout", "60s",
				filepath.Join("benchmarks", "benchmark_definitions"))
			entries, _ := os.ReadDir(markers)
			for _, e := range entries {
				data, _ := os.ReadFile(filepath.Join(markers, e.Name()))
				t.Errorf("%s ran outside the sandbox and wrote %s: %q", e.Name(), filepath.Join(markers, e.Name()), data)
			}
			escaped, _ := filepath.Glob(filepath.Join(root, "escaped-*"))
			for _, p := range escaped {
				t.Errorf("a case file wrote into the checkout from outside the sandbox: %s", p)
			}
			if code != ExitOK {
				t.Fatalf("exit %d, want 0 (the case Valid):\n%s", code, log)
			}
			rep, err := qreport.Read(filepath.Join(root, "qa-audit", "quality_report.json"))
			if err != nil {
				t.Fatal(err)
			}
			if c := rep.Cases[0]; c.Verdict != "Valid" {
				t.Errorf("verdict %s (%s)", c.Verdict, c.Reason)
			}
			// The report states how the tests ran.
			md, _ := os.ReadFile(filepath.Join(root, "qa-audit", "quality_report.md"))
			for _, want := range []string{"Sandbox: namespaces (user, mount, network, PID): address space 2 GiB per process", "256 processes and threads", "the test's folder 512 MiB in total, /tmp and /dev/shm 64 MiB each"} {
				if !strings.Contains(rep.Sandbox, strings.TrimPrefix(want, "Sandbox: ")) || !strings.Contains(string(md), want) {
					t.Errorf("the report does not state %q: %q", want, rep.Sandbox)
				}
			}
			// Root may make a cgroup here; an ordinary user may not.
			if cg := strings.Contains(rep.Sandbox, "in a cgroup of its own"); cg != asRoot {
				t.Errorf("as root %v, the report says %q", asRoot, rep.Sandbox)
			}
			_ = filepath.WalkDir(filepath.Join(root, "qa-audit"), func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					if b, _ := os.ReadFile(p); strings.Contains(string(b), token) {
						t.Errorf("%s holds the secret", p)
					}
				}
				return nil
			})
		})
	}
}

// TestQAAuditRefusesToRunTestsWithoutItsSandbox runs the binary as an
// ordinary user on a kernel that refuses it user namespaces (a user
// namespace whose max_user_namespaces is 0, as a distribution's policy
// refuses them): no test may run, the exit is 2 before the first case,
// and the message names the two ways on (--image, --sandbox none). With
// --sandbox none, chosen, the tests run and the run says they are not
// isolated.
func TestQAAuditRefusesToRunTestsWithoutItsSandbox(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run the binary as an ordinary user")
	}
	py := testenv.Python(t)
	base := sharedTempDir(t)
	bin := sharedBinary(t, base, testenv.Benchgate(t))
	root, markers, home := filepath.Join(base, "bank"), filepath.Join(base, "markers"), filepath.Join(base, "home")
	for _, d := range []string{markers, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const token = "ghp_sandboxRefusedSecret0123456789"
	secret := filepath.Join(home, "token")
	if err := os.WriteFile(secret, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	attackBank(t, root, secret, markers)
	chownTree(t, base, ordinaryUID)
	// unshare maps the ordinary user to root of a namespace of its own,
	// where no further user namespace may be made.
	noUserns := []string{"unshare", "--user", "--map-root-user", "--", "sh", "-c", `echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"`, "sh", bin}
	defs := filepath.Join("benchmarks", "benchmark_definitions")
	code, log := runAs(t, false, root, userEnv(home), noUserns[0], append(noUserns[1:], "qa-audit", "--python", py, defs)...)
	if code != ExitUsage {
		t.Fatalf("exit %d, want 2 (no sandbox, no test):\n%s", code, log)
	}
	for _, want := range []string{"--sandbox", "the kernel refused the local sandbox", "--image", "--sandbox none", "unshare"} {
		if !strings.Contains(log, want) {
			t.Errorf("the message does not say %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "attack:01_shadow") {
		t.Errorf("a case was audited:\n%s", log)
	}
	if tests, _ := filepath.Glob(filepath.Join(root, "qa-audit", "work", "*", "*", "test_*.py")); len(tests) > 0 {
		t.Errorf("test files were run: %v", tests)
	}
	if entries, _ := os.ReadDir(markers); len(entries) > 0 {
		t.Errorf("case files ran: %v", entries)
	}

	// Chosen: the tests run unisolated, and the secret is theirs to read
	// (the case's own test then fails on the fixed code: Incorrect). The
	// secret is also the job's token: the report quotes the failure, and
	// no file of the audit shows the token.
	code, log = runAs(t, false, root, append(userEnv(home), "GITHUB_TOKEN="+token), noUserns[0], append(noUserns[1:], "qa-audit", "--python", py, "--sandbox", "none", defs)...)
	if code != ExitFailed || !strings.Contains(log, "run without a sandbox (chosen)") || !strings.Contains(log, "Incorrect") {
		t.Fatalf("exit %d, want 1 with the warning and the case Incorrect:\n%s", code, log)
	}
	md, err := os.ReadFile(filepath.Join(root, "qa-audit", "quality_report.md"))
	if err != nil || !strings.Contains(string(md), "AssertionError: ***") {
		t.Errorf("the report does not quote the failure with the token masked (%v):\n%s", err, md)
	}
	_ = filepath.WalkDir(filepath.Join(root, "qa-audit"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), token) {
				t.Errorf("%s holds the token", p)
			}
		}
		return nil
	})
}

// TestQAAuditLimitHitsComeFromTheSandboxOnly runs the binary on fix_error
// cases whose fixed code is wrong and whose test prints the sandbox's old
// limit marker and "MemoryError", raises MemoryError itself, or writes a
// limit into the sandbox's channel wherever it might reach it, using
// little memory: the sandbox saw no limit, so each case is Incorrect (the
// fix does not fix), not Inconclusive.
func TestQAAuditLimitHitsComeFromTheSandboxOnly(t *testing.T) {
	py := testenv.Python(t)
	bin := testenv.Benchgate(t)
	root := t.TempDir()
	cases := map[string]string{
		"01_prints_the_marker": `import sys


def test_answer():
    import fixed
    print("benchgate-sandbox: limit: memory")
    sys.stderr.write("benchgate-sandbox: limit: memory\nMemoryError\n")
    assert fixed.answer() == 42, "MemoryError"
`,
		"02_raises_memory_error": `def test_answer():
    import fixed
    if fixed.answer() != 42:
        raise MemoryError("benchgate-sandbox: limit: memory")
`,
		// The sandbox's channel itself: descriptor 3 of the bootstrap,
		// through the test's own descriptor table and through /proc.
		"03_writes_the_channel": `import os


def test_answer():
    for target in ("/proc/1/fd/3", "/proc/self/fd/3", "/proc/%d/fd/3" % os.getppid()):
        try:
            with open(target, "w") as f:
                f.write("limit memory\n")
        except OSError:
            pass
    try:
        os.write(3, b"limit memory\n")
    except OSError:
        pass
    import fixed
    assert fixed.answer() == 42, "MemoryError"
`,
	}
	// The fixed code is wrong too: the fix does not fix.
	writeBank(t, root, "fake", cases, "def answer():\n    return 41\n", "def answer():\n    return 40\n")
	code, log, _ := runBinary(t, root, noModelEnv(), bin, "qa-audit", "--python", py, "--test-memory", "512MiB", filepath.Join("benchmarks", "benchmark_definitions"))
	if code != ExitFailed {
		t.Fatalf("exit %d, want 1:\n%s", code, log)
	}
	rep, err := qreport.Read(filepath.Join(root, "qa-audit", "quality_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != len(cases) {
		t.Fatalf("%d cases, want %d:\n%s", len(rep.Cases), len(cases), log)
	}
	for _, c := range rep.Cases {
		if c.Verdict != "Incorrect" || strings.Contains(c.Reason, "stopped by") {
			t.Errorf("%s: %s (%s), want Incorrect without a limit", c.ID, c.Verdict, c.Reason)
		}
	}
}

// writeBank writes a fix_error question file for cases (name: test
// source), each with the same fixed.py and unfixed.py, under root.
func writeBank(t *testing.T, root, prefix string, cases map[string]string, fixed, unfixed string) {
	t.Helper()
	var yaml strings.Builder
	yaml.WriteString("benchmarks:\n")
	for name, test := range cases {
		dir := filepath.ToSlash(filepath.Join("benchmarks", "benchmark_definitions", "fix_errors", "cases", name))
		fmt.Fprintf(&yaml, "  - id: %s:%s\n    name: '%s'\n    benchmark_type: fix_error\n    test_file: %s/test_agent.py\n    unfixed_file: %s/unfixed.py\n    fixed_file: %s/fixed.py\n    description: Return the answer.\n",
			prefix, name, name, dir, dir, dir)
		for file, data := range map[string]string{"test_agent.py": test, "fixed.py": fixed, "unfixed.py": unfixed} {
			p := filepath.Join(root, filepath.FromSlash(dir), file)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := filepath.Join(root, "benchmarks", "benchmark_definitions", "fix_errors", "benchmark.yaml")
	if err := os.WriteFile(p, []byte(yaml.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestQAAuditKeptFolderHoldsNoLink runs the binary on a case whose test
// leaves links to host files (the shadow file, a checkout's .git/config,
// its own environment), in its folder and below it, and a FIFO, and on
// one whose test writes 768 MiB in files below the file size limit: the
// kept qa-audit/ folder, which a workflow uploads (and an upload follows
// links), holds no link, no special file and none of those writes
// afterwards, and both cases are still Valid.
func TestQAAuditKeptFolderHoldsNoLink(t *testing.T) {
	py := testenv.Python(t)
	bin := testenv.Benchgate(t)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeBank(t, root, "links", map[string]string{"01_links": fmt.Sprintf(`import os


def test_answer():
    os.makedirs("deep/er", exist_ok=True)
    for name, target in (("shadow", "/etc/shadow"), ("gitconfig", %q), ("environ", "/proc/self/environ"),
                         ("deep/er/root", "/"), ("deep/loop", "deep")):
        os.symlink(target, name)
    os.mkfifo("deep/pipe")
    import fixed
    assert fixed.answer() == 42
`, filepath.Join(root, ".git", "config")),
		// Files each below the file size limit, 768 MiB together.
		"02_fills_the_disk": `import errno, os


def test_answer():
    for i in range(3):
        try:
            with open("fill%d.bin" % i, "wb") as f:
                for _ in range(256):
                    f.write(b"x" * (1 << 20))
        except OSError as e:
            assert e.errno in (errno.ENOSPC, errno.EFBIG), e
            os.remove("fill%d.bin" % i)
    import fixed
    assert fixed.answer() == 42
`}, "def answer():\n    return 42\n", "def answer():\n    return 41\n")
	code, log, _ := runBinary(t, root, noModelEnv(), bin, "qa-audit", "--python", py, filepath.Join("benchmarks", "benchmark_definitions"))
	if code != ExitOK {
		t.Fatalf("exit %d, want 0 (the case Valid):\n%s", code, log)
	}
	seen, total := 0, int64(0)
	err := filepath.WalkDir(filepath.Join(root, "qa-audit"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == "test_agent.py" {
			seen++
		}
		if info, err := d.Info(); err == nil && d.Type().IsRegular() {
			total += info.Size()
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			t.Errorf("the kept folder holds %s (%s)", p, d.Type())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("the kept folder holds no test: nothing was checked")
	}
	if total > 16<<20 {
		t.Errorf("the kept folder holds %d MiB: a test's writes reached this machine's disk", total>>20)
	}
}

package sandbox

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// fakePytest stands in for `python3 -m pytest` inside the test image (no
// registry is reachable, so the image is busybox). It prints its
// environment and network interfaces, then behaves as the test file asks:
// HANG sleeps, FAIL writes a JUnit failure and exits 1, NOREPORT exits 3
// without a report, anything else passes.
const fakePytest = `#!/bin/sh
for a in "$@"; do
  case "$a" in
    --junitxml=*) report="${a#--junitxml=}" ;;
    test_option_*.py) test="$a" ;;
  esac
done
env | sort
echo "interfaces: $(ls /sys/class/net | tr '\n' ' ')"
echo "limits: cpu=$(ulimit -t) cgroup=$(cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null)"
echo "argv: $*"
grep -E '^(CapEff|NoNewPrivs):' /proc/self/status
if grep -q HANG "$test"; then sleep 600; fi
if grep -q NOREPORT "$test"; then echo internal error; exit 3; fi
if grep -q FAIL "$test"; then
  echo '<testsuites><testsuite name="pytest" tests="1" failures="1"><testcase classname="t" name="test_option"><failure message="AssertionError: the claim is false">trace</failure></testcase></testsuite></testsuites>' > "$report"
  exit 1
fi
echo '<testsuites><testsuite name="pytest" tests="1"><testcase classname="t" name="test_option"/></testsuite></testsuites>' > "$report"
exit 0
`

func sandboxImage(t *testing.T) (string, *container.Client) {
	t.Helper()
	host := testenv.DockerHost(t)
	dc, err := container.New(host)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := os.ReadFile(testenv.Busybox(t))
	if err != nil {
		t.Fatal(err)
	}
	var base bytes.Buffer
	files := []container.File{
		{Path: "/bin/busybox", Mode: 0o755, Data: bb},
		{Path: "/usr/bin/python3", Mode: 0o755, Data: []byte(fakePytest)},
		{Path: "/tmp/.keep", Mode: 0o644},
	}
	if err := container.WriteTar(&base, files); err != nil {
		t.Fatal(err)
	}
	var rootfs bytes.Buffer
	if err := swebenchtest.WriteTarWithLinks(&rootfs, base.Bytes(), []string{"sh", "sleep", "grep", "env", "sort", "ls", "tr", "echo", "cat"}); err != nil {
		t.Fatal(err)
	}
	ref := "benchgate-qa-sandbox-test:" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	if err := dc.ImageImport(context.Background(), &rootfs, ref, "ENV PATH=/usr/local/bin:/usr/bin:/bin"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.ImageRemove(context.Background(), ref) })
	return ref, dc
}

func TestContainerSandbox(t *testing.T) {
	image, dc := sandboxImage(t)
	r := &Runner{Image: image, DockerHost: testenv.DockerHost(t), Timeout: 3 * time.Second, WorkDir: t.TempDir(), Keep: true,
		Limits:   Limits{MemoryBytes: 256 << 20, CPUSeconds: 7},
		AllowEnv: []string{"ADK_FLAVOUR"},
		Getenv: func(k string) string {
			return map[string]string{"PATH": "/host/only", "GITHUB_TOKEN": "ghs_secret", "ADK_FLAVOUR": "allowed"}[k]
		}}
	tests := []struct {
		name     string
		src      string
		status   Status
		evidence bool
		message  string
	}{
		{"pass", "def test_option():\n    pass\n", StatusPassed, true, ""},
		{"fail", "# FAIL\n", StatusFailed, true, "the claim is false"},
		{"hang", "# HANG\n", StatusTimeout, false, "timeout"},
		{"no report", "# NOREPORT\n", StatusError, false, "internal error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "A", Source: []byte(tt.src),
				SupportFiles: map[string][]byte{"pkg/snippet.py": []byte("X = 1\n")}})
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != tt.status || out.Evidence != tt.evidence || !strings.Contains(out.Message, tt.message) {
				t.Fatalf("outcome %s evidence=%v %q\n%s", out.Status, out.Evidence, out.Message, out.Output)
			}
			if tt.status == StatusTimeout {
				return
			}
			for _, want := range []string{"interfaces: lo \n", "HOME=/sandbox/.home", "ADK_FLAVOUR=allowed", "limits: cpu=7 cgroup=536870912\n", `"memory":268435456`, "PYTHONDONTWRITEBYTECODE=1", "PATH=/usr/local/sbin:",
				"CapEff:\t0000000000000000\n", "NoNewPrivs:\t1\n"} {
				if !strings.Contains(out.Output, want) {
					t.Errorf("output lacks %q:\n%s", want, out.Output)
				}
			}
			for _, leak := range []string{"ghs_secret", "/host/only"} {
				if strings.Contains(out.Output, leak) {
					t.Errorf("%q reached the container:\n%s", leak, out.Output)
				}
			}
			if tt.status == StatusPassed {
				if _, err := os.Stat(out.JUnitPath); err != nil {
					t.Errorf("JUnit report not copied out: %v", err)
				}
			}
		})
	}
	swebenchtest.NoLeaks(t, dc, "benchgate.qa-audit=sandbox")
}

func TestContainerSandboxMissingImageIsAnError(t *testing.T) {
	r := &Runner{Image: "benchgate-no-such-image:never", DockerHost: testenv.DockerHost(t), WorkDir: t.TempDir()}
	_, err := r.RunTest(context.Background(), TestSpec{CaseID: "s:c", Option: "A", Source: []byte("x")})
	if err == nil || !strings.Contains(err.Error(), "benchgate-no-such-image") {
		t.Fatalf("err = %v", err)
	}
}

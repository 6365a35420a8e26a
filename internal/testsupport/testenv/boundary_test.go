package testenv

import (
	"os/exec"
	"strings"
	"testing"
)

// The binary never links test support: a fake or a harness that leaked into
// cmd/benchgate would ship in every release and in the image.
func TestBinaryImportsNoTestSupport(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./cmd/benchgate", "./cmd/benchsim")
	cmd.Dir = RepoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps named only %d packages: %q", len(deps), deps)
	}
	for _, p := range deps {
		if strings.Contains(p, "/internal/testsupport/") {
			t.Errorf("the binaries depend on the test-support package %s", p)
		}
	}
}

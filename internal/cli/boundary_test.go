package cli

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCLIDoesNotDependOnTheAction: the command line is the core the
// GitHub Action adapter drives; the adapter depends on it (it runs modes
// through cli.ActionStep and reads cli.Result), never the other way, so a
// change of the adapter cannot change what a command does.
func TestCLIDoesNotDependOnTheAction(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps named only %d packages: %q", len(deps), deps)
	}
	for _, p := range deps {
		if strings.HasSuffix(p, "/internal/action") || strings.Contains(p, "/internal/action/") {
			t.Errorf("the command line depends on the Action adapter's package %s", p)
		}
	}
}

package pipeline_test

import (
	"context"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/qaaudit/pipeline"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestSandboxProverMissingLibraryIsNotEvidence: a test that imports a
// package the sandbox's Python does not have proves nothing about the
// option, wherever the import is; a name the installed library lacks is
// evidence that the option is false.
func TestSandboxProverMissingLibraryIsNotEvidence(t *testing.T) {
	p := pipeline.SandboxProver{Runner: sandbox.Runner{Python: testenv.Python(t), Timeout: 15 * time.Second}}
	tests := []struct {
		name             string
		source           string
		evidence, passed bool
	}{
		{"package not installed, imported in the body", "def test_option():\n    import benchgate_not_installed_pkg\n    assert benchgate_not_installed_pkg.X == 1\n", false, false},
		{"package not installed, imported at the top", "import benchgate_not_installed_pkg\n\n\ndef test_option():\n    assert True\n", false, false},
		{"name missing from an installed module", "def test_option():\n    from json import NoSuchDecoder\n", true, false},
		{"submodule missing from an installed package", "def test_option():\n    import json.nosuch\n", true, false},
		{"option true", "import json\n\n\ndef test_option():\n    assert json.dumps([1]) == '[1]'\n", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := p.Prove(context.Background(), t.TempDir(), "A", tt.source)
			if err != nil {
				t.Fatal(err)
			}
			if res.Evidence != tt.evidence || res.Passed != tt.passed {
				t.Errorf("outcome %s evidence=%v passed=%v (%s); want evidence=%v passed=%v", res.Outcome, res.Evidence, res.Passed, res.Message, tt.evidence, tt.passed)
			}
		})
	}
}

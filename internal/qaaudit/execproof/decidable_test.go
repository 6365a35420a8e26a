package execproof

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestFixErrorOutcomesDecidedBeyondOneRun runs real pytest on the cases a
// single run leaves open but the two runs together decide: code that does
// not compile, and a hang on one side only. Each row also says which
// neighbouring outcome must stay undecided, so that the rules cannot
// decide by accident.
func TestFixErrorOutcomesDecidedBeyondOneRun(t *testing.T) {
	py := testenv.Python(t)
	const (
		good      = "def add(a, b):\n    return a + b\n"
		wrong     = "def add(a, b):\n    return 0\n"
		broken    = "def add(a, b)\n    return a + b\n"
		hangs     = "import time\n\n\ndef add(a, b):\n    while True:\n        time.sleep(1)\n"
		raises    = "raise RuntimeError('unfixed code breaks at import')\n"
		inFunc    = "def test_add():\n    import fixed\n    assert fixed.add(1, 2) == 3\n"
		topImport = "import fixed\n\n\ndef test_add():\n    assert fixed.add(1, 2) == 3\n"
	)
	tests := []struct {
		name, test, unfixed, fixed string
		want                       verdict.Verdict
		unTruth, fxTruth           verdict.Truth
		unMsg, fxMsg, reason       string
		probed                     bool // the compile probe ran (counted in runs)
		hang                       bool // a run is meant to hang: a short timeout
	}{
		{"fixed does not compile, imported at module level", topImport, wrong, broken, verdict.Incorrect, verdict.True, verdict.False,
			"", "the fixed code does not compile in this Python: SyntaxError", "the test passes against the fixed code (fixed): proven false: the fixed code does not compile", true, false},
		{"fixed does not compile, imported in the test", inFunc, wrong, broken, verdict.Incorrect, verdict.True, verdict.False,
			"", "fixed.py, line 1", "does not compile", true, false},
		{"unfixed does not compile, imported at module level", topImport, broken, good, verdict.Valid, verdict.True, verdict.True,
			"the test fails against the unfixed code: the unfixed code does not compile in this Python: SyntaxError", "", "checked: the test fails against the unfixed code; the test passes against the fixed code", true, false},
		{"unfixed fails at import for another reason", topImport, raises, good, verdict.Valid, verdict.True, verdict.True,
			"RuntimeError: unfixed code breaks at import", "", "checked: ", true, false},
		{"unfixed hangs, fixed passes", inFunc, hangs, good, verdict.Valid, verdict.True, verdict.True,
			"the test hung against the unfixed code", "", "checked: ", false, true},
		{"unfixed hangs, fixed fails", inFunc, hangs, wrong, verdict.Incorrect, verdict.Unknown, verdict.False,
			"killed after the timeout", "", "the test passes against the fixed code (fixed): proven false", true, true},
		{"both hang", inFunc, hangs, hangs, verdict.Inconclusive, verdict.Unknown, verdict.Unknown,
			"killed after the timeout", "killed after the timeout", "not proven", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, map[string]string{"cases/01/test_agent.py": tt.test, "cases/01/unfixed.py": tt.unfixed, "cases/01/fixed.py": tt.fixed})
			src := "benchmarks:\n- id: c\n  benchmark_type: fix_error\n  test_file: cases/01/test_agent.py\n  unfixed_file: cases/01/unfixed.py\n  fixed_file: cases/01/fixed.py\n"
			f, err := questions.Parse("q.yaml", []byte(src), questions.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// A run that must end gets a timeout no load reaches; a hang
			// costs its timeout, long enough for the other run to pass.
			timeout := 2 * time.Minute
			if tt.hang {
				timeout = 10 * time.Second
			}
			a := &Auditor{Runner: sandbox.Runner{Python: py, Timeout: timeout}, WorkDir: t.TempDir(), RepoRoot: root}
			r := a.AuditCase(context.Background(), f.Cases()[0])
			at := r.Attempts[0]
			if r.Verdict != tt.want || at.Decision == nil || !strings.Contains(at.Decision.Reason, tt.reason) {
				t.Fatalf("verdict %s, want %s with reason containing %q: %+v", r.Verdict, tt.want, tt.reason, at)
			}
			un, fx := at.Options[0], at.Options[1]
			if un.Truth != tt.unTruth || !strings.Contains(un.Message, tt.unMsg) || un.Evidence != (tt.unTruth != verdict.Unknown) {
				t.Errorf("unfixed check: truth %s message %q; want %s containing %q", un.Truth, un.Message, tt.unTruth, tt.unMsg)
			}
			if fx.Truth != tt.fxTruth || !strings.Contains(fx.Message, tt.fxMsg) || fx.Evidence != (tt.fxTruth != verdict.Unknown) {
				t.Errorf("fixed check: truth %s message %q; want %s containing %q", fx.Truth, fx.Message, tt.fxTruth, tt.fxMsg)
			}
			if runs := un.Runs + fx.Runs; runs != 2+map[bool]int{true: 1}[tt.probed] {
				t.Errorf("%d pytest runs counted, want 2 and %v for the compile probe", runs, tt.probed)
			}
		})
	}
}

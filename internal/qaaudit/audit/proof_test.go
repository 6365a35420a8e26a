package audit_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/qaaudit/audit"
	"github.com/benchgate/benchgate/internal/qaaudit/pipeline"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
)

// TestProofRendersOnGitHub: the evidence of a fix, in a pull request's
// body, shows model text with tags, pipes and backticks as written and
// a test file that holds a fence inside its own code block.
func TestProofRendersOnGitHub(t *testing.T) {
	test := filepath.Join(t.TempDir(), "test_option_B.py")
	if err := os.WriteFile(test, []byte("def test_b():\n    \"\"\"```\n    not the end\n    ```\"\"\"\n    assert '<null>' | 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	q, expl := "Which value is `falsy` | <none>?", "`0` is falsy; <b>so</b> is ''"
	opts := []pipeline.OptionResult{{Option: "A", Text: "`[]` | <list>", Outcome: "failed", Truth: verdict.Truth("false")}, {Option: "B", Text: "0", Outcome: "passed", Truth: verdict.Truth("true"), TestPath: test}}
	r := pipeline.CaseResult{ID: "c1", Attempts: []pipeline.Attempt{
		{Number: 1, Options: opts, Decision: &verdict.Decision{Reason: "B <proven> | true"}, Verdict: "Incorrect"},
		{Number: 2, Options: opts, Decision: &verdict.Decision{Reason: "matches"}, Verdict: "Valid", Rationale: "the key said `A` <wrong>"},
	}, Fix: &questions.Fix{Question: &q, Options: map[string]string{"A": "<x> | y"}, Explanation: &expl}}
	md := audit.Proof(r)
	gfm.Require(t, "proof", md)
	h := gfm.HTML(t, md)
	for _, want := range []string{"B &lt;proven&gt; | true", "Which value is `falsy` | &lt;none&gt;?", "&quot;&quot;&quot;```\n    not the end\n    ```&quot;&quot;&quot;", "assert '&lt;null&gt;' | 1"} {
		if !strings.Contains(h, want) {
			t.Errorf("GitHub would not show %q:\n%s", want, h)
		}
	}
}

package ghpr

import (
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/gfm"
)

// TestBodyRendersOnGitHub renders pull request bodies with GitHub's
// engine: paths and case IDs with backticks and tags, a proof with a
// table, a details block and a test file holding a fence; and a body cut
// at the limit inside such a block, which must still close it.
func TestBodyRendersOnGitHub(t *testing.T) {
	proof := "As written: **Incorrect**, B is proven true.\n\n| option | text | outcome | truth |\n|---|---|---|---|\n| A | `x` \\| y | passed | true |\n\n" +
		"<details><summary>test_option_A.py (passed)</summary>\n\n````python\ndef test():\n    \"\"\"```not a fence```\"\"\"\n````\n</details>\n"
	changes := []Change{{Path: "bench/q`1`<x>.yaml", Cases: []CaseChange{{CaseID: "c|<1>", Before: "Incorrect", After: "Valid", Proof: proof}}}}
	body := Body(changes)
	gfm.Require(t, "pull request body", body)
	if h := gfm.HTML(t, body); !strings.Contains(h, "<code>bench/q`1`&lt;x&gt;.yaml</code>") || !strings.Contains(h, "<code>c|&lt;1&gt;</code>") {
		t.Errorf("path or case ID not shown as written:\n%s", h)
	}
	// Many cases: the body is cut inside a test file's code block.
	var many []CaseChange
	for i := 0; len(many) < 200; i++ {
		many = append(many, CaseChange{CaseID: "case", Before: "Incorrect", After: "Valid", Proof: proof + "\n<details><summary>long</summary>\n\n```python\n" + strings.Repeat("x = 1\n", 60) + "```\n</details>\n"})
	}
	long := Body([]Change{{Path: "q.yaml", Cases: many}})
	if len(long) > maxBody+200 || !strings.Contains(long, "…(truncated; see quality_report.json") {
		t.Fatalf("long body: %d bytes", len(long))
	}
	gfm.Require(t, "cut pull request body", long)
	if h := gfm.HTML(t, long); !strings.Contains(h, ">…(truncated; see quality_report.json in the run artifacts)</p>") {
		t.Error("the truncation notice is not shown as text after the cut")
	}
}

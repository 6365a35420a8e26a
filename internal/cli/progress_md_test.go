package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/swebench"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
)

// TestProgressTableRendersOnGitHub: the batch's growing job summary
// keeps every row's cells when a failure reason holds a pipe, a backtick
// or a tag.
func TestProgressTableRendersOnGitHub(t *testing.T) {
	md := progressTable([]swebench.InstanceReport{
		{ID: "django__django-11099", Status: "success", Duration: 3 * time.Second, Passes: 2, Tokens: 1200},
		{ID: "sympy__sympy-20590", Status: "failed", Reason: "blocked: `make | tee` failed <exit 2>", Duration: time.Minute, Passes: 5},
	}, 4)
	gfm.Require(t, "progress table", md)
	if h := gfm.HTML(t, md); !strings.Contains(h, "blocked: `make | tee` failed &lt;exit 2&gt;") {
		t.Errorf("the reason is not shown as written:\n%s", h)
	}
}

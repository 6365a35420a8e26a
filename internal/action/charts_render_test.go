package action

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/history"
	"github.com/benchgate/benchgate/internal/jobsummary"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"github.com/benchgate/benchgate/internal/testsupport/mermaid"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

var mermaidBlock = regexp.MustCompile(`(?s)<code class="language-mermaid">(.*?)</code>`)

// TestSummaryChartsAsGitHubShowsThem: the per-scenario charts of a job
// summary at 1, 4, 16 and 50 real scenario IDs, rendered as GitHub
// does (cmark-gfm, then mermaid in Chromium on the code blocks it
// leaves): every scenario has its label, no text is cut off or runs
// into another, the value axis starts at 0.
func TestSummaryChartsAsGitHubShowsThem(t *testing.T) {
	sizes := []int{1, 4, 16, 50}
	var charts []string
	for _, n := range sizes {
		st := func(scale float64) *suiteStats {
			s := &suiteStats{Active: map[string][]float64{}, Latency: map[string][]float64{}}
			for i, id := range testenv.ScenarioIDs[:n] {
				s.Active[id] = []float64{scale * float64(700+90*i)}
				s.Latency[id] = []float64{scale * float64(16000+900*i)}
			}
			return s
		}
		var doc jobsummary.Doc
		chartSection(doc.Section("Report"), map[string]*suiteStats{"agent_direct": st(1), "ghx": st(0.7)})
		page := gfm.GitHubHTML(t, doc.Render(jobsummary.MaxBytes))
		blocks := mermaidBlock.FindAllStringSubmatch(page, -1)
		if len(blocks) != 2 {
			t.Fatalf("%d scenarios: %d charts on the page, want 2:\n%s", n, len(blocks), page)
		}
		for _, m := range blocks {
			charts = append(charts, html.UnescapeString(m[1]))
		}
	}
	// One page for all of them: Chromium starts once.
	for k, l := range mermaid.Layouts(t, 900, charts...) {
		n := sizes[k/2]
		name := fmt.Sprintf("%d scenarios, chart %d", n, k%2+1)
		for _, p := range l.Problems() {
			t.Errorf("%s: %s", name, p)
		}
		labels, zero := 0, false
		for _, x := range l.Texts {
			if strings.Contains(x.Groups, "label left-axis") {
				labels++
			}
			zero = zero || strings.Contains(x.Groups, "label top-axis") && x.Text == "0"
		}
		want := n
		if n == 1 {
			want = 2 // one bar per mode
		}
		if labels != want || !zero {
			t.Errorf("%s: %d scenario labels (want %d), axis from 0: %v", name, labels, n, zero)
		}
	}
}

// TestRunLabel: a trend names a run by its commit, short; else by when it
// started; else by its place.
func TestRunLabel(t *testing.T) {
	for _, c := range []struct {
		p    history.Point
		want string
	}{
		{history.Point{Commit: "3393e97c0ffee", StartedAt: "2026-02-25T14:03:11Z"}, "3393e97"},
		{history.Point{Commit: "abc"}, "abc"},
		{history.Point{StartedAt: "2026-02-25T14:03:11.482Z"}, "02-25 14:03"},
		{history.Point{StartedAt: "2026-02-25T16:03:11+02:00"}, "02-25 14:03"},
		{history.Point{StartedAt: "yesterday"}, "run 3"},
		{history.Point{}, "run 3"},
	} {
		if got := runLabel(c.p, 2); got != c.want {
			t.Errorf("runLabel(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
}

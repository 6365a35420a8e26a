package baseline

import (
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/stats"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
)

// TestMarkdownRendersOnGitHub renders a comparison whose bars start and
// end with a pipe, and whose sources and scenario IDs hold characters
// Markdown reads (pipes, backticks, a tag), with GitHub's engine: every
// row keeps its cells and nothing is dropped.
func TestMarkdownRendersOnGitHub(t *testing.T) {
	eff := func(name string, est, lo, hi float64, v stats.Verdict) Efficiency {
		return Efficiency{Result: stats.Result{Name: name, Verdict: v, Reason: "the interval <crosses> the tolerance | maybe", Scenarios: 12, EstimatePct: est, LowPct: lo, HighPct: hi},
			MovedMost: []Moved{{ID: "s`1|<x>", Baseline: 100, Current: 130, ChangePct: 30}}}
	}
	c := &Comparison{Source: "runs/a|b/<null>", TolerancePct: 10, Confidence: 0.95, Verdict: Fail, Notes: []string{"note with `tick` and | pipe"},
		Modes: []Mode{{Mode: "ghx", BaselineSource: "dir`x`", Paired: 12, OnlyInBaseline: []string{"gone"},
			Success:    Success{Verdict: Fail, Reason: "2 newly failing", BaselinePassed: 12, CurrentPassed: 10, NewlyFailing: []string{"a|b", "<c>"}, PValue: 0.5},
			Efficiency: []Efficiency{eff(MetricActiveTokens, -30, -33.4, -26.3, stats.Fail), eff(MetricLatency, 60, 40, 80, stats.Pass), eff(MetricToolCalls, 0, -70, 70, stats.Inconclusive)}},
			{Mode: "agent_direct", Summary: &SummaryDelta{Verdict: Untested, Reason: "only a summary", SuccessRatePts: -5}}},
	}
	md := c.Markdown()
	gfm.Require(t, "baseline comparison", md)
	h := gfm.HTML(t, md)
	for _, want := range []string{"<code>[················|·=o=·········]</code>", "runs/a|b/&lt;null&gt;", "s`1|&lt;x&gt;"} {
		if !strings.Contains(h, want) {
			t.Errorf("GitHub would not show %q:\n%s", want, h)
		}
	}
}

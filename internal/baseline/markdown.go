package baseline

import (
	"fmt"
	"github.com/benchgate/benchgate/internal/stats"
	"strings"

	"github.com/benchgate/benchgate/internal/textbar"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// metricTitle is how a metric is named for a reader.
func metricTitle(name string) string {
	for _, em := range efficiencyMetrics() {
		if em.name == name {
			return em.title
		}
	}
	if name == MetricSuccess {
		return "scenarios passing"
	}
	return ""
}

// Markdown renders the comparison as a section of the stats Markdown
// (heading level 2): one line per metric with the change, its interval,
// the scenarios paired and the verdict, then what moved most.
func (c *Comparison) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Against the baseline: %s\n\n", c.Verdict)
	fmt.Fprintf(&b, "Baseline %s. A metric regresses when the whole %.0f%% interval of its change is above +%s%% (fail), is fine when the whole interval is below it (pass), and is inconclusive otherwise.\n\n",
		textfmt.Code(c.Source), c.Confidence*100, trim(c.TolerancePct))
	for _, m := range c.Modes {
		fmt.Fprintf(&b, "### %s\n\n", m.Mode)
		if m.Summary != nil {
			d := m.Summary
			fmt.Fprintf(&b, "%s: %s.\n\n", d.Verdict, textfmt.Cell(d.Reason))
			fmt.Fprintf(&b, "| metric | change against the baseline |\n|---|---:|\n| success rate | %+.2f points |\n| median active tokens | %+.2f |\n| median wall latency (ms) | %+.2f |\n| median tool calls | %+.2f |\n\n",
				d.SuccessRatePts, d.MedianTokensActive, d.MedianLatencyMs, d.MedianToolCalls)
			continue
		}
		fmt.Fprintf(&b, "%d paired scenarios (baseline %s)", m.Paired, textfmt.Code(m.BaselineSource))
		if n := len(m.OnlyInBaseline) + len(m.OnlyInCurrent); n > 0 {
			fmt.Fprintf(&b, "; %d only in the baseline, %d only in this run", len(m.OnlyInBaseline), len(m.OnlyInCurrent))
		}
		b.WriteString(".\n\n")
		if m.Scope == stats.ScopeSuite {
			fmt.Fprintf(&b, "Judged on the repetitions as the statistical gate judges them: each change is the mean over the paired scenarios of the log ratio of this run's mean to the baseline's; the interval's upper end is the one-sided bound at %.0f%% (below the tolerance: pass), its lower end the one-sided bound at the level Holm's step gives the metric (above the tolerance: fail).\n\n", c.Confidence*100)
		} else if m.Note != "" {
			fmt.Fprintf(&b, "Note: %s.\n\n", textfmt.Cell(m.Note))
		}
		fmt.Fprintf(&b, "| metric | change | %.0f%% interval of the change, or scenarios that changed | scenarios | verdict | the change on a bar (the tolerance at +%s%%) |\n|---|---:|---|---:|---|---|\n", c.Confidence*100, trim(c.TolerancePct))
		s := m.Success
		fmt.Fprintf(&b, "| %s | %d → %d | %s | %d | %s | |\n", metricTitle(MetricSuccess), s.BaselinePassed, s.CurrentPassed, flips(s, 1-c.Confidence), m.Paired, s.Verdict)
		for _, e := range m.Efficiency {
			if e.Scenarios == 0 {
				fmt.Fprintf(&b, "| %s | | | 0 | %s | |\n", metricTitle(e.Name), e.Verdict)
				continue
			}
			// Reductions become changes: a 12% reduction is -12%.
			lo, hi := change(e.HighPct), change(e.LowPct)
			fmt.Fprintf(&b, "| %s | %+.1f%% | [%+.1f%%, %+.1f%%] | %d | %s | %s |\n", metricTitle(e.Name), change(e.EstimatePct), lo, hi, e.Scenarios, e.Verdict,
				textfmt.CodeCell(textbar.Interval(change(e.EstimatePct), lo, hi, c.TolerancePct)))
		}
		fmt.Fprintf(&b, "\nBar: %s.\n\n", textbar.Legend(BarAxis))
		if s.Verdict != Pass {
			fmt.Fprintf(&b, "- %s: %s.\n", metricTitle(MetricSuccess), textfmt.Cell(s.Reason))
		}
		if len(s.NewlyFailing) > 0 {
			fmt.Fprintf(&b, "- Failing now, passed in the baseline: %s.\n", codeList(s.NewlyFailing))
		}
		if len(s.NewlyPassing) > 0 {
			fmt.Fprintf(&b, "- Passing now, failed in the baseline: %s.\n", codeList(s.NewlyPassing))
		}
		for _, e := range m.Efficiency {
			if string(e.Verdict) != Pass {
				fmt.Fprintf(&b, "- %s: %s.\n", metricTitle(e.Name), textfmt.Cell(e.Reason))
			}
			if len(e.MovedMost) > 0 {
				var parts []string
				for _, mv := range e.MovedMost {
					parts = append(parts, fmt.Sprintf("%s %+.0f%% (%s → %s)", textfmt.Code(mv.ID), mv.ChangePct, trim(mv.Baseline), trim(mv.Current)))
				}
				fmt.Fprintf(&b, "- %s moved most: %s.\n", metricTitle(e.Name), strings.Join(parts, ", "))
			}
		}
		b.WriteString("\n")
	}
	for _, n := range c.Notes {
		fmt.Fprintf(&b, "Note: %s.\n", textfmt.Cell(n))
	}
	return b.String()
}

// BarAxis is what the comparison's bars measure (textbar.Legend):
// growth, that is a regression, to the right.
const BarAxis = "change against the baseline (growth to the right)"

// flips says in words how many paired scenarios passed in the baseline
// and fail now, and the other way round, and whether that could be
// chance (the exact McNemar test behind the verdict).
func flips(s Success, alpha float64) string {
	if len(s.NewlyFailing)+len(s.NewlyPassing) == 0 {
		return "none changed"
	}
	chance := "could be chance"
	if s.PValue <= alpha {
		chance = "unlikely to be chance"
	}
	return fmt.Sprintf("%d now fail, %d now pass (%s)", len(s.NewlyFailing), len(s.NewlyPassing), chance)
}

func codeList(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = textfmt.Code(id)
	}
	return strings.Join(out, ", ")
}

// trim prints a number without trailing zeros.
func trim(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// change turns a reduction into the change it is (its negative), with an
// unchanged metric as +0 rather than -0, which would print as -0.0%.
func change(reductionPct float64) float64 { return -reductionPct + 0 }

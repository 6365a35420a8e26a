package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/benchgate/benchgate/internal/stats"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// MarshalIndent renders latest-stats.json: two-space indentation and a
// final newline, like the summary.
func (r *StatsReport) MarshalIndent() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// VerdictLabel is the verdict as shown to people: PASS, FAIL,
// INCONCLUSIVE, UNDERPOWERED.
func VerdictLabel(v stats.Verdict) string { return strings.ToUpper(string(v)) }

// barWidth is the number of cells of the text bar.
const barWidth = 30

// StatsBar draws an interval as text on a fixed axis from -100% to +100%
// reduction, one cell per 200/barWidth points: '=' the interval, 'o' the
// estimate, '|' the threshold, '·' the rest; '<' or '>' at an end when
// the interval runs past it. The same axis on every line lets a reader
// compare metrics at a glance.
func StatsBar(est, lo, hi, threshold float64) string {
	cell := func(v float64) int {
		c := int(math.Floor((v + 100) / 200 * barWidth))
		return max(0, min(barWidth-1, c))
	}
	b := []rune(strings.Repeat("·", barWidth))
	for i := cell(lo); i <= cell(hi); i++ {
		b[i] = '='
	}
	if lo < -100 {
		b[0] = '<'
	}
	if hi > 100 {
		b[barWidth-1] = '>'
	}
	b[cell(threshold)] = '|'
	b[cell(est)] = 'o'
	return "[" + string(b) + "]"
}

// Percent prints a percentage with two decimals, never "-0.00%".
func Percent(v float64) string {
	s := fmt.Sprintf("%.2f%%", v)
	if s == "-0.00%" {
		return "0.00%"
	}
	return s
}

// StatsLine is one metric in one line: estimate, interval, n, verdict
// and the bar. Job summaries, the tracking file and the gate output use
// it.
func StatsLine(e EfficiencyCheck) string {
	if e.Scenarios == 0 {
		return fmt.Sprintf("%-13s no scenarios  threshold %s  %s", e.Metric, Percent(e.MinReductionPct), VerdictLabel(e.Verdict))
	}
	return fmt.Sprintf("%-13s %8s [%s, %s] n=%d  threshold %s  %s %s",
		e.Metric, Percent(e.EstimatePct), Percent(e.LowPct), Percent(e.HighPct), e.Scenarios, Percent(e.MinReductionPct), VerdictLabel(e.Verdict),
		StatsBar(e.EstimatePct, e.LowPct, e.HighPct, e.MinReductionPct))
}

// StatsLines are the lines of every efficiency check.
func (r *StatsReport) StatsLines() []string {
	out := make([]string, len(r.Efficiency))
	for i, e := range r.Efficiency {
		out[i] = StatsLine(e)
	}
	return out
}

// StatsMarkdown renders latest-stats.md.
func StatsMarkdown(r *StatsReport) string {
	var b strings.Builder
	gate := "passes the gate"
	if !r.Passed {
		gate = "fails the gate"
	}
	fmt.Fprintf(&b, "## Statistical Gate\n\n")
	fmt.Fprintf(&b, "Profile %s, %s family-wise confidence over the efficiency checks (Holm). Result: **%s** (%s): %s.\n\n",
		r.Profile, Percent(r.Confidence*100), VerdictLabel(r.Verdict), gate, textfmt.Cell(r.Reason))
	if len(r.Efficiency) > 0 {
		fmt.Fprintf(&b, "Scenarios: %d eligible of %d; each repetition set collapses to its median, and each check is judged on the per-scenario ratio ghx / agent_direct.\n\n", r.EligibleScenarioCount, r.TotalScenarioCount)
		b.WriteString("| check | v2 value | estimate | interval | level | n | threshold | verdict |\n|---|---:|---:|---|---:|---:|---:|---|\n")
		for _, e := range r.Efficiency {
			interval := "–"
			if e.Scenarios > 0 {
				interval = fmt.Sprintf("[%s, %s]", Percent(e.LowPct), Percent(e.HighPct))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d | %s | %s |\n", e.Check, Percent(e.V2Value), Percent(e.EstimatePct), interval, Percent(e.Confidence*100), e.Scenarios, Percent(e.MinReductionPct), VerdictLabel(e.Verdict))
		}
		b.WriteString("\n```text\n")
		for _, l := range r.StatsLines() {
			b.WriteString(l + "\n")
		}
		b.WriteString("```\n\nBar: -100% to +100% reduction; `=` interval, `o` estimate, `|` threshold.\n\n")
		b.WriteString("| check | why | method | min. detectable | bootstrap cross-check |\n|---|---|---|---:|---|\n")
		for _, e := range r.Efficiency {
			mde := "–"
			if e.MDEPct != nil {
				mde = Percent(*e.MDEPct)
			}
			boot := "– (fewer than 10 scenarios)"
			if e.Bootstrap != nil {
				agree := "agrees"
				if !e.Bootstrap.Agrees {
					agree = "disagrees"
				}
				boot = fmt.Sprintf("[%s, %s], %s", Percent(e.Bootstrap.LowPct), Percent(e.Bootstrap.HighPct), agree)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", e.Check, textfmt.Cell(e.Reason), e.Method, mde, boot)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "### Reliability (v2 checks)\n\n| check | value | threshold | passed |\n|---|---:|---:|---|\n")
	for _, c := range r.Reliability {
		fmt.Fprintf(&b, "| %s | %s | %s %s | %s |\n", c.Name, ToFixed(c.Value, 2), c.Operator, ToFixed(c.Threshold, 2), passFail(c.Passed))
	}
	s := r.Success
	fmt.Fprintf(&b, "\n### Paired success\n\n%d scenarios: both succeeded %d, only agent_direct %d, only ghx %d, both failed %d. **%s**: %s.\n",
		s.Scenarios, s.BothSucceeded, s.OnlyAgentDirect, s.OnlyGhx, s.BothFailed, VerdictLabel(s.Verdict), textfmt.Cell(s.Reason))
	return b.String()
}

package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/benchgate/benchgate/internal/stats"
	"github.com/benchgate/benchgate/internal/textbar"
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

// BarAxis is what the statistical gate's bars measure (textbar.Legend).
const BarAxis = "reduction (ghx against agent_direct)"

// StatsBar draws an interval as text on the axis every bar of benchgate
// shares (textbar): the same axis on every line lets a reader compare
// metrics at a glance, and the threshold stays visible when the estimate
// sits on it.
func StatsBar(est, lo, hi, threshold float64) string {
	return textbar.Interval(est, lo, hi, threshold)
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
	if e.NoInterval {
		return fmt.Sprintf("%-13s %8s (no interval: nothing measures the noise) n=%d  threshold %s  %s",
			e.Metric, Percent(e.EstimatePct), e.Scenarios, Percent(e.MinReductionPct), VerdictLabel(e.Verdict))
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
	if r.ScopeText != "" {
		fmt.Fprintf(&b, "**What this verdict is about** (scope %s): %s.\n\n", r.Scope, textfmt.Cell(r.ScopeText))
	}
	if len(r.Efficiency) > 0 {
		if r.Scope == stats.ScopeSuite {
			fmt.Fprintf(&b, "Scenarios: %d eligible of %d. Each check estimates %s; the test is a fixed-effects t-test of it against the threshold, from the repetitions' noise. The interval's lower end is the pass side's one-sided bound at the confidence, its upper end the fail side's at the level Holm's step gives the check (the level column: pass / fail).\n\n", r.EligibleScenarioCount, r.TotalScenarioCount, stats.EstimandText)
		} else {
			fmt.Fprintf(&b, "Scenarios: %d eligible of %d; each repetition set collapses to its median, and each check is judged on the per-scenario ratio ghx / agent_direct.\n\n", r.EligibleScenarioCount, r.TotalScenarioCount)
		}
		b.WriteString("| check | v2 value | estimate | interval | level | n | threshold | verdict |\n|---|---:|---:|---|---:|---:|---:|---|\n")
		for _, e := range r.Efficiency {
			interval := "–"
			if e.Scenarios > 0 && !e.NoInterval {
				interval = fmt.Sprintf("[%s, %s]", Percent(e.LowPct), Percent(e.HighPct))
			}
			level := Percent(e.Confidence * 100)
			if e.FailConfidence != 0 && e.FailConfidence != e.Confidence {
				level += " / " + Percent(e.FailConfidence*100)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d | %s | %s |\n", e.Check, Percent(e.V2Value), Percent(e.EstimatePct), interval, level, e.Scenarios, Percent(e.MinReductionPct), VerdictLabel(e.Verdict))
		}
		b.WriteString("\nThe estimate and interval are the statistical gate's; the v2 value is gate v2's own figure (the median over scenarios of each scenario's reduction of medians), shown for comparison.\n")
		for _, e := range r.Efficiency {
			if n := V2Disagreement(e); n != "" {
				b.WriteString("\n- " + n + "\n")
			}
		}
		b.WriteString("\n")
		b.WriteString("\n```text\n")
		for _, l := range r.StatsLines() {
			b.WriteString(l + "\n")
		}
		b.WriteString("```\n\nBar: " + textbar.Legend(BarAxis) + ".\n\n")
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
	planMarkdown(&b, r)
	fmt.Fprintf(&b, "### Reliability (v2 checks)\n\n| check | value | threshold | passed |\n|---|---:|---:|---|\n")
	for _, c := range r.Reliability {
		fmt.Fprintf(&b, "| %s | %s | %s %s | %s |\n", c.Name, ToFixed(c.Value, 2), c.Operator, ToFixed(c.Threshold, 2), passFail(c.Passed))
	}
	s := r.Success
	fmt.Fprintf(&b, "\n### Paired success\n\n%d scenarios: both succeeded %d, only agent_direct %d, only ghx %d, both failed %d. **%s**: %s.\n",
		s.Scenarios, s.BothSucceeded, s.OnlyAgentDirect, s.OnlyGhx, s.BothFailed, VerdictLabel(s.Verdict), textfmt.Cell(s.Reason))
	return b.String()
}

// PlanSentence is the one sentence of what would decide a check that is
// not decided (stats.Result.ToDecide), prefixed with the metric:
// "tokens_active: about 9 repetitions per arm of these 2 scenarios would
// give 80% power …". It is "" for a decided check. The terminal, the
// stats file, the job summary and the pull-request comment all show this
// sentence as it is.
func (e EfficiencyCheck) PlanSentence() string {
	if e.ToDecide == "" || e.Verdict == stats.Pass || e.Verdict == stats.Fail {
		return ""
	}
	return e.Metric + ": " + e.ToDecide
}

// GateChance is the sentence of the gate's joint chance: "if the true
// reductions are the ones observed, this design passes all 3 efficiency
// checks with a predicted 64% chance (each check's chance multiplied)";
// "" without a prediction for every check.
func (r *StatsReport) GateChance() string {
	if r.GatePower == nil || len(r.Efficiency) == 0 {
		return ""
	}
	return fmt.Sprintf("if the true reductions are the ones observed, a run of this size passes all %d efficiency checks with a predicted %.0f%% chance (each check's chance multiplied; a check alone can be likelier)", len(r.Efficiency), *r.GatePower*100)
}

// PlanSentences are the PlanSentence of every undecided check.
func (r *StatsReport) PlanSentences() []string {
	var out []string
	for _, e := range r.Efficiency {
		if s := e.PlanSentence(); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// scenariosText prints a planned number of scenarios; -1 is "none".
func scenariosText(n int) string {
	if n < 0 {
		return fmt.Sprintf("> %d", stats.MaxPlanScenarios)
	}
	return fmt.Sprint(n)
}

// optionsText lists a plan's designs: "1: 41, 3: 34, 5: 33, 10: 32".
func optionsText(a stats.PlanAt) string {
	parts := make([]string, len(a.Options))
	for i, o := range a.Options {
		parts[i] = fmt.Sprintf("%d: %s", o.Repetitions, scenariosText(o.Scenarios))
	}
	return strings.Join(parts, ", ")
}

// PlanLines are the planner's lines of report --stats --plan, indented
// for the terminal: per check (" - ") the noise, then (indented further)
// for the observed reduction and for no change the run's power and the
// scenarios 80% power needs at the run's repetitions and at 1, 3, 5 and
// 10.
func (r *StatsReport) PlanLines() []string {
	var out []string
	if r.Scope == stats.ScopeSuite {
		for _, e := range r.Efficiency {
			if e.SuitePlan == nil {
				out = append(out, fmt.Sprintf(" - %-13s no plan: no scenario has values in both arms", e.Metric))
				continue
			}
			p := e.SuitePlan
			out = append(out, fmt.Sprintf(" - %-13s %d scenarios × %d repetitions; run-to-run noise %.3f; power now %.0f%%", e.Metric, p.Scenarios, p.Repetitions, p.WithinSD, p.CurrentPower*100))
			if s := e.PlanSentence(); s != "" {
				out = append(out, "     "+s)
			}
		}
		if g := r.GateChance(); g != "" {
			out = append(out, " - gate: "+g)
		}
		return out
	}
	for _, e := range r.Efficiency {
		p := e.Plan
		if p == nil {
			out = append(out, fmt.Sprintf(" - %-13s no plan: at least 3 scenarios with values in both arms are needed to estimate the noise", e.Metric))
			continue
		}
		within := fmt.Sprintf("%.3f", p.WithinSD)
		if !p.WithinKnown {
			within = "unknown (one repetition)"
		}
		out = append(out, fmt.Sprintf(" - %-13s n=%d at %d repetitions; log-ratio noise: between scenarios %.3f, within (one repetition) %s", e.Metric, p.Scenarios, p.Repetitions, p.BetweenSD, within))
		for _, at := range []struct {
			name string
			a    stats.PlanAt
		}{{"observed", p.Observed}, {"no change", p.NoChange}} {
			out = append(out, fmt.Sprintf("     at %-9s (%s): power now %.0f%%; needs %s scenarios at %d repetitions (by repetitions: %s)",
				at.name, Percent(at.a.AssumedReductionPct), at.a.CurrentPower*100, scenariosText(at.a.Scenarios), p.Repetitions, optionsText(at.a)))
		}
	}
	return out
}

// PlanHeading says what the plan is for: "scenarios for 80% power at
// 98.33% confidence (the strictest Holm level)".
func (r *StatsReport) PlanHeading() string {
	if r.Scope == stats.ScopeSuite {
		return "repetitions per arm for 80% power on these scenarios (a pass tested at the confidence, a fail at the strictest Holm level)"
	}
	for _, e := range r.Efficiency {
		if p := e.Plan; p != nil {
			return fmt.Sprintf("scenarios for %.0f%% power at %s confidence (the strictest Holm level)", p.TargetPower*100, Percent(p.Confidence*100))
		}
	}
	return "no check has the 3 scenarios a plan needs"
}

// planMarkdown is latest-stats.md's planner section.
func planMarkdown(b *strings.Builder, r *StatsReport) {
	if r.Scope == stats.ScopeSuite {
		suitePlanMarkdown(b, r)
		return
	}
	var p *stats.Plan
	for _, e := range r.Efficiency {
		if e.Plan != nil {
			p = e.Plan
			break
		}
	}
	if p == nil {
		return
	}
	fmt.Fprintf(b, "### Power planner\n\nHow many scenarios (and repetitions per scenario) would decide each check with %.0f%% power at %s confidence (the strictest Holm level), from the noise this run shows. Method: docs/statistics.md.\n\n",
		p.TargetPower*100, Percent(p.Confidence*100))
	b.WriteString("| check | n × repetitions | noise between / within | assumed reduction | power now | scenarios needed | by repetitions (1, 3, 5, 10) |\n|---|---|---|---:|---:|---:|---|\n")
	for _, e := range r.Efficiency {
		if e.Plan == nil {
			fmt.Fprintf(b, "| %s | – | – | – | – | – | fewer than 3 scenarios |\n", e.Check)
			continue
		}
		q := e.Plan
		within := fmt.Sprintf("%.3f", q.WithinSD)
		if !q.WithinKnown {
			within = "unknown"
		}
		for i, at := range []stats.PlanAt{q.Observed, q.NoChange} {
			label := "observed"
			if i == 1 {
				label = "no change"
			}
			fmt.Fprintf(b, "| %s | %d × %d | %.3f / %s | %s (%s) | %.0f%% | %s | %s |\n", e.Check, q.Scenarios, q.Repetitions, q.BetweenSD, within,
				Percent(at.AssumedReductionPct), label, at.CurrentPower*100, scenariosText(at.Scenarios), optionsText(at))
		}
	}
	if s := r.PlanSentences(); len(s) > 0 {
		b.WriteString("\n")
		for _, l := range s {
			fmt.Fprintf(b, "- %s\n", textfmt.Cell(l))
		}
	}
	b.WriteString("\n")
}

// suitePlanMarkdown is the planner section in the suite scope: the
// repetitions that would decide each check on these scenarios.
func suitePlanMarkdown(b *strings.Builder, r *StatsReport) {
	b.WriteString("### Power planner\n\nHow many repetitions per scenario and arm would decide each check on these scenarios with 80% power, from the run-to-run noise this run shows (a pass tested at the confidence, a fail at the strictest Holm level). Method: docs/statistics.md.\n\n")
	b.WriteString("| check | scenarios × repetitions | noise within | assumed reduction | power now | repetitions needed | decidable from |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, e := range r.Efficiency {
		p := e.SuitePlan
		if p == nil {
			fmt.Fprintf(b, "| %s | – | – | – | – | – | – |\n", e.Check)
			continue
		}
		need, from := "–", "never"
		if p.RepetitionsNeeded > 0 {
			need = fmt.Sprint(p.RepetitionsNeeded)
		}
		if p.DecidableFrom > 0 {
			from = fmt.Sprint(p.DecidableFrom)
		}
		assumed := "–"
		if p.WithinKnown {
			assumed = Percent(p.AssumedReductionPct)
		}
		fmt.Fprintf(b, "| %s | %d × %d | %.3f | %s | %.0f%% | %s | %s |\n", e.Check, p.Scenarios, p.Repetitions, p.WithinSD, assumed, p.CurrentPower*100, need, from)
	}
	b.WriteString("\n")
	for _, l := range r.PlanSentences() {
		fmt.Fprintf(b, "- %s\n", textfmt.Cell(l))
	}
	if g := r.GateChance(); g != "" {
		fmt.Fprintf(b, "- Gate: %s\n", textfmt.Cell(g))
	}
	b.WriteString("\n")
}

// V2Disagreement explains a check whose v2 value and statistical
// estimate fall on opposite sides of the threshold; "" when they agree.
func V2Disagreement(e EfficiencyCheck) string {
	if e.Scenarios == 0 || (e.V2Value >= e.MinReductionPct) == (e.EstimatePct >= e.MinReductionPct) {
		return ""
	}
	return fmt.Sprintf("%s: v2's value %s and the gate's estimate %s fall on opposite sides of the threshold %s. They answer different questions: v2 takes the median over scenarios of each scenario's reduction of medians, so one scenario's middle value decides it and it says nothing of the noise; the gate averages every scenario's log ratio of means with equal weight and asks whether that average clears the threshold beyond the repetitions' noise. The gate's verdict (%s) rests on its own estimate and interval.",
		e.Metric, Percent(e.V2Value), Percent(e.EstimatePct), Percent(e.MinReductionPct), VerdictLabel(e.Verdict))
}

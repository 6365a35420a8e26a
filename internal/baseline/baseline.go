// Package baseline compares this run with an earlier one, mode by mode
// and scenario by scenario: did more scenarios start failing than noise
// explains (exact McNemar on the paired pass/fail verdicts), and did
// active tokens, latency or tool calls grow by more than a tolerance
// (the paired signed-rank intervals of internal/stats, Holm-corrected
// across the three)? Each metric gets pass, fail, inconclusive or
// underpowered, and the scenarios that moved most are named, so a
// reviewer sees where a regression comes from.
package baseline

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/benchgate/benchgate/internal/runrecord"
	"github.com/benchgate/benchgate/internal/stats"
)

// DefaultTolerancePct is how much an efficiency metric may grow against
// the baseline before it counts as a regression: runs of the same commit
// differ by more than a few percent.
const DefaultTolerancePct = 10

// ToleranceExpected says which tolerances a comparison takes; the command
// line and the Action's inputs both say it.
const ToleranceExpected = "a percentage from 0 to below 100"

// ToleranceOK says whether pct is a tolerance a comparison takes: a
// negative one would fail an unchanged run, and 100% or more could never
// fail.
func ToleranceOK(pct float64) bool { return pct >= 0 && pct < 100 }

// Verdicts, the same words the stats gate uses, plus one for a baseline
// that holds no scenarios.
const (
	Pass         = string(stats.Pass)
	Fail         = string(stats.Fail)
	Inconclusive = string(stats.Inconclusive)
	Underpowered = string(stats.Underpowered)
	// Untested: the baseline is a v2 summary without scenarios, so only
	// the differences of its medians and rates are shown.
	Untested = "untested"
)

// Metric names, in the order they are judged and shown.
const (
	MetricSuccess      = "success"
	MetricActiveTokens = "active_tokens"
	MetricLatency      = "latency_ms"
	MetricToolCalls    = "tool_calls"
)

// efficiencyMetric is one efficiency metric compared against the
// baseline: its name, its title for a reader, and a scenario's median
// and stable repetitions of it in a run record.
type efficiencyMetric struct {
	name, title string
	median      func(s *runrecord.Scenario) *float64
	values      func(s *runrecord.Scenario) []float64
}

// efficiencyMetrics are the metrics compared, in the order they are
// judged (Holm's order) and shown: the statistical gate's efficiency
// checks (report.Checks), by the names of their values in a run record.
func efficiencyMetrics() []efficiencyMetric {
	return []efficiencyMetric{
		{MetricActiveTokens, "active tokens",
			func(s *runrecord.Scenario) *float64 { return s.MedianActiveTokens },
			func(s *runrecord.Scenario) []float64 { return s.ActiveTokens }},
		{MetricLatency, "wall latency",
			func(s *runrecord.Scenario) *float64 { return s.MedianLatencyMs },
			func(s *runrecord.Scenario) []float64 { return s.LatencyMs }},
		{MetricToolCalls, "tool calls",
			func(s *runrecord.Scenario) *float64 { return s.MedianToolCalls },
			func(s *runrecord.Scenario) []float64 { return s.ToolCalls }},
	}
}

// maxMoved is how many scenarios per metric are named as having moved most.
const maxMoved = 5

// Options tune Compare.
type Options struct {
	// TolerancePct is the growth allowed before a regression (default
	// DefaultTolerancePct; a negative value is refused).
	TolerancePct float64
	// Confidence is the family level of the efficiency metrics and the
	// level of the success test (default 0.95).
	Confidence float64
	// Scope is the statistical gate's scope (default stats.ScopeSuite):
	// in the suite scope the efficiency metrics are judged on the two
	// runs' repetitions by the gate's test, when both runs keep them;
	// otherwise (or in the scenarios scope) on the scenarios' medians
	// by the signed-rank interval.
	Scope string
}

// Comparison is the baseline section of the stats file.
type Comparison struct {
	// Source is the baseline folder or file as given.
	Source       string  `json:"source"`
	TolerancePct float64 `json:"tolerancePct"`
	Confidence   float64 `json:"confidence"`
	// Verdict is the worst of every mode's metrics: fail, then
	// inconclusive, underpowered, untested, pass.
	Verdict string `json:"verdict"`
	Modes   []Mode `json:"modes"`
	// Notes say what could not be compared and why.
	Notes []string `json:"notes"`
}

// Mode compares one mode of this run with the same mode of the baseline.
type Mode struct {
	Mode string `json:"mode"`
	// BaselineSource is the file the baseline's rows of this mode came from.
	BaselineSource string `json:"baselineSource"`
	// Paired counts the scenarios both runs ran; the others are listed.
	Paired         int      `json:"pairedScenarios"`
	OnlyInBaseline []string `json:"onlyInBaseline"`
	OnlyInCurrent  []string `json:"onlyInCurrent"`
	Success        Success  `json:"success"`
	// Efficiency holds the three efficiency metrics as internal/stats
	// judges them: a reduction of this run against the baseline, with
	// the threshold at -TolerancePct (growth up to the tolerance passes).
	Efficiency []Efficiency `json:"efficiency"`
	// Scope is how the efficiency metrics were judged: stats.ScopeSuite
	// (the two runs' repetitions, the statistical gate's test) or
	// stats.ScopeScenarios (the scenarios' medians); Note says why the
	// scenarios scope was used when the suite scope was asked for.
	Scope string `json:"scope,omitempty"`
	Note  string `json:"note,omitempty"`
	// Summary is set instead of the above when the baseline is a v2
	// summary: point differences only.
	Summary *SummaryDelta `json:"summaryDelta,omitempty"`
}

// Success is the paired pass/fail comparison of the scenarios.
type Success struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	// BaselinePassed and CurrentPassed count passing paired scenarios.
	BaselinePassed int `json:"baselinePassed"`
	CurrentPassed  int `json:"currentPassed"`
	// NewlyFailing passed in the baseline and fail now; NewlyPassing
	// the other way round. These are McNemar's discordant pairs.
	NewlyFailing []string `json:"newlyFailing"`
	NewlyPassing []string `json:"newlyPassing"`
	// PValue is the two-sided exact McNemar p-value (1 with no
	// discordant scenario).
	PValue float64 `json:"pValue"`
}

// Efficiency is one efficiency metric's judgement with the scenarios
// that moved most.
type Efficiency struct {
	stats.Result
	// MovedMost are the paired scenarios with the largest change, by
	// the size of their log-ratio.
	MovedMost []Moved `json:"movedMost"`
}

// Moved is one scenario's change of a metric.
type Moved struct {
	ID       string  `json:"id"`
	Baseline float64 `json:"baseline"`
	Current  float64 `json:"current"`
	// ChangePct is (current/baseline - 1)·100: positive is growth.
	ChangePct float64 `json:"changePct"`
}

// SummaryDelta is the point comparison against a v2 summary.
type SummaryDelta struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	// Each is this run minus the baseline (success rate in points,
	// medians in their units).
	SuccessRatePts     float64 `json:"successRatePts"`
	MedianTokensActive float64 `json:"medianTokensActiveDelta"`
	MedianLatencyMs    float64 `json:"medianLatencyMsDelta"`
	MedianToolCalls    float64 `json:"medianToolCallsDelta"`
}

// Compare compares current with the baseline folder's newest run of each
// mode (or, for a folder holding only summaries, with the newest
// summary's modes). currentSummary gives this run's v2 per-mode figures
// for that case; it may be nil when the folder has runs.
func Compare(source string, current *runrecord.Record, base *runrecord.Folder, currentSummary []runrecord.SummaryMode, opts Options) (*Comparison, error) {
	if opts.TolerancePct == 0 {
		opts.TolerancePct = DefaultTolerancePct
	}
	if opts.TolerancePct < 0 || opts.TolerancePct >= 100 || math.IsNaN(opts.TolerancePct) {
		return nil, fmt.Errorf("tolerance: expected a growth in percent from 0 to 100, got %v", opts.TolerancePct)
	}
	if opts.Confidence == 0 {
		opts.Confidence = 0.95
	}
	if !(opts.Confidence > 0 && opts.Confidence < 1) {
		return nil, fmt.Errorf("confidence: expected a number between 0 and 1, got %v", opts.Confidence)
	}
	c := &Comparison{Source: source, TolerancePct: opts.TolerancePct, Confidence: opts.Confidence, Modes: []Mode{}, Notes: append([]string{}, base.Notes...)}
	for _, cur := range current.Modes {
		runs := base.RunsOf(cur.Mode)
		if len(runs) == 0 {
			if s := newestSummaryMode(base, cur.Mode); s != nil {
				c.Modes = append(c.Modes, summaryMode(cur.Mode, *s, currentSummary))
				continue
			}
			c.Notes = append(c.Notes, fmt.Sprintf("mode %s: the baseline has no rows or summary of this mode", cur.Mode))
			continue
		}
		b := runs[len(runs)-1]
		if b.Key() == cur.Key() {
			c.Notes = append(c.Notes, fmt.Sprintf("mode %s: the baseline's run is this run itself (the same run IDs, from %s): nothing can have changed", cur.Mode, b.Source))
		}
		if len(runs) > 1 {
			c.Notes = append(c.Notes, fmt.Sprintf("mode %s: the baseline holds %d runs; the newest (%s) is compared", cur.Mode, len(runs), b.Source))
		}
		m, err := compareMode(cur, b, opts)
		if err != nil {
			return nil, err
		}
		c.Modes = append(c.Modes, *m)
	}
	c.Verdict = c.overall()
	return c, nil
}

func newestSummaryMode(f *runrecord.Folder, mode string) *runrecord.SummaryMode {
	for i := len(f.Summaries) - 1; i >= 0; i-- {
		for _, m := range f.Summaries[i].Modes {
			if m.Mode == mode {
				mm := m
				return &mm
			}
		}
	}
	return nil
}

func summaryMode(mode string, base runrecord.SummaryMode, current []runrecord.SummaryMode) Mode {
	m := Mode{Mode: mode, OnlyInBaseline: []string{}, OnlyInCurrent: []string{}, Efficiency: []Efficiency{},
		Success: Success{Verdict: Untested, NewlyFailing: []string{}, NewlyPassing: []string{}, PValue: 1,
			Reason: "the baseline is a v2 summary without scenarios"}}
	d := &SummaryDelta{Verdict: Untested, Reason: "the baseline is a v2 summary without scenarios: the differences of its rates and medians are shown, nothing is tested (keep run-record.json or the suite files to compare scenarios)"}
	for _, cm := range current {
		if cm.Mode == mode {
			d.SuccessRatePts = cm.SuccessRate - base.SuccessRate
			d.MedianTokensActive = cm.MedianTokensActive - base.MedianTokensActive
			d.MedianLatencyMs = cm.MedianLatencyMs - base.MedianLatencyMs
			d.MedianToolCalls = cm.MedianToolCalls - base.MedianToolCalls
		}
	}
	m.Summary = d
	return m
}

func compareMode(cur, base runrecord.Mode, opts Options) (*Mode, error) {
	m := &Mode{Mode: cur.Mode, BaselineSource: base.Source, OnlyInBaseline: []string{}, OnlyInCurrent: []string{}}
	type pair struct{ b, c *runrecord.Scenario }
	var pairs []pair
	for i := range cur.Scenarios {
		s := &cur.Scenarios[i]
		if bs := base.Scenario(s.ID); bs != nil {
			pairs = append(pairs, pair{bs, s})
		} else {
			m.OnlyInCurrent = append(m.OnlyInCurrent, s.ID)
		}
	}
	for _, s := range base.Scenarios {
		if cur.Scenario(s.ID) == nil {
			m.OnlyInBaseline = append(m.OnlyInBaseline, s.ID)
		}
	}
	m.Paired = len(pairs)

	sc := Success{NewlyFailing: []string{}, NewlyPassing: []string{}}
	for _, p := range pairs {
		bp, cp := p.b.Pass(), p.c.Pass()
		if bp {
			sc.BaselinePassed++
		}
		if cp {
			sc.CurrentPassed++
		}
		switch {
		case bp && !cp:
			sc.NewlyFailing = append(sc.NewlyFailing, p.c.ID)
		case !bp && cp:
			sc.NewlyPassing = append(sc.NewlyPassing, p.c.ID)
		}
	}
	judgeSuccess(&sc, len(pairs), opts.Confidence)
	m.Success = sc

	var metrics []stats.Metric
	for _, em := range efficiencyMetrics() {
		metrics = append(metrics, stats.Metric{Name: em.name, MinReductionPct: -opts.TolerancePct})
	}
	// The gate's scope and test when both runs keep their repetitions
	// (every paired scenario with stable rows has its values).
	scope, _ := stats.ParseScope(opts.Scope)
	if scope == stats.ScopeSuite {
		for _, p := range pairs {
			if (p.b.Stable > 0 && !p.b.HasValues()) || (p.c.Stable > 0 && !p.c.HasValues()) {
				scope = stats.ScopeScenarios
				m.Note = "the baseline or this run keeps only each scenario's medians (a run record written without its repetitions), so the efficiency metrics are judged on the scenarios' medians (scope scenarios) rather than on the repetitions"
				break
			}
		}
	}
	m.Scope = scope
	for _, p := range pairs {
		for i, em := range efficiencyMetrics() {
			sc := stats.Scenario{ID: p.c.ID, Base: repeated(em.median(p.b), p.b.Stable), Target: repeated(em.median(p.c), p.c.Stable)}
			if scope == stats.ScopeSuite {
				sc.Base, sc.Target = em.values(p.b), em.values(p.c)
			}
			metrics[i].Scenarios = append(metrics[i].Scenarios, sc)
		}
	}
	res, err := stats.Judge(metrics, stats.Options{Confidence: opts.Confidence, Scope: scope})
	if err != nil {
		return nil, err
	}
	same := scope == stats.ScopeSuite && len(pairs) > 0
	for _, p := range pairs {
		for _, em := range efficiencyMetrics() {
			same = same && slices.Equal(em.values(p.b), em.values(p.c))
		}
	}
	for _, r := range res {
		r.Reason = changeReason(r, opts.TolerancePct)
		switch {
		case same && r.Scenarios > 0:
			// A copy of this run: the change is exactly 0 and there is
			// no second sample whose noise a test could weigh.
			r.Verdict, r.ToDecide = stats.Pass, ""
			r.EstimatePct, r.LowPct, r.HighPct = 0, 0, 0
			r.Reason = fmt.Sprintf("the two runs hold the same values in every one of the %d paired scenarios (a copy of this run): the change is exactly 0%%, below the tolerance +%s%%", r.Scenarios, strconvTrim(opts.TolerancePct))
		case unchanged(r):
			// The same medians as the baseline in every paired scenario
			// (a baseline that kept medians only, or the scenario
			// scope): there is no change to test, and ties must not
			// make the same rows read as undecided.
			r.Verdict, r.ToDecide, r.MoreScenarios, r.RepetitionsNeeded = stats.Pass, "", 0, 0
			r.EstimatePct, r.LowPct, r.HighPct = 0, 0, 0
			r.Reason = fmt.Sprintf("unchanged: each of the %d paired scenarios has the same median as in the baseline", r.Scenarios)
		}
		if r.Scope == stats.ScopeSuite && r.ToDecide != "" {
			// The planner's sentence speaks of reductions; against a
			// baseline the reason above is the sentence.
			r.ToDecide = r.Reason
		}
		m.Efficiency = append(m.Efficiency, Efficiency{Result: r, MovedMost: movedMost(r.Pairs)})
	}
	return m, nil
}

// unchanged says a metric has values in both runs and the same value in
// each paired scenario: the run did not alter it.
func unchanged(r stats.Result) bool {
	if len(r.Pairs) == 0 || r.Scenarios == 0 {
		return false
	}
	for _, p := range r.Pairs {
		if p.Base != p.Target {
			return false
		}
	}
	return true
}

// ChangeInterval writes a metric's change against the baseline with its
// interval, "+3.2% [-1.0%, +7.5%]": the reductions the stats compute,
// turned into changes.
func ChangeInterval(r stats.Result) string {
	return fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%]", change(r.EstimatePct), change(r.HighPct), change(r.LowPct))
}

// changeReason says why a metric got its verdict in the terms of a
// baseline comparison, a change against the baseline and a tolerance,
// rather than the stats gate's reduction against a threshold.
func changeReason(r stats.Result, tol float64) string {
	level := fmt.Sprintf("%.2f%%", r.Confidence*100)
	iv := ChangeInterval(r)
	t := fmt.Sprintf("+%s%%", strconvTrim(tol))
	if r.Scope == stats.ScopeSuite {
		return suiteChangeReason(r, iv, t)
	}
	switch r.Verdict {
	case stats.Pass:
		return fmt.Sprintf("the whole %s interval of the change, %s, is below the tolerance %s", level, iv, t)
	case stats.Fail:
		return fmt.Sprintf("the whole %s interval of the change, %s, is above the tolerance %s", level, iv, t)
	case stats.Underpowered:
		if r.Scenarios == 0 {
			return fmt.Sprintf("no paired scenario has values in both runs; at least %d are needed for %s confidence", r.MinScenarios, level)
		}
		if r.TiesLimited {
			return fmt.Sprintf("ties leave no interval at this level: too many of the %d paired scenarios share a value for %s confidence (at most %.2f%%); change %s", r.Scenarios, level, r.AchievedConfidence*100, iv)
		}
		return fmt.Sprintf("%d paired scenarios can never reach %s confidence (at least %d are needed); change %s", r.Scenarios, level, r.MinScenarios, iv)
	}
	if -r.HighPct >= tol || -r.LowPct < tol {
		return fmt.Sprintf("the %s interval of the change, %s, clears the tolerance %s, but a metric judged before it did not decide, so Holm's correction stops here", level, iv, t)
	}
	if r.MoreScenarios > 0 {
		return fmt.Sprintf("the %s interval of the change, %s, contains the tolerance %s; about %d more scenarios would decide it", level, iv, t, r.MoreScenarios)
	}
	return fmt.Sprintf("the %s interval of the change, %s, contains the tolerance %s", level, iv, t)
}

func strconvTrim(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	for strings.HasSuffix(s, "0") {
		s = strings.TrimSuffix(s, "0")
	}
	return strings.TrimSuffix(s, ".")
}

// repeated stands for a scenario's repetitions by its median, once per
// stable repetition (at most 50): a record keeps medians, the
// repetitions collapse to them anyway, and the count keeps the stats'
// repetitions-needed estimate honest. No value gives no repetitions.
func repeated(v *float64, n int) []float64 {
	if v == nil || n == 0 {
		return nil
	}
	out := make([]float64, min(n, 50))
	for i := range out {
		out[i] = *v
	}
	return out
}

// judgeSuccess gives the success comparison its verdict: pass when no
// paired scenario went from passing to failing; fail when more did than
// the other way round and the exact McNemar test says noise is unlikely
// (p at most 1-confidence); underpowered when too few scenarios are
// paired for any outcome to reach that level; inconclusive otherwise.
func judgeSuccess(s *Success, paired int, conf float64) {
	b, c := len(s.NewlyFailing), len(s.NewlyPassing)
	s.PValue = 1
	if b+c > 0 {
		s.PValue = stats.McNemarExact(b, c)
	}
	alpha := 1 - conf
	switch {
	case b == 0:
		s.Verdict = Pass
		s.Reason = fmt.Sprintf("no scenario that passed in the baseline fails now (%d of %d paired scenarios pass, %d before)", s.CurrentPassed, paired, s.BaselinePassed)
	case b > c && s.PValue <= alpha:
		s.Verdict = Fail
		s.Reason = fmt.Sprintf("%d scenarios that passed in the baseline fail now and %d went the other way; unlikely to be chance (exact test of the changed scenarios, p = %.4f, at most %.2f)", b, c, s.PValue, alpha)
	case stats.McNemarExact(paired, 0) > alpha:
		s.Verdict = Underpowered
		s.Reason = fmt.Sprintf("%d scenarios fail now that passed in the baseline, but %d paired scenarios can never show a change at %.0f%% confidence (%d needed)", b, paired, conf*100, minDiscordant(alpha))
	default:
		s.Verdict = Inconclusive
		s.Reason = fmt.Sprintf("%d scenarios fail now that passed in the baseline and %d went the other way; this could be chance (exact test of the changed scenarios, p = %.4f, above %.2f)", b, c, s.PValue, alpha)
	}
}

// minDiscordant is the fewest discordant scenarios, all one way, that
// reach p <= alpha.
func minDiscordant(alpha float64) int {
	n := 1
	for stats.McNemarExact(n, 0) > alpha && n < 64 {
		n++
	}
	return n
}

func movedMost(pairs []stats.Pair) []Moved {
	ps := append([]stats.Pair(nil), pairs...)
	sort.SliceStable(ps, func(i, j int) bool { return math.Abs(ps[i].LogRatio) > math.Abs(ps[j].LogRatio) })
	out := []Moved{}
	for _, p := range ps {
		if len(out) == maxMoved || p.LogRatio == 0 {
			break
		}
		out = append(out, Moved{ID: p.ID, Baseline: p.Base, Current: p.Target, ChangePct: math.Expm1(p.LogRatio) * 100})
	}
	return out
}

// rank orders verdicts from worst to best for the overall verdict.
var rank = map[string]int{Fail: 0, Inconclusive: 1, Underpowered: 2, Untested: 3, Pass: 4}

func (c *Comparison) overall() string {
	worst := ""
	see := func(v string) {
		if worst == "" || rank[v] < rank[worst] {
			worst = v
		}
	}
	for _, m := range c.Modes {
		if m.Summary != nil {
			see(m.Summary.Verdict)
			continue
		}
		see(m.Success.Verdict)
		for _, e := range m.Efficiency {
			see(string(e.Verdict))
		}
	}
	if worst == "" {
		return Untested
	}
	return worst
}

// Regressed reports whether any metric of any mode failed.
func (c *Comparison) Regressed() bool { return c.Verdict == Fail }

// suiteChangeReason is changeReason in the suite scope: the change is
// the gate's estimand (the mean over the paired scenarios of the log
// ratio of this run's mean to the baseline's); the interval's upper end
// is the one-sided bound at the confidence (a pass needs it below the
// tolerance), its lower end the one-sided bound at the level Holm's step
// gives the metric (a fail needs it above).
func suiteChangeReason(r stats.Result, iv, t string) string {
	levels := fmt.Sprintf("upper bound one-sided at %.2f%%, lower at %.2f%%", r.Confidence*100, r.FailConfidence*100)
	switch r.Verdict {
	case stats.Pass:
		return fmt.Sprintf("on these %d paired scenarios the change %s (%s) is below the tolerance %s beyond the noise of the repetitions", r.Scenarios, iv, levels, t)
	case stats.Fail:
		return fmt.Sprintf("on these %d paired scenarios the change %s (%s) is above the tolerance %s beyond the noise of the repetitions", r.Scenarios, iv, levels, t)
	case stats.Underpowered:
		if r.Scenarios == 0 {
			return "no paired scenario has values in both runs (or every one is 0 in both)"
		}
		return fmt.Sprintf("no scenario has two repetitions in either run, so nothing measures the run-to-run noise; change %s", iv)
	}
	return fmt.Sprintf("the interval of the change %s (%s) contains the tolerance %s", iv, levels, t)
}

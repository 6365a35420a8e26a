package stats

import (
	"fmt"
	"math"
	"sync"
)

// Verdict is the outcome of one check judged on an interval.
type Verdict string

const (
	// Pass: the whole interval clears the threshold.
	Pass Verdict = "pass"
	// Fail: the whole interval is on the wrong side of it.
	Fail Verdict = "fail"
	// Inconclusive: the interval contains the threshold; more data
	// would decide.
	Inconclusive Verdict = "inconclusive"
	// Underpowered: fewer pairs than the confidence level can ever be
	// reached with (MinPairs); no outcome of this size could decide.
	Underpowered Verdict = "underpowered"
)

// Options tune Judge; the zero value gives the defaults.
type Options struct {
	// Confidence is the family-wise level across the metrics judged
	// together (default 0.95).
	Confidence float64
	// Power is the power the minimum detectable effect is given at
	// (default 0.8).
	Power float64
	// Replicates is the number of bootstrap resamples (default
	// DefaultReplicates).
	Replicates int
	// Seed makes the bootstrap reproducible (default DefaultSeed).
	Seed uint64
	// Scope is ScopeSuite (default) or ScopeScenarios: what a verdict
	// is about, and so which test decides it.
	Scope string
	// AvailableScenarios is how many scenarios the benchmark has, the
	// cap of the scenario scope's planner; 0 when unknown.
	AvailableScenarios int
}

// DefaultSeed is the bootstrap seed when none is given.
const DefaultSeed = 20260225

func (o Options) withDefaults() Options {
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if o.Power == 0 {
		o.Power = 0.8
	}
	if o.Replicates == 0 {
		o.Replicates = DefaultReplicates
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.Scope == "" {
		o.Scope = ScopeSuite
	}
	return o
}

// Metric is one reduction judged against its threshold: the check passes
// when the reduction of Target against Base is at least MinReductionPct
// (a negative value allows an increase up to its size, which is how a
// regression against a baseline is judged).
type Metric struct {
	Name            string
	Scenarios       []Scenario
	MinReductionPct float64
}

// Bootstrap is the cross-check interval, in reduction percent.
type Bootstrap struct {
	LowPct     float64 `json:"lowReductionPct"`
	HighPct    float64 `json:"highReductionPct"`
	Replicates int     `json:"replicates"`
	Seed       uint64  `json:"seed"`
	// Agrees says whether this interval gives the same verdict as the
	// signed-rank interval.
	Agrees bool `json:"agrees"`
}

// Result is the judgement of one Metric. Percentages are reductions
// (positive: the target arm used less); Low/High bound the interval.
type Result struct {
	Name            string  `json:"name"`
	MinReductionPct float64 `json:"thresholdReductionPct"`
	Verdict         Verdict `json:"verdict"`
	// Reason says in one sentence why, and what would decide it.
	Reason      string  `json:"reason"`
	Scenarios   int     `json:"scenarios"`
	Repetitions int     `json:"repetitions"` // median repetitions per scenario and arm
	EstimatePct float64 `json:"estimateReductionPct"`
	LowPct      float64 `json:"lowReductionPct"`
	HighPct     float64 `json:"highReductionPct"`
	// Confidence is the level this interval was computed at: the
	// family level split by Holm's step (1-α/m for the first metric).
	// In the suite scope it is the one-sided level of the interval's
	// lower end (the pass side) and FailConfidence that of its upper
	// end (the fail side, at the level Holm's step gives the check).
	Confidence     float64 `json:"confidence"`
	FailConfidence float64 `json:"failConfidence,omitempty"`
	// NoInterval: nothing measured the noise (no scenario with values,
	// or no arm with two repetitions), so there is no interval; Low and
	// High then repeat the estimate and views show none.
	NoInterval         bool    `json:"noInterval,omitempty"`
	AchievedConfidence float64 `json:"achievedConfidence"`
	Method             string  `json:"method"`
	// PValue tests "the reduction equals the threshold"; HolmPValue is
	// it adjusted across the metrics judged together. In the suite
	// scope PValue is the one-sided p-value of the pass ("the reduction
	// is above the threshold") and HolmPValue the Holm-adjusted one of
	// the fail, the two tests a suite-scope verdict rests on.
	PValue     float64 `json:"pValue"`
	HolmPValue float64 `json:"holmPValue"`
	// MinScenarios is MinPairs at this interval's level.
	MinScenarios int `json:"minScenarios"`
	// MDEPct is the smallest reduction detectable with Options.Power at
	// this many scenarios; nil when underpowered.
	MDEPct *float64 `json:"minDetectableReductionPct"`
	// MoreScenarios / RepetitionsNeeded: for inconclusive and
	// underpowered checks, about how many more scenarios (or
	// repetitions per scenario, if the spread is run-to-run noise) would
	// decide it; -1 when no amount would (the estimate sits on the
	// threshold), 0 otherwise.
	MoreScenarios int `json:"moreScenariosNeeded"`
	// TiesLimited: underpowered because ties (many scenarios with the
	// same value, as tool calls often have) keep the interval from
	// reaching the level, not because there are too few scenarios.
	TiesLimited       bool       `json:"tiesLimited"`
	RepetitionsNeeded int        `json:"repetitionsNeeded"`
	Bootstrap         *Bootstrap `json:"bootstrap"`
	// Plan says how many scenarios and repetitions would decide this
	// check with Options.Power (NewPlan); nil below three scenarios.
	Plan     *Plan    `json:"plan"`
	Excluded []string `json:"excludedScenarios"`
	Pairs    []Pair   `json:"pairs"`
	// Scope is the scope that decided (ScopeSuite or ScopeScenarios);
	// ScopeText says in words what the verdict is about and what it
	// does not claim.
	Scope     string `json:"scope"`
	ScopeText string `json:"scopeText"`
	// SuitePlan is the suite scope's planner: repetitions, not
	// scenarios; nil in the scenario scope or without repetitions to
	// measure the noise from.
	SuitePlan *SuitePlan `json:"suitePlan"`
	// Estimand says in words what EstimatePct estimates (suite scope).
	Estimand string `json:"estimand,omitempty"`
	// NoEvidence lists the scenarios left out because both arms are
	// all zero: they say nothing about a ratio (suite scope).
	NoEvidence []string `json:"noEvidenceScenarios,omitempty"`
	// ScenarioRatios are each scenario's arm means and log ratio, the
	// terms of the suite scope's estimate.
	ScenarioRatios []ScenarioRatio `json:"scenarioRatios,omitempty"`
	// ToDecide is the one sentence that says how much more data would
	// decide an undecided check ("" for a decided one). Every view shows
	// it as it is.
	ToDecide string `json:"toDecide"`
}

// Judge gives each metric its three-way verdict on a Wilcoxon
// signed-rank interval of the scenario log-ratios, with Holm's step-down
// across the metrics: ordered by the p-value of "reduction equals the
// threshold", the j-th of m gets an interval at level 1-α/(m-j+1), and
// is decided only when it and every metric before it exclude their
// thresholds. A decided metric passes when the whole interval is at or
// above its threshold and fails when it is wholly below; the rest are
// inconclusive, or underpowered when too few scenarios exist to reach
// the level at all. Thresholds must be below 100%.
func Judge(metrics []Metric, opts Options) ([]Result, error) {
	o := opts.withDefaults()
	if _, ok := ParseScope(o.Scope); !ok {
		return nil, fmt.Errorf("scope: expected %s or %s, got %q", ScopeSuite, ScopeScenarios, o.Scope)
	}
	if o.Scope == ScopeSuite {
		return judgeSuite(metrics, o)
	}
	if !(o.Confidence > 0 && o.Confidence < 1) {
		return nil, fmt.Errorf("confidence: expected a number between 0 and 1, got %v", o.Confidence)
	}
	if !(o.Power > 0 && o.Power < 1) {
		return nil, fmt.Errorf("power: expected a number between 0 and 1, got %v", o.Power)
	}
	alpha := 1 - o.Confidence
	m := len(metrics)
	res := make([]Result, m)
	// e holds each metric's excesses: the pairs measured from the
	// threshold (Excess), so that every figure the verdict rests on is
	// computed on one scale and a scenario on the threshold is a zero.
	e := make([][]float64, m)
	ps := make([]float64, m)
	for i, mt := range metrics {
		if !(mt.MinReductionPct < 100) || math.IsNaN(mt.MinReductionPct) {
			return nil, fmt.Errorf("%s: threshold: expected a reduction below 100%%, got %v", mt.Name, mt.MinReductionPct)
		}
		pairs, excluded := Pairs(mt.Scenarios)
		e[i] = make([]float64, len(pairs))
		for k, p := range pairs {
			e[i][k] = Excess(p.Base, p.Target, mt.MinReductionPct)
		}
		if pairs == nil {
			pairs = []Pair{}
		}
		if excluded == nil {
			excluded = []string{}
		}
		res[i] = Result{Name: mt.Name, MinReductionPct: mt.MinReductionPct, Scenarios: len(pairs), Repetitions: medianReps(mt.Scenarios), Pairs: pairs, Excluded: excluded}
		ps[i] = 1
		if len(pairs) > 0 {
			ps[i], _ = SignedRankTest(e[i], 0)
		}
	}
	holm := Holm(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sortStable(order, func(a, b int) bool { return ps[a] < ps[b] })
	levels := make([]float64, m)
	for j, i := range order {
		levels[i] = 1 - alpha/float64(m-j)
	}
	boots := bootstraps(metrics, e, levels, o)
	stepping := true
	for _, i := range order {
		r := &res[i]
		r.PValue, r.HolmPValue = ps[i], holm[i]
		judgeOne(r, e[i], metrics[i], levels[i], o.Power, boots[i], &stepping)
		r.Scope, r.ScopeText = ScopeScenarios, scenariosScopeText(r.Scenarios)
		// Planned at the strictest Holm level, so that the plan holds
		// wherever the check lands in the order.
		if p, ok := newPlan(metrics[i].Scenarios, r.Pairs, HodgesLehmann(e[i]), metrics[i].MinReductionPct, 1-alpha/float64(m), o.Power, o.AvailableScenarios); ok {
			r.Plan = p
		}
		if r.Verdict != Pass && r.Verdict != Fail {
			r.ToDecide = scenariosToDecide(r)
			if r.Plan != nil {
				// One sentence per check, the same wherever it is read.
				r.Plan.Summary = r.ToDecide
			}
		}
	}
	return res, nil
}

// bootstraps computes the cross-check of every metric with enough pairs,
// one goroutine each: they are independent, and the bootstrap is the
// costly part of Judge. Each has its own generator from the same seed.
func bootstraps(metrics []Metric, d [][]float64, levels []float64, o Options) []*Bootstrap {
	out := make([]*Bootstrap, len(metrics))
	var wg sync.WaitGroup
	for i, mt := range metrics {
		if len(d[i]) < BootstrapMinPairs {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if lo, hi, ok := BootstrapCI(mt.Scenarios, levels[i], o.Replicates, o.Seed); ok {
				out[i] = &Bootstrap{LowPct: ReductionPct(hi), HighPct: ReductionPct(lo), Replicates: o.Replicates, Seed: o.Seed}
			}
		}()
	}
	wg.Wait()
	return out
}

// judgeOne fills r from the excesses e (the pairs measured from the
// threshold) at the given level; stepping is Holm's "every earlier metric
// was decided", cleared here when r is not.
func judgeOne(r *Result, e []float64, mt Metric, level, power float64, boot *Bootstrap, stepping *bool) {
	t := mt.MinReductionPct
	r.Confidence = level
	r.MinScenarios = MinPairs(level)
	n := len(e)
	if n == 0 {
		r.Verdict = Underpowered
		r.Method = MethodExact
		r.MoreScenarios = r.MinScenarios
		r.Reason = fmt.Sprintf("no scenario has values in both arms; at least %d are needed for %s confidence", r.MinScenarios, pctText(level))
		*stepping = false
		return
	}
	ci := SignedRankCI(e, level)
	est := HodgesLehmann(e)
	r.EstimatePct = ReductionAt(est, t)
	// A larger excess is a smaller reduction: the interval flips.
	r.LowPct, r.HighPct = ReductionAt(ci.High, t), ReductionAt(ci.Low, t)
	r.AchievedConfidence, r.Method = ci.Confidence, ci.Method
	if mde := MDE(e, level, power); !math.IsNaN(mde) {
		v := ReductionPct(-mde)
		r.MDEPct = &v
	}
	// The verdict compares the excess interval with 0: the same scale
	// as the test, no tolerance needed.
	s := excessSide(ci)
	if boot != nil {
		boot.Agrees = side(boot.LowPct, boot.HighPct, t) == s
		r.Bootstrap = boot
	}
	interval := fmt.Sprintf("%s%% [%s%%, %s%%]", num(r.EstimatePct), num(r.LowPct), num(r.HighPct))
	if ci.Underpowered {
		r.Verdict = Underpowered
		r.MoreScenarios = r.MinScenarios - n
		r.Reason = fmt.Sprintf("%d scenarios can never reach %s confidence (the signed-rank interval needs at least %d); reduction %s, threshold %s%%", n, pctText(level), r.MinScenarios, interval, num(t))
		*stepping = false
		return
	}
	if ci.TiesLimited {
		// The ties cap the confidence below the level: whatever side
		// the interval lands on, it was not reached.
		r.Verdict = Underpowered
		r.TiesLimited = true
		r.Reason = fmt.Sprintf("ties leave no interval at this level: %d of %d scenarios share a value (%d exactly on the threshold), so the signed-rank statistic reaches at most %s confidence, not %s; reduction %s, threshold %s%% (the interval runs to the data's range)",
			tied(e), n, zeros(e), pctText(ci.Confidence), pctText(level), interval, num(t))
		*stepping = false
		return
	}
	switch {
	case *stepping && s > 0:
		r.Verdict = Pass
		r.Reason = fmt.Sprintf("the whole %s interval %s is above the threshold %s%%", pctText(level), interval, num(t))
		return
	case *stepping && s < 0:
		r.Verdict = Fail
		r.Reason = fmt.Sprintf("the whole %s interval %s is below the threshold %s%%", pctText(level), interval, num(t))
		return
	}
	*stepping = false
	r.Verdict = Inconclusive
	r.MoreScenarios, r.RepetitionsNeeded = needed(e, est, ci, r.Repetitions)
	why := fmt.Sprintf("the %s interval %s contains the threshold %s%%", pctText(level), interval, num(t))
	if s != 0 {
		why = fmt.Sprintf("the %s interval %s clears the threshold %s%%, but a metric judged before it did not decide, so Holm's correction stops here", pctText(level), interval, num(t))
	}
	r.Reason = why
}

// excessSide is +1 when the excess interval is wholly below 0 (the whole
// reduction interval above the threshold: pass), -1 when it is wholly
// above 0 (fail), 0 when it contains the threshold, an edge exactly on
// it included: an interval that reaches the threshold has not excluded
// it at its level.
func excessSide(ci Interval) int {
	switch {
	case ci.High < 0:
		return 1
	case ci.Low > 0:
		return -1
	}
	return 0
}

// tied is the number of values that share their value with another.
func tied(e []float64) int {
	count := map[float64]int{}
	for _, v := range e {
		count[v]++
	}
	n := 0
	for _, c := range count {
		if c > 1 {
			n += c
		}
	}
	return n
}

// zeros is the number of values exactly 0 (on the threshold).
func zeros(e []float64) int {
	n := 0
	for _, v := range e {
		if v == 0 {
			n++
		}
	}
	return n
}

// side is +1 when [lo, hi] is above t, -1 when wholly below, 0 when it
// contains t. An edge within 1e-9 points of t counts as on it (and so
// contains it): a reduction from 5 to 4 tool calls is 20% exactly, but
// comes back from the log scale as 19.999999999999996.
func side(lo, hi, t float64) int {
	const eps = 1e-9
	switch {
	case lo > t+eps:
		return 1
	case hi < t-eps:
		return -1
	}
	return 0
}

// needed estimates how much more data would move the interval's edge
// that faces the threshold past it: an interval's half-width shrinks as
// 1/√n, so with the edge at distance h from the estimate and the
// threshold (excess 0) at distance δ, about n·(h/δ)² scenarios (or
// r·(h/δ)² repetitions, when repetitions are what the spread comes from)
// would do. -1 for both when the estimate equals the threshold.
func needed(e []float64, est float64, ci Interval, reps int) (moreScenarios, reps2 int) {
	delta := math.Abs(est)
	if delta == 0 || math.IsInf(est, 0) {
		return -1, -1
	}
	h := est - ci.Low
	if est < 0 {
		h = ci.High - est
	}
	f := (h / delta) * (h / delta)
	n := len(e)
	total := int(math.Ceil(float64(n) * f))
	if min := MinPairs(ci.Confidence); total < min {
		total = min
	}
	if total <= n {
		total = n + 1
	}
	r := int(math.Ceil(float64(max(reps, 1)) * f))
	if r <= reps {
		r = reps + 1
	}
	return total - n, r
}

// medianReps is the median over scenarios of the smaller arm's number of
// repetitions.
func medianReps(scs []Scenario) int {
	if len(scs) == 0 {
		return 0
	}
	k := make([]float64, len(scs))
	for i, s := range scs {
		k[i] = float64(min(len(s.Base), len(s.Target)))
	}
	return int(math.Round(Median(k)))
}

func pctText(level float64) string { return num(level*100) + "%" }

// num prints a percentage with two decimals and no negative zero.
func num(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	if s == "-0.00" {
		return "0.00"
	}
	return s
}

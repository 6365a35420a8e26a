package stats

import (
	"fmt"
	"math"
)

// usableValues are the finite, non-negative values of an arm.
func usableValues(xs []float64) []float64 {
	var out []float64
	for _, v := range xs {
		if v >= 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

// judgeSuite is Judge in the suite scope: each check is the
// fixed-effects t-test of the mean over scenarios of the log ratio of
// the arms' means (NewMeanRatio), against the threshold's log ratio. A
// check passes when the one-sided test "the reduction is above the
// threshold" is significant at α = 1 − confidence: the gate passes only
// when every check passes, an intersection–union test (Berger 1982), so
// testing each at α keeps the chance that a suite on the thresholds
// passes at α or below with no correction. A check fails when the
// opposite one-sided test is significant after Holm's step-down across
// the checks, so that a false "fail" anywhere in the family stays at α.
// The interval printed is made of the two one-sided bounds at exactly
// those levels, so it excludes the threshold exactly when the verdict
// decides.
func judgeSuite(metrics []Metric, o Options) ([]Result, error) {
	if !(o.Confidence > 0 && o.Confidence < 1) {
		return nil, fmt.Errorf("confidence: expected a number between 0 and 1, got %v", o.Confidence)
	}
	if !(o.Power > 0 && o.Power < 1) {
		return nil, fmt.Errorf("power: expected a number between 0 and 1, got %v", o.Power)
	}
	m := len(metrics)
	alpha := 1 - o.Confidence
	res := make([]Result, m)
	tests := make([]MeanRatio, m)
	upper := make([]float64, m)
	for i, mt := range metrics {
		if !(mt.MinReductionPct < 100) || math.IsNaN(mt.MinReductionPct) {
			return nil, fmt.Errorf("%s: threshold: expected a reduction below 100%%, got %v", mt.Name, mt.MinReductionPct)
		}
		pairs, excluded := Pairs(mt.Scenarios)
		if pairs == nil {
			pairs = []Pair{}
		}
		if excluded == nil {
			excluded = []string{}
		}
		tests[i] = NewMeanRatio(mt.Scenarios)
		theta0 := LogRatioOf(mt.MinReductionPct)
		upper[i] = tests[i].PUpper(theta0)
		reps := make([]int, 0, len(tests[i].Scenarios))
		for _, s := range tests[i].Scenarios {
			reps = append(reps, min(s.BaseReps, s.TargetReps))
		}
		noEv := tests[i].NoEvidence
		if noEv == nil {
			noEv = []string{}
		}
		per := tests[i].Scenarios
		if per == nil {
			per = []ScenarioRatio{}
		}
		res[i] = Result{Name: mt.Name, MinReductionPct: mt.MinReductionPct, Scenarios: len(tests[i].Scenarios), Repetitions: medianReps(mt.Scenarios),
			Pairs: pairs, Excluded: excluded, Scope: ScopeSuite, Method: MethodMeanRatio, Estimand: EstimandMeanLogRatio,
			NoEvidence: noEv, ScenarioRatios: per}
		res[i].ScopeText = suiteScopeText(res[i].Scenarios, reps)
	}
	holm := Holm(upper)
	failLevels := holmLevels(upper, alpha)
	for i := range res {
		r := &res[i]
		theta0 := LogRatioOf(r.MinReductionPct)
		r.PValue, r.HolmPValue = tests[i].PLower(theta0), holm[i]
		judgeSuiteOne(r, tests[i], o.Confidence, 1-failLevels[i])
		effect := tests[i].Estimate - theta0
		r.SuitePlan = newSuitePlan(tests[i], effect, r.MinReductionPct, planLevel(effect, o.Confidence, m), o.Power)
		if r.Verdict != Pass && r.Verdict != Fail {
			r.ToDecide = suiteToDecide(r)
		}
	}
	return res, nil
}

// Methods and estimands of the suite scope.
const (
	// MethodMeanRatio: the fixed-effects t-test of the mean log ratio
	// of means with Welch–Satterthwaite degrees of freedom.
	MethodMeanRatio = "fixed-effects t-test of the mean log ratio of means"
	// EstimandMeanLogRatio names what a suite-scope check estimates.
	EstimandMeanLogRatio = EstimandText
	// EstimandText says the estimand in words.
	EstimandText = "the equal-weight mean over these scenarios of each scenario's log ratio of the arms' means (ghx over agent_direct; geometric means for metrics far from 0 such as tokens and latency, arithmetic means with half a unit added to each arm's total for counts such as tool calls), reported as the reduction 1 − exp(mean)"
)

// planLevel is the level a suite-scope check is planned at: a pass is
// tested at conf itself, a fail (an estimate below the threshold, a
// positive effect) at Holm's strictest step, 1 − α/m, so that the plan
// holds wherever Holm puts the check.
func planLevel(effect, conf float64, m int) float64 {
	if effect > 0 && m > 0 {
		return 1 - (1-conf)/float64(m)
	}
	return conf
}

// judgeSuiteOne decides one check: a pass when the one-sided upper bound
// on the log ratio at passConf is below the threshold's (the whole
// reduction interval above the threshold), a fail when the lower bound
// at failConf (the level Holm's step gives this check) is above it.
func judgeSuiteOne(r *Result, mr MeanRatio, passConf, failConf float64) {
	t := r.MinReductionPct
	theta0 := LogRatioOf(t)
	r.Confidence, r.FailConfidence = passConf, failConf
	r.MinScenarios = 1
	r.AchievedConfidence = passConf
	if len(mr.Scenarios) == 0 {
		r.Verdict = Underpowered
		r.Reason = "no scenario has values in both arms"
		if len(mr.NoEvidence) > 0 {
			r.Reason = fmt.Sprintf("every scenario is 0 in both arms (%d), which says nothing about a ratio", len(mr.NoEvidence))
		}
		r.AchievedConfidence = 0
		r.NoInterval = true
		return
	}
	r.EstimatePct = ReductionPct(mr.Estimate)
	if !mr.Known() {
		r.Verdict = Underpowered
		r.LowPct, r.HighPct = r.EstimatePct, r.EstimatePct
		r.AchievedConfidence = 0
		r.NoInterval = true
		r.Reason = fmt.Sprintf("no arm of any scenario has two repetitions, so nothing measures the run-to-run noise; reduction %s%%, threshold %s%%", num(r.EstimatePct), num(t))
		return
	}
	hiLog, loLog := mr.Upper(passConf), mr.Lower(failConf)
	r.LowPct, r.HighPct = ReductionPct(hiLog), ReductionPct(loLog)
	interval := fmt.Sprintf("%s%% [%s%%, %s%%]", num(r.EstimatePct), num(r.LowPct), num(r.HighPct))
	levels := fmt.Sprintf("lower bound at %s, upper at %s, one-sided", pctText(passConf), pctText(failConf))
	if passConf == failConf {
		levels = fmt.Sprintf("each bound one-sided at %s", pctText(passConf))
	}
	tStat := fmt.Sprintf("t=%s, df=%.1f", pText(mr.T(theta0)), mr.DF)
	switch {
	// Decided on the printed interval itself, so that the verdict and
	// the interval can never disagree, not even in the last bit.
	case r.LowPct > t:
		r.Verdict = Pass
		r.Reason = fmt.Sprintf("the reduction is above the threshold %s%% at %s confidence (one-sided p=%s, %s); reduction %s (%s)", num(t), pctText(passConf), pText(r.PValue), tStat, interval, levels)
	case r.HighPct < t:
		r.Verdict = Fail
		r.Reason = fmt.Sprintf("the reduction is below the threshold %s%% at %s confidence after Holm's step (one-sided p=%s, Holm-adjusted %s, %s); reduction %s (%s)", num(t), pctText(failConf), pText(mr.PUpper(theta0)), pText(r.HolmPValue), tStat, interval, levels)
	default:
		r.Verdict = Inconclusive
		r.Reason = fmt.Sprintf("the interval %s (%s) contains the threshold %s%%: the data shows the reduction neither above nor below it (one-sided p=%s above, %s below, %s)", interval, levels, num(t), pText(r.PValue), pText(mr.PUpper(theta0)), tStat)
	}
}

// pText prints a p-value with four significant digits.
func pText(p float64) string { return fmt.Sprintf("%.4g", p) }

// suiteScopeText says what a suite-scope verdict is about.
func suiteScopeText(n int, reps []int) string {
	return fmt.Sprintf("on these %d scenarios (%s repetitions per arm), beyond the noise of the repetitions; it claims nothing about scenarios outside this suite", n, repsText(reps))
}

// scenariosScopeText says what a scenario-scope verdict is about.
func scenariosScopeText(n int) string {
	return fmt.Sprintf("on scenarios like these %d, each scenario's median one observation; it claims the typical scenario's change, not every scenario's", n)
}

// repsText prints the repetitions per scenario: "4", or "2 to 5".
func repsText(reps []int) string {
	if len(reps) == 0 {
		return "0"
	}
	lo, hi := reps[0], reps[0]
	for _, r := range reps {
		lo, hi = min(lo, r), max(hi, r)
	}
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// MaxPlanRepetitions caps the suite planner's search.
const MaxPlanRepetitions = 200

// SuitePlan is the suite scope's planner: with the scenarios fixed, the
// lever is the repetitions per scenario and arm.
type SuitePlan struct {
	// Confidence is the level planned at: the pass side's level when
	// the estimate is above the threshold, the strictest Holm step
	// when it is below.
	Confidence  float64 `json:"confidence"`
	TargetPower float64 `json:"targetPower"`
	Scenarios   int     `json:"scenarios"`
	Repetitions int     `json:"repetitions"`
	// WithinSD is the run-to-run noise: the root of the mean relative
	// variance of one repetition (its variance over its arm's mean
	// squared), over every scenario and arm; WithinKnown is false when
	// no arm has two repetitions, and then nothing below is predicted.
	WithinSD            float64 `json:"withinScenarioSd"`
	WithinKnown         bool    `json:"withinKnown"`
	AssumedReductionPct float64 `json:"assumedReductionPct"`
	// CurrentPower is the predicted chance that this design decides the
	// check if the true reduction is the assumed one.
	CurrentPower float64 `json:"currentPower"`
	// RepetitionsNeeded is the fewest repetitions per arm, more than
	// this run's, with at least TargetPower; -1 when none up to
	// MaxPlanRepetitions (or the estimate is on the threshold).
	RepetitionsNeeded int `json:"repetitionsNeeded"`
	// DecidableFrom is the fewest repetitions per arm at which the test
	// can decide at all: 2, the fewest that measure the noise.
	DecidableFrom int `json:"decidableFrom"`
}

// newSuitePlan plans a suite-scope check at its estimate (effect: the
// estimate's log ratio less the threshold's); nil without scenarios.
func newSuitePlan(mr MeanRatio, effect, thr, conf, power float64) *SuitePlan {
	if len(mr.Scenarios) == 0 {
		return nil
	}
	reps := make([]float64, len(mr.Scenarios))
	for i, s := range mr.Scenarios {
		reps[i] = float64(min(s.BaseReps, s.TargetReps))
	}
	r0 := int(math.Round(Median(reps)))
	p := &SuitePlan{Confidence: conf, TargetPower: power, Scenarios: len(mr.Scenarios), Repetitions: r0, RepetitionsNeeded: -1, DecidableFrom: 2}
	if !mr.Known() {
		return p
	}
	mean := 0.0
	for _, rv := range mr.RelVar {
		mean += (rv[0] + rv[1]) / 2
	}
	p.WithinSD, p.WithinKnown = math.Sqrt(mean/float64(len(mr.RelVar))), true
	p.AssumedReductionPct = ReductionPct(mr.Estimate)
	p.CurrentPower = PT(math.Abs(effect)/mr.SE-QT(conf, mr.DF), mr.DF)
	if effect == 0 || math.IsNaN(effect) {
		p.CurrentPower = 0
		return p
	}
	// Power grows with the repetitions: the fewest that reach it, by
	// bisection.
	reach := func(r int) bool { return MeanRatioPower(mr.RelVar, r, effect, conf) >= power }
	if lo := r0 + 1; lo <= MaxPlanRepetitions && reach(MaxPlanRepetitions) {
		hi := MaxPlanRepetitions
		for lo < hi {
			mid := (lo + hi) / 2
			if reach(mid) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		p.RepetitionsNeeded = lo
	}
	return p
}

// suiteToDecide is the suite scope's one "how much more" sentence.
func suiteToDecide(r *Result) string {
	p := r.SuitePlan
	pw := "80%"
	if p != nil {
		pw = fmt.Sprintf("%.0f%%", p.TargetPower*100)
	}
	switch {
	case p == nil:
		return r.Reason
	case !p.WithinKnown:
		return fmt.Sprintf("the repetitions show no run-to-run spread to plan from; run these %d scenarios again with at least 2 repetitions per arm (this run: %d)", p.Scenarios, p.Repetitions)
	case p.AssumedReductionPct == r.MinReductionPct:
		return "the estimate sits on the threshold, so no number of repetitions decides it"
	case p.RepetitionsNeeded < 0:
		return fmt.Sprintf("no feasible size decides it: even %d repetitions per arm of these %d scenarios would not give %s power at the observed reduction (%s%%), which is too close to the threshold", MaxPlanRepetitions, p.Scenarios, pw, num(p.AssumedReductionPct))
	}
	return fmt.Sprintf("about %d repetitions per arm of these %d scenarios would give %s power to decide it if the true reduction is the observed %s%% (this run's %d: %.0f%%)",
		p.RepetitionsNeeded, p.Scenarios, pw, num(p.AssumedReductionPct), p.Repetitions, p.CurrentPower*100)
}

// scenariosToDecide is the scenario scope's one "how much more"
// sentence: the planner's, or without a plan (fewer than three
// scenarios) the count the interval needs.
func scenariosToDecide(r *Result) string {
	switch {
	case r.Plan != nil && r.Plan.Observed.Scenarios >= 0 && r.Plan.Observed.Scenarios <= r.Plan.Scenarios:
		p := r.Plan
		return fmt.Sprintf("the planner predicted %.0f%% power for this run's %d scenarios at %d repetitions at the observed reduction (%s%%), yet it did not decide: more scenarios than %d are needed, how many the prediction cannot say", p.Observed.CurrentPower*100, p.Scenarios, p.Repetitions, num(p.Observed.AssumedReductionPct), p.Scenarios)
	case r.Plan != nil:
		return r.Plan.Summary
	case r.TiesLimited:
		return fmt.Sprintf("ties cap this check at %s confidence; more scenarios with the same ties do not help", pctText(r.AchievedConfidence))
	case r.Scenarios < r.MinScenarios:
		return fmt.Sprintf("at least %d scenarios are needed before %s confidence can be reached at all (this run: %d)", r.MinScenarios, pctText(r.Confidence), r.Scenarios)
	}
	return fmt.Sprintf("at least 3 scenarios are needed to plan from (this run: %d)", r.Scenarios)
}

package stats

import (
	"fmt"
	"math"
	"sort"
)

// suiteData is one metric's repetitions prepared for the suite scope:
// each arm's usable values scaled so that the threshold is equality
// (target·100 against base·(100 − t), both floored at ZeroFloor), and
// the same on the log scale for the interval.
type suiteData struct {
	scaled, logs []stratum
	// excess holds every within-scenario pair of repetitions' excess,
	// logOfRatio(target·100, base·(100 − t)).
	excess []float64
	reps   []int // the smaller arm's usable repetitions per scenario
}

func prepareSuite(scs []Scenario, thr float64) suiteData {
	var d suiteData
	for _, s := range scs {
		b, t := usableValues(s.Base), usableValues(s.Target)
		if len(b) == 0 || len(t) == 0 {
			continue
		}
		var sc, lg stratum
		for _, v := range b {
			x := math.Max(v, ZeroFloor) * (100 - thr)
			sc.base = append(sc.base, x)
			lg.base = append(lg.base, math.Log(x))
		}
		for _, v := range t {
			x := math.Max(v, ZeroFloor) * 100
			sc.target = append(sc.target, x)
			lg.target = append(lg.target, math.Log(x))
		}
		for _, x := range thin(sc.base) {
			for _, y := range thin(sc.target) {
				d.excess = append(d.excess, logOfRatio(y, x))
			}
		}
		d.scaled, d.logs = append(d.scaled, sc), append(d.logs, lg)
		d.reps = append(d.reps, min(len(b), len(t)))
	}
	return d
}

// pairArmLimit caps the repetitions of an arm that enter the pairs the
// estimate and the interval's edges are chosen from: a run with
// thousands of repetitions per scenario would otherwise make millions of
// pairs per scenario. The test itself always uses every repetition.
const pairArmLimit = 200

// thin returns xs, or above pairArmLimit values that many evenly spaced
// order statistics of them (the smallest and largest included), so the
// pairs keep the arm's distribution at a bounded cost.
func thin(xs []float64) []float64 {
	if len(xs) <= pairArmLimit {
		return xs
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	out := make([]float64, pairArmLimit)
	for i := range out {
		out[i] = s[i*(len(s)-1)/(pairArmLimit-1)]
	}
	return out
}

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

// judgeSuite is Judge in the suite scope. Each check is van Elteren's
// stratified test at the threshold (StratifiedTest on the scaled
// repetitions, so a repetition pair exactly on the threshold is a tie).
// A check passes when the one-sided test "the reduction is above the
// threshold" is significant at α = 1 − confidence: the gate passes only
// when every check passes, an intersection–union test (Berger 1982), so
// testing each at α keeps the chance that a suite on the thresholds
// passes at α or below with no correction. A check fails when the
// opposite one-sided test is significant after Holm's step-down across
// the checks, so that a false "fail" anywhere in the family stays at α.
// A design whose most extreme outcome cannot reach α (MinOneSided) is
// underpowered, whatever the data.
func judgeSuite(metrics []Metric, o Options) ([]Result, error) {
	if !(o.Confidence > 0 && o.Confidence < 1) {
		return nil, fmt.Errorf("confidence: expected a number between 0 and 1, got %v", o.Confidence)
	}
	if !(o.Power > 0 && o.Power < 1) {
		return nil, fmt.Errorf("power: expected a number between 0 and 1, got %v", o.Power)
	}
	m := len(metrics)
	res := make([]Result, m)
	data := make([]suiteData, m)
	tests := make([]StratifiedResult, m)
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
		data[i] = prepareSuite(mt.Scenarios, mt.MinReductionPct)
		tests[i] = StratifiedTest(data[i].scaled)
		upper[i] = tests[i].PUpper
		res[i] = Result{Name: mt.Name, MinReductionPct: mt.MinReductionPct, Scenarios: len(data[i].scaled), Repetitions: medianReps(mt.Scenarios),
			Pairs: pairs, Excluded: excluded, Scope: ScopeSuite, Method: tests[i].Method}
		res[i].ScopeText = suiteScopeText(res[i].Scenarios, data[i].reps)
	}
	holm := Holm(upper)
	for i := range res {
		r := &res[i]
		r.PValue, r.HolmPValue = tests[i].PLower, holm[i]
		judgeSuiteOne(r, data[i], tests[i], o.Confidence)
		r.SuitePlan = newSuitePlan(data[i], HodgesLehmannPooled(data[i].excess), metrics[i].MinReductionPct, planLevel(HodgesLehmannPooled(data[i].excess), o.Confidence, m), o.Power)
		if r.Verdict != Pass && r.Verdict != Fail {
			r.ToDecide = suiteToDecide(r)
		}
	}
	return res, nil
}

// planLevel is the level a suite-scope check is planned at: a pass is
// tested at conf itself, a fail (an estimate below the threshold, a
// positive excess) at Holm's strictest step, 1 − α/m, so that the plan
// holds wherever Holm puts the check.
func planLevel(est, conf float64, m int) float64 {
	if est > 0 && m > 0 {
		return 1 - (1-conf)/float64(m)
	}
	return conf
}

// HodgesLehmannPooled is the stratified Hodges–Lehmann estimate that
// goes with van Elteren's test: the median of every within-scenario
// pair's difference (target repetition against base repetition). NaN
// for none.
func HodgesLehmannPooled(excess []float64) float64 {
	if len(excess) == 0 {
		return math.NaN()
	}
	c := append([]float64(nil), excess...)
	return medianInPlace(c)
}

// judgeSuiteOne decides one check at one-sided level conf: r.PValue is
// the pass side's p-value, r.HolmPValue the fail side's after Holm.
func judgeSuiteOne(r *Result, d suiteData, st StratifiedResult, conf float64) {
	t := r.MinReductionPct
	a := 1 - conf
	r.Confidence = conf
	r.MinScenarios = 1
	if len(d.scaled) == 0 {
		r.Verdict = Underpowered
		r.Reason = "no scenario has values in both arms"
		return
	}
	est := HodgesLehmannPooled(d.excess)
	lo, hi := suiteInterval(d, est, a)
	r.EstimatePct = ReductionAt(est, t)
	r.LowPct, r.HighPct = ReductionAt(hi, t), ReductionAt(lo, t)
	r.AchievedConfidence = 1 - math.Min(st.PLower, st.PUpper)
	interval := fmt.Sprintf("%s%% [%s%%, %s%%]", num(r.EstimatePct), num(r.LowPct), num(r.HighPct))
	switch {
	case st.MinOneSided > a:
		r.Verdict = Underpowered
		r.TiesLimited = hasTies(d.scaled)
		r.AchievedConfidence = 1 - st.MinOneSided
		why := "the repetitions are too few"
		if r.TiesLimited {
			why = "the repetitions are too few or too often tied"
		}
		r.Reason = fmt.Sprintf("%s: no outcome of this design reaches %s confidence, at most %s; reduction %s, threshold %s%%", why, pctText(conf), pctText(1-st.MinOneSided), interval, num(t))
	case st.PLower <= a:
		r.Verdict = Pass
		r.Reason = fmt.Sprintf("the reduction is above the threshold %s%% at %s confidence (van Elteren one-sided p=%s); reduction %s", num(t), pctText(conf), pText(st.PLower), interval)
	case r.HolmPValue <= a:
		r.Verdict = Fail
		r.Reason = fmt.Sprintf("the reduction is below the threshold %s%% at %s confidence (van Elteren one-sided p=%s, Holm-adjusted %s); reduction %s", num(t), pctText(conf), pText(st.PUpper), pText(r.HolmPValue), interval)
	default:
		r.Verdict = Inconclusive
		r.Reason = fmt.Sprintf("the interval %s contains the threshold %s%%: at %s confidence the data shows the reduction neither above nor below it (van Elteren one-sided p=%s)", interval, num(t), pctText(conf), pText(math.Min(st.PLower, st.PUpper)))
	}
}

// hasTies says whether any scenario has equal values (within or across
// arms) on the threshold's scale.
func hasTies(strata []stratum) bool {
	for _, s := range strata {
		seen := map[float64]bool{}
		for _, v := range append(append([]float64(nil), s.base...), s.target...) {
			if seen[v] {
				return true
			}
			seen[v] = true
		}
	}
	return false
}

// suiteInterval inverts the stratified test: the shifts of the excess
// (the target's log values moved by δ) that neither one-sided test at
// level a rejects, so each edge is a one-sided 1 − a bound (together a
// 1 − 2a interval). The edges are within-scenario pair differences, found by
// bisection on each side of the estimate between consecutive distinct
// differences (where no target repetition ties a base one). When no
// shift is rejected (an underpowered design) the interval is the range
// of the differences.
func suiteInterval(d suiteData, est, a float64) (lo, hi float64) {
	c := append([]float64(nil), d.excess...)
	sort.Float64s(c)
	k := 0
	for i := 1; i < len(c); i++ {
		if c[i] != c[k] {
			k++
			c[k] = c[i]
		}
	}
	c = c[:k+1]
	K := len(c)
	if K == 1 {
		return c[0], c[0]
	}
	accept := func(delta float64) bool {
		shifted := make([]stratum, len(d.logs))
		for i, s := range d.logs {
			ts := make([]float64, len(s.target))
			for j, v := range s.target {
				ts[j] = v - delta
			}
			shifted[i] = stratum{base: s.base, target: ts}
		}
		st := StratifiedTest(shifted)
		return st.PLower > a && st.PUpper > a
	}
	mid := func(i int) float64 { return (c[i] + c[i+1]) / 2 }
	k0 := sort.SearchFloat64s(c, est)
	k0 = min(k0, K-1)
	// The lower edge: the first difference whose right-hand side is
	// accepted.
	l := sort.Search(k0+1, func(i int) bool { return i >= K-1 || accept(mid(i)) })
	// The upper edge: the first difference at or after the estimate
	// whose right-hand side is rejected.
	h := k0 + sort.Search(K-k0, func(i int) bool { return k0+i >= K-1 || !accept(mid(k0+i)) })
	// When only the estimate's own breakpoint is accepted (the shifts
	// on either side of it are rejected, as when most pairs tie there),
	// both searches stop past it: the interval is then that point.
	lo, hi = c[min(l, k0)], c[max(min(h, K-1), k0)]
	return math.Min(lo, est), math.Max(hi, est)
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
	// Confidence is the level planned at: the strictest Holm step.
	Confidence  float64 `json:"confidence"`
	TargetPower float64 `json:"targetPower"`
	Scenarios   int     `json:"scenarios"`
	Repetitions int     `json:"repetitions"`
	// WithinSD is the pooled spread of one repetition's log value
	// around its scenario's mean, in one arm; WithinKnown is false when
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
	// DecidableFrom is the fewest repetitions per arm at which any
	// outcome of these scenarios can reach the level.
	DecidableFrom int `json:"decidableFrom"`
}

// newSuitePlan plans a suite-scope check at the estimate (an excess);
// nil without repetitions to measure the noise from.
func newSuitePlan(d suiteData, est, thr, conf, power float64) *SuitePlan {
	if len(d.logs) == 0 {
		return nil
	}
	ss, df := 0.0, 0
	for _, s := range d.logs {
		for _, arm := range [][]float64{s.base, s.target} {
			if len(arm) < 2 {
				continue
			}
			mean := 0.0
			for _, v := range arm {
				mean += v
			}
			mean /= float64(len(arm))
			for _, v := range arm {
				ss += (v - mean) * (v - mean)
			}
			df += len(arm) - 1
		}
	}
	reps := int(math.Round(Median(intsToFloats(d.reps))))
	p := &SuitePlan{Confidence: conf, TargetPower: power, Scenarios: len(d.logs), Repetitions: reps, RepetitionsNeeded: -1}
	p.DecidableFrom = -1
	for r := 1; r <= MaxPlanRepetitions; r++ {
		if suiteMinOneSided(len(d.logs), r) <= 1-conf {
			p.DecidableFrom = r
			break
		}
	}
	if df == 0 || math.IsNaN(est) {
		return p
	}
	p.WithinSD, p.WithinKnown = math.Sqrt(ss/float64(df)), true
	p.AssumedReductionPct = ReductionAt(est, thr)
	sizes := make([][2]int, len(d.logs))
	for i, s := range d.logs {
		sizes[i] = [2]int{len(s.base), len(s.target)}
	}
	p.CurrentPower = SuitePower(p.WithinSD, est, sizes, conf)
	if est == 0 {
		return p
	}
	for r := reps + 1; r <= MaxPlanRepetitions; r++ {
		for i := range sizes {
			sizes[i] = [2]int{r, r}
		}
		if SuitePower(p.WithinSD, est, sizes, conf) >= power {
			p.RepetitionsNeeded = r
			break
		}
	}
	return p
}

func intsToFloats(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// suiteMinOneSided is the smallest one-sided p-value van Elteren's
// exact test can give with n scenarios of r repetitions per arm and no
// ties: ∏ 1/C(2r, r).
func suiteMinOneSided(n, r int) float64 {
	lg := 0.0
	for i := 0; i < n; i++ {
		lg -= math.Log(binom(2*r, r))
	}
	return math.Min(1, math.Exp(lg))
}

// SuitePower is the predicted chance that van Elteren's one-sided test
// at level conf decides a check whose repetitions' log values have spread sd in
// each arm and whose target is effect (an excess) away from the
// threshold in every scenario; sizes are the base and target
// repetitions per scenario. Each scenario's Mann–Whitney count U (target
// repetitions below base ones) has, under the shift, mean mn·p₁ and
// variance mn·[p₁(1 − p₁) + (m + n − 2)(p₂ − p₁²)], p₁ = Φ(−Δ/(σ√2)) and
// p₂ = E[Φ(z − Δ/σ)²] (two pairs sharing a repetition); the weighted sum
// is taken as normal against its null mean and variance. Zero when no
// outcome of the design reaches the level.
func SuitePower(sd, effect float64, sizes [][2]int, conf float64) float64 {
	if effect == 0 || math.IsNaN(effect) || len(sizes) == 0 {
		return 0
	}
	lg := 0.0
	for _, s := range sizes {
		lg -= math.Log(binom(s[0]+s[1], s[1]))
	}
	if math.Exp(lg) > 1-conf {
		return 0
	}
	if sd == 0 {
		return 1
	}
	a := -effect / sd // positive: target lower
	p1 := pnorm(a / math.Sqrt2)
	p2 := simpson(-8, 8, func(z float64) float64 { c := pnorm(z + a); return phi(z) * c * c })
	var mu, v1, v0 float64
	for _, s := range sizes {
		m, n := float64(s[0]), float64(s[1])
		w := 1 / (m + n + 1)
		mu += w * m * n * (p1 - 0.5)
		v1 += w * w * m * n * (p1*(1-p1) + (m+n-2)*(p2-p1*p1))
		v0 += w * w * m * n * (m + n + 1) / 12
	}
	z := qnorm(conf)
	if v1 <= 0 {
		if math.Abs(mu) > z*math.Sqrt(v0) {
			return 1
		}
		return 0
	}
	return pnorm((math.Abs(mu) - z*math.Sqrt(v0)) / math.Sqrt(v1))
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
		return "no scenario has values in both arms"
	case p.DecidableFrom > p.Repetitions || p.DecidableFrom < 0:
		if p.DecidableFrom < 0 {
			return fmt.Sprintf("no number of repetitions of these %d scenarios up to %d can reach %s confidence", p.Scenarios, MaxPlanRepetitions, pctText(p.Confidence))
		}
		return fmt.Sprintf("these %d scenarios need at least %d repetitions per arm before any outcome reaches %s confidence (this run: %d)", p.Scenarios, p.DecidableFrom, pctText(p.Confidence), p.Repetitions)
	case !p.WithinKnown:
		return fmt.Sprintf("the repetitions show no run-to-run spread to plan from; run these %d scenarios again with more repetitions per arm (this run: %d)", p.Scenarios, p.Repetitions)
	case r.EstimatePct == r.MinReductionPct:
		return "the estimate sits on the threshold, so no number of repetitions decides it"
	case p.RepetitionsNeeded < 0:
		return fmt.Sprintf("even %d repetitions per arm of these %d scenarios would not give %s power at the observed reduction (%s%%): it is too close to the threshold", MaxPlanRepetitions, p.Scenarios, pw, num(r.EstimatePct))
	}
	return fmt.Sprintf("about %d repetitions per arm of these %d scenarios would give %s power to decide it if the true reduction is the observed %s%% (this run's %d: %.0f%%)",
		p.RepetitionsNeeded, p.Scenarios, pw, num(r.EstimatePct), p.Repetitions, p.CurrentPower*100)
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

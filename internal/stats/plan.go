package stats

import (
	"fmt"
	"math"
	"slices"
)

// Noise is what a run says about where the spread of a metric's
// per-scenario log-ratios comes from, on the log scale.
type Noise struct {
	// BetweenSD is the spread of the scenarios' true log-ratios: how much
	// the change differs from one scenario to the next. Only more
	// scenarios average it out.
	BetweenSD float64 `json:"betweenScenarioSd"`
	// WithinSD is the spread of one repetition's log value around its
	// scenario's typical value in one arm: run-to-run noise. More
	// repetitions shrink its share (a median of r repetitions).
	WithinSD float64 `json:"withinScenarioSd"`
	// WithinKnown is false when no scenario has two repetitions in an
	// arm, or every arm's repetitions are equal (a run record keeps only
	// medians): then all the spread is counted as between scenarios, and
	// more repetitions are assumed not to help.
	WithinKnown bool `json:"withinKnown"`
}

// pairSD is the spread of one scenario's log-ratio when each arm is the
// median of reps repetitions: σ_b² + 2·k(r)·σ_w², k(r) the variance of a
// median of r standard normal values.
func (n Noise) pairSD(reps int) float64 {
	return math.Sqrt(n.BetweenSD*n.BetweenSD + 2*medianVariance(reps)*n.WithinSD*n.WithinSD)
}

// EstimateNoise splits the spread of a metric's per-scenario excesses
// (log-ratios) into its between- and within-scenario parts: the
// within-scenario variance is pooled from every arm's repetitions (log
// values, zeros floored as in LogRatio), and what the observed variance
// of the ratios has beyond (k(r_base) + k(r_target))·σ_w², averaged over
// the scenarios, is the between-scenario variance. ok is false below three usable scenarios.
func EstimateNoise(scs []Scenario) (Noise, bool) {
	pairs, _ := Pairs(scs)
	return estimateNoise(scs, pairs)
}

// estimateNoise is EstimateNoise with the scenarios' pairs already made.
// The log values are summed in one pass (Welford), never copied: a run
// can hold thousands of repetitions per scenario.
func estimateNoise(scs []Scenario, pairs []Pair) (Noise, bool) {
	if len(pairs) < 3 {
		return Noise{}, false
	}
	d := make([]float64, len(pairs))
	for i, p := range pairs {
		d[i] = p.LogRatio
	}
	total := variance(d)
	ss, df := 0.0, 0
	for _, s := range scs {
		if len(s.Base) == 0 || len(s.Target) == 0 {
			continue
		}
		for _, arm := range [][]float64{s.Base, s.Target} {
			if len(arm) < 2 {
				continue
			}
			mean, m2 := 0.0, 0.0
			for i, v := range arm {
				l := math.Log(math.Max(v, ZeroFloor))
				delta := l - mean
				mean += delta / float64(i+1)
				m2 += delta * (l - mean)
			}
			if math.IsNaN(m2) || math.IsInf(m2, 0) {
				continue
			}
			ss += m2
			df += len(arm) - 1
		}
	}
	if df == 0 || ss == 0 {
		// No repetitions to compare, or every arm's repetitions equal
		// (as when a record keeps only medians): the within part is
		// unknown, and the plan counts all the spread as between.
		return Noise{BetweenSD: math.Sqrt(total)}, true
	}
	within := ss / float64(df)
	// Each pair's median-of-repetitions noise, arm by arm: with 5
	// repetitions in one mode and 2 in the other it is k(5) + k(2), not
	// 2·k(2), which would count too much of the spread as run-to-run
	// noise and leave the between part at 0.
	k, used := 0.0, 0
	for _, s := range scs {
		if len(s.Base) == 0 || len(s.Target) == 0 {
			continue
		}
		k += medianVariance(len(s.Base)) + medianVariance(len(s.Target))
		used++
	}
	k /= float64(max(used, 1))
	between := math.Max(0, total-k*within)
	return Noise{BetweenSD: math.Sqrt(between), WithinSD: math.Sqrt(within), WithinKnown: true}, true
}

// variance is the sample variance (n-1), 0 below two values.
func variance(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return ss / float64(len(x)-1)
}

// medianVariance is the variance of the median of r independent standard
// normal values: 1 for one, 1/2 for two, about 0.449 for three, and near
// π/(2r) for many. Up to 40 it is a table of the integrals of the middle
// order statistics' densities (medianVarianceIntegral in the tests, which
// checks the table against them and against seeded draws); above, π/(2(r
// + c)) with c fitted at 39 and 40 (0.44 for odd r, 1.31 for even).
func medianVariance(r int) float64 {
	switch {
	case r <= 1:
		return 1
	case r <= len(medianVariances):
		return medianVariances[r-1]
	case r%2 == 1:
		return math.Pi / (2 * (float64(r) + 0.436))
	}
	return math.Pi / (2 * (float64(r) + 1.314))
}

// medianVariances are medianVariance for 1 to 40 repetitions.
var medianVariances = [...]float64{
	1.000000000, 0.500000000, 0.448671105, 0.298203064, 0.286833662,
	0.214750324, 0.210446862, 0.168192957, 0.166101281, 0.138343079,
	0.137162434, 0.117537420, 0.116798995, 0.102193688, 0.101694652,
	0.090405698, 0.090046581, 0.081063643, 0.080790975, 0.073476815,
	0.073259755, 0.067192556, 0.067012296, 0.061901718, 0.061746257,
	0.057385910, 0.057247295, 0.053486439, 0.053359231, 0.050085202,
	0.049965579, 0.047092481, 0.046977692, 0.044438890, 0.044326916,
	0.042069925, 0.041959256, 0.039942172, 0.039831661, 0.038020624,
}

// Power is the chance that a check with n scenarios of reps repetitions,
// judged at level conf, decides (its interval excludes the threshold)
// when the typical log-ratio is effect away from the threshold and the
// scenarios' log-ratios are normal with the pair spread σ of the noise at
// reps repetitions. It is the normal approximation of the signed-rank
// statistic V (the number of Walsh averages beyond the threshold) under
// that shift: E V = n·p₁ + n(n−1)/2·p₂ and Var V = n·p₁(1 − p₁) +
// n(n−1)/2·p₂(1 − p₂) + n(n−1)(n−2)·(p₃ − p₂²) + 2n(n−1)·(p₄ − p₁p₂),
// with p₁ = P(X > 0), p₂ = P(X₁ + X₂ > 0), p₃ = P(X₁ + X₂ > 0, X₁ + X₃ >
// 0), p₄ = P(X₁ > 0, X₁ + X₂ > 0), against the two-sided critical values
// of V under no shift: exact below ExactLimit (what the interval uses),
// continuity-corrected normal above. Unlike Noether's shortcut
// (n = (z₁₋α/₂ + z₁₋β)² / 3(p₂ − ½)²), which takes V's spread under no
// shift, it stays right for large effects at small n. Below
// MinPairs(conf) scenarios no data decides: 0.
func Power(noise Noise, n, reps int, effect, conf float64) float64 {
	return powerAt(noise.spread(reps), n, effect, conf)
}

// spread is the pair spread at reps repetitions; without a known within
// part, the whole observed spread, whatever the repetitions.
func (n Noise) spread(reps int) float64 {
	if !n.WithinKnown {
		return n.BetweenSD
	}
	return n.pairSD(reps)
}

// powerAt is Power for a pair spread sd.
func powerAt(sd float64, n int, effect, conf float64) float64 {
	if n < MinPairs(conf) || effect == 0 || math.IsNaN(effect) {
		return 0
	}
	if sd == 0 {
		return 1
	}
	return shiftMoments(math.Abs(effect)/sd).power(n, conf)
}

// moments are the probabilities V's mean and variance under a shift are
// made of.
type moments struct{ p1, p2, p3, p4 float64 }

// shiftMoments computes them for X ~ N(a, 1): p₁ = Φ(a), p₂ = Φ(√2·a),
// and with X₁ = a + z, p₃ = E[Φ(z + 2a)²] and p₄ = E[1(z > −a)·Φ(z +
// 2a)], by Simpson's rule over ±8 standard deviations (p₄ from −a).
func shiftMoments(a float64) moments {
	m := moments{p1: pnorm(a), p2: pnorm(math.Sqrt2 * a)}
	m.p3 = simpson(-8, 8, func(z float64) float64 { c := pnorm(z + 2*a); return phi(z) * c * c })
	m.p4 = simpson(math.Max(-a, -8), 8, func(z float64) float64 { return phi(z) * pnorm(z+2*a) })
	return m
}

// power is the chance V lands beyond the two-sided critical values at
// level conf with n pairs.
func (m moments) power(n int, conf float64) float64 {
	if n < MinPairs(conf) {
		return 0
	}
	nf := float64(n)
	mean := nf*m.p1 + nf*(nf-1)/2*m.p2
	v := nf*m.p1*(1-m.p1) + nf*(nf-1)/2*m.p2*(1-m.p2) + nf*(nf-1)*(nf-2)*(m.p3-m.p2*m.p2) + 2*nf*(nf-1)*(m.p4-m.p1*m.p2)
	if v <= 0 {
		return 1
	}
	// V >= hi or V <= lo decides (the interval excludes the threshold).
	total := nf * (nf + 1) / 2
	var hi float64
	if n < ExactLimit {
		qu := qsignrank((1-conf)/2, n, signedRankCounts(n))
		hi = total - float64(max(qu, 1)) + 1
	} else {
		hi = total/2 + qnorm(1-(1-conf)/2)*math.Sqrt(nf*(nf+1)*(2*nf+1)/24) + 0.5
	}
	lo := total - hi
	sdA := math.Sqrt(v)
	upper := 1 - pnorm((hi-0.5-mean)/sdA)
	lower := pnorm((lo + 0.5 - mean) / sdA)
	return math.Min(1, upper+lower)
}

func phi(z float64) float64 { return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) }

// simpson integrates f over [a, b] with 100 panels.
func simpson(a, b float64, f func(float64) float64) float64 {
	const k = 100
	h := (b - a) / k
	s := f(a) + f(b)
	for i := 1; i < k; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(a+float64(i)*h)
	}
	return s * h / 3
}

// MaxPlanScenarios caps the planner's search: beyond it the answer is
// "more than" this many.
const MaxPlanScenarios = 10000

// ScenariosFor is the smallest number of scenarios at reps repetitions
// whose Power reaches power; -1 when even MaxPlanScenarios do not (or the
// effect is 0: an estimate on the threshold is never decided).
func ScenariosFor(noise Noise, reps int, effect, conf, power float64) int {
	return scenariosAt(noise.spread(reps), effect, conf, power)
}

// scenariosAt is ScenariosFor for a pair spread sd.
func scenariosAt(sd, effect, conf, power float64) int {
	if effect == 0 || math.IsNaN(effect) {
		return -1
	}
	if sd == 0 {
		return MinPairs(conf)
	}
	m := shiftMoments(math.Abs(effect) / sd)
	if m.power(MaxPlanScenarios, conf) < power {
		return -1
	}
	lo, hi := MinPairs(conf), MaxPlanScenarios
	for lo < hi {
		mid := (lo + hi) / 2
		if m.power(mid, conf) >= power {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// planRepetitions are the repetitions per scenario the planner offers
// beside the run's own.
var planRepetitions = []int{1, 3, 5, 10}

// DesignOption is one way to reach the power: this many scenarios at
// this many repetitions per scenario and arm (-1 scenarios: none do).
type DesignOption struct {
	Repetitions int `json:"repetitions"`
	Scenarios   int `json:"scenarios"`
}

// PlanAt is the plan for one assumed true reduction.
type PlanAt struct {
	// AssumedReductionPct is the true reduction assumed.
	AssumedReductionPct float64 `json:"assumedReductionPct"`
	// CurrentPower is the chance this run's design decides the check.
	CurrentPower float64 `json:"currentPower"`
	// Scenarios is how many scenarios at the run's repetitions reach the
	// target power; -1 when none do.
	Scenarios int            `json:"scenariosNeeded"`
	Options   []DesignOption `json:"options"`
}

// Plan says how large a run must be to decide a check.
type Plan struct {
	// Confidence is the level planned at: the strictest Holm step,
	// 1 − α/m, so that the check decides wherever Holm puts it.
	Confidence  float64 `json:"confidence"`
	TargetPower float64 `json:"targetPower"`
	Scenarios   int     `json:"scenarios"`
	Repetitions int     `json:"repetitions"`
	Noise
	// Observed assumes the true reduction is the estimate; NoChange
	// that it is 0% (for a reduction threshold, how large a run shows
	// that a change which saves nothing misses it).
	Observed PlanAt `json:"atObservedEffect"`
	NoChange PlanAt `json:"atNoChange"`
	// Available is how many scenarios the benchmark has, the cap on
	// what the plan may ask for; 0 when unknown.
	Available int `json:"availableScenarios"`
	// Summary is one sentence for people: "about 34 scenarios at 3
	// repetitions would give 80% power to decide it at the observed
	// effect (this run's power: 41%)".
	Summary string `json:"summary"`
}

// NewPlan plans a check from its scenarios: the noise they show, the
// estimate (an excess, the log-ratio measured from the threshold) and
// the threshold. ok is false when the noise cannot be estimated (fewer
// than three usable scenarios).
func NewPlan(scs []Scenario, estimateExcess, minReductionPct, conf, power float64) (*Plan, bool) {
	pairs, _ := Pairs(scs)
	return newPlan(scs, pairs, estimateExcess, minReductionPct, conf, power, 0)
}

// newPlan is NewPlan with the scenarios' pairs already made.
// available is how many scenarios the benchmark has (0: unknown).
func newPlan(scs []Scenario, pairs []Pair, estimateExcess, minReductionPct, conf, power float64, available int) (*Plan, bool) {
	noise, ok := estimateNoise(scs, pairs)
	if !ok {
		return nil, false
	}
	p := &Plan{Confidence: conf, TargetPower: power, Scenarios: len(pairs), Repetitions: max(1, medianReps(scs)), Noise: noise, Available: available}
	reps := append([]int(nil), planRepetitions...)
	if !slices.Contains(reps, p.Repetitions) {
		reps = append(reps, p.Repetitions)
		slices.Sort(reps)
	}
	sd := map[int]float64{}
	for _, r := range reps {
		sd[r] = noise.spread(r)
	}
	at := func(effect float64) PlanAt {
		cur := sd[p.Repetitions]
		a := PlanAt{AssumedReductionPct: ReductionAt(effect, minReductionPct), CurrentPower: powerAt(cur, p.Scenarios, effect, conf)}
		a.Scenarios = scenariosAt(cur, effect, conf, power)
		for _, r := range reps {
			a.Options = append(a.Options, DesignOption{Repetitions: r, Scenarios: scenariosAt(sd[r], effect, conf, power)})
		}
		return a
	}
	p.Observed = at(estimateExcess)
	p.NoChange = at(Excess(1, 1, minReductionPct))
	p.Summary = p.sentence()
	return p, true
}

// sentence is Summary. With the benchmark's size known, a plan beyond it
// says that no feasible size decides. Of a check that did not decide,
// scenariosToDecide never says the run is already powered.
func (p *Plan) sentence() string {
	pw := fmt.Sprintf("%.0f%%", p.TargetPower*100)
	o := p.Observed
	need := o.Scenarios
	switch {
	case need < 0:
		return fmt.Sprintf("at the observed reduction (%s%%) even %d scenarios would not give %s power: the estimate sits (almost) on the threshold", num(o.AssumedReductionPct), MaxPlanScenarios, pw)
	case need <= p.Scenarios:
		return fmt.Sprintf("this run's %d scenarios at %d repetitions already give %.0f%% power to decide it at the observed reduction (%s%%)", p.Scenarios, p.Repetitions, o.CurrentPower*100, num(o.AssumedReductionPct))
	case p.Available > 0 && need > p.Available:
		best := o.fewest()
		if best.Scenarios < 0 || best.Scenarios > p.Available {
			return fmt.Sprintf("no feasible size decides it: about %d scenarios at %d repetitions would give %s power at the observed reduction (%s%%), and the benchmark has %d; judge it on this suite (scope suite) instead", need, p.Repetitions, pw, num(o.AssumedReductionPct), p.Available)
		}
		return fmt.Sprintf("about %d scenarios at %d repetitions would give %s power to decide it at the observed reduction (%s%%; the benchmark has %d)", best.Scenarios, best.Repetitions, pw, num(o.AssumedReductionPct), p.Available)
	}
	s := fmt.Sprintf("about %d scenarios at %d repetitions would give %s power to decide it at the observed reduction (%s%%; this run's %d give %.0f%%)",
		need, p.Repetitions, pw, num(o.AssumedReductionPct), p.Scenarios, o.CurrentPower*100)
	if best := o.fewest(); best.Scenarios > 0 && best.Scenarios*5 <= need*4 && best.Repetitions != p.Repetitions {
		s += fmt.Sprintf(", or about %d at %d repetitions", best.Scenarios, best.Repetitions)
	}
	return s
}

// fewest is the option with the fewest scenarios (the fewest repetitions
// among equals); the sentence offers it when it saves a fifth of the
// scenarios or more.
func (a PlanAt) fewest() DesignOption {
	best := DesignOption{Scenarios: -1}
	for _, o := range a.Options {
		if o.Scenarios > 0 && (best.Scenarios < 0 || o.Scenarios < best.Scenarios) {
			best = o
		}
	}
	return best
}

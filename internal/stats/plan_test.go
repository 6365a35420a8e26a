package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// design is a benchmark shape and the noise model it is simulated with:
// scenarios' true log-ratios spread by between around the threshold's
// log-ratio less effect, every repetition's log value by within.
type design struct {
	n, reps         int
	between, within float64
	effect          float64 // true distance from the threshold, log scale (positive: better)
}

const planThreshold = 15

// simulate draws one run of the design.
func (d design) simulate(seed uint64) []Scenario {
	rng := rand.New(rand.NewPCG(seed, 0x706c616e))
	theta := LogRatioOf(planThreshold)
	out := make([]Scenario, d.n)
	for i := range out {
		level := 7 + 0.5*rng.NormFloat64()
		mu := theta - d.effect + d.between*rng.NormFloat64()
		s := Scenario{ID: fmt.Sprintf("s%03d", i)}
		for r := 0; r < d.reps; r++ {
			s.Base = append(s.Base, math.Exp(level+d.within*rng.NormFloat64()))
			s.Target = append(s.Target, math.Exp(level+mu+d.within*rng.NormFloat64()))
		}
		out[i] = s
	}
	return out
}

// planDesigns are the designs the planner is validated on (the table in
// docs/statistics.md).
var planDesigns = []design{
	{n: 20, reps: 3, between: 0.2, within: 0.2, effect: 0.2},
	{n: 12, reps: 5, between: 0.1, within: 0.3, effect: 0.25},
	{n: 40, reps: 1, between: 0.3, within: 0.1, effect: 0.12},
	{n: 60, reps: 3, between: 0.15, within: 0.4, effect: 0.15},
	{n: 15, reps: 2, between: 0.25, within: 0.25, effect: 0.35},
}

// TestPlannerPower: for each design, the power the planner predicts from
// the true noise is within 10 points of the share of 200 seeded runs in
// which Judge decides the check at the planned level (1 − 0.05/3).
func TestPlannerPower(t *testing.T) {
	const runs = 200
	conf := 1 - 0.05/3
	for di, d := range planDesigns {
		noise := Noise{BetweenSD: d.between, WithinSD: d.within, WithinKnown: true}
		predicted := Power(noise, d.n, d.reps, d.effect, conf)
		measured := decidedShare(t, d, uint64(di)*10000, runs, conf)
		t.Logf("| %d | %d | %.2f | %.2f | %.1f%% | %.0f%% | %.0f%% |", d.n, d.reps, d.between, d.within, ReductionAt(-d.effect, planThreshold), predicted*100, measured*100)
		if !(math.Abs(predicted-measured) <= 0.10) {
			t.Errorf("design %+v: predicted power %.0f%%, measured %.0f%% over %d runs", d, predicted*100, measured*100, runs)
		}
	}
}

// decidedShare is the share of runs of d (seeds from base) that Judge
// decides at conf.
func decidedShare(t *testing.T, d design, base uint64, runs int, conf float64) float64 {
	decided := 0
	for seed := uint64(0); seed < uint64(runs); seed++ {
		res, err := Judge([]Metric{{Name: "m", Scenarios: d.simulate(base + seed), MinReductionPct: planThreshold}}, Options{Scope: ScopeScenarios, Confidence: conf, Replicates: 20})
		if err != nil {
			t.Fatal(err)
		}
		if v := res[0].Verdict; v == Pass || v == Fail {
			decided++
		}
	}
	return float64(decided) / float64(runs)
}

// TestPlannerFromPilot: the planner's whole path. Over 50 pilot runs of
// 40 scenarios at 3 repetitions, EstimateNoise recovers the true
// variances on average (between within a quarter, within 5%); a pilot of
// 100 scenarios gives the plan, and a design of the size the plan asks
// for, at the true noise and effect, decides in 80% ± 10 points of 200
// seeded runs.
func TestPlannerFromPilot(t *testing.T) {
	truth := design{n: 40, reps: 3, between: 0.2, within: 0.3, effect: 0.12}
	var vb, vw float64
	for s := uint64(0); s < 50; s++ {
		n, ok := EstimateNoise(truth.simulate(1000 + s))
		if !ok || !n.WithinKnown {
			t.Fatalf("expected the noise of 40 scenarios at 3 repetitions, got %+v", n)
		}
		vb += n.BetweenSD * n.BetweenSD / 50
		vw += n.WithinSD * n.WithinSD / 50
	}
	if b, w := truth.between*truth.between, truth.within*truth.within; math.Abs(vb-b) > 0.25*b || math.Abs(vw-w) > 0.05*w {
		t.Errorf("noise: expected variances between %.3f and within %.3f on average, got %.4f and %.4f", b, w, vb, vw)
	}
	pilotDesign := truth
	pilotDesign.n = 100
	pilot := pilotDesign.simulate(99)
	conf := 1 - 0.05/3
	plan, ok := NewPlan(pilot, -truth.effect, planThreshold, conf, 0.8)
	if !ok {
		t.Fatal("expected a plan")
	}
	n := plan.Observed.Scenarios
	if n < 20 || n > 200 {
		t.Fatalf("expected a plan of tens of scenarios, got %d: %s", n, plan.Summary)
	}
	want := fmt.Sprintf("about %d scenarios at 3 repetitions would give 80%% power", n)
	if n <= pilotDesign.n {
		want = fmt.Sprintf("this run's %d scenarios at 3 repetitions already give", pilotDesign.n)
	}
	if !strings.Contains(plan.Summary, want) {
		t.Errorf("summary: expected %q, got %q", want, plan.Summary)
	}
	sized := truth
	sized.n = n
	got := decidedShare(t, sized, 5000, 200, conf)
	t.Logf("plan %+v; %d scenarios decided %.0f%% of 200 runs", plan.Noise, n, got*100)
	if !(math.Abs(got-0.8) <= 0.10) {
		t.Errorf("the planned %d scenarios decided %.0f%% of the runs, expected 80%% ± 10", n, got*100)
	}
	// Repetitions shrink only the within part: at 10 repetitions fewer
	// scenarios are needed than at 1, never fewer than the between part
	// alone would need.
	opt := map[int]int{}
	for _, o := range plan.Observed.Options {
		opt[o.Repetitions] = o.Scenarios
	}
	between := ScenariosFor(Noise{BetweenSD: plan.BetweenSD, WithinKnown: true}, 1, truth.effect, conf, 0.8)
	if !(opt[1] > opt[3] && opt[3] > opt[10] && opt[10] >= between) {
		t.Errorf("options: expected scenarios to fall with repetitions down to %d, got %v", between, opt)
	}
}

// TestPlanEdges: an estimate on the threshold cannot be planned for; one
// repetition leaves the within part unknown; a clear effect with a big
// run is already powered.
func TestPlanEdges(t *testing.T) {
	conf := 0.95
	p, ok := NewPlan(planDesigns[0].simulate(1), 0, planThreshold, conf, 0.8)
	if !ok || p.Observed.Scenarios != -1 || !strings.Contains(p.Summary, "sits (almost) on the threshold") {
		t.Errorf("estimate on the threshold: expected no design, got %+v", p)
	}
	one := design{n: 20, reps: 1, between: 0.2, within: 0.1, effect: 0.2}
	p, ok = NewPlan(one.simulate(2), -0.2, planThreshold, conf, 0.8)
	if !ok || p.WithinKnown || p.Observed.Options[0].Scenarios != p.Observed.Options[len(p.Observed.Options)-1].Scenarios {
		t.Errorf("one repetition: expected the within part unknown and repetitions not to help, got %+v", p)
	}
	// Medians repeated (what a run record gives): within unknown, not 0.
	var rec []Scenario
	for i, sc := range planDesigns[0].simulate(5) {
		b, tg := Median(sc.Base), Median(sc.Target)
		rec = append(rec, Scenario{ID: fmt.Sprint(i), Base: []float64{b, b, b}, Target: []float64{tg, tg, tg}})
	}
	if p, ok := NewPlan(rec, -0.2, planThreshold, conf, 0.8); !ok || p.WithinKnown || p.BetweenSD == 0 {
		t.Errorf("repeated medians: expected the within part unknown and all spread between, got %+v", p)
	}
	big := design{n: 60, reps: 3, between: 0.05, within: 0.05, effect: 0.3}
	p, _ = NewPlan(big.simulate(3), -0.3, planThreshold, conf, 0.8)
	if p.Observed.CurrentPower < 0.99 || !strings.Contains(p.Summary, "already give") {
		t.Errorf("clear effect, 60 scenarios: expected the run already powered, got %+v", p)
	}
	if _, ok := NewPlan(planDesigns[0].simulate(4)[:2], -0.1, planThreshold, conf, 0.8); ok {
		t.Error("two scenarios: expected no plan")
	}
}

// medianVarianceIntegral is the variance of the median of r independent
// standard normal values, integrated from the densities of the middle order
// statistics: for odd r the middle one's second moment; for even r the
// mean of the two middle ones, whose product moment is an integral over
// x < y done with a running inner integral. Accurate to about 1e-6.
func medianVarianceIntegral(r int) float64 {
	if r <= 1 {
		return 1
	}
	const lo, hi, k = -9.0, 9.0, 1200
	h := (hi - lo) / k
	x := make([]float64, k+1)
	pdf, cdf := make([]float64, k+1), make([]float64, k+1)
	for i := range x {
		x[i] = lo + float64(i)*h
		pdf[i], cdf[i] = phi(x[i]), pnorm(x[i])
	}
	lf := func(n int) float64 { v, _ := math.Lgamma(float64(n + 1)); return v }
	// second is E[X(j)²], X(j) the j-th smallest of r (1-based).
	second := func(j int) float64 {
		c := lf(r) - lf(j-1) - lf(r-j)
		s := 0.0
		for i := range x {
			w := h
			if i == 0 || i == k {
				w /= 2
			}
			d := math.Exp(c) * math.Pow(cdf[i], float64(j-1)) * math.Pow(1-cdf[i], float64(r-j)) * pdf[i]
			s += w * x[i] * x[i] * d
		}
		return s
	}
	if r%2 == 1 {
		return second((r + 1) / 2)
	}
	m := r / 2
	// E[X(m)·X(m+1)] = r!/((m−1)!)² ∫ x φ(x) Φ(x)^(m−1) G(x) dx with
	// G(x) = ∫_x^∞ y φ(y) (1 − Φ(y))^(m−1) dy, G built from the top.
	c := lf(r) - 2*lf(m-1)
	g := make([]float64, k+1)
	inner := func(i int) float64 { return x[i] * pdf[i] * math.Pow(1-cdf[i], float64(m-1)) }
	for i := k - 1; i >= 0; i-- {
		g[i] = g[i+1] + h*(inner(i)+inner(i+1))/2
	}
	xy := 0.0
	for i := range x {
		w := h
		if i == 0 || i == k {
			w /= 2
		}
		xy += w * x[i] * pdf[i] * math.Pow(cdf[i], float64(m-1)) * g[i]
	}
	xy *= math.Exp(c)
	return (second(m) + second(m+1) + 2*xy) / 4
}

// TestMedianVariance: the table against the integrals, the integrals
// against known values (1, 1/2) and 100,000 seeded draws, and the formula
// above the table against draws.
func TestMedianVariance(t *testing.T) {
	for r := 1; r <= len(medianVariances); r++ {
		if v, w := medianVariance(r), medianVarianceIntegral(r); !near(v, w, 1e-8) {
			t.Errorf("r=%d: table %v, integral %v", r, v, w)
		}
	}
	if v := medianVarianceIntegral(2); !near(v, 0.5, 1e-6) {
		t.Errorf("r=2: expected 1/2, got %v", v)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, r := range []int{3, 4, 5, 10, 25, 41, 42, 55} {
		const draws = 100000
		x := make([]float64, r)
		ss := 0.0
		for i := 0; i < draws; i++ {
			for j := range x {
				x[j] = rng.NormFloat64()
			}
			m := Median(x)
			ss += m * m
		}
		mc := ss / draws
		if v := medianVariance(r); !(math.Abs(v-mc) <= 0.015*mc) {
			t.Errorf("r=%d: %v, draws %v", r, v, mc)
		}
	}
}

// TestNoiseUnequalRepetitions: with 5 repetitions in one mode and 2 in
// the other, the between-scenario variance is estimated without bias
// (its mean over 300 seeded runs of 20 scenarios within 25% of the true
// 0.04), and not 0 in most runs.
func TestNoiseUnequalRepetitions(t *testing.T) {
	rng := rand.New(rand.NewPCG(52, 1))
	const runs, between, within = 300, 0.2, 0.3
	sum, zeros := 0.0, 0
	for i := 0; i < runs; i++ {
		var scs []Scenario
		for s := 0; s < 20; s++ {
			level, effect := rng.NormFloat64(), between*rng.NormFloat64()
			var sc Scenario
			for r := 0; r < 5; r++ {
				sc.Base = append(sc.Base, 1000*math.Exp(level+within*rng.NormFloat64()))
			}
			for r := 0; r < 2; r++ {
				sc.Target = append(sc.Target, 1000*math.Exp(level+effect+within*rng.NormFloat64()))
			}
			scs = append(scs, sc)
		}
		n, ok := EstimateNoise(scs)
		if !ok {
			t.Fatal("no noise estimate")
		}
		sum += n.BetweenSD * n.BetweenSD
		if n.BetweenSD == 0 {
			zeros++
		}
	}
	if mean := sum / runs; math.Abs(mean-between*between) > 0.25*between*between || zeros > runs/4 {
		t.Errorf("between variance: mean %v over %d runs (true %v), 0 in %d runs", mean, runs, between*between, zeros)
	}
}

package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSimulatedEffects judges suites generated with a known true effect,
// 200 seeds each, as the gate would (three metrics together, Holm, 95%;
// the gate passes when every metric passes and fails when any fails): a
// 30% reduction with low noise must pass, no change with high noise must
// never pass the gate and be inconclusive in at least 95% of the runs,
// and a 30% increase must fail. A single metric may still pass by chance
// under no change, at most at the rate its confidence level allows.
func TestSimulatedEffects(t *testing.T) {
	tests := []struct {
		name         string
		scenarios    int
		reps         int
		ratio, noise float64
		minShare     float64 // share of runs whose gate has the wanted verdict
		want, never  Verdict
	}{
		{name: "true 30% reduction, low noise", scenarios: 12, reps: 3, ratio: 0.7, noise: 0.05, minShare: 1, want: Pass, never: Fail},
		{name: "true 0%, high noise", scenarios: 8, reps: 1, ratio: 1.0, noise: 2.0, minShare: 0.95, want: Inconclusive, never: Pass},
		{name: "true 30% increase", scenarios: 12, reps: 3, ratio: 1.3, noise: 0.05, minShare: 1, want: Fail, never: Pass},
	}
	const runs = 200
	for ti, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, perMetric := map[Verdict]int{}, map[Verdict]int{}
			for seed := uint64(0); seed < runs; seed++ {
				base := uint64(ti)*1000 + seed*3
				res, err := Judge([]Metric{
					{Name: "tokens", Scenarios: scenarios(base, tc.scenarios, tc.reps, tc.ratio, tc.noise), MinReductionPct: 15},
					{Name: "latency", Scenarios: scenarios(base+1, tc.scenarios, tc.reps, tc.ratio, tc.noise), MinReductionPct: 15},
					{Name: "tool_calls", Scenarios: scenarios(base+2, tc.scenarios, tc.reps, tc.ratio, tc.noise), MinReductionPct: 20},
				}, Options{Scope: ScopeScenarios, Replicates: 200})
				if err != nil {
					t.Fatal(err)
				}
				gate := Pass
				for _, r := range res {
					perMetric[r.Verdict]++
					switch {
					case r.Verdict == Fail:
						gate = Fail
					case r.Verdict != Pass && gate == Pass:
						gate = Inconclusive
					}
				}
				got[gate]++
				if gate == tc.never {
					t.Errorf("seed %d: the gate gave %s, which this effect must never give: %+v", seed, gate, res)
				}
			}
			t.Logf("gate verdicts over %d runs: %v; per metric: %v", runs, got, perMetric)
			if share := float64(got[tc.want]) / runs; share < tc.minShare {
				t.Errorf("expected %s in at least %.0f%% of the runs, got %.1f%% (%v)", tc.want, tc.minShare*100, share*100, got)
			}
			// One metric alone passes under no change at most as often as
			// its one-sided error allows (2.5% at 95%).
			if tc.ratio == 1 && float64(perMetric[Pass]) > 0.025*3*runs {
				t.Errorf("no change: %d of %d metrics passed, more than 2.5%%", perMetric[Pass], 3*runs)
			}
		})
	}
}

// noiseModel draws one scenario's repetitions in both arms: the target
// is the base scaled by ratio, under the model's kind of noise.
type noiseModel struct {
	name string
	draw func(rng *rand.Rand, level, ratio float64, reps int) (base, target []float64)
}

// lnNoise scales v by e^(sd·N).
func lnNoise(rng *rand.Rand, v, sd float64) float64 { return v * math.Exp(sd*rng.NormFloat64()) }

// t2 is a Student t draw with 2 degrees of freedom: N / sqrt(χ²₂/2).
func t2(rng *rand.Rand) float64 {
	return rng.NormFloat64() / math.Sqrt(-math.Log(1-rng.Float64()))
}

// noiseModels are the noise the gate must stay honest under.
var noiseModels = []noiseModel{
	{"heavy-tailed log-normal (log sd 1)", func(rng *rand.Rand, level, ratio float64, reps int) (b, t []float64) {
		for r := 0; r < reps; r++ {
			b = append(b, math.Round(lnNoise(rng, level, 1)))
			t = append(t, math.Round(lnNoise(rng, level*ratio, 1)))
		}
		return b, t
	}},
	{"t(2) on the log scale", func(rng *rand.Rand, level, ratio float64, reps int) (b, t []float64) {
		for r := 0; r < reps; r++ {
			b = append(b, math.Round(level*math.Exp(0.3*t2(rng))))
			t = append(t, math.Round(level*ratio*math.Exp(0.3*t2(rng))))
		}
		return b, t
	}},
	{"scenarios spanning 100x", func(rng *rand.Rand, level, ratio float64, reps int) (b, t []float64) {
		level *= math.Pow(100, rng.Float64()) / 10
		for r := 0; r < reps; r++ {
			b = append(b, math.Round(lnNoise(rng, level, 0.3)))
			t = append(t, math.Round(lnNoise(rng, level*ratio, 0.3)))
		}
		return b, t
	}},
	{"correlated repetitions", func(rng *rand.Rand, level, ratio float64, reps int) (b, t []float64) {
		// One shock per scenario and arm that all its repetitions share.
		sb, st := math.Exp(0.4*rng.NormFloat64()), math.Exp(0.4*rng.NormFloat64())
		for r := 0; r < reps; r++ {
			b = append(b, math.Round(lnNoise(rng, level*sb, 0.1)))
			t = append(t, math.Round(lnNoise(rng, level*ratio*st, 0.1)))
		}
		return b, t
	}},
	{"random ghx failures", func(rng *rand.Rand, level, ratio float64, reps int) (b, t []float64) {
		for r := 0; r < reps; r++ {
			b = append(b, math.Round(lnNoise(rng, level, 0.3)))
			// A failed ghx run has no efficiency values; a scenario can
			// lose all of them.
			if rng.Float64() < 0.2 {
				continue
			}
			t = append(t, math.Round(lnNoise(rng, level*ratio, 0.3)))
		}
		return b, t
	}},
	{"low counts, Poisson(1)", func(rng *rand.Rand, level, ratio float64, reps int) (b, t []float64) {
		for r := 0; r < reps; r++ {
			b = append(b, poisson(rng, 1))
			t = append(t, poisson(rng, ratio))
		}
		return b, t
	}},
}

// TestNoiseModelsFamilyWise: under every noise model, with each metric's
// true reduction exactly at its threshold (the hardest case: any pass is
// a false pass), 20 scenarios of 3 repetitions, judged together at 95%
// with Holm, at most 5% of 200 seeded runs pass any metric.
func TestNoiseModelsFamilyWise(t *testing.T) {
	const runs, n, reps = 200, 20, 3
	thresholds := []float64{15, 15, 20}
	for mi, m := range noiseModels {
		t.Run(m.name, func(t *testing.T) {
			falsePass := 0
			for seed := uint64(0); seed < runs; seed++ {
				rng := rand.New(rand.NewPCG(uint64(mi)*1000+seed, 13))
				metrics := make([]Metric, len(thresholds))
				for k, th := range thresholds {
					metrics[k] = Metric{Name: fmt.Sprint("m", k), MinReductionPct: th}
					for i := 0; i < n; i++ {
						b, tg := m.draw(rng, 1000*math.Exp(0.5*rng.NormFloat64()), 1-th/100, reps)
						metrics[k].Scenarios = append(metrics[k].Scenarios, Scenario{ID: fmt.Sprint("s", i), Base: b, Target: tg})
					}
				}
				res, err := Judge(metrics, Options{Scope: ScopeScenarios, Replicates: 50})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range res {
					if r.Verdict == Pass {
						falsePass++
						break
					}
				}
			}
			t.Logf("%s: family-wise false passes %d of %d", m.name, falsePass, runs)
			if falsePass > runs*5/100 {
				t.Errorf("%s: %d of %d runs passed a metric whose true reduction is only at its threshold, more than 5%%", m.name, falsePass, runs)
			}
		})
	}
}

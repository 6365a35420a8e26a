package stats

import "testing"

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
				}, Options{Replicates: 200})
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

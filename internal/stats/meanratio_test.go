package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPTClosedForm: Student's t distribution against its closed forms
// for 1 to 4 degrees of freedom, and the quantile as its inverse.
func TestPTClosedForm(t *testing.T) {
	closed := map[float64]func(x float64) float64{
		1: func(x float64) float64 { return 0.5 + math.Atan(x)/math.Pi },
		2: func(x float64) float64 { return 0.5 + x/(2*math.Sqrt(2+x*x)) },
		3: func(x float64) float64 {
			return 0.5 + (x/(math.Sqrt(3)*(1+x*x/3))+math.Atan(x/math.Sqrt(3)))/math.Pi
		},
		4: func(x float64) float64 {
			u := 1 + x*x/4
			return 0.5 + 3.0/8*x/math.Sqrt(u)*(1-x*x/(12*u))
		},
	}
	for df, f := range closed {
		for _, x := range []float64{-40, -6.3, -2.1, -1, -0.3, 0, 0.01, 0.7, 1.645, 2.5, 9, 100} {
			if got, want := PT(x, df), f(x); math.Abs(got-want) > 1e-12 {
				t.Errorf("PT(%v, %v) = %.15g, closed form %.15g", x, df, got, want)
			}
		}
		for _, p := range []float64{0.001, 0.05, 0.5, 0.95, 1 - 0.05/3} {
			if q := QT(p, df); math.Abs(f(q)-p) > 1e-12 {
				t.Errorf("QT(%v, %v) = %v, whose closed-form CDF is %v", p, df, q, f(q))
			}
		}
	}
	// Large df tends to the normal; 1.6448536269514722 is z at 0.95.
	if q := QT(0.95, 1e7); math.Abs(q-1.6448536269514722) > 1e-5 {
		t.Errorf("QT(0.95, 1e7) = %v", q)
	}
}

// TestMeanRatioByHand: one scenario of two repetitions per arm, worked
// by hand: the arms' log means 0 and log 2 ± 0, log variances
// (log 2)²/2 each, so the estimate is −(log 2)/... and df = 2 (two arms
// of one degree of freedom with equal variances), the p-value the t(2)
// closed form's.
func TestMeanRatioByHand(t *testing.T) {
	// base 100 and 200 (logs l and l + ln 2), target 50 and 100.
	scs := []Scenario{{ID: "a", Base: []float64{100, 200}, Target: []float64{50, 100}}}
	mr := NewMeanRatio(scs)
	ln2 := math.Ln2
	wantEst := -ln2                    // mean log target − mean log base
	wantVar := 2 * (ln2 * ln2 / 2 / 2) // each arm: s²_log/n = (ln2²/2)/2
	if math.Abs(mr.Estimate-wantEst) > 1e-12 || math.Abs(mr.SE*mr.SE-wantVar) > 1e-12 || math.Abs(mr.DF-2) > 1e-12 {
		t.Fatalf("estimate %v se² %v df %v, want %v %v 2", mr.Estimate, mr.SE*mr.SE, mr.DF, wantEst, wantVar)
	}
	theta0 := LogRatioOf(15)
	x := (wantEst - theta0) / math.Sqrt(wantVar)
	want := 0.5 + x/(2*math.Sqrt(2+x*x)) // t(2) closed form
	if got := mr.PLower(theta0); math.Abs(got-want) > 1e-12 {
		t.Errorf("one-sided p %v, closed form %v", got, want)
	}
}

// TestLowCountsHalfCut: tool calls at a mean of 1.5 per run in
// agent_direct and 0.75 in ghx (a true 50% cut, many zeros), 15
// scenarios × 4, judged against 20%: over 300 seeds the check never
// fails, passes in most runs, and its estimate centres near 50%, not 0.
// With no cut, it never passes and its estimate centres on 0.
func TestLowCountsHalfCut(t *testing.T) {
	for _, tc := range []struct {
		cut          float64
		minPass      float64
		wantEstimate float64
	}{{0.5, 0.6, 50}, {1, 0, 0}} {
		t.Run(fmt.Sprintf("ratio %v", tc.cut), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(40, 1))
			pass, fail := 0, 0
			var ests []float64
			const runs = 300
			for i := 0; i < runs; i++ {
				var scs []Scenario
				for s := 0; s < 15; s++ {
					sc := Scenario{ID: fmt.Sprint(s)}
					for r := 0; r < 4; r++ {
						sc.Base = append(sc.Base, poisson(rng, 1.5))
						sc.Target = append(sc.Target, poisson(rng, 1.5*tc.cut))
					}
					scs = append(scs, sc)
				}
				res, err := Judge([]Metric{{Name: "tool_calls", Scenarios: scs, MinReductionPct: 20}}, Options{})
				if err != nil {
					t.Fatal(err)
				}
				switch res[0].Verdict {
				case Pass:
					pass++
				case Fail:
					fail++
				}
				ests = append(ests, res[0].EstimatePct)
			}
			med := Median(ests)
			t.Logf("pass %d, fail %d of %d; median estimate %.1f%%", pass, fail, runs, med)
			if tc.cut < 1 && (fail > 0 || float64(pass) < tc.minPass*runs) {
				t.Errorf("a true 50%% cut: %d fails, %d passes of %d", fail, pass, runs)
			}
			if tc.cut == 1 && pass > 0 {
				t.Errorf("no cut passed %d times", pass)
			}
			if math.Abs(med-tc.wantEstimate) > 5 {
				t.Errorf("median estimate %.1f%%, expected about %v%%", med, tc.wantEstimate)
			}
		})
	}
}

// TestIntervalAgreesWithVerdict: over seeded suites of every kind, the
// printed interval lies wholly above the threshold exactly when the
// check passes and wholly below exactly when it fails (after Holm), and
// no reason says the interval contains a threshold it excludes.
func TestIntervalAgreesWithVerdict(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 40))
	for i := 0; i < 400; i++ {
		d := calibrationDesigns[i%len(calibrationDesigns)]
		d.truth = [3]float64{rng.Float64()*60 - 10, rng.Float64()*60 - 10, rng.Float64()*60 - 10}
		scs := d.simulate(rng)
		res, err := Judge([]Metric{
			{Name: "tokens_active", Scenarios: scs[0], MinReductionPct: 15},
			{Name: "latency", Scenarios: scs[1], MinReductionPct: 15},
			{Name: "tool_calls", Scenarios: scs[2], MinReductionPct: 20},
		}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			above, below := r.LowPct > r.MinReductionPct, r.HighPct < r.MinReductionPct
			if (r.Verdict == Pass) != above || (r.Verdict == Fail) != below {
				t.Fatalf("%s: %s with interval [%v, %v] against %v: %s", d.name, r.Verdict, r.LowPct, r.HighPct, r.MinReductionPct, r.Reason)
			}
			if (above || below) && strings.Contains(r.Reason, "contains the threshold") {
				t.Fatalf("reason says contains: %s", r.Reason)
			}
			if r.Verdict == Fail && !(r.HolmPValue <= 0.05) || r.Verdict == Pass && !(r.PValue <= 0.05) {
				t.Fatalf("verdict %s with p %v, Holm %v", r.Verdict, r.PValue, r.HolmPValue)
			}
			if r.Verdict != Pass && r.Verdict != Fail && r.HolmPValue <= 0.05 {
				t.Fatalf("undecided with Holm p %v: %s", r.HolmPValue, r.Reason)
			}
		}
	}
}

// TestSuitePlanReachesPower: the suite planner's request, made from a
// pilot run's own noise at the true reduction, reaches the power it
// promises: for each of 20 seeded pilots the plan asks for r
// repetitions per arm, and 100 seeded runs of that size are judged as
// the gate judges them. Averaged over the pilots the measured power is
// at least the promised 80% less the Monte-Carlo error, for tokens
// (log-normal) and for tool calls at 4 per run (Poisson).
func TestSuitePlanReachesPower(t *testing.T) {
	for _, tc := range []struct {
		name      string
		d         suiteDesign
		k         int // 0 tokens, 2 tool calls
		threshold float64
	}{
		{"tokens, 4 scenarios, true 25% against 15%", suiteDesign{scenarios: 4, baseReps: 3, tgtReps: 3, truth: [3]float64{25, 25, 25}, lambda: 4}, 0, 15},
		{"tool calls at 4 per run, 3 scenarios, true 45% against 20%", suiteDesign{scenarios: 3, baseReps: 3, tgtReps: 3, truth: [3]float64{45, 45, 45}, lambda: 4}, 2, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(6, 40))
			theta0 := LogRatioOf(tc.threshold)
			effect := LogRatioOf(tc.d.truth[tc.k]) - theta0
			var measured, promised float64
			pilots, runs := 20, 100
			var asked []int
			for p := 0; p < pilots; p++ {
				pilot := NewMeanRatio(tc.d.simulate(rng)[tc.k])
				r := -1
				for reps := 2; reps <= MaxPlanRepetitions; reps++ {
					if MeanRatioPower(pilot.RelVar, reps, effect, 0.95) >= 0.8 {
						r = reps
						break
					}
				}
				if r < 0 {
					t.Fatalf("pilot %d: no size reaches 80%%", p)
				}
				asked = append(asked, r)
				promised += MeanRatioPower(pilot.RelVar, r, effect, 0.95) / float64(pilots)
				d := tc.d
				d.baseReps, d.tgtReps = r, r
				pass := 0
				for i := 0; i < runs; i++ {
					res, err := Judge([]Metric{{Name: "m", Scenarios: d.simulate(rng)[tc.k], MinReductionPct: tc.threshold}}, Options{})
					if err != nil {
						t.Fatal(err)
					}
					if res[0].Verdict == Pass {
						pass++
					}
				}
				measured += float64(pass) / float64(runs*pilots)
			}
			mc := 2 * math.Sqrt(0.8*0.2/float64(pilots*runs))
			t.Logf("repetitions asked %v; promised %.1f%%, measured %.1f%%", asked, promised*100, measured*100)
			if measured < promised-0.02-mc {
				t.Errorf("the plans promised %.1f%% power on average, runs of their sizes passed %.1f%%", promised*100, measured*100)
			}
		})
	}
}

// TestSuitePlanAlwaysSays: an undecided suite-scope check always says a
// number of repetitions or that no feasible size decides it.
func TestSuitePlanAlwaysSays(t *testing.T) {
	for _, tc := range []struct {
		name string
		scs  []Scenario
		want string
	}{
		{"close to the threshold", []Scenario{{ID: "a", Base: []float64{100, 120, 80}, Target: []float64{84, 100, 68}}, {ID: "b", Base: []float64{300, 330, 270}, Target: []float64{250, 290, 230}}}, "no feasible size decides it"},
		{"a clear cut seen in a small run", []Scenario{{ID: "a", Base: []float64{100, 160, 70}, Target: []float64{50, 90, 30}}}, "repetitions per arm of these 1 scenarios would give 80% power"},
		{"one repetition", []Scenario{{ID: "a", Base: []float64{100}, Target: []float64{50}}}, "run these 1 scenarios again with at least 2 repetitions per arm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Judge([]Metric{{Name: "m", Scenarios: tc.scs, MinReductionPct: 15}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r := res[0]; r.Verdict == Pass || r.Verdict == Fail || !strings.Contains(r.ToDecide, tc.want) {
				t.Errorf("%s: expected an undecided check saying %q, got %q", r.Verdict, tc.want, r.ToDecide)
			}
		})
	}
}

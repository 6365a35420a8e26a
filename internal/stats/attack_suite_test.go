package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Designs the calibration table does not draw: tiny suites, one
// scenario, very wide or very uneven noise, unequal repetitions with
// unequal spreads, Cauchy tails, opposite scenario effects, counts whose
// dispersion differs between scenarios. Every design puts the estimand
// exactly on the threshold (for tokens the mean over scenarios of the
// difference of the arms' expected log values, for counts the log ratio
// of the arms' means), so any pass is a false pass.

// atkGamma draws Gamma(shape, 1) (Marsaglia and Tsang).
func atkGamma(rng *rand.Rand, shape float64) float64 {
	if shape < 1 {
		return atkGamma(rng, shape+1) * math.Pow(rng.Float64(), 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

// atkPoisson draws Poisson(lambda), splitting large means.
func atkPoisson(rng *rand.Rand, lambda float64) float64 {
	k := 0.0
	for lambda > 30 {
		k += atkPoisson(rng, 30)
		lambda -= 30
	}
	return k + poisson(rng, lambda)
}

// atkNegBin draws a negative binomial count of the given mean and
// variance mean + mean²/shape.
func atkNegBin(rng *rand.Rand, mean, shape float64) float64 {
	return atkPoisson(rng, mean*atkGamma(rng, shape)/shape)
}

type atkDesign struct {
	name      string
	threshold float64
	gen       func(rng *rand.Rand, theta0 float64) []Scenario
	// passMax and failMax, when set, are known limits above 5% on the
	// false pass and the false fail.
	passMax, failMax float64
}

// logNormalArms draws scenario s's arms: levels e^mu, log ratio l, log
// noise sd sb and st (noise from draw), nb and nt repetitions.
func logNormalArms(rng *rand.Rand, id string, mu, l, sb, st float64, nb, nt int, draw func() float64) Scenario {
	s := Scenario{ID: id}
	for r := 0; r < nb; r++ {
		s.Base = append(s.Base, math.Round(math.Exp(mu+sb*draw())))
	}
	for r := 0; r < nt; r++ {
		s.Target = append(s.Target, math.Round(math.Exp(mu+l+st*draw())))
	}
	return s
}

func atkDesigns() []atkDesign {
	norm := func(rng *rand.Rand) func() float64 { return rng.NormFloat64 }
	cauchy := func(rng *rand.Rand) func() float64 {
		return func() float64 { return math.Tan(math.Pi * (rng.Float64() - 0.5)) }
	}
	tok := func(name string, S, nb, nt int, sd func(s int) (float64, float64), eff func(s, S int, theta0 float64) float64, noise func(*rand.Rand) func() float64) atkDesign {
		return atkDesign{name: name, threshold: 15, gen: func(rng *rand.Rand, theta0 float64) []Scenario {
			var out []Scenario
			for s := 0; s < S; s++ {
				sb, st := sd(s)
				out = append(out, logNormalArms(rng, fmt.Sprintf("s%02d", s), math.Log(1e5)+0.5*rng.NormFloat64(), eff(s, S, theta0), sb, st, nb, nt, noise(rng)))
			}
			return out
		}}
	}
	same := func(v float64) func(int) (float64, float64) { return func(int) (float64, float64) { return v, v } }
	flat := func(_, _ int, theta0 float64) float64 { return theta0 }
	// +60% in half the scenarios, the rest balancing to the threshold.
	opposite := func(s, S int, theta0 float64) float64 {
		up := math.Log(1.6)
		h := S / 2
		if s < h {
			return up
		}
		return (float64(S)*theta0 - float64(h)*up) / float64(S-h)
	}
	cnt := func(name string, S, nb, nt int, draw func(rng *rand.Rand, s int, mean float64) float64, level func(s int) float64, eff func(s, S int, theta0 float64) float64) atkDesign {
		return atkDesign{name: name, threshold: 20, gen: func(rng *rand.Rand, theta0 float64) []Scenario {
			var out []Scenario
			for s := 0; s < S; s++ {
				sc := Scenario{ID: fmt.Sprintf("s%02d", s)}
				m := level(s)
				for r := 0; r < nb; r++ {
					sc.Base = append(sc.Base, draw(rng, s, m))
				}
				for r := 0; r < nt; r++ {
					sc.Target = append(sc.Target, draw(rng, s, m*math.Exp(eff(s, S, theta0))))
				}
				out = append(out, sc)
			}
			return out
		}}
	}
	pois := func(rng *rand.Rand, _ int, m float64) float64 { return atkPoisson(rng, m) }
	lvl := func(v float64) func(int) float64 { return func(int) float64 { return v } }
	return []atkDesign{
		tok("tokens, 1 × 2, sd 0.25", 1, 2, 2, same(0.25), flat, norm),
		tok("tokens, 2 × 2, sd 0.25", 2, 2, 2, same(0.25), flat, norm),
		tok("tokens, 2 × 2, sd 1.5", 2, 2, 2, same(1.5), flat, norm),
		tok("tokens, 4 × 3, one scenario sd 1.5, others 0.1", 4, 3, 3, func(s int) (float64, float64) {
			if s == 0 {
				return 1.5, 1.5
			}
			return 0.1, 0.1
		}, flat, norm),
		tok("tokens, 4 scenarios, 2 vs 8, sd 0.5", 4, 2, 8, same(0.5), flat, norm),
		tok("tokens, 4 scenarios, 8 vs 2, target sd 1.0, base 0.1", 4, 8, 2, func(int) (float64, float64) { return 0.1, 1.0 }, flat, norm),
		tok("tokens, 4 × 5, Cauchy log noise 0.25", 4, 5, 5, same(0.25), flat, cauchy),
		tok("tokens, 2 × 4, +60% and the other balancing, sd 0.25", 2, 4, 4, same(0.25), opposite, norm),
		tok("tokens, 8 × 3, +60% / balancing, scenario 0 sd 1.0", 8, 3, 3, func(s int) (float64, float64) {
			if s == 0 {
				return 1.0, 1.0
			}
			return 0.25, 0.25
		}, opposite, norm),
		{name: "tokens, 8 scenarios of 1 + 1 repetitions, one arm with 2, sd 0.25", threshold: 15, gen: func(rng *rand.Rand, theta0 float64) []Scenario {
			var out []Scenario
			for s := 0; s < 8; s++ {
				nb := 1
				if s == 0 {
					nb = 2
				}
				out = append(out, logNormalArms(rng, fmt.Sprintf("s%02d", s), math.Log(1e5)+0.5*rng.NormFloat64(), theta0, 0.25, 0.25, nb, 1, rng.NormFloat64))
			}
			return out
		}},
		tok("tokens, 6 scenarios, 2 vs 1, sd 0.25", 6, 2, 1, same(0.25), flat, norm),
		cnt("tool calls, 2 × 2, Poisson 4", 2, 2, 2, pois, lvl(4), flat),
		cnt("tool calls, 15 × 4, Poisson 0.3 (many all-zero arms)", 15, 4, 4, pois, lvl(0.3), flat),
		// A known limit: 5.8% false pass over 6000 runs (one arm's
		// dispersion rests on 1 degree of freedom per scenario).
		func() atkDesign {
			d := cnt("tool calls, 4 scenarios, 2 vs 8, Poisson 4", 4, 2, 8, pois, lvl(4), flat)
			d.passMax = 0.065
			return d
		}(),
		cnt("tool calls, 4 × 5, one scenario NB(2, var 10), others Poisson 6", 4, 5, 5, func(rng *rand.Rand, s int, m float64) float64 {
			if s == 0 {
				return atkNegBin(rng, m, 0.5)
			}
			return atkPoisson(rng, m)
		}, func(s int) float64 {
			if s == 0 {
				return 2
			}
			return 6
		}, flat),
		cnt("tool calls, 8 × 4, two scenarios 80% zero-inflated mean 1, others Poisson 8", 8, 4, 4, func(rng *rand.Rand, s int, m float64) float64 {
			if s < 2 {
				if rng.Float64() < 0.8 {
					return 0
				}
				return atkPoisson(rng, m/0.2)
			}
			return atkPoisson(rng, m)
		}, func(s int) float64 {
			if s < 2 {
				return 1
			}
			return 8
		}, flat),
		// A known limit: 6.3% false fail over 6000 runs (totals of 2
		// or 3 calls, where log(total + ½) leans up).
		func() atkDesign {
			d := cnt("tool calls, 40 × 3, 60% zero-inflated mean 1", 40, 3, 3, func(rng *rand.Rand, s int, m float64) float64 {
				if rng.Float64() < 0.6 {
					return 0
				}
				return atkPoisson(rng, m/0.4)
			}, lvl(1), flat)
			d.failMax = 0.07
			return d
		}(),
		// A known limit: ghx's expected total in scenario 0 is 0.8
		// calls over 4 runs, where log(total + ½) is about 0.25 above
		// log 0.8, so the estimate leans toward the fail side (12% of
		// runs at 2000).
		func() atkDesign {
			d := cnt("tool calls, 4 × 4, ghx ~0 in one scenario, +100% in the rest", 4, 4, 4, pois, lvl(4), func(s, S int, theta0 float64) float64 {
				if s == 0 {
					return math.Log(0.05)
				}
				return (float64(S)*theta0 - math.Log(0.05)) / float64(S-1)
			})
			d.failMax = 0.13
			return d
		}(),
		cnt("tool calls, 8 × 4, scenario 0 at 10× (NB shape 2)", 8, 4, 4, func(rng *rand.Rand, s int, m float64) float64 { return atkNegBin(rng, m, 2) }, func(s int) float64 {
			if s == 0 {
				return 40
			}
			return 4
		}, flat),
	}
}

// TestAttackSuiteFalsePass runs each design with its estimand exactly on
// the threshold and counts the runs that pass (a false pass) and fail.
// 300 runs by default; BENCHGATE_CALIBRATE=N runs N.
func TestAttackSuiteFalsePass(t *testing.T) {
	runs := 300
	if v := os.Getenv("BENCHGATE_CALIBRATE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("BENCHGATE_CALIBRATE: expected a number of runs, got %q", v)
		}
		runs = n
	}
	mc := 2 * math.Sqrt(0.05*0.95/float64(runs))
	for i, d := range atkDesigns() {
		if !strings.Contains(d.name, os.Getenv("BENCHGATE_CALIBRATE_ONLY")) {
			continue
		}
		rng := rand.New(rand.NewPCG(uint64(i+1), 0xa77ac))
		theta0 := LogRatioOf(d.threshold)
		pass, fail, under := 0, 0, 0
		for k := 0; k < runs; k++ {
			res, err := Judge([]Metric{{Name: "m", Scenarios: d.gen(rng, theta0), MinReductionPct: d.threshold}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			switch res[0].Verdict {
			case Pass:
				pass++
			case Fail:
				fail++
			case Underpowered:
				under++
			}
		}
		t.Logf("%-70s false pass %5.1f%%  fail %5.1f%%  underpowered %5.1f%%", d.name, pct(pass, runs), pct(fail, runs), pct(under, runs))
		if limit := math.Max(0.05, d.passMax); frac(pass, runs) > limit+mc {
			t.Errorf("%s: passed %.1f%% of %d runs on the threshold, more than %.1f%% + %.1f", d.name, pct(pass, runs), runs, limit*100, mc*100)
		}
		if limit := math.Max(0.05, d.failMax); frac(fail, runs) > limit+mc {
			t.Errorf("%s: failed %.1f%% of %d runs on the threshold, more than %.1f%% + %.1f", d.name, pct(fail, runs), runs, limit*100, mc*100)
		}
	}
}

// TestAttackPValueClosedForm checks the suite scope's one-sided p-value
// against Student's t in closed form, every figure worked by hand:
//
//   - tokens, one scenario of 2 + 2 repetitions whose log values spread
//     alike (each pair a factor 2 apart): s² = (log 2)²/2 in each arm,
//     the variance of the mean log ratio s²/2 + s²/2 = s², Welch's
//     degrees of freedom (s²)²/(2·(s²/2)²/1) = 2, so
//     p = F₂(t) = 1/2 + t/(2·√(2 + t²)), t = (log 0.6 − log 0.85)/s;
//   - tool calls, one scenario, agent_direct 3 and 5, ghx 1: the one
//     arm with two repetitions gives the dispersion φ = 2/4.25 (variance
//     2 over the mean (8 + ½)/2) and 1 degree of freedom, the log ratio
//     log(1.5/4.25) has variance φ/8.5 + φ/1.5, so p = F₁(t) =
//     1/2 + atan(t)/π against the 20% threshold.
func TestAttackPValueClosedForm(t *testing.T) {
	s := math.Log(2) / math.Sqrt2
	tTok := (math.Log(0.6) - math.Log(0.85)) / s
	phi := 2 / 4.25
	tCnt := (math.Log(1.5/4.25) - math.Log(0.8)) / math.Sqrt(phi/8.5+phi/1.5)
	for _, tc := range []struct {
		name   string
		sc     Scenario
		thr    float64
		wantP  float64
		wantDF float64
	}{
		{"tokens, df 2", Scenario{ID: "a", Base: []float64{1000, 2000}, Target: []float64{600, 1200}}, 15, 0.5 + tTok/(2*math.Sqrt(2+tTok*tTok)), 2},
		{"tool calls, df 1", Scenario{ID: "a", Base: []float64{3, 5}, Target: []float64{1}}, 20, 0.5 + math.Atan(tCnt)/math.Pi, 1},
	} {
		res, err := Judge([]Metric{{Name: "m", Scenarios: []Scenario{tc.sc}, MinReductionPct: tc.thr}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		mr := NewMeanRatio([]Scenario{tc.sc})
		if math.Abs(mr.DF-tc.wantDF) > 1e-9 {
			t.Errorf("%s: degrees of freedom %v, want %v", tc.name, mr.DF, tc.wantDF)
		}
		if math.Abs(res[0].PValue-tc.wantP) > 1e-9 {
			t.Errorf("%s: one-sided p %v, closed form %v", tc.name, res[0].PValue, tc.wantP)
		}
	}
}

// TestAttackPlannerTinyPilots: pilots of 2 scenarios × 2 repetitions
// (tokens, log sd 0.25, a true 35% cut against 15%). Each undecided
// pilot's plan says a number of repetitions or that no feasible size
// decides; runs of the size it asks for, with the reduction it assumed
// (the observed one) as the truth, pass about as often as it promised.
func TestAttackPlannerTinyPilots(t *testing.T) {
	pilots, runs := 40, 50
	if os.Getenv("BENCHGATE_CALIBRATE") != "" {
		pilots, runs = 200, 100
	}
	rng := rand.New(rand.NewPCG(40, 2))
	gen := func(S, reps int, cut float64) []Scenario {
		var out []Scenario
		for s := 0; s < S; s++ {
			out = append(out, logNormalArms(rng, fmt.Sprintf("s%02d", s), math.Log(1e5)+0.5*rng.NormFloat64(), LogRatioOf(cut), 0.25, 0.25, reps, reps, rng.NormFloat64))
		}
		return out
	}
	var promised, measured float64
	planned := 0
	var asked []int
	for p := 0; p < pilots; p++ {
		res, err := Judge([]Metric{{Name: "m", Scenarios: gen(2, 2, 35), MinReductionPct: 15}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := res[0]
		if r.Verdict == Pass || r.Verdict == Fail {
			continue
		}
		if !strings.ContainsAny(r.ToDecide, "0123456789") {
			t.Errorf("pilot %d: %q gives no number", p, r.ToDecide)
		}
		sp := r.SuitePlan
		if sp == nil || sp.RepetitionsNeeded < 0 || sp.AssumedReductionPct <= 15 {
			continue
		}
		planned++
		asked = append(asked, sp.RepetitionsNeeded)
		promised += sp.TargetPower
		pass := 0
		for i := 0; i < runs; i++ {
			rr, err := Judge([]Metric{{Name: "m", Scenarios: gen(2, sp.RepetitionsNeeded, sp.AssumedReductionPct), MinReductionPct: 15}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rr[0].Verdict == Pass {
				pass++
			}
		}
		measured += frac(pass, runs)
	}
	if planned == 0 {
		t.Fatal("no pilot planned")
	}
	promised, measured = promised/float64(planned), measured/float64(planned)
	t.Logf("%d of %d pilots planned, repetitions asked %v; promised %.1f%%, measured %.1f%%", planned, pilots, asked, promised*100, measured*100)
	if measured < promised-0.1 {
		t.Errorf("plans from 2 × 2 pilots promised %.1f%% power, runs of their sizes passed %.1f%%", promised*100, measured*100)
	}
}

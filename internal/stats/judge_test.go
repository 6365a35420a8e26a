package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// scenarios builds n scenarios with reps repetitions per arm: a
// scenario's base level is spread over a factor of ~3, the target is the
// base times ratio, and every repetition gets log-normal noise of sd
// noise. The seed fixes everything.
func scenarios(seed uint64, n, reps int, ratio, noise float64) []Scenario {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]Scenario, n)
	for i := range out {
		level := 1000 * math.Exp(rng.NormFloat64()*0.5)
		s := Scenario{ID: "s" + string(rune('a'+i%26)) + string(rune('a'+i/26))}
		for r := 0; r < reps; r++ {
			s.Base = append(s.Base, math.Round(level*math.Exp(rng.NormFloat64()*noise)))
			s.Target = append(s.Target, math.Round(level*ratio*math.Exp(rng.NormFloat64()*noise)))
		}
		out[i] = s
	}
	return out
}

func TestJudgeVerdicts(t *testing.T) {
	tests := []struct {
		name      string
		scs       []Scenario
		threshold float64
		want      Verdict
		reason    string
	}{
		{"30% reduction, low noise", scenarios(1, 12, 3, 0.7, 0.05), 15, Pass, "is above the threshold"},
		{"30% increase", scenarios(2, 12, 3, 1.3, 0.05), 15, Fail, "is below the threshold"},
		{"no change, high noise", scenarios(3, 8, 1, 1.0, 0.8), 15, Inconclusive, "contains the threshold"},
		{"four scenarios", scenarios(4, 4, 5, 0.5, 0.01), 15, Underpowered, "can never reach 95.00% confidence"},
		{"no scenario in both arms", []Scenario{{ID: "x", Base: []float64{1}}}, 15, Underpowered, "no scenario has values in both arms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Judge([]Metric{{Name: "tokens", Scenarios: tc.scs, MinReductionPct: tc.threshold}}, Options{Scope: ScopeScenarios})
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			if r.Verdict != tc.want {
				t.Fatalf("verdict: expected %s, got %s (%s)", tc.want, r.Verdict, r.Reason)
			}
			if !strings.Contains(r.Reason, tc.reason) {
				t.Errorf("reason: expected it to contain %q, got %q", tc.reason, r.Reason)
			}
			if r.Scenarios > 0 && !(r.LowPct <= r.EstimatePct && r.EstimatePct <= r.HighPct) {
				t.Errorf("estimate %v outside its interval [%v, %v]", r.EstimatePct, r.LowPct, r.HighPct)
			}
			if tc.want == Inconclusive && r.MoreScenarios <= 0 {
				t.Errorf("inconclusive: expected a positive number of more scenarios, got %d", r.MoreScenarios)
			}
			if tc.want == Underpowered && r.Scenarios+r.MoreScenarios != r.MinScenarios {
				t.Errorf("underpowered: %d scenarios + %d more should make MinScenarios %d", r.Scenarios, r.MoreScenarios, r.MinScenarios)
			}
		})
	}
}

// TestJudgeHolm: with three metrics the first is judged at 1-α/3; the one
// that does not decide stops the steps after it.
func TestJudgeHolm(t *testing.T) {
	clear := scenarios(10, 12, 3, 0.6, 0.05)
	straddle := scenarios(11, 8, 1, 0.85, 0.6)
	res, err := Judge([]Metric{
		{Name: "a", Scenarios: clear, MinReductionPct: 15},
		{Name: "b", Scenarios: straddle, MinReductionPct: 15},
		{Name: "c", Scenarios: clear, MinReductionPct: 10},
	}, Options{Scope: ScopeScenarios})
	if err != nil {
		t.Fatal(err)
	}
	levels := map[float64]bool{}
	for _, r := range res {
		levels[math.Round(r.Confidence*1e6)/1e6] = true
	}
	for _, want := range []float64{math.Round((1-0.05/3)*1e6) / 1e6, 0.975, 0.95} {
		if !levels[want] {
			t.Errorf("expected an interval at level %v, got levels %v", want, levels)
		}
	}
	if res[0].Verdict != Pass || res[2].Verdict != Pass {
		t.Errorf("clear metrics: expected pass, got %s (%s) and %s (%s)", res[0].Verdict, res[0].Reason, res[2].Verdict, res[2].Reason)
	}
	if res[1].Verdict != Inconclusive || res[1].Confidence != 0.95 {
		t.Errorf("straddling metric: expected inconclusive at the last step (0.95), got %s at %v", res[1].Verdict, res[1].Confidence)
	}
	for _, r := range res {
		if r.HolmPValue < r.PValue {
			t.Errorf("%s: Holm p %v below raw p %v", r.Name, r.HolmPValue, r.PValue)
		}
	}
}

func TestJudgeBootstrap(t *testing.T) {
	scs := scenarios(20, 15, 4, 0.7, 0.2)
	run := func(seed uint64) Result {
		res, err := Judge([]Metric{{Name: "m", Scenarios: scs, MinReductionPct: 15}}, Options{Scope: ScopeScenarios, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return res[0]
	}
	a, b, c := run(1), run(1), run(2)
	if a.Bootstrap == nil {
		t.Fatal("15 scenarios: expected a bootstrap cross-check")
	}
	if *a.Bootstrap != *b.Bootstrap {
		t.Errorf("same seed: expected the same bootstrap, got %+v and %+v", *a.Bootstrap, *b.Bootstrap)
	}
	if *a.Bootstrap == *c.Bootstrap {
		t.Errorf("different seeds gave identical bootstraps %+v", *a.Bootstrap)
	}
	if !a.Bootstrap.Agrees {
		t.Errorf("clear 30%% reduction: bootstrap %+v should agree with [%v, %v]", *a.Bootstrap, a.LowPct, a.HighPct)
	}
	small, _ := Judge([]Metric{{Name: "m", Scenarios: scs[:9], MinReductionPct: 15}}, Options{Scope: ScopeScenarios})
	if small[0].Bootstrap != nil {
		t.Errorf("9 scenarios: expected no bootstrap, got %+v", *small[0].Bootstrap)
	}
}

func TestJudgeBadOptions(t *testing.T) {
	tests := []struct {
		name    string
		metrics []Metric
		opts    Options
		want    string
	}{
		{"threshold 100", []Metric{{Name: "tokens", MinReductionPct: 100}}, Options{Scope: ScopeScenarios}, "tokens: threshold: expected a reduction below 100%, got 100"},
		{"threshold NaN", []Metric{{Name: "t", MinReductionPct: math.NaN()}}, Options{Scope: ScopeScenarios}, "t: threshold"},
		{"confidence 1", nil, Options{Scope: ScopeScenarios, Confidence: 1}, "confidence: expected a number between 0 and 1, got 1"},
		{"power 2", nil, Options{Scope: ScopeScenarios, Power: 2}, "power: expected a number between 0 and 1, got 2"},
	}
	for _, tc := range tests {
		_, err := Judge(tc.metrics, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: expected an error containing %q, got %v", tc.name, tc.want, err)
		}
	}
}

func TestPairs(t *testing.T) {
	pairs, excluded := Pairs([]Scenario{
		{ID: "a", Base: []float64{4, 4, 5}, Target: []float64{3, 2, 3}},
		{ID: "zero-base", Base: []float64{0, 0}, Target: []float64{1}},
		{ID: "no-target", Base: []float64{3}},
		{ID: "to-zero", Base: []float64{2}, Target: []float64{0}},
		{ID: "negative", Base: []float64{-1}, Target: []float64{2}},
		{ID: "both-zero", Base: []float64{0}, Target: []float64{0, 0}},
	})
	var ids []string
	for _, p := range pairs {
		ids = append(ids, p.ID)
	}
	if strings.Join(ids, ",") != "a,zero-base,to-zero,both-zero" {
		t.Fatalf("pairs: expected a,zero-base,to-zero,both-zero, got %+v", pairs)
	}
	if pairs[0].Base != 4 || pairs[0].Target != 3 || !near(pairs[0].LogRatio, math.Log(0.75), 1e-15) {
		t.Errorf("a: expected medians 4→3 and log(0.75), got %+v", pairs[0])
	}
	// A zero is floored at 0.5 in either arm: 0 → 1 is the mirror image
	// of 1 → 0, and 0 → 0 is no change.
	if pairs[1].LogRatio != math.Log(2) {
		t.Errorf("zero-base: expected the base floored at 0.5 (log 2), got %v", pairs[1].LogRatio)
	}
	if !near(pairs[2].LogRatio, math.Log(0.25), 1e-15) {
		t.Errorf("to-zero: expected the target floored at 0.5 (log 0.25), got %v", pairs[2].LogRatio)
	}
	if pairs[3].LogRatio != 0 {
		t.Errorf("both-zero: expected 0, got %v", pairs[3].LogRatio)
	}
	if strings.Join(excluded, ",") != "no-target,negative" {
		t.Errorf("excluded: expected no-target,negative, got %v", excluded)
	}
	if got := ReductionPct(LogRatioOf(27.5)); !near(got, 27.5, 1e-12) {
		t.Errorf("ReductionPct(LogRatioOf(27.5)) = %v", got)
	}
	for _, b := range []float64{0, 0.5, 1, 3, 7.5, 1234} {
		for _, tg := range []float64{0, 1, 2, 9} {
			if LogRatio(b, tg) != -LogRatio(tg, b) {
				t.Errorf("LogRatio(%v, %v) = %v is not minus LogRatio(%v, %v) = %v", b, tg, LogRatio(b, tg), tg, b, LogRatio(tg, b))
			}
		}
	}
}

// TestExcessOnThreshold: a scenario exactly on the threshold is a zero on
// the scale the verdict uses, for every threshold and count where the
// reduction is exact in binary; the reduction it converts back to is the
// threshold itself.
func TestExcessOnThreshold(t *testing.T) {
	tests := []struct{ base, target, threshold float64 }{
		{5, 4, 20}, {10, 8, 20}, {20, 17, 15}, {4, 3, 25}, {2, 1, 50}, {8, 7, 12.5},
		{1000, 850, 15}, {3, 3, 0}, {10, 11, -10}, {2.5, 2, 20}, {1, 0, 50}, {0, 0, 0}, {7, 7, 0},
	}
	for _, tc := range tests {
		if got := Excess(tc.base, tc.target, tc.threshold); got != 0 {
			t.Errorf("%v → %v at %v%%: expected excess 0, got %v (the log-ratio minus the threshold's log is %v)",
				tc.base, tc.target, tc.threshold, got, LogRatio(tc.base, tc.target)-LogRatioOf(tc.threshold))
		}
		if got := ReductionAt(0, tc.threshold); got != tc.threshold {
			t.Errorf("ReductionAt(0, %v) = %v", tc.threshold, got)
		}
	}
	// Values too large for the products stay finite.
	if got, want := Excess(1e307, 1e307, 20), -math.Log(0.8); !near(got, want, 1e-12) {
		t.Errorf("1e307 → 1e307 at 20%%: expected %v, got %v", want, got)
	}
	// Off the threshold the excess is the log-ratio less the threshold's.
	if got, want := Excess(5, 3, 20), math.Log(0.6)-math.Log(0.8); !near(got, want, 1e-14) {
		t.Errorf("5 → 3 at 20%%: expected %v, got %v", want, got)
	}
}

// TestMiddleOrderStats: above directResampleLimit only the middle ranks
// are kept, and they are the right order statistics.
func TestMiddleOrderStats(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, m := range []int{1, 5, 64, 65, 400, 2501} {
		xs := make([]float64, m)
		for i := range xs {
			xs[i] = math.Round(rng.NormFloat64() * 100)
		}
		sorted := append([]float64(nil), xs...)
		sortFloats(sorted)
		o := middleOrderStats(xs)
		if o.m != m || o.off < 0 || o.off+len(o.vals) > m || o.off > (m-1)/2 || o.off+len(o.vals) <= m/2 {
			t.Fatalf("m=%d: window off=%d len=%d does not hold the middle", m, o.off, len(o.vals))
		}
		for i, v := range o.vals {
			if v != sorted[o.off+i] {
				t.Fatalf("m=%d: rank %d expected %v, got %v", m, o.off+i, sorted[o.off+i], v)
			}
		}
		if want := Median(xs); math.Abs(o.vals[(m-1)/2-o.off]+o.vals[m/2-o.off]-2*want) > 1e-9 {
			t.Errorf("m=%d: middle ranks do not give the median %v", m, want)
		}
	}
}

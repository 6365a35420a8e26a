package stats

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// tiedCase is one metric of one repetition per scenario whose excesses
// are full of exact ties and zeros, with R's p-value for them.
type tiedCase struct {
	name      string
	base, tgt []float64
	threshold float64
	rP        float64
}

// tiedCases were computed with R 4.2 (Debian r-base-core) by
//
//	p <- function(b, t, thr) { x <- log((t*100)/(b*(100-thr)));
//	  sprintf("%.17g", suppressWarnings(wilcox.test(x, mu=0, exact=FALSE, correct=TRUE)$p.value)) }
//
// with the vectors below, e.g. p(c(5,10,4,5,6,3,8,5,20,10), c(4,8,4,3,5,2,8,4,16,9), 20).
var tiedCases = []tiedCase{
	{"tool calls at 20%", []float64{5, 10, 4, 5, 6, 3, 8, 5, 20, 10}, []float64{4, 8, 4, 3, 5, 2, 8, 4, 16, 9}, 20, 0.83348400438895931},
	{"equal ratios at 0%", []float64{5, 10, 25, 50, 3, 6, 12, 7}, []float64{5, 10, 16, 32, 3, 4, 12, 9}, 0, 0.19746607335801866},
	{"on a 36% threshold", []float64{25, 50, 25, 10, 20, 5, 8, 100}, []float64{16, 32, 16, 7, 13, 3, 5, 64}, 36, 1},
	{"tokens on 15%", []float64{1000, 2000, 1000, 3000, 1500, 2000}, []float64{850, 1700, 800, 2550, 1400, 1600}, 15, 1},
	{"pairs of equal ratios", []float64{5, 5, 10, 10, 25, 50, 25, 50, 4, 8, 3, 6}, []float64{5, 5, 10, 10, 16, 32, 16, 32, 3, 6, 3, 6}, 0, 0.030544849976475236},
	{"counts near 20", []float64{20, 20, 21, 19, 20, 22, 18, 20, 20, 21, 19, 23}, []float64{16, 16, 17, 15, 16, 18, 14, 17, 16, 15, 16, 18}, 20, 1},
}

func oneRep(base, tgt []float64, scale float64) []Scenario {
	out := make([]Scenario, len(base))
	for i := range base {
		out[i] = Scenario{ID: fmt.Sprint(i), Base: []float64{base[i] * scale}, Target: []float64{tgt[i] * scale}}
	}
	return out
}

// TestTiedPValuesMatchR: on tied data the scenario scope's p-value is
// R's, and the same ratios written at twice (and ten times) the scale
// give the same bits and the same verdict in both scopes (in the suite
// scope for values away from counts: there the half unit added to each
// arm's total is what keeps low counts unbiased, and it is not
// scale-free).
func TestTiedPValuesMatchR(t *testing.T) {
	for _, tc := range tiedCases {
		t.Run(tc.name, func(t *testing.T) {
			var first []Result
			for _, scale := range []float64{1, 2, 10} {
				for _, scope := range []string{ScopeScenarios, ScopeSuite} {
					res, err := Judge([]Metric{{Name: "m", Scenarios: oneRep(tc.base, tc.tgt, scale), MinReductionPct: tc.threshold}}, Options{Scope: scope})
					if err != nil {
						t.Fatal(err)
					}
					r := res[0]
					if scope == ScopeScenarios && !near(r.PValue, tc.rP, 1e-12) {
						t.Errorf("scale %v: p-value: expected R's %v, got %v", scale, tc.rP, r.PValue)
					}
					if scale == 1 {
						first = append(first, r)
						continue
					}
					if scope == ScopeSuite && minOf(tc.base, tc.tgt) < CountLimit {
						continue
					}
					f := first[0]
					if scope == ScopeSuite {
						f = first[1]
					} else {
						f = first[0]
					}
					tol := 0.0
					if scope == ScopeSuite {
						// A mean of logs: log(2x) − log(2y) rounds apart
						// from log x − log y in the last place.
						tol = 1e-9
					}
					if !near(r.PValue, f.PValue, tol) || r.Verdict != f.Verdict || !near(r.EstimatePct, f.EstimatePct, tol) {
						t.Errorf("%s scope, scale %v: expected the verdict of scale 1 (%s, p=%v, %v), got %s, p=%v, %v", scope, scale, f.Verdict, f.PValue, f.EstimatePct, r.Verdict, r.PValue, r.EstimatePct)
					}
				}
			}
		})
	}
}

// TestEqualRatiosEqualValues: one division, then one logarithm, so the
// same ratio is the same value at any scale and swapping the arms flips
// its sign exactly.
func TestEqualRatiosEqualValues(t *testing.T) {
	for _, c := range []struct{ b, t, thr float64 }{{5, 5, 0}, {25, 16, 0}, {25, 16, 36}, {3, 2, 0}, {7, 5, 15}, {5, 4, 20}, {1234, 987, 12.5}} {
		e := Excess(c.b, c.t, c.thr)
		for _, k := range []float64{2, 3, 10, 1000} {
			if got := Excess(c.b*k, c.t*k, c.thr); got != e {
				t.Errorf("%v → %v at %v%%: %v, but ×%v gives %v", c.b, c.t, c.thr, e, k, got)
			}
		}
		if LogRatio(c.b, c.t) != -LogRatio(c.t, c.b) {
			t.Errorf("%v → %v: log-ratio not antisymmetric", c.b, c.t)
		}
	}
	if Excess(25, 16, 36) != 0 || Excess(50, 32, 36) != 0 || Excess(5, 4, 20) != 0 {
		t.Error("pairs exactly on the threshold must be exactly 0")
	}
}

// TestTieCappedNeverPasses: a check whose ties cap the confidence below
// the level is undecided, says the level it reached, and never passes,
// whichever side its interval lands on; an interval whose edge is
// exactly on the threshold does not pass either.
func TestTieCappedNeverPasses(t *testing.T) {
	// Ten tool-call scenarios, seven exactly on a 20% threshold, three
	// far better: the interval lies at or above the threshold but ties
	// cap the statistic at 85.11%.
	var scs []Scenario
	for i := 0; i < 10; i++ {
		s := Scenario{ID: fmt.Sprint(i), Base: []float64{5}, Target: []float64{4}}
		if i >= 7 {
			s.Target = []float64{1}
		}
		scs = append(scs, s)
	}
	res, err := Judge([]Metric{{Name: "tool_calls", Scenarios: scs, MinReductionPct: 20}}, Options{Scope: ScopeScenarios})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Verdict == Pass || !r.TiesLimited || !strings.Contains(r.Reason, "reaches at most 85.11% confidence, not 95.00%") {
		t.Errorf("expected an undecided, tie-capped check at 85.11%%, got %s (ties %v): %s", r.Verdict, r.TiesLimited, r.Reason)
	}
	if r.ToDecide == "" {
		t.Error("an undecided check needs its sentence of what would decide it")
	}
}

// TestUndecidedNeverAlreadyPowered: when the scenario scope's planner
// predicts that the run's own size suffices but the check did not
// decide, its sentence asks for more than the run has and says the
// prediction missed; it never says the run already has the power.
func TestUndecidedNeverAlreadyPowered(t *testing.T) {
	r := &Result{Verdict: Inconclusive, Scenarios: 60, Plan: &Plan{Scenarios: 60, Repetitions: 3, TargetPower: 0.8,
		Observed: PlanAt{AssumedReductionPct: 37, CurrentPower: 0.96, Scenarios: 30}}}
	r.Plan.Summary = r.Plan.sentence()
	got := scenariosToDecide(r)
	if strings.Contains(got, "already") || !strings.Contains(got, "yet it did not decide: more scenarios than 60 are needed") {
		t.Errorf("sentence of an undecided check the planner thought powered: %q", got)
	}
	// Through Judge the plan's own summary is that sentence too.
	res, err := Judge([]Metric{{Name: "m", Scenarios: scenarios(7, 12, 3, 0.84, 0.3), MinReductionPct: 15}}, Options{Scope: ScopeScenarios})
	if err != nil {
		t.Fatal(err)
	}
	if x := res[0]; x.Verdict != Pass && x.Verdict != Fail && x.Plan != nil && (x.Plan.Summary != x.ToDecide || strings.Contains(x.ToDecide, "already")) {
		t.Errorf("plan summary %q, sentence %q", x.Plan.Summary, x.ToDecide)
	}
}

func minOf(a, b []float64) float64 {
	m := math.Inf(1)
	for _, v := range append(append([]float64(nil), a...), b...) {
		m = math.Min(m, v)
	}
	return m
}

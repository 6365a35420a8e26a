package stats

import (
	"math"
	"strings"
	"testing"
)

// enumerate is the stratified test by brute force: every way of giving
// the arm labels within each stratum, van Elteren's statistic for each
// (in integer units: doubled mid-ranks times the product of the other
// strata's N + 1, so that equal statistics are equal keys), and the share
// at or below (and at or above) the observed one.
func enumerate(strata []stratum) (lower, upper float64) {
	prod := int64(1)
	for _, s := range strata {
		prod *= int64(len(s.base) + len(s.target) + 1)
	}
	total := map[int64]float64{0: 1}
	obs := int64(0)
	for _, s := range strata {
		all := append(append([]float64(nil), s.base...), s.target...)
		n, k := len(all), len(s.target)
		w := prod / int64(n+1)
		rank2 := func(i int) int64 { // doubled mid-rank of all[i]
			below, equal := 0, 0
			for _, v := range all {
				switch {
				case v < all[i]:
					below++
				case v == all[i]:
					equal++
				}
			}
			return int64(2*below + equal + 1)
		}
		d := map[int64]float64{}
		count := 0
		for mask := 0; mask < 1<<n; mask++ {
			bits, sum := 0, int64(0)
			for i := 0; i < n; i++ {
				if mask&(1<<i) != 0 {
					bits++
					sum += rank2(i)
				}
			}
			if bits == k {
				d[sum*w]++
				count++
			}
		}
		for i := len(s.base); i < n; i++ {
			obs += rank2(i) * w
		}
		next := map[int64]float64{}
		for a, pa := range total {
			for b, c := range d {
				next[a+b] += pa * c / float64(count)
			}
		}
		total = next
	}
	for v, p := range total {
		if v <= obs {
			lower += p
		}
		if v >= obs {
			upper += p
		}
	}
	return lower, upper
}

// TestStratifiedExactMatchesEnumeration: the exact stratified test's
// one-sided p-values equal the brute-force permutation ones, with ties
// within and across arms and strata of different sizes (designs it was
// not built around: 3 vs 2, 1 vs 4, all tied, counts).
func TestStratifiedExactMatchesEnumeration(t *testing.T) {
	cases := map[string][]stratum{
		"no ties 4 × 4, two strata": {{base: []float64{1, 3, 5, 7}, target: []float64{2, 4, 6, 8}}, {base: []float64{10, 11, 12, 13}, target: []float64{1, 2, 3, 14}}},
		"tool-call ties":            {{base: []float64{5, 5, 4, 6}, target: []float64{4, 4, 5, 3}}, {base: []float64{2, 2, 2}, target: []float64{2, 1}}},
		"unequal sizes":             {{base: []float64{3, 1, 2}, target: []float64{2, 0.5}}, {base: []float64{9}, target: []float64{1, 2, 9, 9}}, {base: []float64{4, 4}, target: []float64{4, 5}}},
		"all tied":                  {{base: []float64{3, 3}, target: []float64{3, 3}}},
		"outcomes (success or not)": {{base: []float64{1, 1, 1, 0}, target: []float64{0, 0, 1, 0}}, {base: []float64{1, 1, 1}, target: []float64{1, 0, 0}}},
	}
	for name, strata := range cases {
		t.Run(name, func(t *testing.T) {
			lo, hi := enumerate(strata)
			got := StratifiedTest(strata)
			if got.Method != MethodExact || !near(got.PLower, math.Min(1, lo), 1e-9) || !near(got.PUpper, math.Min(1, hi), 1e-9) {
				t.Errorf("expected exact one-sided p-values %v and %v by enumeration, got %v and %v (%s)", lo, hi, got.PLower, got.PUpper, got.Method)
			}
		})
	}
}

// TestSuiteScopeSmallDesigns: at the sizes users run, the suite scope
// decides clear cases both ways and says what it does not claim; a
// design that cannot reach the level says so and never passes.
func TestSuiteScopeSmallDesigns(t *testing.T) {
	two := func(base, target []float64) []Scenario {
		return []Scenario{{ID: "a", Base: base, Target: target}, {ID: "b", Base: scale(base, 3), Target: scale(target, 3)}}
	}
	tests := []struct {
		name      string
		scs       []Scenario
		threshold float64
		want      Verdict
		reason    string
	}{
		{"2 × 4, every ghx run half", two([]float64{100, 110, 90, 105}, []float64{50, 55, 45, 52}), 15, Pass, "is above the threshold 15.00% at 95.00% confidence"},
		{"2 × 4, every ghx run double", two([]float64{100, 110, 90, 105}, []float64{200, 220, 180, 210}), 15, Fail, "is below the threshold 15.00%"},
		{"2 × 4, on the threshold exactly", two([]float64{100, 100, 100, 100}, []float64{85, 85, 85, 85}), 15, Inconclusive, "contains the threshold 15.00%"},
		{"1 × 2, one scenario of two runs", []Scenario{{ID: "a", Base: []float64{100, 101}, Target: []float64{10, 11}}}, 15, Pass, "df=1.0"},
		{"2 × 1, one repetition per arm", []Scenario{{ID: "a", Base: []float64{100}, Target: []float64{10}}, {ID: "b", Base: []float64{300}, Target: []float64{30}}}, 15, Underpowered, "nothing measures the run-to-run noise"},
		{"all zero in both arms", []Scenario{{ID: "a", Base: []float64{0, 0, 0}, Target: []float64{0, 0, 0}}, {ID: "b", Base: []float64{0, 0}, Target: []float64{0, 0}}}, 20, Underpowered, "every scenario is 0 in both arms (2)"},
		{"all equal counts, 15 × 4", fifteen([]float64{4, 4, 4, 4}, []float64{4, 4, 4, 4}), 20, Fail, "is below the threshold 20.00%"},
		{"all equal counts cut in half, 15 × 4", fifteen([]float64{4, 4, 4, 4}, []float64{2, 2, 2, 2}), 20, Pass, "is above the threshold 20.00%"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Judge([]Metric{{Name: "m", Scenarios: tc.scs, MinReductionPct: tc.threshold}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			if r.Verdict != tc.want || !strings.Contains(r.Reason, tc.reason) {
				t.Errorf("expected %s (%q), got %s: %s", tc.want, tc.reason, r.Verdict, r.Reason)
			}
			if r.Scope != ScopeSuite || !strings.Contains(r.ScopeText, "it claims nothing about scenarios outside this suite") {
				t.Errorf("scope: %s, %q", r.Scope, r.ScopeText)
			}
			if (r.Verdict == Pass || r.Verdict == Fail) != (r.ToDecide == "") {
				t.Errorf("a decided check has no sentence of what would decide it, an undecided one has: %q", r.ToDecide)
			}
			if r.ToDecide != "" && strings.Contains(r.ToDecide, "already") {
				t.Errorf("an undecided check is never already powered: %q", r.ToDecide)
			}
		})
	}
}

func fifteen(base, target []float64) []Scenario {
	var out []Scenario
	for i := 0; i < 15; i++ {
		out = append(out, Scenario{ID: string(rune('a' + i)), Base: base, Target: target})
	}
	return out
}

func scale(xs []float64, k float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * k
	}
	return out
}

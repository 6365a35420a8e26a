package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Reference values. Where R publishes the figure (the examples of
// ?wilcox.test, ?binom.test and ?p.adjust) it is quoted; every value was
// also recomputed from the definitions by testdata/reference.py (exact
// values by enumerating all 2^n sign vectors, normal ones by scanning
// every step of wilcox.test's corrected statistic), which needs only
// Python's standard library: there is no R on the build machine.

// depression is Hollander & Wolfe (1973, p. 29), the paired example of
// R's ?wilcox.test: x - y for the depression scale before and after.
var depression = []float64{1.83 - 0.878, 0.50 - 0.647, 1.62 - 0.598, 2.48 - 2.05, 1.68 - 1.06, 1.88 - 1.29, 1.55 - 1.06, 3.06 - 3.14, 1.30 - 1.29}

// ties has zeros and a three-way tie (the log-ratio of 4→3 tool calls
// three times), so wilcox.test uses the normal approximation.
var ties = []float64{0, 0, -0.28768207245178085, 0.4, -0.28768207245178085, -0.5, -0.1, -0.2, 0.3, -0.6, -0.7, -0.28768207245178085}

// big has 60 distinct values: past ExactLimit, so normal too.
func big() []float64 {
	out := make([]float64, 60)
	for i := range out {
		out[i] = math.Sin(float64(i)*1.7)*0.4 - 0.2 + float64(i%7)*0.013
	}
	return out
}

func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

func TestSignedRankCI(t *testing.T) {
	tests := []struct {
		name         string
		x            []float64
		conf         float64
		lo, hi       float64
		achieved     float64 // 0: not checked (normal: the requested level)
		method       string
		underpowered bool
		source       string
	}{
		{"depression 95%", depression, 0.95, 0.01, 0.786, 0.9609375, MethodExact, false,
			"wilcox.test(x, y, paired=TRUE, conf.int=TRUE): W(6), W(40) of 45 Walsh averages, qsignrank(0.025, 9) = 6; reference.py"},
		{"depression 90%", depression, 0.90, 0.175, 0.726, 0.90234375, MethodExact, false, "reference.py enumeration"},
		{"six pairs, the fewest that reach 95%", []float64{0.1, -0.25, 0.4, 0.55, 0.7, 0.82}, 0.95, -0.25, 0.82, 0.96875, MethodExact, false,
			"qsignrank(0.025, 6) = 1: min and max Walsh averages, 1 - 2/64; reference.py"},
		{"four pairs are underpowered", []float64{-0.05, 0.08, -0.65, -0.3}, 0.95, -0.65, 0.08, 0.875, MethodExact, true,
			"qsignrank(0.025, 4) = 0 → R sets qu = 1 and warns 'requested conf.level not achievable' (achieved 1 - 2/16); reference.py"},
		{"ties and zeros", ties, 0.95, -0.4, 0.05, 0, MethodNormal, false, "normal approximation, scan of every step; reference.py"},
		{"60 pairs", big(), 0.95, -0.23065122548635347, -0.09116884241887283, 0, MethodNormal, false, "normal approximation above ExactLimit; reference.py"},
		{"one pair", []float64{0.3}, 0.95, 0.3, 0.3, 0, MethodExact, true, "a single Walsh average"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SignedRankCI(tc.x, tc.conf)
			if !near(got.Low, tc.lo, 1e-12) || !near(got.High, tc.hi, 1e-12) {
				t.Errorf("interval: expected [%v, %v] (%s), got [%v, %v]", tc.lo, tc.hi, tc.source, got.Low, got.High)
			}
			if got.Method != tc.method {
				t.Errorf("method: expected %s, got %s", tc.method, got.Method)
			}
			if got.Underpowered != tc.underpowered {
				t.Errorf("underpowered: expected %v, got %v", tc.underpowered, got.Underpowered)
			}
			if tc.achieved != 0 && !near(got.Confidence, tc.achieved, 1e-12) {
				t.Errorf("achieved confidence: expected %v, got %v", tc.achieved, got.Confidence)
			}
		})
	}
}

func TestSignedRankTest(t *testing.T) {
	tests := []struct {
		name   string
		x      []float64
		mu     float64
		p      float64
		method string
		source string
	}{
		{"depression", depression, 0, 0.0390625, MethodExact,
			"R ?wilcox.test prints V = 40, p-value = 0.01953 for alternative='greater'; two-sided is twice that, 20/512"},
		{"six pairs", []float64{0.1, -0.25, 0.4, 0.55, 0.7, 0.82}, 0, 0.09375, MethodExact, "V = 19, 2·P(V >= 19) = 6/64; reference.py"},
		{"ties and zeros", ties, 0, 0.15250670437348712, MethodNormal, "corrected normal approximation; reference.py"},
		{"60 pairs against -0.1", big(), -0.1, 0.08168022886762005, MethodNormal, "reference.py"},
		{"no differences", []float64{0, 0}, 0, 1, MethodNormal, "every difference is zero"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, method := SignedRankTest(tc.x, tc.mu)
			if !near(p, tc.p, 1e-9) || method != tc.method {
				t.Errorf("expected p=%v (%s; %s), got p=%v (%s)", tc.p, tc.method, tc.source, p, method)
			}
		})
	}
}

func TestHodgesLehmann(t *testing.T) {
	tests := []struct {
		name string
		x    []float64
		want float64
		src  string
	}{
		{"depression", depression, 0.46, "R prints (pseudo)median 0.46 in the exact case; median of the 45 Walsh averages"},
		{"ties", ties, -0.19384103622589044, "reference.py hl()"},
		{"one", []float64{2}, 2, "itself"},
		{"two", []float64{1, 3}, 2, "Walsh averages 1, 2, 3"},
	}
	for _, tc := range tests {
		if got := HodgesLehmann(tc.x); !near(got, tc.want, 1e-12) {
			t.Errorf("%s: expected %v (%s), got %v", tc.name, tc.want, tc.src, got)
		}
	}
	if !math.IsNaN(HodgesLehmann(nil)) {
		t.Error("no values: expected NaN")
	}
}

func TestMinPairs(t *testing.T) {
	tests := []struct {
		conf float64
		want int
	}{
		{0.95, 6},       // 2/32 = 0.0625 > 0.05, 2/64 <= 0.05
		{0.90, 5},       // 2/16 > 0.10, 2/32 <= 0.10
		{0.80, 4},       // 2/8 > 0.2, 2/16 <= 0.2
		{1 - 0.05/3, 7}, // Holm's first step over three metrics
	}
	for _, tc := range tests {
		if got := MinPairs(tc.conf); got != tc.want {
			t.Errorf("MinPairs(%v): expected %d, got %d", tc.conf, tc.want, got)
		}
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		x    []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1}, 2},
		{[]float64{5, 1, 4, 2, 3}, 3},
		{[]float64{7, 7, 1, 9, 7, 2}, 7},
		{[]float64{-1, -1, -1, 4}, -1},
	}
	for _, tc := range tests {
		in := append([]float64(nil), tc.x...)
		if got := Median(tc.x); got != tc.want {
			t.Errorf("Median(%v): expected %v, got %v", in, tc.want, got)
		}
		for i := range in {
			if in[i] != tc.x[i] {
				t.Errorf("Median reordered its input: %v became %v", in, tc.x)
				break
			}
		}
	}
}

// TestHodgesLehmannSorted: the bootstrap's bisection agrees with the
// Walsh-average median.
func TestHodgesLehmannSorted(t *testing.T) {
	// The last ones differ by one unit in the last place: the bisection
	// must end although no float lies between its ends.
	nextUp := math.Nextafter(-0.6931471805599453, 0)
	for _, x := range [][]float64{depression, ties, big(), {1}, {2, 2, 2}, {-1, 5}, {-0.6931471805599453, nextUp, -0.6931471805599453, nextUp}} {
		s := append([]float64(nil), x...)
		sortFloats(s)
		want := HodgesLehmann(x)
		spread := s[len(s)-1] - s[0]
		if got := hodgesLehmannSorted(s); math.Abs(got-want) > 1e-11*math.Max(spread, 1) {
			t.Errorf("%v: expected %v, got %v", x, want, got)
		}
	}
}

// TestSelectKthMatchesSort: for whole numbers and floats with ties, every
// k gives the value a sort puts at k, and nothing larger comes before it.
func TestSelectKthMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for n := 1; n < 40; n++ {
		ints := make([]int32, n)
		floats := make([]float64, n)
		for i := range ints {
			ints[i] = int32(r.IntN(5)) - 2
			floats[i] = float64(r.IntN(7)) / 3
		}
		sortedI, sortedF := slices.Clone(ints), slices.Clone(floats)
		slices.Sort(sortedI)
		slices.Sort(sortedF)
		for k := 0; k < n; k++ {
			si, sf := slices.Clone(ints), slices.Clone(floats)
			if got := SelectKth(si, k); got != sortedI[k] || slices.Max(si[:k+1]) != got {
				t.Fatalf("int32 n=%d k=%d: got %v, sorted %v, after %v", n, k, got, sortedI, si)
			}
			if got := SelectKth(sf, k); got != sortedF[k] || slices.Max(sf[:k+1]) != got {
				t.Fatalf("float64 n=%d k=%d: got %v, sorted %v, after %v", n, k, got, sortedF, sf)
			}
		}
	}
}

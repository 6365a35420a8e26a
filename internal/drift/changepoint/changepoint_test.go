package changepoint

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestBestSplit checks the score against values worked out by hand.
// With one component it is the pooled two-sample |t|:
// |mean2 - mean1| / sqrt(s2 (1/n1 + 1/n2)), s2 the pooled variance;
// with several, |sum w d| / sqrt(sum w), w = 1/(s2 (1/n1 + 1/n2)).
func TestBestSplit(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name    string
		x       []float64
		k       int
		minSize int
		tau     int
		q       float64
	}{
		// {0,0} | {1,1}: no spread on either side, different means.
		{"perfect separation", []float64{0, 0, 1, 1}, 1, 2, 2, inf},
		// {0,2} | {1,3}: means 1 and 2, pooled variance (2+2)/2 = 2,
		// t = 1/sqrt(2 x (1/2+1/2)) = 0.7071.
		{"one split", []float64{0, 2, 1, 3}, 1, 2, 2, 1 / math.Sqrt2},
		// tau 2: {0,2} | {0,5,7}: means 1, 4; pooled (2+26)/3;
		// t = 3/sqrt(28/3 x 5/6) = 1.0757. tau 3: {0,2,0} | {5,7}:
		// means 2/3, 6; pooled (8/3+2)/3 = 14/9;
		// t = (16/3)/sqrt(14/9 x 5/6) = 4.6843.
		{"best of two", []float64{0, 2, 0, 5, 7}, 1, 2, 3, (16.0 / 3) / math.Sqrt(14.0/9*5/6)},
		// Components {0,2,1,3} and {0,4,2,6}: shifts 1 and 2, weights
		// 1/2 and 1/8: (1/2 + 2/8)/sqrt(5/8) = 0.9487.
		{"two components", []float64{0, 0, 2, 4, 1, 2, 3, 6}, 2, 2, 2, 0.75 / math.Sqrt(0.625)},
		// The second component missing in run 1 leaves it one value on
		// the left: only the first speaks, as in "one split".
		{"missing value", []float64{0, 0, 2, math.NaN(), 1, 2, 3, 6}, 2, 2, 2, 1 / math.Sqrt2},
		// Values far from 0 with little spread: the same t as "one
		// split" scaled down.
		{"far from zero", []float64{1e6, 1e6 + 2e-3, 1e6 + 1e-3, 1e6 + 3e-3}, 1, 2, 2, 1 / math.Sqrt2},
		// A constant look has no split.
		{"constant", []float64{4, 4, 4, 4, 4}, 1, 2, 2, 0},
	} {
		d := NewDetector(Options{MinSize: tc.minSize, Window: 10})
		d.size(tc.k)
		tau, q := d.load(tc.x)
		if tau != tc.tau || (math.IsInf(tc.q, 1) != math.IsInf(q, 1)) || (!math.IsInf(q, 1) && math.Abs(q-tc.q) > 1e-6) {
			t.Errorf("%s: %v: best split %d with score %g, want %d with %g", tc.name, tc.x, tau, q, tc.tau, tc.q)
		}
	}
}

func step(seed uint64, n, at int, size float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([]float64, n)
	for i := range x {
		x[i] = r.NormFloat64()
		if i >= at {
			x[i] += size
		}
	}
	return x
}

func TestDetectFindsAClearStepAndNothingInAFlatSeries(t *testing.T) {
	cps := Detect(step(1, 40, 20, 6), Options{})
	if len(cps) != 1 || cps[0].Index != 20 || cps[0].Provisional || cps[0].PValue > DefaultAlpha {
		t.Errorf("step of 6 sd at 20 of 40: got %+v, want one confirmed change point at 20", cps)
	}
	if cps := Detect(make([]float64, 100), Options{}); len(cps) != 0 {
		t.Errorf("constant series: got %+v, want none", cps)
	}
	if cps := Detect(step(2, 9, 5, 100), Options{}); len(cps) != 0 {
		t.Errorf("9 values (fewer than two sides of MinSize): got %+v, want none", cps)
	}
}

// TestDetectIsAFunctionOfThePrefix: the change points of a series are
// those of every shorter prefix, plus new ones, the provisional last one
// aside.
func TestDetectIsAFunctionOfThePrefix(t *testing.T) {
	x := append(step(3, 30, 12, 4), step(4, 30, 0, 8)...)
	all := Detect(x, Options{})
	if len(all) < 2 {
		t.Fatalf("two steps: got %+v", all)
	}
	for n := 10; n <= len(x); n++ {
		var confirmed []ChangePoint
		for _, c := range Detect(x[:n], Options{}) {
			if !c.Provisional {
				confirmed = append(confirmed, c)
			}
		}
		if len(confirmed) > len(all) || !reflect.DeepEqual(append([]ChangePoint{}, confirmed...), append([]ChangePoint{}, all[:len(confirmed)]...)) {
			t.Fatalf("prefix %d: confirmed %+v, not a prefix of %+v", n, confirmed, all)
		}
	}
}

func TestDetectIsSeeded(t *testing.T) {
	x := step(5, 60, 30, 1.5)
	a, b := Detect(x, Options{Seed: 7}), Detect(x, Options{Seed: 7})
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, different answers: %+v and %+v", a, b)
	}
}

// BenchmarkDetect1000 scans one series of 1,000 runs with a step.
func BenchmarkDetect1000(b *testing.B) {
	x := step(6, 1000, 600, 3)
	d := NewDetector(Options{})
	b.ReportAllocs()
	for b.Loop() {
		d.Detect(x)
	}
}

// BenchmarkDetect1000Flat scans one series of 1,000 runs without a change.
func BenchmarkDetect1000Flat(b *testing.B) {
	x := step(7, 1000, 0, 0)
	d := NewDetector(Options{})
	b.ReportAllocs()
	for b.Loop() {
		d.Detect(x)
	}
}

// TestDetectComponentsWeighsTheSteadyOnes: two components shift by the
// same amount at run 30 of 50, one with little noise (sd 0.1), one with
// much (sd 3). Read together, the steady one places the change; the
// noisy one alone says nothing; a component missing in some runs still
// counts in the others.
func TestDetectComponentsWeighsTheSteadyOnes(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	const n, at = 50, 30
	x := make([]float64, 0, 2*n)
	noisy := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		shift := 0.0
		if i >= at {
			shift = 0.5
		}
		a, b := 0.1*r.NormFloat64()+shift, 3*r.NormFloat64()+shift
		x = append(x, a, b)
		noisy = append(noisy, b)
	}
	d := NewDetector(Options{})
	if cps := d.DetectComponents(x, 2); len(cps) != 1 || cps[0].Index < at-1 || cps[0].Index > at+1 {
		t.Errorf("both components: got %+v, want one change point at %d (±1)", cps, at)
	}
	if cps := d.Detect(noisy); len(cps) != 0 {
		t.Errorf("the noisy component alone: got %+v, want none", cps)
	}
	for i := 0; i < 10; i++ {
		x[2*i] = math.NaN()
	}
	if cps := d.DetectComponents(x, 2); len(cps) != 1 || cps[0].Index < at-1 || cps[0].Index > at+1 {
		t.Errorf("the steady component missing in runs 0-9: got %+v, want one change point at %d (±1)", cps, at)
	}
}

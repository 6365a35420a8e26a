package changepoint

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestBestSplit checks the energy statistic against values worked out by
// hand: for X | Y, Q = mn/(m+n) (2/(mn) sum|x-y| - sum_{i<k}|x_i-x_k|/C(m,2)
// - sum_{j<k}|y_j-y_k|/C(n,2)).
func TestBestSplit(t *testing.T) {
	for _, tc := range []struct {
		x       []float64
		minSize int
		tau     int
		q       float64
	}{
		// {0,0} | {1,1}: between 4, within 0 and 0: 1 x (2*4/4) = 2.
		{[]float64{0, 0, 1, 1}, 2, 2, 2},
		// {0,1} | {0,1}: between 2, within 1 and 1: 1 x (1 - 1 - 1) = -1.
		{[]float64{0, 1, 0, 1}, 2, 2, -1},
		// {0,0,0} | {3,3}, the only split with 2 on each side... of
		// 2 or 3: tau 2 is {0,0}|{0,3,3}: between 12, within 0 and 6/3:
		// 6/5 x (24/6 - 0 - 2) = 2.4; tau 3: between 18, within 0 and 0:
		// 6/5 x (36/6) = 7.2.
		{[]float64{0, 0, 0, 3, 3}, 2, 3, 7.2},
	} {
		d := NewDetector(Options{MinSize: tc.minSize, Window: 10})
		tau, q := d.load(tc.x)
		if tau != tc.tau || q < tc.q-1e-9 || q > tc.q+1e-9 {
			t.Errorf("%v: best split %d with Q %g, want %d with %g", tc.x, tau, q, tc.tau, tc.q)
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

package stats

import (
	"encoding/binary"
	"math"
	"testing"
)

// floatsFrom turns fuzz bytes into up to 80 finite values: each pair of
// bytes is a small signed number, so ties and zeros are common, which is
// where the signed-rank code branches.
func floatsFrom(data []byte) []float64 {
	var out []float64
	for len(data) >= 2 && len(out) < 80 {
		v := int16(binary.LittleEndian.Uint16(data))
		out = append(out, float64(v%512)/64)
		data = data[2:]
	}
	return out
}

// FuzzSignedRankCI: any differences give an ordered interval that holds
// the Hodges–Lehmann estimate, and a p-value in [0, 1].
func FuzzSignedRankCI(f *testing.F) {
	f.Add([]byte{1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0})
	f.Add([]byte{255, 255, 1, 0, 255, 255, 1, 0, 255, 255, 1, 0, 7, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		x := floatsFrom(data)
		if len(x) == 0 {
			return
		}
		for _, conf := range []float64{0.8, 0.95, 1 - 0.05/3} {
			ci := SignedRankCI(x, conf)
			hl := HodgesLehmann(x)
			if !(ci.Low <= ci.High) {
				t.Fatalf("%v at %v: interval [%v, %v] out of order", x, conf, ci.Low, ci.High)
			}
			if hl < ci.Low || hl > ci.High {
				t.Fatalf("%v at %v: estimate %v outside [%v, %v] (%s)", x, conf, hl, ci.Low, ci.High, ci.Method)
			}
		}
		p, _ := SignedRankTest(x, 0)
		if !(p >= 0 && p <= 1) {
			t.Fatalf("%v: p-value %v", x, p)
		}
	})
}

// FuzzJudge: any repetitions give finite, ordered results with a verdict
// and a reason.
func FuzzJudge(f *testing.F) {
	f.Add([]byte{10, 0, 8, 0, 12, 0, 9, 0, 14, 0, 9, 0, 11, 0, 7, 0}, uint8(2), 15.0)
	f.Add([]byte{0, 0, 0, 0, 1, 0, 0, 0}, uint8(1), 0.0)
	f.Add([]byte{200, 1, 100, 1, 50, 1, 60, 2, 70, 3, 20, 0, 90, 1, 40, 1, 200, 1, 100, 1, 50, 1, 60, 2, 70, 3, 20, 0, 90, 1, 40, 1, 200, 1, 100, 1, 50, 1, 60, 2}, uint8(1), -10.0)
	f.Fuzz(func(t *testing.T, data []byte, reps uint8, threshold float64) {
		if !(threshold < 100) || math.IsNaN(threshold) || threshold < -1e6 {
			return
		}
		vals := floatsFrom(data)
		r := int(reps%4) + 1
		var scs []Scenario
		for i := 0; i+2*r <= len(vals); i += 2 * r {
			s := Scenario{ID: "s"}
			for k := 0; k < r; k++ {
				s.Base = append(s.Base, math.Abs(vals[i+k]))
				s.Target = append(s.Target, math.Abs(vals[i+r+k]))
			}
			scs = append(scs, s)
		}
		res, err := Judge([]Metric{{Name: "m", Scenarios: scs, MinReductionPct: threshold}, {Name: "n", Scenarios: scs, MinReductionPct: threshold / 2}}, Options{Scope: ScopeScenarios, Replicates: 50})
		if err != nil {
			t.Fatal(err)
		}
		suite, err := Judge([]Metric{{Name: "m", Scenarios: scs, MinReductionPct: threshold}, {Name: "n", Scenarios: scs, MinReductionPct: threshold / 2}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range suite {
			if p := x.SuitePlan; p != nil && (math.IsNaN(p.CurrentPower) || p.CurrentPower > 1 || math.IsNaN(p.WithinSD)) {
				t.Fatalf("bad suite plan %+v", *p)
			}
			if (x.Verdict == Pass || x.Verdict == Fail) == (x.ToDecide != "") || x.ScopeText == "" {
				t.Fatalf("a suite result must say its scope, and what would decide it exactly when undecided: %+v", x)
			}
			if x.Verdict == Pass && !(x.PValue <= 0.05+1e-9) {
				t.Fatalf("a pass at p=%v", x.PValue)
			}
			// The interval and the verdict agree.
			if !x.NoInterval && ((x.Verdict == Pass) != (x.LowPct > x.MinReductionPct) || (x.Verdict == Fail) != (x.HighPct < x.MinReductionPct)) {
				t.Fatalf("%s with interval [%v, %v] against %v", x.Verdict, x.LowPct, x.HighPct, x.MinReductionPct)
			}
			if x.NoInterval != (x.Verdict == Underpowered) {
				t.Fatalf("%s with noInterval %v: %s", x.Verdict, x.NoInterval, x.Reason)
			}
		}
		for _, x := range append(res, suite...) {
			for _, v := range []float64{x.EstimatePct, x.LowPct, x.HighPct, x.PValue, x.HolmPValue} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("non-finite value in %+v", x)
				}
			}
			if x.LowPct > x.HighPct || x.Verdict == "" || x.Reason == "" {
				t.Fatalf("bad result %+v", x)
			}
			if p := x.Plan; p != nil {
				for _, v := range []float64{p.BetweenSD, p.WithinSD, p.Observed.CurrentPower, p.NoChange.CurrentPower, p.Observed.AssumedReductionPct} {
					if math.IsNaN(v) || math.IsInf(v, 0) || v < -1e300 {
						t.Fatalf("non-finite plan figure in %+v", *p)
					}
				}
				if p.Observed.CurrentPower > 1 || p.Observed.Scenarios == 0 || p.Summary == "" {
					t.Fatalf("bad plan %+v", *p)
				}
			}
		}
	})
}

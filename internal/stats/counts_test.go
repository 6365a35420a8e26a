package stats

import (
	"math"
	"testing"
)

func TestBinomTest(t *testing.T) {
	tests := []struct {
		x, n int
		p    float64
		want float64
		src  string
	}{
		{682, 925, 0.75, 0.3824915595748517, "R ?binom.test (Mendel's peas) prints p-value = 0.3825; reference.py"},
		{3, 20, 0.3, 0.22041826738070916, "reference.py binom_test"},
		{5, 10, 0.5, 1, "x equals n·p"},
		{0, 0, 0.5, 1, "no trials"},
	}
	for _, tc := range tests {
		if got := BinomTest(tc.x, tc.n, tc.p); !near(got, tc.want, 1e-9) {
			t.Errorf("BinomTest(%d, %d, %v): expected %v (%s), got %v", tc.x, tc.n, tc.p, tc.want, tc.src, got)
		}
	}
}

func TestClopperPearson(t *testing.T) {
	tests := []struct {
		x, n   int
		conf   float64
		lo, hi float64
		src    string
	}{
		{682, 925, 0.95, 0.7076683, 0.7654066, "R ?binom.test prints 95 percent confidence interval 0.7076683 0.7654066"},
		{0, 10, 0.95, 0, 1 - math.Pow(0.025, 0.1), "closed form for x = 0: 1-(α/2)^(1/n)"},
		{10, 10, 0.95, math.Pow(0.025, 0.1), 1, "closed form for x = n: (α/2)^(1/n)"},
	}
	for _, tc := range tests {
		lo, hi := ClopperPearson(tc.x, tc.n, tc.conf)
		if math.Abs(lo-tc.lo) > 5e-8 || math.Abs(hi-tc.hi) > 5e-8 {
			t.Errorf("ClopperPearson(%d, %d): expected [%v, %v] (%s), got [%v, %v]", tc.x, tc.n, tc.lo, tc.hi, tc.src, lo, hi)
		}
	}
}

func TestMcNemarExact(t *testing.T) {
	tests := []struct {
		b, c int
		want float64
		src  string
	}{
		{1, 9, 0.021484375, "2·P(X <= 1), X ~ Bin(10, 1/2) = 2·11/1024"},
		{9, 1, 0.021484375, "symmetric"},
		{7, 2, 0.1796875, "2·P(X <= 2), X ~ Bin(9, 1/2) = 2·46/512"},
		{0, 0, 1, "no discordant pairs"},
		{0, 5, 0.0625, "2/32: five pairs can at best reach 0.0625"},
	}
	for _, tc := range tests {
		if got := McNemarExact(tc.b, tc.c); !near(got, tc.want, 1e-12) {
			t.Errorf("McNemarExact(%d, %d): expected %v (%s), got %v", tc.b, tc.c, tc.want, tc.src, got)
		}
	}
}

func TestHolm(t *testing.T) {
	tests := []struct {
		p, want []float64
		src     string
	}{
		{[]float64{0.01, 0.04, 0.03}, []float64{0.03, 0.06, 0.06}, "p.adjust(c(0.01, 0.04, 0.03), 'holm') by the definition"},
		{[]float64{0.5, 0.01}, []float64{0.5, 0.02}, "second step keeps the running maximum"},
		{[]float64{0.6, 0.7}, []float64{1, 1}, "capped at 1"},
		{[]float64{}, []float64{}, "empty family"},
	}
	for _, tc := range tests {
		got := Holm(tc.p)
		for i := range tc.want {
			if !near(got[i], tc.want[i], 1e-12) {
				t.Errorf("Holm(%v): expected %v (%s), got %v", tc.p, tc.want, tc.src, got)
				break
			}
		}
	}
}

func TestMDE(t *testing.T) {
	// sd of {-0.1, -0.3, -0.2, -0.4, 0, -0.5} is sqrt(0.035); n = 6;
	// (1.959964 + 0.841621)·0.187083/√6·√(π/3) = 0.218846.
	d := []float64{-0.1, -0.3, -0.2, -0.4, 0, -0.5}
	want := (1.959963984540054 + 0.8416212335729143) * math.Sqrt(0.035) / math.Sqrt(6) * math.Sqrt(math.Pi/3)
	if got := MDE(d, 0.95, 0.8); !near(got, want, 1e-9) {
		t.Errorf("MDE: expected %v, got %v", want, got)
	}
	if got := MDE(d[:4], 0.95, 0.8); !math.IsNaN(got) {
		t.Errorf("MDE of 4 pairs at 95%%: expected NaN (underpowered), got %v", got)
	}
}

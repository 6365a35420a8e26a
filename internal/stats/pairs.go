package stats

import "math"

// Scenario is one scenario's values of one metric in both arms: Base is
// the arm compared against (agent_direct, or the baseline run), Target
// the arm judged (ghx, or this run). Each holds one value per repetition.
type Scenario struct {
	ID     string
	Base   []float64
	Target []float64
}

// Pair is one scenario collapsed to its arms' medians and their ratio.
type Pair struct {
	ID       string  `json:"id"`
	Base     float64 `json:"base"`
	Target   float64 `json:"target"`
	LogRatio float64 `json:"logRatio"`
}

// ZeroFloor stands in for a median of zero in a ratio, in either arm:
// half the unit of every metric here (a token, a millisecond, a tool
// call), so a scenario that went from 3 tool calls to none counts as a
// large reduction (log(0.5/3)) and one that went from none to 3 as the
// same large increase (log(3/0.5)), rather than an infinite one. Only a
// zero is changed: every ratio of two non-zero medians stays exact, so
// 5 → 4 is a reduction of exactly 20%.
const ZeroFloor = 0.5

// LogRatio is log(target/base) with both floored at ZeroFloor: one
// division, then one logarithm (logOfRatio), so equal ratios are equal
// values at any scale (5 → 4 and 10 → 8 give the same bits), and swapping
// the arms flips the sign to the last bit, which keeps the estimate
// centred on 0 when the arms do not differ, even for counts that are
// often 0.
func LogRatio(base, target float64) float64 {
	return logOfRatio(math.Max(target, ZeroFloor), math.Max(base, ZeroFloor))
}

// logOfRatio is log(num/den) computed as ±log(larger/smaller): the
// quotient of two exact products is the correctly rounded true ratio, so
// two pairs whose true ratios are equal give the same quotient and the
// same logarithm, and the larger-over-smaller form makes log(a/b) exactly
// −log(b/a). A quotient beyond float range falls back to a difference of
// logarithms.
func logOfRatio(num, den float64) float64 {
	if num == den {
		return 0
	}
	sign := 1.0
	if num < den {
		num, den, sign = den, num, -1
	}
	q := num / den
	if math.IsInf(q, 0) || math.IsInf(num, 0) || math.IsInf(den, 0) || den == 0 {
		return sign * (math.Log(num) - math.Log(den))
	}
	return sign * math.Log(q)
}

// Excess is a pair's log-ratio measured from the threshold, the value
// every verdict is computed on: log(target·100 / (base·(100 − t))), with
// both arms floored at ZeroFloor. It is one division, then one logarithm
// (logOfRatio): the two products are exact for counts, integer
// milliseconds and thresholds like 15 or 12.5, so a pair exactly on the
// threshold is exactly 0 (5 → 4 at 20% is 400/400) and pairs with equal
// ratios are equal values (25 → 16 and 50 → 32 at 0%: both log(1.5625)).
// Subtracting two logarithms instead leaves differences in the last
// place that the rank tests count as real differences. Negative: the
// target beat the threshold.
func Excess(base, target, minReductionPct float64) float64 {
	t, b := math.Max(target, ZeroFloor), math.Max(base, ZeroFloor)
	num, den := t*100, b*(100-minReductionPct)
	if math.IsInf(num, 0) || math.IsInf(den, 0) {
		// Beyond float range as products: the same value term by term.
		return math.Log(t) + math.Log(100) - math.Log(b) - math.Log(100-minReductionPct)
	}
	return logOfRatio(num, den)
}

// ReductionAt turns an excess back into a reduction in percent:
// 100 − (100 − t)·e^excess, exactly t at excess 0.
//
// A result within 1e-9 percentage points of 0 is 0: with a threshold that
// is not exact in binary (a tolerance of −10%), the logarithms of two
// equal medians do not cancel to the last bit, and an unchanged metric
// must read +0.0%, not a rounding error's −0.0%.
func ReductionAt(excess, minReductionPct float64) float64 {
	r := 100 - (100-minReductionPct)*math.Exp(excess)
	if math.Abs(r) < 1e-9 {
		return 0
	}
	return r
}

// Pairs collapses each scenario's repetitions to their medians and
// returns the pairs in input order. A scenario is excluded (its id
// returned in excluded) when an arm has no values, or a median is
// negative, NaN or infinite. A median of 0 in either arm is kept and
// floored at ZeroFloor: leaving out the scenarios whose base is 0 (as v2
// does) but keeping those whose target is 0 would count every 1 → 0 and
// none of the 0 → 1, which biases counts such as tool calls toward a
// reduction.
func Pairs(scs []Scenario) (pairs []Pair, excluded []string) {
	for _, s := range scs {
		if len(s.Base) == 0 || len(s.Target) == 0 {
			excluded = append(excluded, s.ID)
			continue
		}
		b, t := Median(s.Base), Median(s.Target)
		if !usable(b) || !usable(t) {
			excluded = append(excluded, s.ID)
			continue
		}
		pairs = append(pairs, Pair{ID: s.ID, Base: b, Target: t, LogRatio: LogRatio(b, t)})
	}
	return pairs, excluded
}

// usable says whether a median can enter a ratio: finite and not
// negative.
func usable(v float64) bool {
	return v >= 0 && !math.IsInf(v, 0)
}

// ReductionPct turns a log-ratio into the reduction of the target
// against the base in percent, (1 - target/base)·100: v2's unit.
func ReductionPct(logRatio float64) float64 {
	return -math.Expm1(logRatio) * 100
}

// LogRatioOf is ReductionPct's inverse; a reduction of 100% or more has
// no log-ratio and gives -Inf.
func LogRatioOf(reductionPct float64) float64 {
	if reductionPct >= 100 {
		return math.Inf(-1)
	}
	return math.Log1p(-reductionPct / 100)
}

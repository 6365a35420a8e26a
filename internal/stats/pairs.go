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

// ZeroFloor stands in for a median of zero in a ratio: half the unit of
// every metric here (a token, a millisecond, a tool call), so a scenario
// that went from 3 tool calls to none counts as a large reduction rather
// than an infinite one.
const ZeroFloor = 0.5

// LogRatio is log(target/base) with both floored at ZeroFloor.
func LogRatio(base, target float64) float64 {
	return math.Log(math.Max(target, ZeroFloor) / math.Max(base, ZeroFloor))
}

// Pairs collapses each scenario's repetitions to their medians and
// returns the pairs in input order. A scenario is excluded (its id
// returned in excluded) when an arm has no values or the base median is
// not above 0: v2 leaves such scenarios out of its reductions too.
func Pairs(scs []Scenario) (pairs []Pair, excluded []string) {
	for _, s := range scs {
		if len(s.Base) == 0 || len(s.Target) == 0 {
			excluded = append(excluded, s.ID)
			continue
		}
		b, t := Median(s.Base), Median(s.Target)
		if !(b > 0) || math.IsNaN(t) || math.IsInf(b, 0) || math.IsInf(t, 0) {
			excluded = append(excluded, s.ID)
			continue
		}
		pairs = append(pairs, Pair{ID: s.ID, Base: b, Target: t, LogRatio: LogRatio(b, t)})
	}
	return pairs, excluded
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

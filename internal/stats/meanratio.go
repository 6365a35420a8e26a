package stats

import (
	"math"
	"sort"
)

// The suite scope's estimand and test.
//
// Estimand: the equal-weight mean, over the suite's scenarios, of each
// scenario's log ratio of the two arms' mean values,
//
//	θ = (1/S) Σ_s log(μ_target,s / μ_base,s),
//
// reported as the reduction 1 − e^θ. Every scenario weighs the same
// whatever its scale (one scenario costing ten times the others does not
// dominate), a scenario that halves and one that doubles cancel, and for
// counts the mean, not a single pair of repetitions, is what is compared.
//
// Test: a fixed-effects t-test of θ. Each arm's log mean is estimated
// by log((total + ½)/n), half a unit added to the total (for a Poisson
// count that makes the log nearly unbiased even at a mean of one or two
// calls, and it keeps an all-zero arm finite); its variance by the delta
// method, n·s²/(total + ½)², with s² the repetitions' variance (at least
// 1/12, the variance of rounding to a whole unit, so that identical
// repetitions do not claim infinite precision). The scenarios' log
// ratios are averaged with equal weights, their variances summed, and
// the statistic is referred to Student's t with Welch–Satterthwaite's
// degrees of freedom. A scenario whose arms are both all zero carries no
// evidence about a ratio and is left out (NoEvidence). For counts the
// variance is a dispersion (variance over mean) times the mean, the
// dispersion the scenario's own, pooled over its two arms: scenarios
// differ in it, and one pooled over the whole check takes a scenario
// whose calls swing widely as steady as the rest. An arm with one
// repetition takes the relative variance pooled over the arms with two
// or more (for counts, its scenario's other arm first); the degrees of
// freedom count that pooled estimate once, however many arms borrow it.
// With none, nothing estimates the noise and the check is underpowered.

// MeanRatioHalf is the half unit added to each arm's total.
const MeanRatioHalf = 0.5

// roundingVariance is the least variance a repetition is taken to have:
// that of rounding to a whole unit (a token, a millisecond, a call).
const roundingVariance = 1.0 / 12

// ScenarioRatio is one scenario's part of the mean-ratio test: the arms'
// means (geometric away from counts, arithmetic for counts), the log
// ratio that enters the estimate and its variance.
type ScenarioRatio struct {
	ID          string  `json:"id"`
	BaseMean    float64 `json:"baseMean"`
	TargetMean  float64 `json:"targetMean"`
	BaseReps    int     `json:"baseRepetitions"`
	TargetReps  int     `json:"targetRepetitions"`
	LogRatio    float64 `json:"logRatio"`
	Variance    float64 `json:"variance"`
	ReductionPc float64 `json:"reductionPct"`
}

// MeanRatio is the fixed-effects estimate of θ with its standard error
// and degrees of freedom.
type MeanRatio struct {
	Estimate float64
	SE       float64
	// DF is Welch–Satterthwaite's degrees of freedom; 0 when nothing
	// estimates the noise.
	DF         float64
	Scenarios  []ScenarioRatio
	NoEvidence []string
	// RelVar is, per scenario, the base and target arms' relative
	// variance of one repetition (s²/mean'²), the planner's input.
	RelVar [][2]float64
	// Counts says the metric was judged as counts (CountLimit).
	Counts bool
	// pooled relative variance (for counts the dispersion) and its
	// degrees of freedom.
	pooledRel float64
	pooledDF  float64
}

type armStat struct {
	n     int
	total float64
	mean  float64 // (total + ½)/n
	// rel is the relative variance of one repetition (its variance over
	// the mean squared); NaN for n = 1.
	rel float64
	// s2 is the repetitions' variance (at least roundingVariance).
	s2 float64
	// logMean is log(mean) for counts, the mean of the logs otherwise.
	logMean float64
}

// CountLimit: a metric with any value below it (tool calls) is judged
// as counts, its variance pooled as a dispersion over a Poisson's; a
// metric whose values are all at least this (tokens, milliseconds) has
// each arm's variance from its log values.
const CountLimit = 10

func newArm(xs []float64, counts bool) armStat {
	a := armStat{n: len(xs), rel: math.NaN()}
	for _, v := range xs {
		a.total += v
	}
	a.mean = (a.total + MeanRatioHalf) / float64(a.n)
	a.logMean = math.Log(a.mean)
	if !counts {
		a.logMean = 0
		for _, v := range xs {
			a.logMean += math.Log(v)
		}
		a.logMean /= float64(a.n)
	}
	if a.n < 2 {
		return a
	}
	m := a.total / float64(a.n)
	ss := 0.0
	for _, v := range xs {
		ss += (v - m) * (v - m)
	}
	a.s2 = math.Max(ss/float64(a.n-1), roundingVariance)
	a.rel = a.s2 / (a.mean * a.mean)
	if counts {
		return a
	}
	// Far from 0 (tokens, milliseconds) the spread is multiplicative:
	// the arm is summarised by the mean and variance of its log values,
	// which for a log-normal arm are independent (a low draw does not
	// come with a small variance that overstates it, as s²/mean² does).
	lm, lss := 0.0, 0.0
	for _, v := range xs {
		lm += math.Log(v)
	}
	lm /= float64(a.n)
	for _, v := range xs {
		lss += (math.Log(v) - lm) * (math.Log(v) - lm)
	}
	a.rel = math.Max(lss/float64(a.n-1), roundingVariance/(a.mean*a.mean))
	return a
}

// NewMeanRatio computes the estimate from every scenario's usable values
// (finite, non-negative); a scenario with an empty arm is skipped.
func NewMeanRatio(scs []Scenario) MeanRatio {
	var m MeanRatio
	type sc struct {
		id   string
		b, t armStat
	}
	counts := false
	for _, s := range scs {
		for _, v := range append(usableValues(s.Base), usableValues(s.Target)...) {
			counts = counts || v < CountLimit
		}
	}
	m.Counts = counts
	var use []sc
	for _, s := range scs {
		b, t := usableValues(s.Base), usableValues(s.Target)
		if len(b) == 0 || len(t) == 0 {
			continue
		}
		ab, at := newArm(b, counts), newArm(t, counts)
		if ab.total == 0 && at.total == 0 {
			m.NoEvidence = append(m.NoEvidence, s.ID)
			continue
		}
		use = append(use, sc{s.ID, ab, at})
	}
	// Pooled over the arms with two or more repetitions: for counts the
	// dispersion φ (variance over mean) as a ratio of sums, otherwise
	// the relative variance weighted by degrees of freedom.
	var num, den, df float64
	for _, s := range use {
		for _, a := range []armStat{s.b, s.t} {
			if a.n < 2 {
				continue
			}
			f := float64(a.n - 1)
			if counts {
				num += f * a.s2
				den += f * a.mean
			} else {
				num += f * a.rel
				den += f
			}
			df += f
		}
	}
	if df > 0 {
		m.pooledRel, m.pooledDF = num/den, df
	}
	if len(use) == 0 {
		return m
	}
	S := float64(len(use))
	var est, v, dfDen float64
	// vPooled: for counts, the variance resting on the suite's φ;
	// borrowed: the arms of one repetition that take the pooled
	// relative variance.
	var vPooled, borrowed float64
	known := df > 0
	for _, s := range use {
		var vs float64
		var rel [2]float64
		// Counts: the scenario's own dispersion, pooled over its two
		// arms (the check's when neither has two repetitions): a
		// scenario whose calls spread more than the others' is not
		// taken as precise as they are.
		phi, phiDF := m.pooledRel, 0.0
		if counts {
			var sn, sd, sf float64
			for _, a := range []armStat{s.b, s.t} {
				if a.n >= 2 {
					f := float64(a.n - 1)
					sn, sd, sf = sn+f*a.s2, sd+f*a.mean, sf+f
				}
			}
			if sf > 0 {
				phi, phiDF = sn/sd, sf
			}
		}
		for k, a := range []armStat{s.b, s.t} {
			r, adf := a.rel, float64(a.n-1)
			switch {
			case counts:
				// Var = φ·mean: the relative variance φ/mean.
				r, adf = phi/a.mean, m.pooledDF
			case a.n < 2:
				r, adf = m.pooledRel, m.pooledDF
			}
			rel[k] = r
			va := r / float64(a.n)
			vs += va
			switch {
			case !known || counts:
			case a.n < 2:
				// An arm that borrows the pooled variance borrows
				// the estimates of the arms pooled: its share is
				// added to theirs below (borrowed), not counted
				// as an estimate of its own.
				borrowed++
			default:
				dfDen += va * va / adf
			}
		}
		if counts {
			if phiDF > 0 {
				dfDen += vs * vs / phiDF
			} else {
				vPooled += vs
			}
		}
		d := logOfRatio(s.t.mean, s.b.mean)
		if !counts {
			d = s.t.logMean - s.b.logMean
		}
		est += d
		v += vs
		m.RelVar = append(m.RelVar, rel)
		bm, tm := s.b.total/float64(s.b.n), s.t.total/float64(s.t.n)
		if !counts {
			bm, tm = math.Exp(s.b.logMean), math.Exp(s.t.logMean)
		}
		m.Scenarios = append(m.Scenarios, ScenarioRatio{ID: s.id, BaseMean: bm, TargetMean: tm,
			BaseReps: s.b.n, TargetReps: s.t.n, LogRatio: d, Variance: vs, ReductionPc: ReductionPct(d)})
	}
	m.Estimate = est / S
	if known && !counts && borrowed > 0 {
		// Welch–Satterthwaite over the independent estimates: each
		// pooled arm's relative variance enters the total once for
		// its own arm (1/n) and once through the pooled value the
		// arms of one repetition borrow (borrowed·f/Σf), so its
		// term is that whole coefficient, not two terms counted as
		// independent.
		dfDen = 0
		for _, s := range use {
			for _, a := range []armStat{s.b, s.t} {
				if a.n < 2 {
					continue
				}
				f := float64(a.n - 1)
				c := (1/float64(a.n) + borrowed*f/m.pooledDF) * a.rel
				dfDen += c * c / f
			}
		}
	}
	if known {
		m.SE = math.Sqrt(v) / S
		m.DF = v * v / (dfDen + vPooled*vPooled/m.pooledDF)
	}
	return m
}

// Known says whether the noise is estimated, so the test can decide.
func (m MeanRatio) Known() bool { return len(m.Scenarios) > 0 && m.DF > 0 }

// T is the statistic against θ0 (a log ratio): negative when the target
// is below it.
func (m MeanRatio) T(theta0 float64) float64 {
	d := m.Estimate - theta0
	if m.SE == 0 {
		switch {
		case d < 0:
			return math.Inf(-1)
		case d > 0:
			return math.Inf(1)
		}
		return 0
	}
	return d / m.SE
}

// PLower is the one-sided p-value of "θ is below θ0" (the target beats
// the threshold), PUpper of "θ is above θ0".
func (m MeanRatio) PLower(theta0 float64) float64 {
	if !m.Known() {
		return 1
	}
	return PT(m.T(theta0), m.DF)
}

// PUpper is the p-value of "θ is above θ0".
func (m MeanRatio) PUpper(theta0 float64) float64 {
	if !m.Known() {
		return 1
	}
	return PT(-m.T(theta0), m.DF)
}

// Upper is the one-sided upper confidence bound on θ at level conf,
// Lower the lower one.
func (m MeanRatio) Upper(conf float64) float64 { return m.Estimate + QT(conf, m.DF)*m.SE }

// Lower is the one-sided lower confidence bound on θ at level conf.
func (m MeanRatio) Lower(conf float64) float64 { return m.Estimate - QT(conf, m.DF)*m.SE }

// holmLevels gives each of the one-sided p-values ps the level its
// verdict is taken at under Holm's step-down: the j-th smallest (from 1)
// of m is tested at α/(m − j + 1) while every one before it was
// rejected; from the first that is not, every later one keeps that
// step's level, which it cannot reach (its p-value is no smaller). So a
// bound at the returned level excludes the hypothesis exactly when Holm
// rejects it, and an interval built from it agrees with the verdict.
func holmLevels(ps []float64, alpha float64) []float64 {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ps[order[a]] < ps[order[b]] })
	out := make([]float64, m)
	stopped := -1.0
	for j, i := range order {
		a := alpha / float64(m-j)
		if stopped >= 0 {
			a = stopped
		} else if !(ps[i] <= a) {
			stopped = a
		}
		out[i] = a
	}
	return out
}

// MeanRatioPower is the predicted chance that the one-sided test at
// level conf decides when θ is effect away from the threshold, the
// arms' relative variances per scenario are relVar and every arm has
// reps repetitions: the t statistic's shift |effect|/se against the
// t quantile at Welch–Satterthwaite's degrees of freedom,
// F_df(|effect|/se − q_df).
func MeanRatioPower(relVar [][2]float64, reps int, effect, conf float64) float64 {
	if len(relVar) == 0 || reps < 1 || effect == 0 || math.IsNaN(effect) {
		return 0
	}
	S := float64(len(relVar))
	var v, den float64
	for _, rv := range relVar {
		for _, r := range rv {
			va := r / float64(reps)
			v += va
			den += va * va / float64(max(reps-1, 1))
		}
	}
	if v == 0 {
		return 1
	}
	se := math.Sqrt(v) / S
	df := v * v / den
	return PT(math.Abs(effect)/se-QT(conf, df), df)
}

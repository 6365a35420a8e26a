package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// BootstrapMinPairs is the number of pairs from which the bootstrap
// cross-check is computed; below it a resample repeats too few distinct
// scenarios for its percentiles to mean anything.
const BootstrapMinPairs = 10

// DefaultReplicates is the number of bootstrap resamples when the caller
// gives none: 1000 is the usual floor for percentile intervals, and the
// 2.5% and 97.5% points then move by a small fraction of the interval
// between seeds, which is enough for a cross-check.
const DefaultReplicates = 1000

// directResampleLimit: up to this many repetitions, a resample's median
// is taken from real draws; above, from its normal limit (see
// resampleMedian).
const directResampleLimit = 64

// BootstrapCI is a two-stage paired bootstrap of the Hodges–Lehmann
// estimate of the log-ratio, as a cross-check of SignedRankCI that does
// not assume symmetric differences: each replicate draws len(scs)
// scenarios with replacement (a drawn scenario keeps both arms, so the
// pairing stays), then resamples each arm's repetitions within the drawn
// scenario (the scenario is the stratum), takes the medians, and computes
// the estimate. The interval is the (1-conf)/2 and (1+conf)/2 quantiles
// (R's type 7) of the replicates. The same seed gives the same interval.
// Scenarios Pairs would exclude are left out; ok is false below
// BootstrapMinPairs usable scenarios.
func BootstrapCI(scs []Scenario, conf float64, replicates int, seed uint64) (lo, hi float64, ok bool) {
	type arm struct{ base, target orderStats }
	var arms []arm
	for _, s := range scs {
		if len(s.Base) == 0 || len(s.Target) == 0 || !usable(Median(s.Base)) || !usable(Median(s.Target)) {
			continue
		}
		arms = append(arms, arm{middleOrderStats(s.Base), middleOrderStats(s.Target)})
	}
	n := len(arms)
	if n < BootstrapMinPairs {
		return math.NaN(), math.NaN(), false
	}
	if replicates <= 0 {
		replicates = DefaultReplicates
	}
	rng := rand.New(rand.NewPCG(seed, 0x62656e63686761)) // "benchga"
	est := make([]float64, replicates)
	d := make([]float64, n)
	scratch := make([]float64, 0, directResampleLimit)
	for r := range est {
		for i := range d {
			a := arms[rng.IntN(n)]
			d[i] = LogRatio(a.base.resampleMedian(rng, &scratch), a.target.resampleMedian(rng, &scratch))
		}
		sort.Float64s(d)
		est[r] = hodgesLehmannSorted(d)
	}
	sort.Float64s(est)
	return quantile7(est, (1-conf)/2), quantile7(est, (1+conf)/2), true
}

// orderStats holds the order statistics of m values that a resample's
// median can land on: all of them, sorted, up to directResampleLimit
// values; above, only the ranks within four standard deviations of the
// middle (rank (m-1)/2 ± 2√m), found by selection and sorted. Sorting
// every scenario's thousands of repetitions would cost more than the
// rest of the bootstrap together.
type orderStats struct {
	vals []float64 // order statistics off .. off+len(vals)-1
	off  int
	m    int
}

func middleOrderStats(xs []float64) orderStats {
	m := len(xs)
	c := slices.Clone(xs)
	if m <= directResampleLimit {
		sort.Float64s(c)
		return orderStats{vals: c, m: m}
	}
	half := int(math.Ceil(2*math.Sqrt(float64(m)))) + 1
	lo, hi := max(0, (m-1)/2-half), min(m-1, m/2+half)
	SelectKth(c, lo) // c[lo:] now holds the m-lo largest values
	w := c[lo:]
	SelectKth(w, hi-lo) // w[:hi-lo+1] now holds ranks lo..hi
	w = w[:hi-lo+1]
	sort.Float64s(w)
	return orderStats{vals: w, off: lo, m: m}
}

// resampleMedian is the median of m draws with replacement from the m
// values. Up to directResampleLimit values it draws them; above, it draws
// the rank of that median from its normal limit (centre (m-1)/2, spread
// √m/2, on the 0-based ranks): the same distribution to within a rank, at
// a cost that does not grow with the repetitions. A draw beyond the kept
// window (probability about 6e-5) takes the window's edge.
func (o orderStats) resampleMedian(rng *rand.Rand, scratch *[]float64) float64 {
	m := o.m
	if m == 1 {
		return o.vals[0]
	}
	if m <= directResampleLimit {
		s := (*scratch)[:0]
		for i := 0; i < m; i++ {
			s = append(s, o.vals[rng.IntN(m)])
		}
		*scratch = s
		return medianInPlace(s)
	}
	u := float64(m-1)/2 + math.Sqrt(float64(m))/2*rng.NormFloat64()
	at := func(i int) float64 { return o.vals[max(0, min(len(o.vals)-1, i-o.off))] }
	if m%2 == 1 {
		return at(int(math.Round(u)))
	}
	f := int(math.Floor(u))
	return (at(f) + at(f+1)) / 2
}

// quantile7 is R's default (type 7) quantile of sorted values.
func quantile7(sorted []float64, p float64) float64 {
	n := len(sorted)
	h := float64(n-1) * p
	l := int(math.Floor(h))
	if l >= n-1 {
		return sorted[n-1]
	}
	return sorted[l] + (h-float64(l))*(sorted[l+1]-sorted[l])
}

// hodgesLehmannSorted is HodgesLehmann of sorted d without building the
// n(n+1)/2 Walsh averages: it bisects on the value, counting the averages
// at or below it in O(n) with two pointers, to a relative precision of
// about 1e-12 of d's range. A replicate then costs O(n) instead of O(n²),
// which keeps the bootstrap cheap for hundreds of scenarios.
func hodgesLehmannSorted(d []float64) float64 {
	n := len(d)
	total := n * (n + 1) / 2
	if total%2 == 1 {
		return kthWalsh(d, (total+1)/2)
	}
	return (kthWalsh(d, total/2) + kthWalsh(d, total/2+1)) / 2
}

// kthWalsh is the k-th smallest (1-based) Walsh average of sorted d, to
// within 1e-12 of d's range.
func kthWalsh(d []float64, k int) float64 {
	n := len(d)
	lo, hi := d[0], d[n-1]
	if lo == hi {
		return lo
	}
	tol := (hi - lo) * 1e-12
	// count returns the number of Walsh averages <= v.
	count := func(v float64) int {
		c, j := 0, n-1
		for i := 0; i < n && i <= j; i++ {
			for j >= i && d[i]+d[j] > 2*v {
				j--
			}
			if j >= i {
				c += j - i + 1
			}
		}
		return c
	}
	// The iteration cap and the midpoint check end the search when the
	// range is below the floats' own spacing (nearly equal values).
	for i := 0; i < 200 && hi-lo > tol; i++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if count(mid) >= k {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

package stats

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// ExactLimit is the number of pairs from which the signed-rank interval
// and test use the normal approximation, as R's wilcox.test does (exact
// below 50 pairs when there are no ties and no zeros).
const ExactLimit = 50

// Median returns the median of xs (the mean of the two middle values for
// an even count), NaN for none. xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	return medianInPlace(s)
}

// medianInPlace is Median that may reorder xs.
func medianInPlace(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	hi := SelectKth(xs, n/2)
	if n%2 == 1 {
		return hi
	}
	// After selection everything before n/2 is <= hi: the lower middle is
	// their maximum.
	lo := xs[0]
	for _, x := range xs[1 : n/2] {
		if x > lo {
			lo = x
		}
	}
	return (lo + hi) / 2
}

// SelectKth reorders s so that s[k] is the value a sort would put there
// (the k-th smallest, 0-based), with no larger value before it, and
// returns s[k] (Hoare's selection with a median-of-three pivot): the
// median and the order statistics a sort would give, in linear time.
func SelectKth[T cmp.Ordered](s []T, k int) T {
	lo, hi := 0, len(s)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if s[mid] < s[lo] {
			s[mid], s[lo] = s[lo], s[mid]
		}
		if s[hi] < s[lo] {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if s[hi] < s[mid] {
			s[hi], s[mid] = s[mid], s[hi]
		}
		pivot := s[mid]
		i, j := lo, hi
		for i <= j {
			for s[i] < pivot {
				i++
			}
			for s[j] > pivot {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return s[k]
		}
	}
	return s[k]
}

// walsh returns the n(n+1)/2 Walsh averages (d[i]+d[j])/2, i <= j,
// sorted ascending.
func walsh(d []float64) []float64 {
	n := len(d)
	w := make([]float64, 0, n*(n+1)/2)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	sort.Float64s(w)
	return w
}

// HodgesLehmann is the median of the Walsh averages of d: the estimate
// that goes with the signed-rank test (R's "(pseudo)median" in the exact
// case). It is robust like a median but uses every pair, so it moves
// less from run to run. NaN for no values.
func HodgesLehmann(d []float64) float64 {
	if len(d) == 0 {
		return math.NaN()
	}
	n := len(d)
	w := make([]float64, 0, n*(n+1)/2)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	return medianInPlace(w)
}

// signedRankCounts returns c with c[v] the number of the 2^n sign
// assignments of ranks 1..n whose positive ranks sum to v.
func signedRankCounts(n int) []float64 {
	max := n * (n + 1) / 2
	c := make([]float64, max+1)
	c[0] = 1
	top := 0
	for r := 1; r <= n; r++ {
		top += r
		for v := top; v >= r; v-- {
			c[v] += c[v-r]
		}
	}
	return c
}

// psignrank is P(V <= q) for the signed-rank statistic of n untied pairs.
func psignrank(q, n int, c []float64) float64 {
	if q < 0 {
		return 0
	}
	total := math.Ldexp(1, n)
	s := 0.0
	for v := 0; v <= q && v < len(c); v++ {
		s += c[v]
	}
	return math.Min(1, s/total)
}

// qsignrank is the smallest q with P(V <= q) >= p (R's qsignrank).
func qsignrank(p float64, n int, c []float64) int {
	total := math.Ldexp(1, n)
	s := 0.0
	for v := range c {
		s += c[v]
		// A relative tolerance as R's uses, so that a p that equals a
		// cumulative probability up to rounding lands on it.
		if s/total >= p*(1-64*2.220446e-16) {
			return v
		}
	}
	return len(c) - 1
}

// MinPairs is the smallest number of pairs whose exact signed-rank
// interval can reach the confidence conf: with n pairs the most extreme
// outcome has probability 2/2^n, so n must satisfy 2^(1-n) <= 1-conf.
// Fewer pairs are underpowered: no data could ever decide.
func MinPairs(conf float64) int {
	alpha := 1 - conf
	if !(alpha > 0) {
		return math.MaxInt32
	}
	n := 1
	for math.Ldexp(1, 1-n) > alpha*(1+1e-12) {
		n++
	}
	return n
}

// ranks returns the average ranks (1-based, ties share the mean rank) of
// |x| and the tie-correction sum Σ(t³-t) over groups of equal |x|.
func ranks(x []float64) (r []float64, tieSum float64) {
	n := len(x)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return math.Abs(x[idx[a]]) < math.Abs(x[idx[b]]) })
	r = make([]float64, n)
	for i := 0; i < n; {
		j := i
		for j+1 < n && math.Abs(x[idx[j+1]]) == math.Abs(x[idx[i]]) {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		if t := float64(j - i + 1); t > 1 {
			tieSum += t*t*t - t
		}
		i = j + 1
	}
	return r, tieSum
}

// normalZ is the continuity-corrected standardized signed-rank statistic
// of x shifted by mu, as R's wilcox.test computes it for the normal
// approximation: zero differences dropped, average ranks for ties, the
// variance reduced by Σ(t³-t)/48. ok is false when nothing is left.
func normalZ(x []float64, mu float64) (z float64, ok bool) {
	xd := make([]float64, 0, len(x))
	for _, v := range x {
		if v-mu != 0 {
			xd = append(xd, v-mu)
		}
	}
	n := float64(len(xd))
	if n == 0 {
		return 0, false
	}
	r, tieSum := ranks(xd)
	stat := 0.0
	for i, v := range xd {
		if v > 0 {
			stat += r[i]
		}
	}
	zd := stat - n*(n+1)/4
	sigma := math.Sqrt(n*(n+1)*(2*n+1)/24 - tieSum/48)
	if sigma == 0 {
		return 0, false
	}
	return (zd - sign(zd)*0.5) / sigma, true
}

func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// exactApplies says whether R would use the exact distribution for x
// shifted by mu: fewer than ExactLimit values, none equal to mu, no two
// with the same distance from mu.
func exactApplies(x []float64, mu float64) bool {
	if len(x) >= ExactLimit {
		return false
	}
	seen := make(map[float64]struct{}, len(x))
	for _, v := range x {
		a := math.Abs(v - mu)
		if a == 0 {
			return false
		}
		if _, dup := seen[a]; dup {
			return false
		}
		seen[a] = struct{}{}
	}
	return true
}

// Method names how an interval or p-value was computed.
const (
	MethodExact  = "exact"
	MethodNormal = "normal"
)

// SignedRankTest is the two-sided Wilcoxon signed-rank test of "the
// differences x are symmetric about mu": exact (2·min tail, capped at 1)
// when exactApplies, the corrected normal approximation otherwise. It
// returns 1 for no usable differences.
func SignedRankTest(x []float64, mu float64) (p float64, method string) {
	if exactApplies(x, mu) {
		n := len(x)
		r, _ := ranks(shift(x, mu))
		v := 0
		for i, d := range x {
			if d-mu > 0 {
				v += int(r[i])
			}
		}
		c := signedRankCounts(n)
		lower := psignrank(v, n, c)
		upper := 1 - psignrank(v-1, n, c)
		return math.Min(1, 2*math.Min(lower, upper)), MethodExact
	}
	z, ok := normalZ(x, mu)
	if !ok {
		return 1, MethodNormal
	}
	return math.Min(1, 2*math.Min(pnorm(z), pnorm(-z))), MethodNormal
}

func shift(x []float64, mu float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v - mu
	}
	return out
}

// Interval is a confidence interval for the centre of the differences.
type Interval struct {
	Low, High float64
	// Confidence is what the interval achieves: for the exact method the
	// discrete level at or above the requested one, or below it when
	// Underpowered; for the normal method the requested level.
	Confidence float64
	Method     string
	// Underpowered: fewer pairs than MinPairs, so no data of this size
	// could give the requested confidence; the interval is the widest
	// (the smallest to the largest Walsh average).
	Underpowered bool
	// TiesLimited: the normal approximation cannot reach the requested
	// level with these ties and zeros, however the data is shifted
	// (R's wilcox.test warns "requested conf.level not achievable"):
	// at the smallest value, with the values equal to it dropped as zeros,
	// the statistic is already inside ±z, or likewise at the largest. The
	// interval then runs to the data's range on that side, and
	// Confidence is the level the ties allow. More scenarios with the
	// same ties do not help: it is the ties, not the count, that limit.
	TiesLimited bool
}

// SignedRankCI is the two-sided Wilcoxon signed-rank confidence interval
// for the centre of x at level conf, as wilcox.test(x, conf.int = TRUE)
// computes it. Exact (no ties, no zeros, fewer than ExactLimit values):
// the Walsh averages W(qu) and W(N-qu+1) with qu = qsignrank((1-conf)/2).
// Otherwise it inverts the corrected normal test, returning the Walsh
// averages at which the statistic crosses ±z (R finds the same points
// with uniroot to 1e-4). No values give NaN bounds.
func SignedRankCI(x []float64, conf float64) Interval {
	n := len(x)
	if n == 0 {
		return Interval{Low: math.NaN(), High: math.NaN(), Confidence: conf, Method: MethodExact, Underpowered: true}
	}
	alpha := 1 - conf
	w := walsh(x)
	under := n < MinPairs(conf)
	if exactApplies(x, 0) {
		c := signedRankCounts(n)
		qu := qsignrank(alpha/2, n, c)
		if qu == 0 {
			qu = 1
		}
		nw := len(w)
		ql := nw - qu
		achieved := 1 - 2*psignrank(qu-1, n, c)
		return Interval{Low: w[qu-1], High: w[ql], Confidence: achieved, Method: MethodExact, Underpowered: under}
	}
	zq := qnorm(1 - alpha/2)
	distinct := slices.Compact(slices.Clone(w))
	lo := normalBound(x, distinct, zq, true)
	hi := normalBound(x, distinct, -zq, false)
	iv := Interval{Low: lo, High: hi, Confidence: conf, Method: MethodNormal, Underpowered: under}
	if zl, ok := tieLimit(x, w[0], w[len(w)-1]); ok && zl < zq {
		iv.TiesLimited = true
		iv.Confidence = math.Max(0, 1-2*pnorm(-zl))
	}
	return iv
}

// tieLimit is the largest |z| the corrected statistic reaches at the
// ends of the data, as R's wilcox.test evaluates it to decide whether the
// level is achievable: the smaller of Z(min) and −Z(max), where the
// values equal to the end drop out as zeros. ok is false when every value
// is the same (nothing is left at either end): then the interval is that
// one value, and the count of pairs alone decides the level.
func tieLimit(x []float64, lo, hi float64) (z float64, ok bool) {
	zmin, ok1 := normalZ(x, lo)
	zmax, ok2 := normalZ(x, hi)
	if !ok1 || !ok2 {
		return 0, false
	}
	return math.Min(zmin, -zmax), true
}

// normalBound finds where the corrected statistic Z(d) of x-d crosses zq.
// Z is constant between consecutive distinct Walsh averages and does not
// increase with d, so the crossing is a Walsh average: for the lower
// bound the first w whose right-hand side has Z <= zq, for the upper the
// first w whose right-hand side has Z < zq (zq negative there). The ends
// are the data's range, as in R.
func normalBound(x, w []float64, zq float64, lower bool) float64 {
	right := func(k int) float64 {
		d := w[k] + 1
		if k+1 < len(w) {
			d = (w[k] + w[k+1]) / 2
		} else {
			d = w[k] + math.Max(1, math.Abs(w[k]))
		}
		z, _ := normalZ(x, d)
		return z
	}
	crossed := func(k int) bool {
		if lower {
			return right(k) <= zq
		}
		return right(k) < zq
	}
	k := sort.Search(len(w), crossed)
	if k == len(w) {
		k = len(w) - 1
	}
	return w[k]
}

// pnorm is the standard normal distribution function.
func pnorm(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// qnorm is its inverse.
func qnorm(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

func sortFloats(x []float64) { sort.Float64s(x) }

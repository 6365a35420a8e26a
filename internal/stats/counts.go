package stats

import "math"

// dbinom is the binomial probability P(X = x) for X ~ Bin(n, p).
func dbinom(x, n int, p float64) float64 {
	if x < 0 || x > n {
		return 0
	}
	switch p {
	case 0:
		if x == 0 {
			return 1
		}
		return 0
	case 1:
		if x == n {
			return 1
		}
		return 0
	}
	ln, _ := math.Lgamma(float64(n + 1))
	lx, _ := math.Lgamma(float64(x + 1))
	lnx, _ := math.Lgamma(float64(n - x + 1))
	return math.Exp(ln - lx - lnx + float64(x)*math.Log(p) + float64(n-x)*math.Log1p(-p))
}

// pbinom is P(X <= x).
func pbinom(x, n int, p float64) float64 {
	if x < 0 {
		return 0
	}
	if x >= n {
		return 1
	}
	s := 0.0
	for i := 0; i <= x; i++ {
		s += dbinom(i, n, p)
	}
	return math.Min(1, s)
}

// BinomTest is the exact two-sided binomial test of x successes in n
// trials against probability p, as R's binom.test computes it: the
// probability of every outcome no more likely than the one observed
// (with R's relative tolerance 1e-7). It returns 1 for n = 0.
func BinomTest(x, n int, p float64) float64 {
	if n <= 0 || x < 0 || x > n {
		return 1
	}
	const relErr = 1 + 1e-7
	d := dbinom(x, n, p)
	m := float64(n) * p
	var pval float64
	switch {
	case float64(x) == m:
		return 1
	case float64(x) < m:
		y := 0
		for i := int(math.Ceil(m)); i <= n; i++ {
			if dbinom(i, n, p) <= d*relErr {
				y++
			}
		}
		pval = pbinom(x, n, p) + (1 - pbinom(n-y, n, p))
	default:
		y := 0
		for i := 0; i <= int(math.Floor(m)); i++ {
			if dbinom(i, n, p) <= d*relErr {
				y++
			}
		}
		pval = pbinom(y-1, n, p) + (1 - pbinom(x-1, n, p))
	}
	return math.Min(1, pval)
}

// ClopperPearson is the exact (Clopper–Pearson) confidence interval for
// a binomial proportion, the interval binom.test reports: the p at which
// P(X >= x) and P(X <= x) are (1-conf)/2, found by bisection.
func ClopperPearson(x, n int, conf float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	a := (1 - conf) / 2
	lo, hi = 0, 1
	if x > 0 {
		// P(X >= x | p) grows with p.
		lo = bisect(func(p float64) bool { return 1-pbinom(x-1, n, p) >= a })
	}
	if x < n {
		// P(X <= x | p) falls with p; hi is where it reaches a.
		hi = bisect(func(p float64) bool { return pbinom(x, n, p) <= a })
	}
	return lo, hi
}

// bisect returns the smallest p in [0,1] with ok(p), ok monotone.
func bisect(ok func(float64) bool) float64 {
	l, h := 0.0, 1.0
	for i := 0; i < 100 && h-l > 1e-15; i++ {
		m := (l + h) / 2
		if ok(m) {
			h = m
		} else {
			l = m
		}
	}
	return (l + h) / 2
}

// McNemarExact is the exact McNemar test of paired success/failure: of
// the discordant pairs, b succeeded only in the first arm and c only in
// the second; under no difference each is Bin(b+c, 1/2), so the p-value
// is binom.test(b, b+c, 0.5). Concordant pairs carry no information.
func McNemarExact(b, c int) float64 {
	return BinomTest(b, b+c, 0.5)
}

// Holm adjusts p-values for testing them together (Holm's step-down):
// sorted ascending, the j-th (1-based) of m becomes max over i <= j of
// min(1, (m-i+1)·p(i)). The result is in the input's order; rejecting
// where the adjusted value is at most alpha keeps the chance of any false
// claim across the family at alpha.
func Holm(p []float64) []float64 {
	m := len(p)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sortStable(idx, func(a, b int) bool { return p[a] < p[b] })
	out := make([]float64, m)
	run := 0.0
	for j, i := range idx {
		v := math.Min(1, float64(m-j)*p[i])
		if v > run {
			run = v
		}
		out[i] = run
	}
	return out
}

// sortStable is an insertion sort: the families here have a handful of
// members, and ties keep their input order.
func sortStable(idx []int, less func(a, b int) bool) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && less(idx[j], idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

// MDE is the minimum detectable effect on the log-ratio scale: the
// smallest true shift the signed-rank test at level conf would detect
// with the given power, for len(d) pairs with d's spread. It uses the
// normal approximation (z(1-α/2)+z(power))·s/√n, inflated by √(π/3) for
// the signed-rank test's efficiency relative to the t-test (3/π for
// normal data). NaN below two pairs or below MinPairs(conf).
func MDE(d []float64, conf, power float64) float64 {
	n := len(d)
	if n < 2 || n < MinPairs(conf) {
		return math.NaN()
	}
	mean := 0.0
	for _, v := range d {
		mean += v
	}
	mean /= float64(n)
	ss := 0.0
	for _, v := range d {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / float64(n-1))
	return (qnorm(1-(1-conf)/2) + qnorm(power)) * sd / math.Sqrt(float64(n)) * math.Sqrt(math.Pi/3)
}

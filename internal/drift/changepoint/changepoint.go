// Package changepoint finds the runs where a series of benchmark figures
// changed level: a forward scan whose looks each test the runs since the
// last change for one change in mean with a permutation test (Matteson
// and James, JASA 2014, test E-divisive splits the same way; Antoch and
// Hušková, 2001, give the permutation test of a change in mean). A
// split is scored by the two-sample t statistic with which Hunter/Apache
// Otava (Fleming et al., ICPE 2023) test their candidate splits.
//
// A run may carry several values of one figure (components: a suite's
// scenarios), each with its own noise. A split's score is then the
// inverse-variance weighted mean of the components' shifts over its
// standard error, each component's variance pooled within the two
// sides: a scenario that varies little from run to run weighs more than
// one that varies much, so a change that moves every scenario is placed
// with the precision of the steadiest ones, not of their median. With
// one component the score is the pooled two-sample |t|.
//
// Two choices make it fit a history that grows by one run at a time:
//
//   - The history is scanned forward. A look at run e tests the runs
//     since the last change point (at most Window of them) for one
//     change; the first significant look confirms its best split, and
//     the scan goes on from there. Every look reads only runs before
//     its end and draws its permutations from a generator seeded by
//     the seed and the look's place, so appending runs repeats the same
//     looks with the same answers: a change point once found never
//     moves and never disappears (Hunter reached the same property by
//     computing in windows).
//   - A look is significant when none of Permutations() shuffles of its
//     runs splits as well as the runs in their order (a Monte Carlo
//     p-value of 1/(Permutations()+1) <= Alpha); a look stops at the
//     first shuffle that does, so most looks cost a few shuffles. The
//     shuffles move whole runs, so the test holds whatever the values'
//     distribution and however the components relate. Looks are many,
//     so the chance that a history without a change raises one depends
//     on Alpha and on the history's length: calibrate it by simulation
//     (the drift package's calibration test) rather than reading it
//     off Alpha.
//
// Memory is the values of one look and a few vectors of the series'
// length; nothing grows with anything else.
package changepoint

import (
	"math"
	"math/rand/v2"
)

// Options tune the scan. The zero value takes the defaults.
type Options struct {
	// Alpha is the significance of one look (the permutation p-value at
	// or below which a split is a change point).
	Alpha float64
	// MinSize is the fewest runs on each side of a split: a change point
	// is confirmed only after MinSize runs at its new level, and a run
	// differing alone is never one.
	MinSize int
	// Window is the most runs one look sees (the newest ones since the
	// last change point).
	Window int
	// Settle is how many runs after the look that found a change are
	// read before its place is fixed: a change found with MinSize runs
	// at its new level is placed better with more of them.
	Settle int
	// Seed seeds every look's generator.
	Seed uint64
}

// Defaults: see docs/drift.md for the calibration that chose them.
const (
	DefaultAlpha   = 0.0001
	DefaultMinSize = 5
	DefaultWindow  = 40
	DefaultSettle  = 10
	DefaultSeed    = 20140101
)

func (o Options) withDefaults() Options {
	if o.Alpha <= 0 || o.Alpha >= 1 {
		o.Alpha = DefaultAlpha
	}
	if o.MinSize < 2 {
		o.MinSize = DefaultMinSize
	}
	if o.Window < 2*o.MinSize {
		o.Window = max(DefaultWindow, 2*o.MinSize)
	}
	if o.Settle <= 0 {
		o.Settle = DefaultSettle
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	return o
}

// Permutations is how many shuffles a look draws at most: the fewest
// for which none splitting as well as the runs in order is a p-value of
// Alpha.
func (o Options) Permutations() int {
	o = o.withDefaults()
	return int(math.Ceil(1/o.Alpha)) - 1
}

// ChangePoint is one confirmed change.
type ChangePoint struct {
	// Index is the first value at the new level (the series' index).
	Index int
	// Start is where the segment that was split begins (the previous
	// change point, or the first run the look saw).
	Start int
	// End is the look's end (exclusive): the change was confirmed once
	// End values were known.
	End int
	// Q is the split's score (the weighted t statistic); PValue its
	// permutation p-value.
	Q      float64
	PValue float64
	// Provisional says the history ends before MinSize runs after the
	// look that found the change: its place may still move by the runs
	// to come. A confirmed change point never moves.
	Provisional bool
}

// Detector holds the buffers a scan reuses; one Detector serves many
// series one after another (not concurrently).
type Detector struct {
	o Options
	k int // components per run
	// The look's values, run after run, centred on each component's
	// first value in the look (NaN: missing), and the runs' order.
	vals []float64
	perm []int
	n    int
	// full says no value of the look is missing.
	full bool
	// Per component: the look's count, sum and sum of squares, and the
	// running ones of the left side.
	tc, ts, tq []float64
	lc, ls, lq []float64
}

// NewDetector returns a detector with o's settings.
func NewDetector(o Options) *Detector {
	return &Detector{o: o.withDefaults()}
}

// Detect scans x (oldest first; no NaN), one value per run, and returns
// its change points in order.
func Detect(x []float64, o Options) []ChangePoint {
	return NewDetector(o).Detect(x)
}

// Detect scans x, one value per run; see the package comment.
func (d *Detector) Detect(x []float64) []ChangePoint { return d.DetectComponents(x, 1) }

// DetectComponents scans x, k values per run (run i's are x[i*k:i*k+k];
// NaN for a component the run lacks), and returns the runs' change
// points in order.
func (d *Detector) DetectComponents(x []float64, k int) []ChangePoint {
	if k < 1 || len(x)%k != 0 {
		panic("changepoint: values not a whole number of runs")
	}
	d.size(k)
	m, w, settle := d.o.MinSize, d.o.Window, d.o.Settle
	runs := len(x) / k
	var out []ChangePoint
	s := 0
	for e := 2 * m; e <= runs; {
		lo := max(s, e-w)
		if e-lo < 2*m {
			e++
			continue
		}
		tau, q := d.load(x[lo*k : e*k])
		if q > 0 {
			if p, ok := d.significant(q, uint64(lo), uint64(e)); ok {
				// The change is there; where it starts is read once
				// Settle more runs are known (or, provisionally, from
				// what is known).
				end := min(e+settle, runs)
				if end > e {
					tau, q = d.load(x[lo*k : end*k])
				}
				out = append(out, ChangePoint{Index: lo + tau, Start: lo, End: end, Q: q, PValue: p, Provisional: end < e+settle})
				if end < e+settle {
					break
				}
				s = lo + tau
				e = s + 2*m
				continue
			}
		}
		e++
	}
	return out
}

// size makes the buffers fit a look of k components.
func (d *Detector) size(k int) {
	n := d.o.Window + d.o.Settle // a look sees Window runs; placing a change Settle more
	if d.k == k && len(d.perm) == n {
		return
	}
	d.k = k
	d.vals, d.perm = make([]float64, n*k), make([]int, n)
	d.tc, d.ts, d.tq = make([]float64, k), make([]float64, k), make([]float64, k)
	d.lc, d.ls, d.lq = make([]float64, k), make([]float64, k), make([]float64, k)
}

// load takes v (whole runs) as the look's values and returns their best
// split in their order.
func (d *Detector) load(v []float64) (tau int, q float64) {
	k := d.k
	d.n = len(v) / k
	d.full = true
	for c := 0; c < k; c++ {
		d.tc[c], d.ts[c], d.tq[c] = 0, 0, 0
		origin := math.NaN()
		for i := 0; i < d.n; i++ {
			x := v[i*k+c]
			if math.IsNaN(x) {
				d.vals[i*k+c] = x
				d.full = false
				continue
			}
			if math.IsNaN(origin) {
				origin = x
			}
			// Centring keeps the sums of squares exact enough for
			// values far from 0 with little spread.
			x -= origin
			d.vals[i*k+c] = x
			d.tc[c]++
			d.ts[c] += x
			d.tq[c] += x * x
		}
	}
	for i := 0; i < d.n; i++ {
		d.perm[i] = i
	}
	return d.best()
}

// best returns the split of the look's runs in the order d.perm that
// maximises the score, and that score. One pass adds the runs to the
// left side one by one, keeping each component's count, sum and sum of
// squares, from which each split's means and pooled variances follow.
func (d *Detector) best() (tau int, q float64) {
	n, m, k := d.n, d.o.MinSize, d.k
	for c := 0; c < k; c++ {
		d.lc[c], d.ls[c], d.lq[c] = 0, 0, 0
	}
	q = math.Inf(-1)
	for t := 1; t <= n-m; t++ {
		row := d.vals[d.perm[t-1]*k : d.perm[t-1]*k+k]
		if d.full {
			for c, x := range row {
				d.ls[c] += x
				d.lq[c] += x * x
			}
		} else {
			for c, x := range row {
				if !math.IsNaN(x) {
					d.lc[c]++
					d.ls[c] += x
					d.lq[c] += x * x
				}
			}
		}
		if t < m {
			continue
		}
		var v float64
		if d.full {
			v = d.scoreFull(t)
		} else {
			v = d.score()
		}
		if v > q {
			tau, q = t, v
		}
	}
	return tau, q
}

// score is the current split's statistic: |sum of w_c d_c| / sqrt(sum of
// w_c), where d_c is component c's mean after less its mean before and
// w_c the inverse of d_c's variance, its pooled within-side variance
// times (1/n1 + 1/n2). A component with fewer than two values on a side
// says nothing; one constant on each side but different across them
// separates the sides perfectly (+Inf).
func (d *Detector) score() float64 {
	var num, den float64
	for c := 0; c < d.k; c++ {
		n1, n2 := d.lc[c], d.tc[c]-d.lc[c]
		if n1 < 2 || n2 < 2 {
			continue
		}
		s1, s2 := d.ls[c], d.ts[c]-d.ls[c]
		q1, q2 := d.lq[c], d.tq[c]-d.lq[c]
		m1, m2 := s1/n1, s2/n2
		ss := max(0, q1-s1*m1) + max(0, q2-s2*m2)
		diff := m2 - m1
		// Rounding leaves a sum of squares of constant values a tiny
		// fraction of their squares, not 0.
		if ss <= 1e-12*(q1+q2) {
			if math.Abs(diff) > 1e-9*math.Sqrt((q1+q2)/(n1+n2)) {
				return math.Inf(1)
			}
			continue
		}
		w := 1 / (ss / (n1 + n2 - 2) * (1/n1 + 1/n2))
		num += w * diff
		den += w
	}
	if den == 0 {
		return 0
	}
	return math.Abs(num) / math.Sqrt(den)
}

// scoreFull is score for a look without missing values, t runs on the
// left: every component has the same counts, so w_c is
// (n-2) n1 n2 / n over the component's within-side sum of squares, and
// the common factor comes out of the sums.
func (d *Detector) scoreFull(t int) float64 {
	n1, n2 := float64(t), float64(d.n-t)
	i1, i2 := 1/n1, 1/n2
	var num, den float64
	for c := 0; c < d.k; c++ {
		s1, s2 := d.ls[c], d.ts[c]-d.ls[c]
		q1, q2 := d.lq[c], d.tq[c]-d.lq[c]
		ss := max(0, q1-s1*s1*i1) + max(0, q2-s2*s2*i2)
		diff := s2*i2 - s1*i1
		if ss <= 1e-12*(q1+q2) {
			if math.Abs(diff) > 1e-9*math.Sqrt((q1+q2)/(n1+n2)) {
				return math.Inf(1)
			}
			continue
		}
		w := 1 / ss
		num += w * diff
		den += w
	}
	if den == 0 {
		return 0
	}
	return math.Abs(num) * math.Sqrt((n1+n2-2)*n1*n2/((n1+n2)*den))
}

// significant runs the look's permutation test: the share of shuffles
// of the look's runs whose best split scores at least q. It stops once
// the p-value can no longer reach Alpha.
func (d *Detector) significant(q float64, lo, end uint64) (float64, bool) {
	rng := rand.New(rand.NewPCG(d.o.Seed, lo<<32|end))
	perms := d.o.Permutations()
	limit := int(math.Floor(d.o.Alpha*float64(perms+1)+1e-9)) - 1 // exceedances still significant
	tol := q * 1e-12
	if math.IsInf(q, 1) {
		tol = 0
	}
	over := 0
	n := d.n
	for k := 1; k <= perms; k++ {
		for i := n - 1; i > 0; i-- {
			j := rng.IntN(i + 1)
			d.perm[i], d.perm[j] = d.perm[j], d.perm[i]
		}
		if _, qp := d.best(); qp >= q-tol {
			over++
			if over > limit {
				return float64(over+1) / float64(k+1), false
			}
		}
	}
	return float64(over+1) / float64(perms+1), true
}

// Options returns the settings the detector uses, defaults filled in.
func (d *Detector) Options() Options { return d.o }

// Package changepoint finds the runs where a series of benchmark figures
// changed level, with E-divisive means (Matteson and James, "A
// nonparametric approach for multiple change point analysis of
// multivariate data", JASA 2014): the split of a segment that maximises
// the energy distance between its two sides, judged by a permutation
// test. MongoDB (Daly et al., ICPE 2020) and Hunter/Otava (Fleming et
// al., ICPE 2023) use the same statistic on performance histories.
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
//     first shuffle that does, so most looks cost a few shuffles. Looks are many, so the chance
//     that a history without a change raises one depends on Alpha and
//     on the history's length: calibrate it by simulation (the drift
//     package's calibration test) rather than reading it off Alpha.
//
// Memory is one Window x Window distance matrix and a few vectors of the
// series' length; nothing grows with anything else.
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
	DefaultAlpha   = 0.0003
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
	// Q is the split's energy statistic; PValue its permutation p-value.
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
	o     Options
	dist  []float64 // Window x Window distances of the look's values
	row   []float64 // each value's total distance to the others
	perm  []int
	qbuf  []float64
	width int
}

// NewDetector returns a detector with o's settings.
func NewDetector(o Options) *Detector {
	o = o.withDefaults()
	// A look sees Window runs; placing a change sees MinSize more.
	n := o.Window + o.Settle
	return &Detector{o: o, dist: make([]float64, n*n), row: make([]float64, n), perm: make([]int, n)}
}

// Detect scans x (oldest first; no NaN) and returns its change points in
// order.
func Detect(x []float64, o Options) []ChangePoint {
	return NewDetector(o).Detect(x)
}

// Detect scans x; see the package comment.
func (d *Detector) Detect(x []float64) []ChangePoint {
	m, w, settle := d.o.MinSize, d.o.Window, d.o.Settle
	var out []ChangePoint
	s := 0
	for e := 2 * m; e <= len(x); {
		lo := max(s, e-w)
		if e-lo < 2*m {
			e++
			continue
		}
		tau, q := d.load(x[lo:e])
		if q > 0 {
			if p, ok := d.significant(q, uint64(lo), uint64(e)); ok {
				// The change is there; where it starts is read once
				// Settle more runs are known (or, provisionally, from
				// what is known).
				end := min(e+settle, len(x))
				if end > e {
					tau, q = d.load(x[lo:end])
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

// load fills the distance matrix for v and returns the best split of v
// in its order.
func (d *Detector) load(v []float64) (tau int, q float64) {
	n := len(v)
	d.width = n
	for i := 0; i < n; i++ {
		d.dist[i*n+i] = 0
		for j := i + 1; j < n; j++ {
			a := math.Abs(v[i] - v[j])
			d.dist[i*n+j], d.dist[j*n+i] = a, a
		}
	}
	for i := 0; i < n; i++ {
		t := 0.0
		for _, a := range d.dist[i*n : i*n+n] {
			t += a
		}
		d.row[i] = t
		d.perm[i] = i
	}
	return d.best()
}

// best returns the split of the look's values in the order d.perm that
// maximises Q, and that Q. Moving values one by one from the right
// side to the left keeps the within-left sum, the between sum and so
// the within-right sum up to date in one pass over half the matrix.
func (d *Detector) best() (tau int, q float64) {
	n, m := d.width, d.o.MinSize
	total := 0.0
	for i := 0; i < n; i++ {
		total += d.row[i]
	}
	total /= 2
	var wx, b float64
	q = math.Inf(-1)
	for t := 1; t < n-m+1; t++ {
		k := d.perm[t-1]
		rowk := d.dist[k*n : k*n+n]
		left := 0.0
		for _, i := range d.perm[:t-1] {
			left += rowk[i]
		}
		wx += left
		b += d.row[k] - 2*left
		if t < m {
			continue
		}
		wy := total - wx - b
		nx, ny := float64(t), float64(n-t)
		e := 2*b/(nx*ny) - wx/(nx*(nx-1)/2) - wy/(ny*(ny-1)/2)
		if v := nx * ny / (nx + ny) * e; v > q {
			tau, q = t, v
		}
	}
	return tau, q
}

// significant runs the look's permutation test: the share of shuffles
// of the look's values whose best split is at least q. It stops once
// the p-value can no longer reach Alpha.
func (d *Detector) significant(q float64, lo, end uint64) (float64, bool) {
	rng := rand.New(rand.NewPCG(d.o.Seed, lo<<32|end))
	perms := d.o.Permutations()
	limit := int(math.Floor(d.o.Alpha*float64(perms+1)+1e-9)) - 1 // exceedances still significant
	tol := q * 1e-12
	over := 0
	n := d.width
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

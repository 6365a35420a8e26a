package report

import (
	"math"

	"github.com/benchgate/benchgate/internal/stats"
)

// values collects the numbers a median needs. Nearly every value in a
// suite (milliseconds, token counts, tool calls) is a whole number that
// fits in 32 bits, so values keeps int32s and switches to float64 only when
// a value does not fit: a million-row report then holds half the memory.
type values struct {
	ints   []int32
	floats []float64 // used once any value is not a small whole number
}

func (v *values) add(f float64) {
	// -0 becomes 0 here, which is also how JSON.stringify prints it.
	if v.floats == nil && f == math.Trunc(f) && f >= math.MinInt32 && f <= math.MaxInt32 {
		v.ints = append(v.ints, int32(f))
		return
	}
	if v.floats == nil {
		v.floats = make([]float64, len(v.ints), len(v.ints)+1+len(v.ints)/4)
		for i, x := range v.ints {
			v.floats[i] = float64(x)
		}
		v.ints = nil
	}
	v.floats = append(v.floats, f)
}

func (v *values) len() int {
	if v.floats != nil {
		return len(v.floats)
	}
	return len(v.ints)
}

// merge appends o's values to v.
func (v *values) merge(o *values) {
	if v.floats == nil && o.floats == nil {
		v.ints = append(v.ints, o.ints...)
		return
	}
	for _, x := range o.ints {
		v.add(float64(x))
	}
	for _, x := range o.floats {
		v.add(x)
	}
}

// median is 0 for no values and the mean of the two middle values for an
// even count. It reorders the values (selection, not a full sort).
func (v *values) median() float64 {
	if v.floats != nil {
		return medianOf(v.floats)
	}
	return medianOf(v.ints)
}

type number interface{ ~int32 | ~float64 }

func medianOf[T number](s []T) float64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	hi := stats.SelectKth(s, n/2)
	if n%2 == 1 {
		// + 0 turns -0 into 0: JSON.stringify(-0) is "0", Go writes "-0".
		return float64(hi) + 0
	}
	// After selection everything left of n/2 is <= hi; the lower middle
	// value is their maximum.
	lo := s[0]
	for _, x := range s[1 : n/2] {
		if x > lo {
			lo = x
		}
	}
	return (float64(lo)+float64(hi))/2 + 0
}

// Package textbar draws an interval as a line of text, for places where
// no chart can go (a code block, a step output, the log): every
// comparison of benchgate draws on the same axis, from -100% to +100%,
// with the same marks, so two bars can be read against each other and
// against one legend.
package textbar

import (
	"math"
	"strings"
)

// Width is the number of cells of a bar, one per 200/Width points.
const Width = 30

// The marks of a bar.
const (
	Rest      = '·'
	Span      = '='
	Estimate  = 'o'
	Threshold = '|'
	// OnThreshold is the estimate drawn on the threshold's cell: the
	// threshold stays visible exactly when it matters most.
	OnThreshold = 'Ø'
	Below       = '<'
	Above       = '>'
)

// Legend says what the marks mean; axis says what the axis measures
// ("reduction", "change against the baseline").
func Legend(axis string) string {
	return "axis -100% to +100% " + axis + "; `=` the interval, `o` the estimate, `|` the threshold, `Ø` the estimate on the threshold, `<` or `>` the interval runs past the axis"
}

// Interval draws est in [lo, hi] with the threshold marked, on the axis
// from -100% to +100%, between brackets.
func Interval(est, lo, hi, threshold float64) string {
	cell := func(v float64) int {
		c := int(math.Floor((v + 100) / 200 * Width))
		return max(0, min(Width-1, c))
	}
	b := []rune(strings.Repeat(string(Rest), Width))
	for i := cell(lo); i <= cell(hi); i++ {
		b[i] = Span
	}
	if lo < -100 {
		b[0] = Below
	}
	if hi > 100 {
		b[Width-1] = Above
	}
	b[cell(threshold)] = Threshold
	if cell(est) == cell(threshold) {
		b[cell(est)] = OnThreshold
	} else {
		b[cell(est)] = Estimate
	}
	return "[" + string(b) + "]"
}

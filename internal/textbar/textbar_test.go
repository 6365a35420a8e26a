package textbar

import (
	"strings"
	"testing"
)

// TestInterval: the cases were drawn by hand on the 30-cell axis (one
// cell per 6.67 points, cell 15 starts at 0%).
func TestInterval(t *testing.T) {
	for _, c := range []struct {
		name                string
		est, lo, hi, thresh float64
		want                string
	}{
		{"clear win", 62.84, 55, 70, 15, "[·················|·····=o=····]"},
		{"estimate on the threshold", 16.67, 10, 22, 15, "[················=Ø=···········]"},
		{"estimate on the threshold, no interval", 15, 15, 15, 15, "[·················Ø············]"},
		{"interval past both ends", 0, -150, 150, 20, "[<==============o==|==========>]"},
		{"a regression", -30, -33.4, -26.3, 15, "[·········=o=·····|············]"},
	} {
		got := Interval(c.est, c.lo, c.hi, c.thresh)
		if got != c.want {
			t.Errorf("%s: Interval = %s, want %s", c.name, got, c.want)
		}
		if n := len([]rune(got)); n != Width+2 {
			t.Errorf("%s: %d cells", c.name, n)
		}
		if !strings.ContainsAny(got, "|Ø") {
			t.Errorf("%s: the threshold is not drawn: %s", c.name, got)
		}
	}
}

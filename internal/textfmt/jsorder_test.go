package textfmt

import (
	"slices"
	"testing"
)

func TestCompareUTF16(t *testing.T) {
	// Each row's want is what Array.prototype.sort() gives in Node.js for
	// [a, b], written as the sign of a-before-b.
	cases := []struct {
		a, b string
		want int
	}{
		{"a", "b", -1},
		{"ab", "a", 1},
		{"", "", 0},
		{"m-🚀", "m-ｚ", -1},          // U+1F680 is D83D DE80, below U+FF5A
		{"m-\uE000", "m-𐀀", 1},      // U+10000 is D800 DC00
		{"m-𝄞", "m-😀", -1},          // both surrogate pairs: code point order
		{"openai/x", "openai/X", 1}, // case: ASCII order
		{"é", "z", 1},
		{"\uFFFF", "😀", 1},
	}
	for _, c := range cases {
		if got := CompareUTF16(c.a, c.b); got != c.want {
			t.Errorf("CompareUTF16(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := CompareUTF16(c.b, c.a); got != -c.want {
			t.Errorf("CompareUTF16(%q, %q) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
	s := []string{"m-ｚ", "m-🚀", "m-a"}
	SortUTF16(s)
	if want := []string{"m-a", "m-🚀", "m-ｚ"}; !slices.Equal(s, want) {
		t.Errorf("SortUTF16 = %q, want %q", s, want)
	}
}

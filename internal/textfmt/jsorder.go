package textfmt

import (
	"slices"
	"unicode/utf8"
)

// CompareUTF16 orders a and b as JavaScript's default sort does: by their
// UTF-16 code units. It differs from Go's byte order (code point order)
// only where a character above U+FFFF, written as a surrogate pair
// (0xD800-0xDFFF), meets one in U+E000-U+FFFF: "m-🚀" sorts before
// "m-ｚ" here and after it in byte order. Invalid UTF-8 compares as
// U+FFFD, as JavaScript would have decoded it.
func CompareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ua, ub := firstUnit(ra), firstUnit(rb)
			if ua != ub {
				if ua < ub {
					return -1
				}
				return 1
			}
			// Same high surrogate: the low surrogates order as the
			// code points do.
			if ra < rb {
				return -1
			}
			return 1
		}
		a, b = a[na:], b[nb:]
	}
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return -1
	}
	return 1
}

// firstUnit is the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r > 0xFFFF {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

// SortUTF16 sorts s in place in JavaScript's default order.
func SortUTF16(s []string) { slices.SortFunc(s, CompareUTF16) }

package sandbox

import (
	"strconv"
	"strings"
)

// decodeTestID undoes the escaping pytest applies to the parameters of a
// test id (test_slug[Cr\xe8me] for test_slug[Crème]): \xNN, \uNNNN and
// \UNNNNNNNN become the characters they stand for, so that a reason reads
// as the test was written. Other escapes (\n, \t, an escaped backslash)
// stay as pytest wrote them; an invalid escape is left alone.
func decodeTestID(id string) string {
	if !strings.Contains(id, `\`) {
		return id
	}
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		if id[i] != '\\' || i+1 >= len(id) {
			b.WriteByte(id[i])
			continue
		}
		n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[id[i+1]]
		if n == 0 {
			// \\ and the other escapes: copy both bytes, so that an
			// escaped backslash is never read as the start of \x.
			b.WriteString(id[i : i+2])
			i++
			continue
		}
		if i+2+n <= len(id) {
			if v, err := strconv.ParseUint(id[i+2:i+2+n], 16, 32); err == nil && v <= 0x10FFFF && (v < 0xD800 || v > 0xDFFF) && v >= 0x20 && (v < 0x7F || v > 0x9F) {
				b.WriteRune(rune(v))
				i += 1 + n
				continue
			}
		}
		b.WriteByte(id[i])
	}
	return b.String()
}

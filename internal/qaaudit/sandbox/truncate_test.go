package sandbox

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTruncateKeepsCharacters: long output with multi-byte characters is
// cut at character boundaries at both ends, and says how much it left out.
func TestTruncateKeepsCharacters(t *testing.T) {
	for _, limit := range []int{7, 8, 9, 10, 101, 4096} {
		b := []byte(strings.Repeat("日本語", 2000) + "THE END")
		got := truncate(b, limit)
		if !utf8.ValidString(got) {
			t.Fatalf("limit %d: a character was cut: %q", limit, got[:20])
		}
		if !strings.Contains(got, "bytes omitted") {
			t.Fatalf("limit %d: no omission note", limit)
		}
		if limit > 10 && !strings.HasSuffix(got, "THE END") {
			t.Errorf("limit %d: tail lost", limit)
		}
	}
}

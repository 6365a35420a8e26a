package textfmt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"héllo wörld", 5, "héllo…"}, // 5 runes, 7 bytes
		{"日本語のテキスト", 3, "日本語…"},      // never half a character
		{"😀😀😀", 2, "😀😀…"},            // 4-byte runes
		{"ab", 0, "…"},
		{"", 0, ""},
		{"\xff\xfeabc", 3, "\xff\xfea…"}, // invalid bytes count one each
	}
	for _, tc := range tests {
		got := Truncate(tc.in, tc.n)
		if got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
		if utf8.ValidString(tc.in) && !utf8.ValidString(got) {
			t.Errorf("Truncate(%q, %d) cut a character: %q", tc.in, tc.n, got)
		}
	}
	// A byte-length cut would split the 'é' here.
	s := strings.Repeat("é", 100)
	if got := Truncate(s, 51); !utf8.ValidString(got) || utf8.RuneCountInString(got) != 52 {
		t.Errorf("Truncate of 2-byte runes = %q", got)
	}
}

func TestCell(t *testing.T) {
	tests := map[string]string{
		"a|b":             `a\|b`,
		"line1\nline2":    "line1 line2",
		"cr\r\nlf":        "cr lf",
		"plain":           "plain",
		`C:\path|x`:       `C:\\path\|x`,
		`already \| esc`:  `already \\\| esc`,
		"  spaced\t out ": "spaced out",
	}
	for in, want := range tests {
		if got := Cell(in); got != want {
			t.Errorf("Cell(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKeepEndsKeepsCharacters: long output with multi-byte characters is
// cut at character boundaries at both ends, says how much it left out,
// and keeps its tail.
func TestKeepEndsKeepsCharacters(t *testing.T) {
	for _, limit := range []int{0, 7, 8, 9, 10, 101, 4096} {
		s := strings.Repeat("日本語", 2000) + "THE END"
		got := KeepEnds(s, limit)
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
	if got := KeepEnds("short", 5); got != "short" {
		t.Errorf("KeepEnds(short, 5) = %q", got)
	}
}

// TestLogLine: whatever the text, no line of the result is a workflow
// command the runner would act on (it trims leading space, then reads a
// line starting with "::"; the older form "##[" anywhere).
func TestLogLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"a\n::add-mask::x", "a :\u200b:add-mask:\u200b:x"},
		{"::stop-commands::tok", ":\u200b:stop-commands:\u200b:tok"},
		{"  :::error::x", ":\u200b:\u200b:error:\u200b:x"},
		{"x\r\n##[set-output name=a]b", "x ##\u200b[set-output name=a]b"},
		{"name\u2028::notice::forged", "name :\u200b:notice:\u200b:forged"},
		{"C::D in a type name", "C:\u200b:D in a type name"},
	}
	for _, tc := range tests {
		got := LogLine(tc.in)
		if got != tc.want {
			t.Errorf("LogLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
		for _, l := range strings.Split(got, "\n") {
			if strings.HasPrefix(strings.TrimLeft(l, " \t"), "::") || strings.Contains(l, "##[") {
				t.Errorf("LogLine(%q) keeps a command line %q", tc.in, l)
			}
		}
	}
}

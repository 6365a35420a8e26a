// Package textfmt shapes text for people to read: it shortens text
// without cutting a character in half and makes any text safe inside one
// line or one cell of a Markdown table. Every message, annotation and
// summary goes through these, so that a long or hostile value (an error
// from a benchmark, a model's text, a file name) is shown the same way
// everywhere.
package textfmt

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis marks the place where Truncate cut the text.
const Ellipsis = "…"

// Truncate shortens s to its first n characters (runes) followed by
// Ellipsis, never cutting a UTF-8 character; s is returned as it is when
// it has at most n characters. Invalid UTF-8 counts a byte a character
// and is kept as it is.
func Truncate(s string, n int) string {
	if n < 0 {
		n = 0
	}
	if len(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if i >= len(s) {
			return s
		}
	}
	return s[:i] + Ellipsis
}

// OneLine folds text to a single line: every run of white space,
// line breaks included, becomes one space, and the ends are trimmed.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Cell makes text safe inside a Markdown table cell (and anywhere in one
// line of Markdown): OneLine, then backslashes and pipes escaped, so that
// no value can end its cell or row early.
func Cell(s string) string {
	s = OneLine(s)
	if !strings.ContainsAny(s, `\|`) {
		return s
	}
	s = strings.ReplaceAll(s, `\`, `\\`)
	return strings.ReplaceAll(s, "|", `\|`)
}

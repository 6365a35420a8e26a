// Package textfmt shapes text for people to read: it shortens text
// without cutting a character in half and makes any text safe inside one
// line or one cell of a Markdown table. Every message, annotation and
// summary goes through these, so that a long or hostile value (an error
// from a benchmark, a model's text, a file name) is shown the same way
// everywhere.
package textfmt

import (
	"strconv"
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

// KeepEnds shortens long output to about limit bytes by keeping its head
// (a quarter) and its tail, where a tool such as pytest puts its summary,
// with a note of how many bytes were left out between them; neither cut
// splits a UTF-8 character. s is returned as it is when it has at most
// limit bytes.
func KeepEnds(s string, limit int) string {
	if limit < 0 {
		limit = 0
	}
	if len(s) <= limit {
		return s
	}
	head := limit / 4
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - (limit - limit/4)
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + "\n… " + strconv.Itoa(tail-head) + " bytes omitted …\n" + s[tail:]
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

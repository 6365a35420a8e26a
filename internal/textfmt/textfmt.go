// Package textfmt shapes text for people to read: it shortens text
// without cutting a character in half and makes any text safe inside one
// line or one cell of a Markdown table. Every message, annotation and
// summary goes through these, so that a long or hostile value (an error
// from a benchmark, a model's text, a file name) is shown the same way
// everywhere.
package textfmt

import (
	"fmt"
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

// LogLine makes text safe as part of one line of a GitHub Actions step
// log: OneLine, so that no line break can start a line of its own, and
// every "::" and "##[" broken by a zero-width space, so that the runner
// reads no workflow command (::add-mask::, ::stop-commands::, a forged
// ::error) in it wherever the line ends up starting. It reads the same.
func LogLine(s string) string {
	s = OneLine(s)
	for strings.Contains(s, "::") {
		s = strings.ReplaceAll(s, "::", ":\u200b:")
	}
	return strings.ReplaceAll(s, "##[", "##\u200b[")
}

// Cell makes text safe inside a Markdown table cell, and anywhere in one
// line of Markdown: OneLine, then backslashes and pipes escaped, so that
// no value can end its cell or row early; a backtick escaped, so that it
// cannot open a code span; and a '<' escaped, since GitHub drops what it
// takes for raw HTML (a model signature ending in "<null>" would lose its
// last part). GitHub shows the value exactly as it was.
func Cell(s string) string {
	s = OneLine(s)
	if !strings.ContainsAny(s, "\\|`<") {
		return s
	}
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "`", "\\`")
	return strings.ReplaceAll(s, "<", `\<`)
}

// Code makes s a Markdown code span on one line, outside a table: the
// fence is one backtick longer than the longest run of backticks in s,
// and padded with a space where s begins or ends with one, so that any
// text shows as it is.
func Code(s string) string {
	s = OneLine(s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// CodeCell is Code for a table cell: GitHub splits a row at every pipe
// not escaped by a backslash, code spans included, and shows "\|" inside
// a code span of a cell as "|". A value with a backslash before a pipe
// cannot be shown that way, so it becomes escaped text.
func CodeCell(s string) string {
	s = OneLine(s)
	if strings.Contains(s, `\|`) {
		return Cell(s)
	}
	return strings.ReplaceAll(Code(s), "|", `\|`)
}

// EscapeTags escapes, in Markdown written by someone else, every '<'
// that would start a tag or comment GitHub drops as raw HTML ("<null>"),
// outside fenced code blocks and code spans, which show text as it is.
// Everything else is kept byte for byte, so the text reads as its author
// wrote it.
func EscapeTags(md string) string {
	if !strings.Contains(md, "<") {
		return md
	}
	lines := strings.SplitAfter(md, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if fence != "" {
			if strings.HasPrefix(strings.TrimSpace(t), fence) {
				fence = ""
			}
			continue
		}
		if f := fenceOf(t); f != "" {
			fence = f
			continue
		}
		lines[i] = escapeTagsLine(l)
	}
	return strings.Join(lines, "")
}

// fenceOf returns the opening fence (``` or ~~~ run) a line starts with.
func fenceOf(t string) string {
	for _, c := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, c) {
			n := 0
			for n < len(t) && t[n] == c[0] {
				n++
			}
			return t[:n]
		}
	}
	return ""
}

func escapeTagsLine(l string) string {
	var b strings.Builder
	for i := 0; i < len(l); {
		switch {
		case l[i] == '\\' && i+1 < len(l):
			b.WriteString(l[i : i+2])
			i += 2
		case l[i] == '`':
			// A code span runs to the next run of as many backticks; an
			// unmatched run is literal text.
			n := 0
			for i+n < len(l) && l[i+n] == '`' {
				n++
			}
			run := l[i : i+n]
			if end := closingRun(l[i+n:], n); end >= 0 {
				b.WriteString(l[i : i+n+end+n])
				i += n + end + n
			} else {
				b.WriteString(run)
				i += n
			}
		case l[i] == '<' && i+1 < len(l) && isTagStart(l[i+1]):
			b.WriteString(`\<`)
			i++
		default:
			b.WriteByte(l[i])
			i++
		}
	}
	return b.String()
}

// closingRun finds a run of exactly n backticks in s and returns where it
// starts, or -1.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		m := 0
		for i+m < len(s) && s[i+m] == '`' {
			m++
		}
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

func isTagStart(c byte) bool {
	return c == '/' || c == '!' || c == '?' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// Fence makes body a fenced code block of lang whose fence is longer
// than any run of backticks in it (at least three), so that code that
// itself holds a fence (a test file's docstring) cannot end it early.
func Fence(lang, body string) string {
	longest, run := 0, 0
	for _, r := range body {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(body, "\n") + "\n" + f + "\n"
}

// Count says how many of a thing there are: "1 process", "3 processes".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// List shows a list of identifiers in a message: all of them, joined by
// sep, up to shown; past that the first shown and how many more, so that
// a rerun of 50,000 scenarios prints a line, not a megabyte.
func List(ids []string, sep string, shown int) string {
	if len(ids) <= shown {
		return strings.Join(ids, sep)
	}
	return strings.Join(ids[:shown], sep) + fmt.Sprintf("%s... and %d more", sep, len(ids)-shown)
}

// bidiPairs show the Unicode bidirectional controls (embeddings,
// overrides, isolates) by name: left in, one reorders the text after it,
// so that a scenario ID or an error shows as another text than it is.
var bidiPairs = []string{
	"\u202a", "(U+202A)", "\u202b", "(U+202B)", "\u202c", "(U+202C)", "\u202d", "(U+202D)", "\u202e", "(U+202E)",
	"\u2066", "(U+2066)", "\u2067", "(U+2067)", "\u2068", "(U+2068)", "\u2069", "(U+2069)",
}

// inertReplacer breaks what GitHub's Markdown would make live in text:
// link and image brackets become look-alike brackets, '<' (raw HTML,
// autolinks) a look-alike, '>' only where it opens a line (a quote; a
// ">= 1" in an error reads as written), and a word joiner (U+2060), which shows
// nothing, goes after a mention's '@', inside an autolink's "://" and
// "www.", after a '#' (GitHub links "owner/repo#12" to another
// repository) and after '&' (so that "&commat;" or "&#64;" shows as
// written instead of becoming an '@' after rendering). It uses no
// backslash, so the result is inert in a code span as in text.
var inertReplacer = strings.NewReplacer(append([]string{
	"[", "［", "]", "］", "<", "‹", "\n>", "\n›",
	"@", "@\u2060", "://", ":\u2060//", "www.", "www\u2060.",
	"#", "#\u2060", "&", "&\u2060",
}, bidiPairs...)...)

// Inert makes text benchgate did not write (a scenario ID from a row, a
// model's explanation, a question's option, a fork's file) safe anywhere
// in Markdown: no link, image, mention, autolink or HTML survives,
// whether the text lands in a paragraph, a table cell (after Cell) or a
// code span (after Code). It reads the same.
func Inert(s string) string {
	s = inertReplacer.Replace(s)
	if strings.HasPrefix(s, ">") {
		s = "›" + s[1:]
	}
	return s
}

// inertCellReplacer is Inert for a table cell or a line of text, where
// a backslash escape works: brackets and '&' are escaped, so that they
// show as they are, and '@', "://", "www." and '#' get a word joiner.
var inertCellReplacer = strings.NewReplacer(append([]string{
	"[", `\[`, "]", `\]`, "&", `\&`,
	"@", "@\u2060", "://", ":\u2060//", "www.", "www\u2060.", "#", "#\u2060",
}, bidiPairs...)...)

// InertCell is Cell for text benchgate did not write (a scenario ID or
// an error from a row, a model's text): no link, image, mention,
// autolink, entity or HTML survives, and GitHub shows the text exactly
// as it was (the word joiners show nothing).
func InertCell(s string) string {
	return inertCellReplacer.Replace(Cell(s))
}

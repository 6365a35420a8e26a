package textfmt

import (
	"html"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/gfm"
)

// attacks are texts from rows, models or files that try to become live
// Markdown: an image, a mention, a link titled like benchgate's, raw
// HTML, autolinks, entities that decode to '@' or '[', a reference to
// another repository's issue.
var attacks = []string{
	"![t](https://evil.example/p.png)", "@o/core", "@admin", "[job summary](https://evil.example)",
	`<img src="https://evil.example/i.png">`, "https://evil.example/y", "www.evil.example", "user@evil.example",
	"&commat;admin &#64;octo-org/everyone", "&#91;x&#93;(https://evil.example)", "octo/other#12",
	"[x]: https://evil.example", `\[x\](https://evil.example)`, "`[x](https://evil.example)`",
	"<https://evil.example/a>", "<user@evil.example>", "WWW.evil.example/x",
	"&#x40;admin", "<!-- the rest is hidden", `a|b\|c\`, "a`` ` ```` b",
}

// TestInertShowsBidiControls checks that a bidirectional override or
// isolate in a scenario ID shows by name instead of reordering what
// follows it ("s-\u202eevil" would show as "s-live").
func TestInertShowsBidiControls(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"s-\u202eevil\u202c-1", "s-(U+202E)evil(U+202C)-1"},
		{"a\u2066b\u2069", "a(U+2066)b(U+2069)"},
		{"plain \u05d0 text", "plain \u05d0 text"},
	} {
		if got := Inert(tc.in); got != tc.want {
			t.Errorf("Inert(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := InertCell(tc.in); got != tc.want {
			t.Errorf("InertCell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestInertCellShowsTextAsWritten renders each attack with InertCell in
// a table cell and in a line: nothing is live, and the reader sees the
// text as it was written (word joiners aside, which show nothing).
func TestInertCellShowsTextAsWritten(t *testing.T) {
	for _, v := range attacks {
		for _, md := range []string{"| h |\n|---|\n| " + InertCell(v) + " |\n", InertCell(v) + "\n", Code(Inert(v)) + "\n", Cell(Inert(v)) + "\n"} {
			gfm.RequireInert(t, v, md)
		}
		md := "| h |\n|---|\n| " + InertCell(v) + " |\n"
		h := gfm.HTML(t, md)
		h = h[strings.Index(h, "<tbody>"):]
		got := strings.ReplaceAll(strings.TrimSpace(html.UnescapeString(tags.ReplaceAllString(h, ""))), "\u2060", "")
		if got != v {
			t.Errorf("%q shows as %q (from %q)", v, got, md)
		}
	}
}

// FuzzInert renders arbitrary text made inert in a table cell, in a
// line and in a code span: no link, image, HTML or live mention.
func FuzzInert(f *testing.F) {
	for _, a := range attacks {
		f.Add(a)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = xmlSafe(s)
		md := "| h |\n|---|\n| " + InertCell(s) + " |\n\n" + InertCell(s) + "\n\n" + Code(Inert(s)) + " " + Cell(Inert(s)) + "\n"
		for _, p := range gfm.Inert(t, md) {
			t.Fatalf("%q: %s:\n%s", s, p, md)
		}
	})
}

// xmlSafe is s as valid UTF-8 without the control characters that
// cmark-gfm's XML syntax tree (which the checker reads) cannot carry;
// they make nothing live in Markdown.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r == 0xfffe || r == 0xffff {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// TestInertKeepsComparisons checks that a '>' inside a line reads as
// written (an error's "expected an integer >= 1"), while one that opens
// a line, which would start a quote, does not.
func TestInertKeepsComparisons(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"expected an integer >= 1, got 0", "expected an integer >= 1, got 0"},
		{"> quoted", "› quoted"},
		{"a\n> quoted", "a\n› quoted"},
		{"<b>", "‹b>"},
	} {
		if got := Inert(tc.in); got != tc.want {
			t.Errorf("Inert(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, s := range []string{"> quoted", "a\n> quoted"} {
		if h := gfm.GitHubHTML(t, Inert(s)); strings.Contains(h, "<blockquote") {
			t.Errorf("Inert(%q) renders a quote:\n%s", s, h)
		}
	}
}

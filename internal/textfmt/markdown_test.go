package textfmt

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/gfm"
)

// hostile are values seen in real rows and made up to break a table: a
// model signature with <null>, a text bar, pipes, backticks, backslashes.
var hostile = []string{
	"openai/gpt-5.3-codex/<null>",
	"|....[==+==]...!....|",
	"a|b", `a\|b`, `a\\|b`, "`x`", "``", "a ` b", "<script>x</script>", "<!-- c -->",
	"*bold* _it_", `C:\path\to`, "1 < 2 > 0", "trailing\\", "</details>",
}

var tags = regexp.MustCompile(`<[^>]*>`)

// TestMarkdownRoundTrip renders each value with GitHub's engine as text
// and as code, in a table cell and in a paragraph, and checks that the
// reader sees exactly the value, with no table cell lost.
func TestMarkdownRoundTrip(t *testing.T) {
	for _, v := range hostile {
		for _, form := range []struct {
			name, md string
		}{
			{"Cell in a cell", "| h |\n|---|\n| " + Cell(v) + " |\n"},
			{"CodeCell in a cell", "| h |\n|---|\n| " + CodeCell(v) + " |\n"},
			{"Cell in a line", Cell(v) + "\n"},
			{"Code in a line", Code(v) + "\n"},
		} {
			gfm.Require(t, form.name+" of "+v, form.md)
			h := gfm.HTML(t, form.md)
			if i := strings.Index(h, "<tbody>"); i >= 0 {
				h = h[i:]
			}
			got := strings.TrimSpace(html.UnescapeString(tags.ReplaceAllString(h, "")))
			if got != v && !(strings.HasPrefix(form.name, "Cell") && strings.ContainsAny(v, "*_")) {
				t.Errorf("%s: %q shows as %q (from %q)", form.name, v, got, form.md)
			}
		}
	}
}

func TestEscapeTags(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"| a | openai/x/<null> |\n", "| a | openai/x/\\<null> |\n"},
		{"keep `<null>` in code\n", "keep `<null>` in code\n"},
		{"``a ` <b>`` then <i>\n", "``a ` <b>`` then \\<i>\n"},
		{"```\n<null>\n```\n<x>\n", "```\n<null>\n```\n\\<x>\n"},
		{"1 < 2 and \\<a> stays\n", "1 < 2 and \\<a> stays\n"},
		{"lone ` then <b>\n", "lone ` then \\<b>\n"},
		{"no tags\n", "no tags\n"},
	} {
		if got := EscapeTags(tc.in); got != tc.want {
			t.Errorf("EscapeTags(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// What a reader sees of escaped upstream Markdown is the text.
	md := "| Mode | Model |\n|---|---|\n| ghx | openai/gpt/<null> |\n"
	out := EscapeTags(md)
	gfm.Require(t, "escaped table", out)
	if h := gfm.HTML(t, out); !strings.Contains(h, "openai/gpt/&lt;null&gt;") {
		t.Errorf("escaped model signature not shown: %s", h)
	}
}

func TestFence(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"x = 1\n", "```py\nx = 1\n```\n"},
		{"a ```` b", "`````py\na ```` b\n`````\n"},
		{"`x`", "```py\n`x`\n```\n"},
	} {
		got := Fence("py", tc.body)
		if got != tc.want {
			t.Errorf("Fence(%q) = %q, want %q", tc.body, got, tc.want)
		}
		h := gfm.HTML(t, got)
		if !strings.Contains(html.UnescapeString(h), strings.TrimRight(tc.body, "\n")+"\n</code></pre>") {
			t.Errorf("%q does not render as one code block: %s", tc.body, h)
		}
	}
}

// FuzzEscapeTags: escaping only ever adds a backslash before a '<', so
// the text reads as it was written, and escaping twice changes nothing
// more.
func FuzzEscapeTags(f *testing.F) {
	f.Add("| a | openai/x/<null> |\n")
	f.Add("```\n<x>\n```\n`<y>` <z>\n")
	f.Add("\\<a> ``<b>`` ` <c>")
	f.Fuzz(func(t *testing.T, s string) {
		out := EscapeTags(s)
		if !onlyBackslashesBeforeLT(s, out) {
			t.Fatalf("EscapeTags(%q) = %q changes more than a backslash before '<'", s, out)
		}
		if EscapeTags(out) != out {
			t.Fatalf("EscapeTags is not stable on %q: %q then %q", s, out, EscapeTags(out))
		}
	})
}

// onlyBackslashesBeforeLT says whether out is s with backslashes added
// directly before some of its '<'.
func onlyBackslashesBeforeLT(s, out string) bool {
	i, j := 0, 0
	for i < len(s) && j < len(out) {
		switch {
		case s[i] == out[j]:
			i, j = i+1, j+1
		case s[i] == '<' && out[j] == '\\' && j+1 < len(out) && out[j+1] == '<':
			j++
		default:
			return false
		}
	}
	return i == len(s) && j == len(out)
}

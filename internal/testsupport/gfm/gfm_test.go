package gfm

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	bin := Binary(t)
	for _, tc := range []struct {
		name, md string
		want     []string // substrings of the problems, in order; none for clean text
	}{
		{"clean table", "| a | b |\n|---|---|\n| `x\\|y` | 2 |\n", nil},
		{"pipe in a code span splits the cell", "| a | b |\n|---|---|\n| `x|y` | 2 |\n", []string{"3 cells, its header 2", "lone backtick", "lone backtick"}},
		{"extra cell dropped", "| a | b |\n|---|---|\n| 1 | 2 | 3 |\n", []string{"3 cells, its header 2"}},
		{"missing cell", "| a | b |\n|---|---|\n| 1 |\n", []string{"1 cells, its header 2"}},
		{"no outer pipes", "a | b\n--|--\n1 | 2\n", nil},
		{"escaped backslash before a pipe still splits", "| a | b |\n|---|---|\n| x\\\\| y | z |\n", []string{"3 cells, its header 2"}},
		{"model signature taken for a tag", "| model |\n|---|\n| openai/gpt/<null> |\n", []string{`raw HTML "<null>"`}},
		{"escaped angle bracket", "| model |\n|---|\n| openai/gpt/\\<null> |\n", nil},
		{"angle bracket in a code span", "Model `openai/<null>`.\n", nil},
		{"details and a hidden marker", "<!-- benchgate:x -->\n<details><summary>More</summary>\n\ntext\n\n</details>\n", nil},
		{"script tag", "<script>alert(1)</script>\n", []string{`raw HTML "<script>"`, `raw HTML "</script>"`}},
		{"escaped backticks", "a \\`b\\` c\n", nil},
		{"unmatched backtick", "a `b c\n", []string{"lone backtick"}},
		{"delimiter row does not match", "| a | b |\n|---|\n| 1 | 2 |\n", []string{"not in a table", "not in a table", "not in a table"}},
		{"pipe lines in a fence", "```\n| a | b |\n```\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs, err := Check(bin, tc.md)
			if err != nil {
				t.Fatal(err)
			}
			if len(probs) != len(tc.want) {
				t.Fatalf("got %d problems %v, want %d %q", len(probs), probs, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(probs[i].String(), w) {
					t.Errorf("problem %d = %s, want it to say %q", i, probs[i], w)
				}
			}
		})
	}
}

func TestCells(t *testing.T) {
	for _, tc := range []struct {
		line string
		want int
	}{
		{"| a | b |", 2}, {"a | b", 2}, {"| a |", 1}, {`| a \| b |`, 1}, {`| a \\| b |`, 2}, {"|a|b|c|", 3}, {`| a | b \|`, 2},
	} {
		if got := cells(tc.line); got != tc.want {
			t.Errorf("cells(%q) = %d, want %d", tc.line, got, tc.want)
		}
	}
}

func TestHTML(t *testing.T) {
	h := HTML(t, "see https://example.com/x\n")
	if !strings.Contains(h, `<a href="https://example.com/x">`) {
		t.Errorf("autolink extension not on: %s", h)
	}
}

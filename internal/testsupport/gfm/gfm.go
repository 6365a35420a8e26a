// Package gfm checks Markdown the way GitHub shows it: it renders the text
// with cmark-gfm, the engine GitHub's own renderer is built on (Debian's
// cmark-gfm, with the table and autolink extensions), and reads the
// engine's syntax tree for what a reader would miss:
//
//   - a table row with more or fewer cells than its header (GitHub drops
//     the extra cells and pads missing ones, so a pipe in a value loses
//     text silently);
//   - raw HTML that GitHub does not show (a value like "<null>" is taken
//     for a tag and disappears), apart from the few tags summaries use on
//     purpose (details, summary, br, comments);
//   - a lone backtick in text, the trace of a code span a pipe cut in two;
//   - a line that starts with a pipe but is in no table (a table whose
//     delimiter row does not match its header).
//
// Tests of every Markdown file the project writes call Require.
package gfm

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// Binary returns the path of cmark-gfm; a test without it is skipped, or
// fails under BENCHGATE_TEST_REQUIRE=1.
func Binary(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("cmark-gfm")
	if err != nil {
		testenv.Missing(t, "cmark-gfm", err.Error()+" (apt-get install cmark-gfm)")
	}
	return p
}

// Problem is one place where GitHub would not show what the text says.
type Problem struct {
	Line int    // 1-based line of the Markdown
	What string // what is wrong
	Text string // the source line
}

func (p Problem) String() string {
	return fmt.Sprintf("line %d: %s: %q", p.Line, p.What, p.Text)
}

// HTML renders md as GitHub would (safe mode: raw HTML is omitted).
func HTML(t testing.TB, md string) string {
	t.Helper()
	out, err := run(Binary(t), md, "html")
	if err != nil {
		t.Fatalf("cmark-gfm: %v", err)
	}
	return out
}

// GitHubHTML renders md as GitHub shows it after Require passed: the
// raw HTML it keeps (details, summary) is kept too.
func GitHubHTML(t testing.TB, md string) string {
	t.Helper()
	Require(t, "page", md)
	cmd := exec.Command(Binary(t), "--unsafe", "-e", "table", "-e", "autolink")
	cmd.Stdin = strings.NewReader(md)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cmark-gfm: %v", err)
	}
	return string(out)
}

// Require fails the test for every problem Check finds in md; name says
// which document it is (a file name) in the messages.
func Require(t testing.TB, name, md string) {
	t.Helper()
	probs, err := Check(Binary(t), md)
	if err != nil {
		t.Fatalf("%s: cmark-gfm: %v", name, err)
	}
	for _, p := range probs {
		t.Errorf("%s does not render on GitHub as written: %s", name, p)
	}
}

// RequireFile is Require on a file's contents.
func RequireFile(t testing.TB, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	Require(t, path, string(b))
}

func run(bin, md, to string) (string, error) {
	cmd := exec.Command(bin, "--sourcepos", "-e", "table", "-e", "autolink", "-t", to)
	cmd.Stdin = strings.NewReader(md)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%v: %s", err, errb.String())
	}
	return out.String(), nil
}

// node is one node of cmark's XML syntax tree.
type node struct {
	XMLName  xml.Name
	Pos      string `xml:"sourcepos,attr"`
	Text     string `xml:",chardata"`
	Children []node `xml:",any"`
}

// allowedHTML is the raw HTML GitHub keeps and summaries use on purpose.
var allowedHTML = regexp.MustCompile(`(?is)^(<!--.*-->|</?details>|<details open>|</?summary>|<br\s*/?>|</?sub>|</?sup>|<a (id|name)="[\w-]+">|</a>)$`)

// htmlTag finds the tags and comments of a raw HTML node.
var htmlTag = regexp.MustCompile(`(?s)<!--.*?-->|<[^>]*>?`)

// Check renders md with the cmark-gfm at bin and returns the problems.
func Check(bin, md string) ([]Problem, error) {
	out, err := run(bin, md, "xml")
	if err != nil {
		return nil, err
	}
	var doc node
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		return nil, fmt.Errorf("read cmark-gfm's syntax tree: %v", err)
	}
	lines := strings.Split(md, "\n")
	src := func(l int) string {
		if l >= 1 && l <= len(lines) {
			return lines[l-1]
		}
		return ""
	}
	var probs []Problem
	add := func(pos, what string) {
		l := startLine(pos)
		probs = append(probs, Problem{Line: l, What: what, Text: src(l)})
	}
	// covered marks the lines of tables and code: a pipe line elsewhere is
	// a table GitHub did not recognise.
	covered := map[int]bool{}
	var walk func(n node)
	walk = func(n node) {
		switch n.XMLName.Local {
		case "table":
			cover(covered, n.Pos)
			probs = append(probs, checkTable(n, src)...)
		case "code_block", "html_block":
			cover(covered, n.Pos)
		}
		switch n.XMLName.Local {
		case "html_inline", "html_block":
			for _, tag := range htmlTag.FindAllString(n.Text, -1) {
				if !allowedHTML.MatchString(tag) {
					add(n.Pos, fmt.Sprintf("raw HTML %q is dropped by GitHub (escape it)", tag))
				}
			}
		case "text":
			if strings.Contains(n.Text, "`") && unescapedBacktick(n.Pos, src) {
				add(n.Pos, fmt.Sprintf("lone backtick in %q (a code span cut in two?)", n.Text))
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(doc)
	inFence := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
		}
		if !inFence && !covered[i+1] && strings.HasPrefix(t, "|") && strings.Count(t, "|") >= 2 {
			probs = append(probs, Problem{Line: i + 1, What: "looks like a table row but is not in a table", Text: l})
		}
	}
	return probs, nil
}

// unescapedBacktick says whether the source of a text node at pos holds
// a backtick not escaped by a backslash (an escaped one is meant).
func unescapedBacktick(pos string, src func(int) string) bool {
	l := startLine(pos)
	if l != endLine(pos) {
		return true
	}
	line := src(l)
	// cmark's positions of text in table cells can start one column
	// after an opening backtick; look one column further left.
	from, to := max(column(pos, false)-1, 1), column(pos, true)
	if from < 1 || to > len(line) || from > to {
		return true
	}
	esc := false
	for i := 0; i < to; i++ {
		switch {
		case esc:
			esc = false
		case line[i] == '\\':
			esc = true
		case line[i] == '`' && i >= from-1:
			return true
		}
	}
	return false
}

// column returns the 1-based start (or end) column of a sourcepos.
func column(pos string, end bool) int {
	start, stop, _ := strings.Cut(pos, "-")
	p := start
	if end {
		p = stop
	}
	_, c, _ := strings.Cut(p, ":")
	n, _ := strconv.Atoi(c)
	return n
}

// checkTable compares every row's cells, counted in the source as GitHub
// splits them (on each pipe not escaped by a backslash, code spans
// included), with the header's.
func checkTable(t node, src func(int) string) []Problem {
	var probs []Problem
	want := -1
	for _, r := range t.Children {
		if r.XMLName.Local != "table_header" && r.XMLName.Local != "table_row" {
			continue
		}
		l := startLine(r.Pos)
		n := cells(src(l))
		if want < 0 {
			want = n
			continue
		}
		if n != want {
			probs = append(probs, Problem{Line: l, What: fmt.Sprintf("table row has %d cells, its header %d (an unescaped pipe?)", n, want), Text: src(l)})
		}
	}
	return probs
}

// cells counts the cells of a table row as GFM splits it.
func cells(line string) int {
	s := strings.TrimSpace(line)
	n, esc := 1, false
	for i := 0; i < len(s); i++ {
		switch {
		case esc:
			esc = false
		case s[i] == '\\':
			esc = true
		case s[i] == '|':
			n++
		}
	}
	if strings.HasPrefix(s, "|") {
		n--
	}
	if len(s) > 1 && strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		n--
	}
	return n
}

func startLine(pos string) int {
	l, _, _ := strings.Cut(pos, ":")
	n, _ := strconv.Atoi(l)
	return n
}

func endLine(pos string) int {
	_, end, _ := strings.Cut(pos, "-")
	l, _, _ := strings.Cut(end, ":")
	n, _ := strconv.Atoi(l)
	return n
}

func cover(m map[int]bool, pos string) {
	for l := startLine(pos); l <= endLine(pos); l++ {
		m[l] = true
	}
}

// liveMention is what GitHub makes a mention of after rendering: an '@'
// directly after a non-word character (or at the start) and followed by
// a name character. cmark-gfm does not render mentions, so they are
// looked for in its HTML, outside nothing: text benchgate makes inert
// breaks them in code spans too.
var liveMention = regexp.MustCompile(`(^|[^A-Za-z0-9])@[A-Za-z0-9]`)

var linkHref = regexp.MustCompile(`<a [^>]*href="([^"]*)"`)

// Inert lists what in md GitHub would show live that text from elsewhere
// must never make: a link whose target does not start with one of
// allowed (benchgate's own links into the repository), an image, raw
// HTML but the few tags summaries use on purpose (a comment marker,
// details), an e-mail autolink, or a live mention.
func Inert(t testing.TB, md string, allowed ...string) []string {
	t.Helper()
	h := HTML(t, md)
	var probs []string
	for _, m := range linkHref.FindAllStringSubmatch(h, -1) {
		ok := false
		for _, a := range allowed {
			ok = ok || strings.HasPrefix(m[1], a)
		}
		if !ok {
			probs = append(probs, "a link to "+m[1])
		}
	}
	for _, bad := range []string{"<img", "mailto:"} {
		if strings.Contains(h, bad) {
			probs = append(probs, "rendered HTML holds "+bad)
		}
	}
	found, err := Check(Binary(t), md)
	if err != nil {
		t.Fatalf("cmark-gfm: %v", err)
	}
	for _, p := range found {
		if strings.HasPrefix(p.What, "raw HTML") {
			probs = append(probs, p.String())
		}
	}
	text := strings.NewReplacer("&amp;", "&", "&quot;", `"`, "&lt;", "<", "&gt;", ">").Replace(h)
	for _, m := range liveMention.FindAllString(text, 5) {
		probs = append(probs, "a live mention "+strings.TrimSpace(m))
	}
	return probs
}

// RequireInert fails the test for everything Inert finds in md.
func RequireInert(t testing.TB, name, md string, allowed ...string) {
	t.Helper()
	for _, p := range Inert(t, md, allowed...) {
		t.Errorf("%s: %s:\n%s", name, p, md)
	}
}

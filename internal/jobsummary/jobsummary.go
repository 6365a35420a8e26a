// Package jobsummary builds the Markdown a GitHub Actions step writes to
// $GITHUB_STEP_SUMMARY: sections with tables and mermaid charts, rendered
// under the runner's per-step size limit.
//
// The runner refuses the whole summary of a step when it is larger than
// 1 MiB, so a summary that grows with the number of rows must shrink
// gracefully instead: tables lose their tail rows first (with a note saying
// how many and where the full data is), then whole sections are cut.
package jobsummary

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/benchgate/benchgate/internal/textfmt"
)

// MaxBytes is the runner's limit for one step's summary (1024 KiB).
const MaxBytes = 1024 * 1024

// MaxCommentBytes keeps a pull-request comment under GitHub's limit of
// 65,536 characters (counted in bytes, which are never fewer).
const MaxCommentBytes = 65536

// Doc is a job summary under construction.
type Doc struct {
	sections []*Section
	anchors  map[string]int
	// Note says where the whole document is kept (the artifact with
	// job-summary.md); it is shown wherever something had to be left out.
	Note string
	// Lead are Markdown blocks before the first section (the verdict's
	// headline and table), never left out.
	Lead []string
}

// Section is one titled part of a summary (a set, a batch, an audit).
type Section struct {
	Title string
	// Note says where the complete data lives (an artifact or a path); it
	// is repeated wherever rows had to be left out.
	Note string
	// Collapsed puts the section's body in a <details> block under its
	// heading, so a long document opens with what decides it.
	Collapsed bool
	// Drop ranks how readily the whole section is left out when the
	// document is too large: 0 never, and higher ranks go first (a mode's
	// own Markdown, which its artifact keeps, before a set's details).
	Drop int
	// Level is the heading level (2 unless set).
	Level  int
	anchor string
	blocks []block
}

// Anchor is the link target GitHub gives the section's heading
// ("#set-pr-exec-pass"), so a table can link to it.
func (s *Section) Anchor() string { return "#" + s.anchor }

type block interface {
	// render writes the block at a level of detail; note says where the
	// rows left out are.
	render(b *strings.Builder, lv level, note string)
}

// Section appends a new section to the document and returns it.
func (d *Doc) Section(title string) *Section {
	if d.anchors == nil {
		d.anchors = map[string]int{}
	}
	a := Slug(textfmt.OneLine(title))
	if n := d.anchors[a]; n > 0 {
		d.anchors[a] = n + 1
		a = fmt.Sprintf("%s-%d", a, n)
	} else {
		d.anchors[a] = 1
	}
	s := &Section{Title: title, anchor: a}
	d.sections = append(d.sections, s)
	return s
}

// Slug is the anchor GitHub derives from a heading's text: lower case,
// spaces become hyphens, and every character but letters, digits,
// hyphens and underscores is left out.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// RawTable adds a table whose cells are Markdown already (links, code
// spans made with textfmt); the caller escapes what they hold.
func (s *Section) RawTable(header []string, rows [][]string) *Section {
	s.blocks = append(s.blocks, table{header: header, rows: rows, raw: true})
	return s
}

// Para adds a paragraph of Markdown text.
func (s *Section) Para(format string, args ...any) *Section {
	s.blocks = append(s.blocks, para(fmt.Sprintf(format, args...)))
	return s
}

// Table adds a table; cells are escaped so that a pipe or a newline in a
// value cannot break the layout, and made inert (textfmt.InertCell), so
// that a value cannot become a link, an image or a mention.
func (s *Section) Table(header []string, rows [][]string) *Section {
	s.blocks = append(s.blocks, table{header: header, rows: rows})
	return s
}

// Mermaid adds a fenced mermaid diagram, which GitHub renders as a chart.
func (s *Section) Mermaid(src string) *Section {
	s.blocks = append(s.blocks, fenced{lang: "mermaid", body: src})
	return s
}

// List adds a bullet list.
func (s *Section) List(items []string) *Section {
	s.blocks = append(s.blocks, list(items))
	return s
}

type para string

func (p para) render(b *strings.Builder, _ level, _ string) {
	b.WriteString(string(p))
	b.WriteString("\n\n")
}

type list []string

func (l list) render(b *strings.Builder, lv level, note string) {
	maxRows := lv.maxRows
	n := len(l)
	if maxRows >= 0 && n > maxRows {
		n = maxRows
	}
	for _, it := range l[:n] {
		b.WriteString("- ")
		b.WriteString(textfmt.OneLine(it))
		b.WriteString("\n")
	}
	if n < len(l) {
		fmt.Fprintf(b, "- … %d more left out of this summary%s\n", len(l)-n, where(note))
	}
	b.WriteString("\n")
}

type fenced struct{ lang, body string }

func (f fenced) render(b *strings.Builder, lv level, _ string) {
	// Charts go before table rows when space is short: the tables hold
	// the same numbers.
	if lv.noCharts {
		return
	}
	b.WriteString("```" + f.lang + "\n")
	b.WriteString(strings.TrimRight(f.body, "\n"))
	b.WriteString("\n```\n\n")
}

type table struct {
	header []string
	rows   [][]string
	raw    bool
}

func (t table) render(b *strings.Builder, lv level, note string) {
	maxRows := lv.maxRows
	// A plain table's cells are values, often from rows or a model:
	// shown as written, never as links, images or mentions.
	cell := textfmt.InertCell
	if t.raw {
		cell = textfmt.OneLine
	}
	b.WriteString("|")
	for _, h := range t.header {
		b.WriteString(" " + cell(h) + " |")
	}
	b.WriteString("\n|")
	for range t.header {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	n := len(t.rows)
	if maxRows >= 0 && n > maxRows {
		n = maxRows
	}
	for _, r := range t.rows[:n] {
		b.WriteString("|")
		for i := range t.header {
			v := ""
			if i < len(r) {
				v = r[i]
			}
			b.WriteString(" " + cell(v) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	if n < len(t.rows) {
		fmt.Fprintf(b, "_%d more rows left out of this summary to stay under GitHub's 1 MiB limit%s._\n\n", len(t.rows)-n, where(note))
	}
}

func where(note string) string {
	if note == "" {
		return ""
	}
	return "; " + note
}

// level is one way of rendering the document, from whole to tightest.
type level struct {
	maxRows int // table rows kept (<0: all)
	drop    int // sections with Drop >= drop are left out (0: none)
	// noCharts leaves out the mermaid charts.
	noCharts bool
}

// levels are tried in turn until the document fits: the least
// important sections are left out first (a copy of a file the artifact
// keeps, then the details of what passed), then long tables are
// shortened and charts go, then the remaining details.
var levels = []level{
	{-1, 0, false}, {-1, 3, false}, {-1, 2, false},
	{1000, 2, false}, {200, 2, true}, {50, 1, true}, {10, 1, true}, {0, 1, true},
}

// Render returns the document as Markdown of at most limit bytes. Tables
// are shortened and the least important sections left out step by step
// (each with a line saying so and where the rest is); if even the
// tightest form is too large the text is cut at a line boundary and ends
// with a notice.
func (d *Doc) Render(limit int) string {
	var out string
	for _, lv := range levels {
		out = d.render(lv)
		if len(out) <= limit {
			return out
		}
	}
	notice := "\n\n_The summary was cut here to stay under GitHub's size limit" + where(d.Note) + "._\n"
	if d.Note == "" {
		notice = "\n\n_The summary was cut here to stay under GitHub's size limit; the complete results are in the uploaded artifacts._\n"
	}
	if limit <= len(notice) {
		return ""
	}
	cut := out[:limit-len(notice)]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i]
	}
	return cut + notice
}

func (d *Doc) render(lv level) string {
	var b strings.Builder
	for _, l := range d.Lead {
		b.WriteString(strings.TrimRight(l, "\n") + "\n\n")
	}
	for _, s := range d.sections {
		lvl := s.Level
		if lvl == 0 {
			lvl = 2
		}
		b.WriteString(strings.Repeat("#", lvl) + " " + textfmt.OneLine(s.Title) + "\n\n")
		note := s.Note
		if note == "" {
			note = d.Note
		}
		if lv.drop > 0 && s.Drop >= lv.drop {
			fmt.Fprintf(&b, "_Left out of this summary to stay under GitHub's size limit%s._\n\n", where(note))
			continue
		}
		if s.Collapsed && len(s.blocks) > 0 {
			b.WriteString("<details><summary>Details</summary>\n\n")
		}
		for _, bl := range s.blocks {
			bl.render(&b, lv, note)
		}
		if s.Collapsed && len(s.blocks) > 0 {
			b.WriteString("</details>\n\n")
		}
	}
	return b.String()
}

// quote makes a mermaid string literal; mermaid has no escape for a
// double quote inside one, so it becomes a single quote.
func quote(s string) string {
	return `"` + strings.ReplaceAll(textfmt.OneLine(s), `"`, "'") + `"`
}

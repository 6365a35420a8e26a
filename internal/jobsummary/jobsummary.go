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
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/textfmt"
)

// MaxBytes is the runner's limit for one step's summary (1024 KiB).
const MaxBytes = 1024 * 1024

// Doc is a job summary under construction.
type Doc struct {
	sections []*Section
}

// Section is one titled part of a summary (a set, a batch, an audit).
type Section struct {
	Title string
	// Note says where the complete data lives (an artifact or a path); it
	// is repeated wherever rows had to be left out.
	Note   string
	blocks []block
}

type block interface {
	// render writes the block; maxRows limits table rows (<0: no limit).
	render(b *strings.Builder, maxRows int, note string)
}

// Section appends a new section to the document and returns it.
func (d *Doc) Section(title string) *Section {
	s := &Section{Title: title}
	d.sections = append(d.sections, s)
	return s
}

// Para adds a paragraph of Markdown text.
func (s *Section) Para(format string, args ...any) *Section {
	s.blocks = append(s.blocks, para(fmt.Sprintf(format, args...)))
	return s
}

// Table adds a table; cells are escaped so that a pipe or a newline in a
// value cannot break the layout.
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

func (p para) render(b *strings.Builder, _ int, _ string) {
	b.WriteString(string(p))
	b.WriteString("\n\n")
}

type list []string

func (l list) render(b *strings.Builder, maxRows int, note string) {
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

func (f fenced) render(b *strings.Builder, maxRows int, _ string) {
	// Charts are the first thing to go when space is short: at the
	// tightest level they are dropped.
	if maxRows == 0 {
		return
	}
	b.WriteString("```" + f.lang + "\n")
	b.WriteString(strings.TrimRight(f.body, "\n"))
	b.WriteString("\n```\n\n")
}

type table struct {
	header []string
	rows   [][]string
}

func (t table) render(b *strings.Builder, maxRows int, note string) {
	b.WriteString("|")
	for _, h := range t.header {
		b.WriteString(" " + textfmt.Cell(h) + " |")
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
			b.WriteString(" " + textfmt.Cell(v) + " |")
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

// rowLimits are the table sizes tried in turn until the document fits.
var rowLimits = []int{-1, 1000, 200, 50, 10, 0}

// Render returns the document as Markdown of at most limit bytes. Tables
// are shortened step by step; if even the shortest form is too large the
// text is cut at a line boundary and ends with a truncation notice.
func (d *Doc) Render(limit int) string {
	var out string
	for _, n := range rowLimits {
		out = d.render(n)
		if len(out) <= limit {
			return out
		}
	}
	const notice = "\n\n_The summary was cut here to stay under GitHub's 1 MiB limit; the complete results are in the uploaded artifacts._\n"
	if limit <= len(notice) {
		return ""
	}
	cut := out[:limit-len(notice)]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i]
	}
	return cut + notice
}

func (d *Doc) render(maxRows int) string {
	var b strings.Builder
	for _, s := range d.sections {
		b.WriteString("## " + textfmt.OneLine(s.Title) + "\n\n")
		for _, bl := range s.blocks {
			bl.render(&b, maxRows, s.Note)
		}
	}
	return b.String()
}

// XYBars returns a mermaid xychart with one bar series per entry of
// series, over the labels on the x axis. GitHub renders it natively.
func XYBars(title, yLabel string, labels []string, series []Series) string {
	var b strings.Builder
	b.WriteString("xychart-beta\n")
	fmt.Fprintf(&b, "  title %s\n", quote(title))
	qs := make([]string, len(labels))
	for i, l := range labels {
		qs[i] = quote(l)
	}
	fmt.Fprintf(&b, "  x-axis [%s]\n", strings.Join(qs, ", "))
	fmt.Fprintf(&b, "  y-axis %s\n", quote(yLabel))
	for _, s := range series {
		vs := make([]string, len(s.Values))
		for i, v := range s.Values {
			vs[i] = strconv.FormatFloat(v, 'f', -1, 64)
		}
		fmt.Fprintf(&b, "  bar [%s]\n", strings.Join(vs, ", "))
	}
	return b.String()
}

// Series is one named row of values of a chart.
type Series struct {
	Name   string
	Values []float64
}

// Pie returns a mermaid pie chart of counts, in the order given; zero
// slices are left out because mermaid draws them as empty labels.
func Pie(title string, labels []string, counts []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "pie title %s\n", strings.Trim(quote(title), `"`))
	for i, l := range labels {
		if counts[i] == 0 {
			continue
		}
		fmt.Fprintf(&b, "  %s : %d\n", quote(l), counts[i])
	}
	return b.String()
}

// quote makes a mermaid string literal; mermaid has no escape for a
// double quote inside one, so it becomes a single quote.
func quote(s string) string {
	return `"` + strings.ReplaceAll(textfmt.OneLine(s), `"`, "'") + `"`
}

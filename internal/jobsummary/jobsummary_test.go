package jobsummary

import (
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testenv"
	"github.com/benchgate/benchgate/internal/testenv/mermaid"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the chart images under docs/images")

func bigDoc(rows int) *Doc {
	var d Doc
	s := d.Section("Set pr-exec: fail")
	s.Note = "see artifact benchgate-pr-exec"
	s.Para("Provider `openai`.")
	s.Mermaid(Pie("Statuses", []string{"pass", "fail"}, []int{3, 1}))
	var rs [][]string
	for i := 0; i < rows; i++ {
		rs = append(rs, []string{fmt.Sprintf("suite.jsonl:%d", i+1), "scenario-" + strings.Repeat("x", 40), "success", "false"})
	}
	s.Table([]string{"file:line", "scenario", "field", "value"}, rs)
	return &d
}

func TestRender(t *testing.T) {
	tests := []struct {
		name    string
		rows    int
		limit   int
		want    []string
		notWant []string
	}{
		{
			name:    "fits whole",
			rows:    3,
			limit:   MaxBytes,
			want:    []string{"## Set pr-exec: fail\n\n", "```mermaid\npie title Statuses\n", "| suite.jsonl:3 |"},
			notWant: []string{"left out"},
		},
		{
			name:    "tables shortened with a note naming where the rest is",
			rows:    30000,
			limit:   MaxBytes,
			want:    []string{"| suite.jsonl:1000 |", "29000 more rows left out of this summary to stay under GitHub's 1 MiB limit; see artifact benchgate-pr-exec._"},
			notWant: []string{"| suite.jsonl:1001 |"},
		},
		{
			name:    "small limit drops charts and all rows",
			rows:    100,
			limit:   400,
			want:    []string{"## Set pr-exec: fail", "_100 more rows left out"},
			notWant: []string{"mermaid", "| suite.jsonl:1 |"},
		},
		{
			name:    "tiny limit cuts at a line with a notice",
			rows:    100,
			limit:   200,
			want:    []string{"## Set pr-exec: fail", "_The summary was cut here"},
			notWant: []string{"mermaid"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := bigDoc(tt.rows).Render(tt.limit)
			if len(out) > tt.limit {
				t.Fatalf("len = %d > limit %d", len(out), tt.limit)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, shorten(out))
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, shorten(out))
				}
			}
		})
	}
}

func shorten(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

func TestCharts(t *testing.T) {
	got := XYChart(`Tokens "median"`, "tokens", []string{"a-001", "b\n002"}, Series{"agent_direct", []float64{1.5, 2}}, Series{"ghx", []float64{3, 4}})
	want := "xychart-beta\n  title \"Tokens 'median' (bars: agent_direct, line: ghx)\"\n  x-axis [\"a-001\", \"b 002\"]\n  y-axis \"tokens\"\n  bar [1.5, 2]\n  line [3, 4]\n"
	if got != want {
		t.Errorf("XYChart =\n%s\nwant\n%s", got, want)
	}
	got = Pie("Instance statuses", []string{"success", "failed", "incomplete"}, []int{2, 0, 1})
	want = "pie title Instance statuses\n  \"success\" : 2\n  \"incomplete\" : 1\n"
	if got != want {
		t.Errorf("Pie =\n%s\nwant\n%s", got, want)
	}
}

func TestListTruncates(t *testing.T) {
	var d Doc
	s := d.Section("PRs")
	s.Note = "see quality_report.json"
	var items []string
	for i := 0; i < 5000; i++ {
		items = append(items, fmt.Sprintf("https://github.com/o/r/pull/%d", i))
	}
	s.List(items)
	out := d.Render(20000)
	if len(out) > 20000 || !strings.Contains(out, "more left out of this summary; see quality_report.json") {
		t.Errorf("len %d, output:\n%s", len(out), shorten(out))
	}
}

// FuzzRender checks that whatever the cell contents, the output stays
// under the limit and every table row stays on one line.
func FuzzRender(f *testing.F) {
	f.Add("a|b", "x\ny", 200)
	f.Add(strings.Repeat("é", 300), "\r", 50)
	f.Add("", "", 0)
	f.Fuzz(func(t *testing.T, cell, title string, limit int) {
		if limit < 0 || limit > 1<<20 {
			return
		}
		var d Doc
		s := d.Section(title)
		s.Table([]string{"h"}, [][]string{{cell}, {cell + cell}})
		s.Mermaid(Pie(title, []string{cell}, []int{1}))
		out := d.Render(limit)
		if len(out) > limit {
			t.Fatalf("len %d > limit %d", len(out), limit)
		}
		full := d.Render(1 << 30)
		for _, l := range strings.Split(full, "\n") {
			if strings.HasPrefix(l, "| ") && !strings.HasSuffix(l, " |") {
				t.Fatalf("broken table row %q", l)
			}
		}
	})
}

// TestDropAndCollapse: sections are left out by rank, highest first,
// each with a line pointing to where it is kept; collapsed sections put
// their body in <details>; anchors follow GitHub's headings, duplicates
// numbered.
func TestDropAndCollapse(t *testing.T) {
	var d Doc
	d.Note = "see artifact benchgate-bench-run"
	head := d.Section("benchgate ordered: fail")
	head.Para("verdict")
	pass := d.Section("Set pr-exec: pass")
	pass.Collapsed, pass.Drop = true, 2
	pass.Para("%s", strings.Repeat("p", 3000))
	fail := d.Section("Set issues: terminal_fail")
	fail.Collapsed, fail.Drop = true, 1
	fail.Para("%s", strings.Repeat("f", 3000))
	copySec := d.Section("Consolidated summary")
	copySec.Drop = 3
	copySec.Para("%s", strings.Repeat("c", 3000))
	again := d.Section("Set pr-exec: pass")
	if pass.Anchor() != "#set-pr-exec-pass" || fail.Anchor() != "#set-issues-terminal_fail" || again.Anchor() != "#set-pr-exec-pass-1" {
		t.Errorf("anchors %s %s %s", pass.Anchor(), fail.Anchor(), again.Anchor())
	}
	whole := d.Render(MaxBytes)
	if !strings.Contains(whole, "## Set pr-exec: pass\n\n<details><summary>Details</summary>\n\n"+strings.Repeat("p", 3000)+"\n\n</details>\n") {
		t.Errorf("collapsed section:\n%s", shorten(whole))
	}
	for _, tc := range []struct {
		limit      int
		kept, gone []string
	}{
		{len(whole) - 1, []string{"ppp", "fff"}, []string{"ccc"}},
		{len(whole) - 3000, []string{"fff"}, []string{"ccc", "ppp"}},
		{len(whole) - 6000, []string{"verdict"}, []string{"ccc", "ppp", "fff"}},
	} {
		out := d.Render(tc.limit)
		if len(out) > tc.limit {
			t.Fatalf("%d bytes > %d", len(out), tc.limit)
		}
		for _, k := range tc.kept {
			if !strings.Contains(out, k) {
				t.Errorf("limit %d: %q left out", tc.limit, k)
			}
		}
		for _, g := range tc.gone {
			if strings.Contains(out, g) {
				t.Errorf("limit %d: %q kept", tc.limit, g)
			}
		}
		if !strings.Contains(out, "_Left out of this summary to stay under GitHub's size limit; see artifact benchgate-bench-run._") {
			t.Errorf("limit %d: no pointer to the artifact:\n%s", tc.limit, shorten(out))
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{"Set pr-exec: pass": "set-pr-exec-pass", "Baseline and history": "baseline-and-history", "A_b (c) 2.0": "a_b-c-20", "Ünïcode Ok": "ünïcode-ok"} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

var (
	barRect  = regexp.MustCompile(`(?s)<g class="bar-plot-0">(.*?)</g>`)
	linePath = regexp.MustCompile(`<g class="line-plot-1"><path d="M[^"]+"`)
)

// TestChartsRenderInMermaid draws each kind of chart the summaries use
// with the real mermaid in Chromium: both modes of an xychart are drawn,
// agent_direct as one bar per scenario and ghx as a line, also where ghx
// is the larger (the real 704 vs 759 active tokens of
// issue-triage-comment-wf-001); a pie draws its slices; a chart mermaid
// cannot parse fails. With -update-docs the images in docs/images are
// drawn again.
func TestChartsRenderInMermaid(t *testing.T) {
	ids := []string{"ci-diagnose-run-wf-001", "issue-triage-comment-wf-001", "pr-fix-mixed-threads-wf-001", "pr-review-comment-wf-001"}
	xy := XYChart("Median active tokens per scenario", "active tokens", ids,
		Series{"agent_direct", []float64{707, 704, 944, 2615}}, Series{"ghx", []float64{671, 759, 472, 1118}})
	trend := XYChart("Median active tokens, last 6 runs", "active tokens", []string{"#11", "#12", "#13", "#14", "#15", "#16"},
		Series{"agent_direct", []float64{910, 905, 930, 912, 899, 921}}, Series{"ghx", []float64{746, 760, 802, 845, 890, 951}})
	pie := Pie("Instance statuses", []string{"success", "failed", "incomplete"}, []int{7, 2, 1})
	svgs := mermaid.Render(t, xy, trend, pie)
	for i, n := range []int{len(ids), 6} {
		m := barRect.FindStringSubmatch(svgs[i])
		if m == nil || strings.Count(m[1], "<rect") != n {
			t.Errorf("chart %d: want %d agent_direct bars, got %v", i+1, n, m)
		}
		if !linePath.MatchString(svgs[i]) {
			t.Errorf("chart %d: no ghx line drawn", i+1)
		}
		if !strings.Contains(svgs[i], "(bars: agent_direct, line: ghx)") {
			t.Errorf("chart %d: the title does not say which series is which", i+1)
		}
	}
	if n := strings.Count(svgs[2], `class="pieCircle"`); n != 3 {
		t.Errorf("pie: %d slices, want 3", n)
	}
	if *updateDocs {
		dir := filepath.Join(testenv.RepoRoot(t), "docs", "images")
		mermaid.Screenshot(t, xy, filepath.Join(dir, "chart-scenarios.png"), 900, 520)
		mermaid.Screenshot(t, trend, filepath.Join(dir, "chart-trend.png"), 900, 520)
		mermaid.Screenshot(t, pie, filepath.Join(dir, "chart-pie.png"), 700, 480)
	}
}

func TestMermaidRefusesBadCharts(t *testing.T) {
	ft := &fakeT{TB: t}
	func() {
		defer func() {
			if r := recover(); r != nil && r != (fatal{}) {
				panic(r)
			}
		}()
		mermaid.Render(ft, "xychart-beta\n  x-axis [a, b\n  bar [1, 2]\n")
	}()
	if !ft.failed {
		t.Error("a chart mermaid cannot parse passed")
	}
}

// fakeT records a failure instead of failing the test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Errorf(format string, args ...any) { f.failed = true }
func (f *fakeT) Fatalf(format string, args ...any) { f.failed = true; panic(fatal{}) }
func (f *fakeT) Helper()                           {}

type fatal struct{}

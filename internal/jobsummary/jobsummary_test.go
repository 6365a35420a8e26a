package jobsummary

import (
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/mermaid"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
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
			want:    []string{"## Set pr-exec: fail\n\n", "```mermaid\n---\nconfig:\n  themeVariables:\n    pie1: \"#1a7f37\"\n    pie2: \"#cf222e\"\n---\npie title Statuses\n", "| suite.jsonl:3 |"},
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
	got := ScenarioChart(`Tokens "median"`, "tokens", []string{"a-001", "b\n002"}, Series{"agent_direct", []float64{1.5, 2}}, Series{"ghx", []float64{3, 4}})
	want := "---\nconfig:\n  xyChart:\n    width: 900\n    height: 260\n  themeVariables:\n    xyChart:\n      plotColorPalette: \"#8c959f, #0969da\"\n---\n" +
		"xychart-beta horizontal\n  title \"Tokens 'median' (grey bars: agent_direct, blue line: ghx)\"\n  x-axis [\"a-001\", \"b 002\"]\n  y-axis \"tokens\" 0 --> 4\n  bar [1.5, 2]\n  line [3, 4]\n"
	if got != want {
		t.Errorf("ScenarioChart =\n%s\nwant\n%s", got, want)
	}
	got = Pie("Instance statuses", []string{"success", "failed", "incomplete"}, []int{2, 0, 1})
	want = "---\nconfig:\n  themeVariables:\n    pie1: \"#1a7f37\"\n    pie2: \"#bf8700\"\n---\npie title Instance statuses\n  \"success\" : 2\n  \"incomplete\" : 1\n"
	if got != want {
		t.Errorf("Pie =\n%s\nwant\n%s", got, want)
	}
}

func TestNiceCeil(t *testing.T) {
	for _, c := range []struct{ v, want float64 }{
		{0, 1}, {-3, 1}, {0.4, 0.4}, {0.41, 0.5}, {4, 4}, {9.6, 10}, {64.389, 80}, {47, 50}, {2615, 3000}, {1900, 2000}, {100, 100}, {95, 100}, {100.5, 120}, {21, 25}, {0.007, 0.008},
	} {
		if got := NiceCeil(c.v); got != c.want {
			t.Errorf("NiceCeil(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}

func TestShortLabels(t *testing.T) {
	got := ShortLabels([]string{"pr-review-submit-request-changes-001", "issue-view-001", "pr-review-submit-request-changes-002"}, 20)
	want := []string{"pr-review…hanges-001", "issue-view-001", "pr-review…hanges-002"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("ShortLabels = %q, want %q", got, want)
	}
	// Labels that would read the same are numbered.
	got = ShortLabels([]string{"abcde-one-zz-001", "abcde-two-zz-001"}, 12)
	if got[0] == got[1] || !strings.HasPrefix(got[0], "1. ") || !strings.HasPrefix(got[1], "2. ") {
		t.Errorf("clashing labels not told apart: %q", got)
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
	legend   = regexp.MustCompile(`<g class="legend"[^>]*><rect[^>]*style="fill: ([^;]+);[^>]*></rect><text[^>]*>([^<]+)</text>`)
)

// readable checks a drawn chart as a reader sees it: no text is cut off
// at the chart's edge, no two labels of one axis overlap, and the value
// axis starts at 0.
func readable(t *testing.T, name string, l mermaid.Layout, valueAxis string) {
	t.Helper()
	for _, p := range l.Problems() {
		t.Errorf("%s: %s", name, p)
	}
	var ticks []string
	for _, x := range l.Texts {
		if strings.Contains(x.Groups, "label "+valueAxis) {
			ticks = append(ticks, x.Text)
		}
	}
	lowest := math.Inf(1)
	for _, tk := range ticks {
		if v, err := strconv.ParseFloat(tk, 64); err == nil {
			lowest = math.Min(lowest, v)
		}
	}
	if lowest != 0 {
		t.Errorf("%s: the value axis does not start at 0: %q", name, ticks)
	}
}

// TestChartsReadableAtEverySize draws the charts the summaries use with
// the real mermaid in Chromium, at 1, 4, 16 and 50 scenarios of real
// scenario IDs and latencies in seconds, and measures what a reader sees:
// every label whole and apart from the others, bars from 0, agent_direct
// as bars and ghx as a line; the trend labelled by run; the pie's
// statuses each in their own colour (failed red, incomplete amber, never
// green). With -update-docs the images in docs/images are drawn again.
func TestChartsReadableAtEverySize(t *testing.T) {
	var charts []string
	sizes := []int{1, 4, 16, 50}
	for _, n := range sizes {
		ad, gx := make([]float64, n), make([]float64, n)
		for i := range ad {
			// The real medians of the four suite scenarios, then more of
			// the same spread; ghx above agent_direct for one scenario.
			ad[i] = []float64{32.8, 16.6, 35.4, 64.4}[i%4] + float64(i/4)
			gx[i] = []float64{27.6, 16.5, 25.1, 32.9}[i%4] + float64(i/4)
		}
		if n > 1 {
			gx[1] = 17.9
		}
		charts = append(charts, ScenarioChart("Median wall latency per scenario", "seconds", testenv.ScenarioIDs[:n], Series{"agent_direct", ad}, Series{"ghx", gx}))
	}
	trend := TrendChart("Median wall latency, last 6 runs", "seconds", []string{"3393e97", "a81f0c2", "5be11d4", "0c4e2aa", "9f00d31", "run 1412"},
		Series{"agent_direct", []float64{38.8, 37.9, 39.2, 38.1, 40.3, 38.8}}, Series{"ghx", []float64{26.1, 26.9, 27.5, 29.8, 30.2, 31.4}})
	pie := Pie("Instance statuses", []string{"success", "failed", "incomplete"}, []int{7, 2, 1})
	// Active tokens: the real medians (ticks of four digits), and ten
	// times them (five digits, drawn in thousands).
	tokens := ScenarioChart("Median active tokens per scenario", "active tokens", testenv.ScenarioIDs[:4], Series{"agent_direct", []float64{707, 704, 944, 2615}}, Series{"ghx", []float64{671, 794, 472, 1118}})
	many := ScenarioChart("Median active tokens per scenario", "active tokens", testenv.ScenarioIDs[:4], Series{"agent_direct", []float64{7070, 7040, 9440, 26150}}, Series{"ghx", []float64{6710, 7940, 4720, 11180}})
	if !strings.Contains(many, `"thousand active tokens" 0 --> 30`) || !strings.Contains(many, "bar [7.1, 7, 9.4, 26.2]") {
		t.Errorf("five-digit values are not drawn in thousands:\n%s", many)
	}
	// A full history window of runs named by their start, not a commit.
	var starts []string
	var ad, gx []float64
	for i := 0; i < 10; i++ {
		starts = append(starts, fmt.Sprintf("02-%02d 14:03", 16+i))
		ad, gx = append(ad, 38+float64(i)/4), append(gx, 26+float64(i))
	}
	window := TrendChart("Median wall latency, last 10 runs", "seconds", starts, Series{"agent_direct", ad}, Series{"ghx", gx})
	charts = append(charts, trend, pie, tokens, many, window)
	layouts := mermaid.Layouts(t, 900, charts...)
	svgs := mermaid.Render(t, charts...)
	for k, n := range sizes {
		name := fmt.Sprintf("%d scenarios", n)
		readable(t, name, layouts[k], "top-axis")
		if n == 1 {
			// One scenario is two named bars, since mermaid draws a line
			// of one point as nothing (TestOneScenarioChartDrawsBothModes in
			// internal/action).
			continue
		}
		m := barRect.FindStringSubmatch(svgs[k])
		if m == nil || strings.Count(m[1], "<rect") != n {
			t.Errorf("%s: want %d agent_direct bars, got %v", name, n, m)
		}
		if !linePath.MatchString(svgs[k]) {
			t.Errorf("%s: no ghx line drawn", name)
		}
		shown := 0
		for _, x := range layouts[k].Texts {
			if strings.Contains(x.Groups, "left-axis") && strings.Contains(x.Groups, "label") {
				shown++
			}
		}
		if shown != n {
			t.Errorf("%s: %d scenario labels shown, want %d", name, shown, n)
		}
		if !strings.Contains(svgs[k], "(grey bars: agent_direct, blue line: ghx)") {
			t.Errorf("%s: the title does not say which series is which", name)
		}
	}
	readable(t, "trend", layouts[len(sizes)], "left-axis")
	var runs []string
	for _, x := range layouts[len(sizes)].Texts {
		if strings.Contains(x.Groups, "label bottom-axis") {
			runs = append(runs, x.Text)
		}
	}
	if strings.Join(runs, " ") != "3393e97 a81f0c2 5be11d4 0c4e2aa 9f00d31 run 1412" {
		t.Errorf("trend: runs labelled %q, want their commits", runs)
	}
	colours := map[string]string{}
	for _, m := range legend.FindAllStringSubmatch(svgs[len(sizes)+1], -1) {
		colours[m[2]] = m[1]
	}
	want := map[string]string{"success": "rgb(26, 127, 55)", "failed": "rgb(207, 34, 46)", "incomplete": "rgb(191, 135, 0)"}
	if fmt.Sprint(colours) != fmt.Sprint(want) {
		t.Errorf("pie colours %v, want %v", colours, want)
	}
	for k, name := range []string{"active tokens", "active tokens in thousands"} {
		readable(t, name, layouts[len(sizes)+2+k], "top-axis")
	}
	readable(t, "trend of 10 runs by start", layouts[len(sizes)+4], "left-axis")
	if !strings.Contains(window, `"02-16 14:03"`) {
		t.Errorf("a run's start is cut: %s", window)
	}
	if *updateDocs {
		dir := filepath.Join(testenv.RepoRoot(t), "docs", "images")
		mermaid.Screenshot(t, charts[1], filepath.Join(dir, "chart-scenarios.png"), 900, 420)
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

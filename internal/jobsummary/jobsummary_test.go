package jobsummary

import (
	"fmt"
	"strings"
	"testing"
)

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
	got := XYBars(`Tokens "median"`, "tokens", []string{"a-001", "b\n002"}, []Series{{"agent_direct", []float64{1.5, 2}}, {"ghx", []float64{3, 4}}})
	want := "xychart-beta\n  title \"Tokens 'median'\"\n  x-axis [\"a-001\", \"b 002\"]\n  y-axis \"tokens\"\n  bar [1.5, 2]\n  bar [3, 4]\n"
	if got != want {
		t.Errorf("XYBars =\n%s\nwant\n%s", got, want)
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

// Package mermaid renders mermaid charts as GitHub shows them in a job
// summary: with the real mermaid library (npm mermaid, the version
// scripts/test-env.sh pins) in headless Chromium (Debian's chromium). A
// chart mermaid cannot parse or draw fails the test, and the SVG it drew
// can be inspected (which plots, how many bars) or kept as a PNG.
package mermaid

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// chromiumFlags run Chromium without a sandbox, GPU or network
// services, as a test on a shared machine needs.
var chromiumFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
	"--disable-component-update", "--disable-sync", "--no-first-run", "--allow-file-access-from-files",
	// mermaid renders asynchronously: let the page's work finish before
	// the DOM is dumped or the screenshot taken.
	"--virtual-time-budget=30000"}

// tools returns Chromium and the mermaid bundle, or skips (fails under
// BENCHGATE_TEST_REQUIRE=1).
func tools(t testing.TB) (chromium, lib string) {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		testenv.Missing(t, "chromium", err.Error()+" (apt-get install chromium)")
	}
	lib = os.Getenv("BENCHGATE_TEST_MERMAID")
	if lib == "" {
		testenv.Missing(t, "the mermaid library", "BENCHGATE_TEST_MERMAID is empty")
	}
	if _, err := os.Stat(lib); err != nil {
		testenv.Missing(t, "the mermaid library", err.Error())
	}
	return chromium, lib
}

// page renders each chart in turn into its own element and records
// "ok" or the error mermaid gave in a status element.
func page(lib string, charts []string) string {
	src, _ := json.Marshal(charts)
	return `<!doctype html><html><head><meta charset="utf-8"><script src="file://` + html.EscapeString(lib) + `"></script>
<style>body{margin:0;background:#fff;font-family:sans-serif}</style></head><body>
<div id="charts"></div><pre id="status" style="display:none">pending</pre>
<script>
const charts = ` + string(src) + `;
mermaid.initialize({startOnLoad: false, theme: 'default'});
(async () => {
  const out = [];
  for (let i = 0; i < charts.length; i++) {
    try {
      await mermaid.parse(charts[i]);
      const r = await mermaid.render('chart' + i, charts[i]);
      const d = document.createElement('div');
      d.id = 'c' + i;
      d.innerHTML = r.svg;
      document.getElementById('charts').appendChild(d);
      out.push('ok');
    } catch (e) {
      out.push('error: ' + ((e && e.message) || String(e)).split('\n').join(' '));
    }
  }
  document.getElementById('status').textContent = JSON.stringify(out);
})();
</script></body></html>`
}

func run(t testing.TB, chromium string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(chromium, append(append(append([]string{}, chromiumFlags...), "--user-data-dir="+t.TempDir()), args...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return out
}

var statusRE = regexp.MustCompile(`(?s)<pre id="status"[^>]*>(.*?)</pre>`)

// Render draws every chart in one page and returns each chart's SVG; a
// chart mermaid cannot parse or draw fails the test, naming it.
func Render(t testing.TB, charts ...string) []string {
	t.Helper()
	chromium, lib := tools(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "charts.html")
	if err := os.WriteFile(p, []byte(page(lib, charts)), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(run(t, chromium, "--dump-dom", "file://"+p))
	m := statusRE.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("mermaid did not report: %s", tail(dom))
	}
	var status []string
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &status); err != nil || len(status) != len(charts) {
		t.Fatalf("mermaid did not finish rendering (status %q)", m[1])
	}
	svgs := make([]string, len(charts))
	for i, s := range status {
		if s != "ok" {
			t.Errorf("chart %d does not render: %s\n%s", i+1, s, charts[i])
			continue
		}
		start := strings.Index(dom, fmt.Sprintf(`<div id="c%d">`, i))
		end := strings.Index(dom[start:], "</svg>")
		svgs[i] = dom[start : start+end+len("</svg>")]
	}
	return svgs
}

// Screenshot draws one chart and writes it as a PNG of width x height.
func Screenshot(t testing.TB, chart, png string, width, height int) {
	t.Helper()
	Render(t, chart)
	chromium, lib := tools(t)
	p := filepath.Join(t.TempDir(), "chart.html")
	if err := os.WriteFile(p, []byte(page(lib, []string{chart})), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(png)
	if err != nil {
		t.Fatal(err)
	}
	run(t, chromium, fmt.Sprintf("--window-size=%d,%d", width, height), "--hide-scrollbars", "--screenshot="+abs, "file://"+p)
	if info, err := os.Stat(abs); err != nil || info.Size() == 0 {
		t.Fatalf("no screenshot written to %s: %v", png, err)
	}
}

// Charts returns the mermaid blocks of a Markdown text.
func Charts(md string) []string {
	var out []string
	for _, part := range strings.Split(md, "```mermaid\n")[1:] {
		if i := strings.Index(part, "\n```"); i >= 0 {
			out = append(out, part[:i+1])
		}
	}
	return out
}

func tail(s string) string {
	if len(s) > 3000 {
		return s[len(s)-3000:]
	}
	return s
}

// ScreenshotPage writes a PNG of HTML rendered from GitHub Markdown (by
// cmark-gfm) as GitHub shows it: a plain stylesheet close to GitHub's,
// and every mermaid code block drawn as a chart.
func ScreenshotPage(t testing.TB, bodyHTML, png string, width, height int) {
	t.Helper()
	chromium, lib := tools(t)
	page := `<!doctype html><html><head><meta charset="utf-8"><script src="file://` + html.EscapeString(lib) + `"></script>
<style>
body{margin:16px 24px;font:14px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#1f2328;background:#fff}
h2{font-size:1.5em;border-bottom:1px solid #d1d9e0;padding-bottom:.3em;margin:24px 0 16px}
h3{font-size:1.25em;margin:24px 0 16px}
table{border-collapse:collapse;margin:0 0 16px}
th,td{border:1px solid #d1d9e0;padding:6px 13px}
th{font-weight:600;background:#f6f8fa}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:#eff1f3;padding:.2em .4em;border-radius:6px}
pre{background:#f6f8fa;padding:16px;border-radius:6px;overflow:auto}
pre code{background:none;padding:0}
a{color:#0969da;text-decoration:none}
details{margin:0 0 16px}
summary{cursor:pointer}
</style></head><body>` + bodyHTML + `
<script>
mermaid.initialize({startOnLoad: false});
document.querySelectorAll('pre code.language-mermaid').forEach(c => {
  const d = document.createElement('div');
  d.className = 'mermaid';
  d.textContent = c.textContent;
  c.parentElement.replaceWith(d);
});
mermaid.run();
</script></body></html>`
	p := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(p, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(png)
	if err != nil {
		t.Fatal(err)
	}
	run(t, chromium, fmt.Sprintf("--window-size=%d,%d", width, height), "--hide-scrollbars", "--screenshot="+abs, "file://"+p)
	if info, err := os.Stat(abs); err != nil || info.Size() == 0 {
		t.Fatalf("no screenshot written to %s: %v", png, err)
	}
}

// Box is a rectangle on the rendered page, in CSS pixels.
type Box struct{ X, Y, W, H float64 }

// Overlaps says whether b and o come closer than gap pixels in both
// directions: two labels with no space between them read as one
// ("10001200").
func (b Box) Overlaps(o Box, gap float64) bool {
	return b.X+b.W+gap > o.X && o.X+o.W+gap > b.X && b.Y+b.H+gap > o.Y && o.Y+o.H+gap > b.Y
}

// Inside says whether b lies within o, give or take a pixel.
func (b Box) Inside(o Box) bool {
	return b.X >= o.X-1 && b.Y >= o.Y-1 && b.X+b.W <= o.X+o.W+1 && b.Y+b.H <= o.Y+o.H+1
}

// Text is one text element of a drawn chart: what it says, where it is
// drawn and the classes of the groups it sits in (an axis's labels are
// in "left-axis" or "bottom-axis" groups of an xychart).
type Text struct {
	Text   string
	Box    Box
	Groups string
}

// Layout is where a drawn chart put things: the SVG's own box and the
// box of every text in it, as Chromium lays them out.
type Layout struct {
	SVG   Box
	Texts []Text
}

// Layouts draws every chart as GitHub would (the page width given) and
// measures it, so a test can find labels that overlap or are cut off.
func Layouts(t testing.TB, width int, charts ...string) []Layout {
	t.Helper()
	chromium, lib := tools(t)
	src, _ := json.Marshal(charts)
	pg := `<!doctype html><html><head><meta charset="utf-8"><script src="file://` + html.EscapeString(lib) + `"></script>
<style>body{margin:0;background:#fff;font-family:sans-serif;width:` + fmt.Sprint(width) + `px}</style></head><body>
<div id="charts"></div><pre id="status" style="display:none">pending</pre>
<script>
const charts = ` + string(src) + `;
mermaid.initialize({startOnLoad: false});
(async () => {
  const out = [];
  for (let i = 0; i < charts.length; i++) {
    try {
      const r = await mermaid.render('chart' + i, charts[i]);
      const d = document.createElement('div');
      d.innerHTML = r.svg;
      document.getElementById('charts').appendChild(d);
      const svg = d.querySelector('svg');
      const box = e => { const b = e.getBoundingClientRect(); return {X: b.x, Y: b.y, W: b.width, H: b.height}; };
      const texts = [];
      svg.querySelectorAll('text').forEach(e => {
        if (!e.textContent.trim()) return;
        const groups = [];
        for (let p = e.parentElement; p && p !== svg; p = p.parentElement) groups.push(p.getAttribute('class') || '');
        texts.push({Text: e.textContent, Box: box(e), Groups: groups.join(' ')});
      });
      out.push({ok: true, layout: {SVG: box(svg), Texts: texts}});
    } catch (e) {
      out.push({ok: false, error: ((e && e.message) || String(e)).split('\n').join(' ')});
    }
  }
  document.getElementById('status').textContent = JSON.stringify(out);
})();
</script></body></html>`
	p := filepath.Join(t.TempDir(), "layout.html")
	if err := os.WriteFile(p, []byte(pg), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(run(t, chromium, fmt.Sprintf("--window-size=%d,900", width), "--dump-dom", "file://"+p))
	m := statusRE.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("mermaid did not report: %s", tail(dom))
	}
	var status []struct {
		OK     bool
		Error  string
		Layout Layout
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &status); err != nil || len(status) != len(charts) {
		t.Fatalf("mermaid did not finish drawing (status %q): %v", m[1], err)
	}
	out := make([]Layout, len(charts))
	for i, s := range status {
		if !s.OK {
			t.Errorf("chart %d does not render: %s\n%s", i+1, s.Error, charts[i])
		}
		out[i] = s.Layout
	}
	return out
}

// sameRow says two boxes sit on one line (labels of a horizontal axis).
func sameRow(a, b Box) bool { return a.Y == b.Y && a.H == b.H }

// Problems lists what a reader could not read in a drawn chart: a text
// cut off at the chart's edge, and two labels of the axes drawn over
// each other.
func (l Layout) Problems() []string {
	var labels []Text
	var problems []string
	for _, x := range l.Texts {
		if !x.Box.Inside(l.SVG) {
			problems = append(problems, fmt.Sprintf("%q is cut off: %+v outside the chart %+v", x.Text, x.Box, l.SVG))
		}
		if strings.Contains(x.Groups, "label") && strings.Contains(x.Groups, "axis") {
			labels = append(labels, x)
		}
	}
	for i := range labels {
		for j := i + 1; j < len(labels); j++ {
			// Labels of one axis line up along it: closer than 3 pixels
			// they run together.
			if labels[i].Box.Overlaps(labels[j].Box, -1) || sameRow(labels[i].Box, labels[j].Box) && labels[i].Box.Overlaps(labels[j].Box, 3) {
				problems = append(problems, fmt.Sprintf("labels %q and %q overlap or touch: %+v, %+v", labels[i].Text, labels[j].Text, labels[i].Box, labels[j].Box))
			}
		}
	}
	return problems
}

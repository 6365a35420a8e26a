package action

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/stats"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"github.com/benchgate/benchgate/internal/testsupport/mermaid"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenCase is one step as a user sees it: the inputs, and a mode that
// leaves the files (and exit code) a real run of that mode would.
type goldenCase struct {
	name   string
	inputs map[string]string
	mode   func(t *testing.T, dir string, args []string) (int, *Result)
}

// goldenNow is the clock of every golden run, so report's generatedAt
// and every dated name are the same on each run.
var goldenNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// TestGolden compares what a user sees of a step, byte for byte, with
// testdata/golden/<case>.log (the step log: masks, the command group,
// annotations and warnings, then the step outputs) and <case>.md (the job
// summary). Run with -update to rewrite them after an intended change,
// and read the diff before committing it.
func TestGolden(t *testing.T) {
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.inputs)
			h.now = func() time.Time { return goldenNow }
			code := h.run(func(dir string, args []string) int {
				code, res := tc.mode(t, dir, args)
				h.result = res
				return code
			})
			files := filepath.Dir(h.env["GITHUB_OUTPUT"])
			log := normalize(h.stdout.String(), h.ws, files) + fmt.Sprintf("--- exit code %d\n--- outputs\n", code) + normalize(formatOutputs(h.outputs()), h.ws, files)
			compareGolden(t, filepath.Join("testdata", "golden", tc.name+".log"), log)
			md := normalize(h.summary(), h.ws, files)
			gfm.Require(t, tc.name+".md", md)
			compareGolden(t, filepath.Join("testdata", "golden", tc.name+".md"), md)
		})
	}
}

func goldenCases() []goldenCase {
	suites := func(t *testing.T, dir string, fail map[int]bool) {
		writeSuite(t, "agent_direct-suite.jsonl", filepath.Join(dir, "agent_direct-suite.jsonl"), nil)
		writeSuite(t, "ghx-suite.jsonl", filepath.Join(dir, "ghx-suite.jsonl"), fail)
	}
	// realReport runs the real report over the suites, as the report
	// mode does, with or without --gate.
	realReport := func(gate bool, profile string) func(t *testing.T, dir string, args []string) (int, *Result) {
		return func(t *testing.T, dir string, args []string) (int, *Result) {
			suites(t, dir, map[int]bool{3: true, 4: true})
			opts := report.Options{Dir: dir, Gate: gate, GateProfile: profile, Now: func() time.Time { return goldenNow }, SkipBadRows: true,
				SuitePaths: []string{filepath.Join(dir, "agent_direct-suite.jsonl"), filepath.Join(dir, "ghx-suite.jsonl")}}
			for i := 0; i+1 < len(args); i++ {
				switch args[i] {
				case "--summary-json":
					opts.SummaryJSON = args[i+1]
				case "--summary-md":
					opts.SummaryMD = args[i+1]
				}
			}
			res, err := report.Run(context.Background(), opts)
			if err != nil {
				return 1, &Result{Report: res}
			}
			return 0, &Result{Report: res}
		}
	}
	set := func(failing bool) func(t *testing.T, dir string, args []string) (int, *Result) {
		return func(t *testing.T, dir string, args []string) (int, *Result) {
			out := args[len(args)-1]
			status, fail, ids := "pass", map[int]bool(nil), []string(nil)
			if failing {
				status, fail, ids = "terminal_fail", map[int]bool{11: true, 12: true}, []string{"pr-review-submit-wf-001"}
			}
			suites(t, out, fail)
			writeJSON(t, filepath.Join(out, "tracking.json"), trackingDoc("pr-exec", status, ids))
			writeFile(t, filepath.Join(out, "latest-summary.md"), "# Benchmark Report\n\nrows of pr-exec\n")
			writeJSON(t, filepath.Join(out, "latest-summary.json"), map[string]any{"set": "pr-exec"})
			return exitFor(failing), nil
		}
	}
	ordered := func(failing bool) func(t *testing.T, dir string, args []string) (int, *Result) {
		return func(t *testing.T, dir string, args []string) (int, *Result) {
			out := args[len(args)-1]
			sets := []string{"pr-exec", "issues"}
			for i, name := range sets {
				d := filepath.Join(out, name)
				status, fail, ids := "pass", map[int]bool(nil), []string(nil)
				if failing && i == len(sets)-1 {
					status, fail, ids = "terminal_fail", map[int]bool{1: true}, []string{"issue-triage-comment-wf-001"}
				}
				suites(t, d, fail)
				writeJSON(t, filepath.Join(d, "tracking.json"), trackingDoc(name, status, ids))
				mt := time.Now().Add(time.Duration(i) * time.Second)
				if err := os.Chtimes(filepath.Join(d, "tracking.json"), mt, mt); err != nil {
					t.Fatal(err)
				}
			}
			writeJSON(t, filepath.Join(out, "mini-summary.json"), map[string]any{"sets": len(sets)})
			writeFile(t, filepath.Join(out, "mini-summary.md"), "# Ordered sets\n\nall sets in order\n")
			return exitFor(failing), nil
		}
	}
	batch := func(failing bool) func(t *testing.T, dir string, args []string) (int, *Result) {
		return func(t *testing.T, dir string, args []string) (int, *Result) {
			root := filepath.Join(dir, "results", "phase5", "ralph-codex-local", "20261122T100000Z")
			type inst struct{ id, status, code, detail string }
			all := []inst{{"astropy__astropy-12907", "success", "", ""}, {"django__django-11099", "success", "", ""}}
			if failing {
				all = append(all, inst{"sympy__sympy-20590", "failed", "blocked", "plan moved to blocked: the test suite cannot be built"}, inst{"pylint-dev__pylint-7080", "incomplete", "incomplete", "max loops reached"})
			}
			for _, s := range all {
				st := map[string]any{"instance_id": s.id, "status": s.status, "failure_reason_code": nil, "failure_reason_detail": s.detail, "error_log": ""}
				if s.code != "" {
					st["failure_reason_code"] = s.code
				}
				writeJSON(t, filepath.Join(root, s.id, s.id+".status.json"), st)
			}
			writeFile(t, filepath.Join(root, "predictions.jsonl"), "{}\n")
			writeJSON(t, filepath.Join(root, "run_manifest.json"), map[string]any{"instances": len(all)})
			return exitFor(failing), nil
		}
	}
	audit := func(failing bool) func(t *testing.T, dir string, args []string) (int, *Result) {
		return func(t *testing.T, dir string, args []string) (int, *Result) {
			out := args[len(args)-1]
			file := filepath.Join(dir, "questions", "adk.yaml")
			cases := []map[string]any{
				{"file": file, "line": 1, "id": "adk-001", "verdict": "Valid"},
				{"file": file, "line": 12, "id": "adk-002", "verdict": "Valid"},
			}
			if failing {
				cases = append(cases,
					map[string]any{"file": file, "line": 23, "id": "adk-003", "verdict": "Inconclusive", "reason": "the option test did not run: library not installed"},
					map[string]any{"file": file, "line": 34, "id": "adk-004", "verdict": "Incorrect", "reason": "option B is proven true, the key says A", "needs_human_review": true},
					map[string]any{"file": file, "line": 45, "id": "adk-005", "verdict": "Ambiguous", "reason": "B and C both hold"},
				)
			}
			writeJSON(t, filepath.Join(out, "quality_report.json"), map[string]any{"cases": cases})
			writeFile(t, filepath.Join(out, "quality_report.md"), "# Quality report\n\nevery case proven by execution\n")
			return exitFor(failing), nil
		}
	}
	return []goldenCase{
		{"report-pass", map[string]string{"mode": "report", "suite-jsonl": "agent_direct-suite.jsonl\nghx-suite.jsonl"}, realReport(false, "")},
		{"report-fail", map[string]string{"mode": "report", "suite-jsonl": "agent_direct-suite.jsonl\nghx-suite.jsonl", "gate": "true", "gate-profile": "verify_release"}, realReport(true, "verify_release")},
		{"set-pass", map[string]string{"mode": "set", "set": "pr-exec", "provider": "openai"}, set(false)},
		{"set-fail", map[string]string{"mode": "set", "set": "pr-exec", "provider": "openai"}, set(true)},
		{"ordered-pass", map[string]string{"mode": "ordered", "provider": "openai"}, ordered(false)},
		{"ordered-fail", map[string]string{"mode": "ordered", "provider": "openai"}, ordered(true)},
		{"swebench-batch-pass", map[string]string{"mode": "swebench-batch", "max-loops": "5"}, batch(false)},
		{"swebench-batch-fail", map[string]string{"mode": "swebench-batch", "max-loops": "5", "fail-on": "failed"}, batch(true)},
		{"qa-audit-pass", map[string]string{"mode": "qa-audit", "definitions": "questions/adk.yaml"}, audit(false)},
		{"qa-audit-fail", map[string]string{"mode": "qa-audit", "definitions": "questions/adk.yaml"}, audit(true)},
		{"bad-input", map[string]string{"mode": "set", "provider": "openai"}, func(t *testing.T, _ string, _ []string) (int, *Result) {
			t.Error("the mode ran despite a missing required input")
			return 0, nil
		}},
	}
}

// exitFor is the exit code of a mode that judged failing.
func exitFor(failing bool) int {
	if failing {
		return 1
	}
	return 0
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// formatOutputs lists the step outputs sorted by name, a multi-line value
// indented under its name.
func formatOutputs(out map[string]string) string {
	var names []string
	for k := range out {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, "%s=%s\n", k, strings.ReplaceAll(out[k], "\n", "\n  "))
	}
	return b.String()
}

// stopToken matches the fresh token of ::stop-commands:: and the command
// that ends it.
var stopToken = regexp.MustCompile(`(?m)(::stop-commands::|^::)[0-9a-f]{32}`)

// normalize replaces what differs between runs: the temporary workspace,
// the folder of the runner's file commands and the stop-commands token.
func normalize(s, ws, files string) string {
	s = strings.ReplaceAll(s, ws, "$WORKSPACE")
	s = strings.ReplaceAll(s, files, "$RUNNER_FILES")
	return stopToken.ReplaceAllString(s, "${1}TOKEN")
}

func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		writeFile(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/action -run TestGolden -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from what the step shows now (rerun with -update if the change is intended):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff names the first differing line of want and got, with both.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n want %q\n  got %q", i+1, wl, gl)
		}
	}
	return "(same lines, different bytes)"
}

// TestGoldenChartsRender draws every chart of the golden job summaries
// with the real mermaid in Chromium: each parses and draws, every
// agent_direct/ghx chart draws both modes (bars and a line), and no text
// is cut off or drawn over another label.
func TestGoldenChartsRender(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.md"))
	var charts []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		charts = append(charts, mermaid.Charts(string(b))...)
	}
	if len(charts) < 10 {
		t.Fatalf("only %d charts in the golden summaries", len(charts))
	}
	svgs := mermaid.Render(t, charts...)
	xy := 0
	for i, c := range charts {
		if !strings.Contains(c, "xychart-beta") {
			continue
		}
		xy++
		if !strings.Contains(svgs[i], `class="bar-plot-0"`) || !strings.Contains(svgs[i], `class="line-plot-1"`) {
			t.Errorf("chart %d does not draw both modes:\n%s", i+1, c)
		}
	}
	if xy < 8 {
		t.Errorf("only %d charts of scenarios in the golden summaries", xy)
	}
	// As wide as a job summary on a laptop: nothing cut off, no labels
	// over each other.
	for i, l := range mermaid.Layouts(t, 900, charts...) {
		for _, p := range l.Problems() {
			t.Errorf("chart %d: %s\n%s", i+1, p, charts[i])
		}
	}
}

var updateDocs = flag.Bool("update-docs", false, "rewrite the images of docs/images")

// TestDocsImages draws, as GitHub shows them, an ordered run's job
// summary (the table of all sets, details collapsed), a report's (the
// verdict, its table of checks and charts) and a pull-request
// comment; with -update-docs they become docs/images.
func TestDocsImages(t *testing.T) {
	dir := t.TempDir()
	if *updateDocs {
		dir = filepath.Join("..", "..", "docs", "images")
	}
	for _, tc := range []struct{ golden, png string }{
		{"ordered-fail.md", "summary-ordered.png"},
		{"report-pass.md", "summary-report.png"},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "golden", tc.golden))
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range testenv.RatesAbove100(string(b)) {
			t.Errorf("%s draws a rate above 100%%: %s", tc.golden, bad)
		}
		mermaid.ScreenshotPage(t, gfm.GitHubHTML(t, string(b)), filepath.Join(dir, tc.png), 1000, 900)
	}
	marker := "<!-- benchgate-comment workflow=benchmark%20comment job=bench mode=report -->"
	res := &results{Suites: map[string]*suiteStats{"ghx": {Iterations: map[string]int{"s-005": 5}}}, SuiteOrder: []string{"ghx"}}
	res.Suites["ghx"].Violations = append(res.Suites["ghx"].Violations, violation("s-005"))
	st := &report.StatsReport{Verdict: stats.Pass, Passed: true, Reliability: []report.Check{
		{Name: "reliability_success_rate_non_inferior", Passed: true, Value: -2, Threshold: -5, Operator: ">="},
		{Name: "reliability_output_validity", Passed: true, Value: 100, Threshold: 97, Operator: ">="}},
		Efficiency: []report.EfficiencyCheck{
			{Metric: "tokens_active", Check: "efficiency_tokens_active_reduction", V2Value: 49.5, Result: stats.Result{Scenarios: 12, EstimatePct: 50, LowPct: 49.2, HighPct: 50.8, MinReductionPct: 15, Verdict: stats.Pass, Confidence: 0.9833}},
			{Metric: "latency", Check: "efficiency_latency_reduction", V2Value: 11, Result: stats.Result{Scenarios: 12, EstimatePct: 17, LowPct: 15.1, HighPct: 19.3, MinReductionPct: 15, Verdict: stats.Pass, Confidence: 0.975}},
			{Metric: "tool_calls", Check: "efficiency_tool_call_reduction", V2Value: 50, Result: stats.Result{Scenarios: 12, EstimatePct: 50, LowPct: 48, HighPct: 52, MinReductionPct: 20, Verdict: stats.Pass, Confidence: 0.95}}}}
	plan := &Plan{Mode: "report", Args: []string{"report", "--gate", "--stats"}}
	s := &stepResult{Plan: plan, Res: res, Code: 0,
		Artifacts: []artifact{{Name: "benchgate-bench-run", ID: 2882122893}}, RunURL: "https://github.com/octo/bench/actions/runs/1",
		ArtifactURL: func(id int64) string {
			return fmt.Sprintf("https://github.com/octo/bench/actions/runs/1/artifacts/%d", id)
		}}
	s.Verdict = judgeOf(plan, res, &Result{Report: &report.Result{Stats: st}}, 0)
	linkArtifacts(s.Verdict, s.Artifacts, s.ArtifactURL, func(p string) string { return p })
	body := commentBody(marker, s)
	for _, bad := range testenv.RatesAbove100(body) {
		t.Errorf("the comment drawn in comment.png shows a rate above 100%%: %s", bad)
	}
	mermaid.ScreenshotPage(t, gfm.GitHubHTML(t, body), filepath.Join(dir, "comment.png"), 1000, 620)
}

package report

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden summaries under testdata/suites/golden")

func suitesDir() string {
	abs, err := filepath.Abs(filepath.Join("..", "..", "testdata", "suites"))
	if err != nil {
		panic(err)
	}
	return abs
}

func realSuites() []string {
	return []string{
		filepath.Join(suitesDir(), "2026-02-25-agent_direct-suite.jsonl"),
		filepath.Join(suitesDir(), "2026-02-25-ghx-suite.jsonl"),
	}
}

func caseSuites(t *testing.T, name string) []string {
	t.Helper()
	var out []string
	for _, m := range []string{"agent_direct", "mcp", "ghx"} {
		p := filepath.Join(suitesDir(), "cases", name, m+"-suite.jsonl")
		if _, err := os.Stat(p); err == nil {
			abs, _ := filepath.Abs(p)
			out = append(out, abs)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no suites for case %s", name)
	}
	return out
}

var fixedNow = func() time.Time { return time.Date(2026, 2, 25, 17, 55, 48, 189e6, time.UTC) }

func run(t *testing.T, opts Options) (*Result, error) {
	t.Helper()
	dir := t.TempDir()
	if opts.Dir == "" {
		opts.Dir = dir
	}
	if opts.SummaryJSON == "" {
		opts.SummaryJSON = filepath.Join(dir, "out", "nested", "summary.json")
	}
	if opts.SummaryMD == "" {
		opts.SummaryMD = filepath.Join(dir, "out", "nested", "summary.md")
	}
	opts.Now = fixedNow
	return Run(context.Background(), opts)
}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// want is the expected value and outcome of one gate check.
type want struct {
	value  float64
	passed bool
}

func checkGate(t *testing.T, res *Result, wantPassed bool, checks map[string]want) {
	t.Helper()
	g := res.Summary.GateV2
	if g.Passed != wantPassed || res.Gate.Passed != wantPassed {
		t.Errorf("gate passed = %v, want %v", g.Passed, wantPassed)
	}
	names := []string{
		"reliability_success_rate_non_inferior", "reliability_output_validity", "reliability_runner_failure_rate",
		"reliability_timeout_stall_rate", "reliability_retry_rate", "efficiency_coverage",
		"efficiency_tokens_active_reduction", "efficiency_latency_reduction", "efficiency_tool_call_reduction",
	}
	if len(g.Checks) != len(names) {
		t.Fatalf("%d checks, want 9", len(g.Checks))
	}
	for i, c := range g.Checks {
		if c.Name != names[i] {
			t.Errorf("check %d is %s, want %s", i, c.Name, names[i])
		}
		if w, ok := checks[c.Name]; ok {
			if !approx(c.Value, w.value) || c.Passed != w.passed {
				t.Errorf("%s: value %v passed %v, want %v %v", c.Name, c.Value, c.Passed, w.value, w.passed)
			}
		}
	}
}

// TestRealSuites reproduces upstream's efficiency figures for the real
// 2026-02-25 rows under every profile and threshold source.
func TestRealSuites(t *testing.T) {
	expectations, _ := filepath.Abs(filepath.Join(suitesDir(), "expectations.json"))
	for _, tc := range []struct {
		name, profile, config, model string
		wantModel                    string
		passed                       bool
		toolThreshold                float64
	}{
		{"defaults verify_pr", "verify_pr", "", "", "", false, 20},
		{"alias pr_fast", "pr_fast", "", "", "", false, 20},
		{"defaults verify_release", "verify_release", "", "", "", false, 30},
		{"inferred 5.3 verify_pr", "verify_pr", expectations, "", "openai/gpt-5.3-codex", false, 20},
		{"mini verify_pr", "verify_pr", expectations, "openai/gpt-5.1-codex-mini", "openai/gpt-5.1-codex-mini", true, 15},
		{"mini verify_release", "verify_release", expectations, "openai/gpt-5.1-codex-mini", "openai/gpt-5.1-codex-mini", false, 18},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := run(t, Options{SuitePaths: realSuites(), GateProfile: tc.profile, ExpectationsConfig: tc.config, ExpectationsModel: tc.model})
			if err != nil {
				t.Fatal(err)
			}
			if res.Gate.ExpectationsModel != tc.wantModel {
				t.Errorf("expectations model %q, want %q", res.Gate.ExpectationsModel, tc.wantModel)
			}
			checkGate(t, res, tc.passed, map[string]want{
				"reliability_success_rate_non_inferior": {0, true},
				"efficiency_coverage":                   {100, true},
				"efficiency_tokens_active_reduction":    {27.545968882602544, true},
				"efficiency_latency_reduction":          {22.405671175171555, true},
				"efficiency_tool_call_reduction":        {16.666666666666664, tc.passed},
			})
			tool := res.Summary.GateV2.Checks[8]
			if tool.Threshold != tc.toolThreshold {
				t.Errorf("tool-call threshold %v, want %v", tool.Threshold, tc.toolThreshold)
			}
			eff := res.Summary.GateV2.Efficiency
			if eff.EligibleScenarioCount != 4 || eff.TotalScenarioCount != 4 || eff.TokensComparableScenarioCount != 4 || eff.ScenarioWinRateTokensActivePct != 75 {
				t.Errorf("efficiency = %+v", eff)
			}
			ad, ghx := res.Summary.Modes.Get("agent_direct"), res.Summary.Modes.Get("ghx")
			if ad.MedianLatencyMs != 34072.5 || ad.MedianTokensTotal != 12282 || ad.MedianTokensActive != 909.5 || ad.MedianToolCalls != 4 ||
				ghx.MedianLatencyMs != 25410.5 || ghx.MedianTokensTotal != 12724.5 || ghx.MedianTokensActive != 746 || ghx.MedianToolCalls != 3 {
				t.Errorf("mode medians: %+v %+v", ad, ghx)
			}
			d := res.Summary.DeltaVsAgentDirect
			if !approx(d.ToolCallReductionPct, 25) || math.Abs(d.TokensReductionPct-(-3.6028)) > 1e-4 || math.Abs(d.TokensActiveReductionPct-17.9769) > 1e-4 || math.Abs(d.LatencyReductionPct-25.4223) > 1e-4 {
				t.Errorf("delta = %+v", d)
			}
		})
	}
}

// mdTable parses the Markdown table under heading into mode -> column -> cell.
func mdTable(t *testing.T, md, heading string) map[string]map[string]string {
	t.Helper()
	_, rest, ok := strings.Cut(md, heading+"\n\n")
	if !ok {
		t.Fatalf("no %q section", heading)
	}
	lines := strings.Split(rest, "\n")
	header := splitRow(lines[0])
	out := map[string]map[string]string{}
	for _, l := range lines[2:] {
		if !strings.HasPrefix(l, "|") {
			break
		}
		cells := splitRow(l)
		row := map[string]string{}
		for i, h := range header {
			row[h] = cells[i]
		}
		out[cells[0]] = row
	}
	return out
}

func splitRow(l string) []string {
	parts := strings.Split(strings.Trim(l, "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// TestMarkdownMatchesUpstream compares our Markdown with the real
// latest-summary.md generated from the same rows by a later upstream
// version, on every figure both versions compute.
func TestMarkdownMatchesUpstream(t *testing.T) {
	res, err := run(t, Options{SuitePaths: realSuites()})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(res.SummaryMD)
	if err != nil {
		t.Fatal(err)
	}
	ours := string(data)
	upData, err := os.ReadFile(filepath.Join(suitesDir(), "upstream-latest-summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	upstream := string(upData)
	// Mode metrics: upstream's later table has more columns and calls
	// latency "Median Wall Time".
	same := map[string]string{
		"Model": "Model", "Runs": "Runs", "Success %": "Success %", "Output Valid %": "Output Valid %",
		"Runner Error %": "Runner Error %", "Timeout/Stall %": "Timeout/Stall %", "Retry %": "Retry %",
		"Median Latency (ms)": "Median Wall Time (ms)", "Median Tokens (Total)": "Median Tokens (Total)",
		"Median Tokens (Active)": "Median Tokens (Active)", "Median Tool Calls": "Median Tool Calls",
	}
	ourModes, upModes := mdTable(t, ours, "## Mode Metrics"), mdTable(t, upstream, "## Mode Metrics")
	for _, mode := range []string{"agent_direct", "ghx"} {
		for col, upCol := range same {
			if ourModes[mode][col] != upModes[mode][upCol] {
				t.Errorf("%s %s: ours %q, upstream %q", mode, col, ourModes[mode][col], upModes[mode][upCol])
			}
		}
	}
	// Sections both versions print identically.
	for _, section := range []string{"## Profiling Snapshot", "### Reliability Snapshot", "### Efficiency Snapshot (Stable Sample)"} {
		up := sectionOf(upstream, section)
		if got := sectionOf(ours, section); got != up {
			t.Errorf("%s differs:\n ours: %q\nupstream: %q", section, got, up)
		}
	}
	// The nine checks (upstream adds a tenth, cost, that 7d27c7b has not).
	for _, l := range strings.Split(upstream, "\n") {
		if strings.HasPrefix(l, "| reliability_") || (strings.HasPrefix(l, "| efficiency_") && !strings.Contains(l, "cost")) {
			if !strings.Contains(ours, l+"\n") {
				t.Errorf("check line missing from ours: %s", l)
			}
		}
	}
	for _, l := range []string{"Generated: 2026-02-25T17:55:48.189Z", "Profile: verify_pr", "Overall Gate: **FAIL**"} {
		if !strings.Contains(ours, l+"\n") || !strings.Contains(upstream, l+"\n") {
			t.Errorf("line %q not in both", l)
		}
	}
}

func sectionOf(md, heading string) string {
	_, rest, ok := strings.Cut(md, heading+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n#"); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSpace(rest)
}

// TestGolden keeps our own summaries of the real rows and of the
// hand-built failure cases byte for byte.
func TestGolden(t *testing.T) {
	type golden struct {
		name, profile string
		suites        []string
	}
	cases := []golden{
		{"real-verify_pr", "verify_pr", realSuites()},
		{"real-verify_release", "verify_release", realSuites()},
	}
	for _, c := range []string{"assertion-failures", "runner-errors", "runner-timeouts", "external-retries", "missing-mode", "scenario-unstable", "min-samples", "three-modes", "upstream-quirks"} {
		cases = append(cases, golden{"case-" + c, "verify_pr", caseSuites(t, c)})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := run(t, Options{SuitePaths: tc.suites, GateProfile: tc.profile})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []struct{ got, golden string }{
				{res.SummaryJSON, tc.name + ".json"},
				{res.SummaryMD, tc.name + ".md"},
			} {
				got, err := os.ReadFile(f.got)
				if err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join(suitesDir(), "golden", f.golden)
				if *update {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update to create)", err)
				}
				if string(got) != string(want) {
					t.Errorf("%s differs from %s:\n%s", f.got, golden, got)
				}
			}
		})
	}
}

// TestFailurePaths runs the hand-built suites of testdata/suites/cases.
func TestFailurePaths(t *testing.T) {
	expectations, _ := filepath.Abs(filepath.Join(suitesDir(), "expectations.json"))
	for _, tc := range []struct {
		name, suite, profile, config string
		passed                       bool
		checks                       map[string]want
		modes                        []string
		check                        func(t *testing.T, res *Result)
	}{
		{name: "assertion failures", suite: "assertion-failures", checks: map[string]want{
			"reliability_success_rate_non_inferior": {-25, false},
			"reliability_output_validity":           {87.5, false},
			"reliability_runner_failure_rate":       {0, true},
			"reliability_timeout_stall_rate":        {0, true},
			"efficiency_coverage":                   {100, true},
			"efficiency_tokens_active_reduction":    {40, true},
			"efficiency_latency_reduction":          {30, true},
			"efficiency_tool_call_reduction":        {50, true},
		}},
		{name: "runner errors with and without timeout wording", suite: "runner-errors", checks: map[string]want{
			"reliability_success_rate_non_inferior": {-10, false},
			"reliability_output_validity":           {90, false},
			"reliability_runner_failure_rate":       {10, false},
			"reliability_timeout_stall_rate":        {5, false},
			"reliability_retry_rate":                {0, true},
			"efficiency_coverage":                   {100, true},
		}},
		{name: "runner_timeout types count as failures and timeouts", suite: "runner-timeouts", checks: map[string]want{
			"reliability_runner_failure_rate": {10, false},
			"reliability_timeout_stall_rate":  {10, false},
			"efficiency_coverage":             {100, true},
		}},
		{name: "external retries", suite: "external-retries", checks: map[string]want{
			"reliability_success_rate_non_inferior": {0, true},
			"reliability_retry_rate":                {20, false},
			"efficiency_tool_call_reduction":        {50, true},
		}},
		{name: "scenario without stable rows in ghx", suite: "scenario-unstable", check: func(t *testing.T, res *Result) {
			e := res.Summary.GateV2.Efficiency
			if e.EligibleScenarioCount != 3 || e.TotalScenarioCount != 4 || e.CoveragePct != 75 || res.Summary.GateV2.Checks[5].Passed {
				t.Errorf("efficiency = %+v", e)
			}
		}},
		{name: "min samples 1", suite: "min-samples", checks: map[string]want{
			"efficiency_coverage": {100, true},
		}},
		{name: "min samples 2", suite: "min-samples", profile: "verify_release", checks: map[string]want{
			"efficiency_coverage": {75, false},
		}},
		{name: "rows of a model without expectations use built-in thresholds", suite: "unknown-model", passed: true},
		{name: "mcp is summarised but not gated", suite: "three-modes", passed: true, modes: []string{"agent_direct", "mcp", "ghx"}, check: func(t *testing.T, res *Result) {
			if len(res.Summary.Profiling) != 2 || res.Summary.Profiling.Get("mcp") != nil {
				t.Errorf("profiling = %+v", res.Summary.Profiling)
			}
			if m := res.Summary.Modes.Get("mcp"); m.Runs != 4 || m.MedianLatencyMs != 900 {
				t.Errorf("mcp = %+v", m)
			}
		}},
		{name: "missing mode", suite: "missing-mode", modes: []string{"ghx"}, check: func(t *testing.T, res *Result) {
			g := res.Summary.GateV2
			if g.Passed || g.Reliability != nil || g.Efficiency != nil || len(g.Checks) != 0 || res.Summary.DeltaVsAgentDirect != nil {
				t.Errorf("gate = %+v", g)
			}
			md, _ := os.ReadFile(res.SummaryMD)
			if !strings.HasSuffix(string(md), "Overall Gate: **FAIL**\n\nInsufficient data: need both agent_direct and ghx runs to evaluate gate v2.\n") {
				t.Errorf("markdown ends %q", md[len(md)-120:])
			}
			js, _ := os.ReadFile(res.SummaryJSON)
			if !strings.Contains(string(js), `"deltaVsAgentDirect": null`) || !strings.Contains(string(js), `"checks": []`) {
				t.Errorf("json = %s", js)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := run(t, Options{SuitePaths: caseSuites(t, tc.suite), GateProfile: tc.profile, ExpectationsConfig: tc.config})
			if err != nil {
				t.Fatal(err)
			}
			if tc.checks != nil || tc.passed {
				checkGate(t, res, tc.passed, tc.checks)
			}
			if tc.modes != nil {
				var got []string
				for _, m := range res.Summary.Modes {
					got = append(got, m.Mode)
				}
				if strings.Join(got, ",") != strings.Join(tc.modes, ",") {
					t.Errorf("modes %v, want %v", got, tc.modes)
				}
			}
			if tc.check != nil {
				tc.check(t, res)
			}
		})
	}
	_ = expectations
}

// TestBadInput checks that bad input is an error naming what is wrong and
// that no summary is written.
func TestBadInput(t *testing.T) {
	expectations, _ := filepath.Abs(filepath.Join(suitesDir(), "expectations.json"))
	tmp := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, _ := os.ReadFile(realSuites()[1])
	firstLine, _, _ := strings.Cut(string(good), "\n")
	for _, tc := range []struct {
		name string
		opts Options
		want []string
	}{
		{"missing file", Options{SuitePaths: []string{filepath.Join(tmp, "nope-suite.jsonl")}}, []string{"nope-suite.jsonl", "no such file"}},
		{"empty files", Options{SuitePaths: caseSuites(t, "zero-rows")}, []string{"agent_direct-suite.jsonl: no rows (the file is empty)", "ghx-suite.jsonl: no rows"}},
		{"truncated last line", Options{SuitePaths: []string{write("trunc-suite.jsonl", firstLine+"\n"+firstLine[:300])}}, []string{"trunc-suite.jsonl:2: ", "truncated row"}},
		{"wrong type", Options{SuitePaths: []string{write("type-suite.jsonl", strings.Replace(firstLine, `"tool_calls":2`, `"tool_calls":"2"`, 1))}}, []string{"type-suite.jsonl:1: tool_calls: expected number, got a string"}},
		{"unknown profile", Options{SuitePaths: realSuites(), GateProfile: "nightly_full"}, []string{`unknown gate profile "nightly_full"`, "verify_pr or verify_release"}},
		{"scenario in one mode only", Options{SuitePaths: caseSuites(t, "scenario-one-mode")}, []string{"Latest benchmark files are not comparable across modes: scenario_ids: agent_direct=issue-view-001,pr-view-001,repo-view-001,workflow-list-001 ghx=issue-view-001,pr-view-001,repo-view-001"}},
		{"mismatched cohorts", Options{SuitePaths: caseSuites(t, "mismatched-cohorts")}, []string{
			"Latest benchmark files are not comparable across modes: scenario_set: agent_direct=ci-verify-pr ghx=ci-verify-release; ",
			"model: agent_direct=openai/gpt-5.3-codex/<null> ghx=openai/gpt-5.1-codex-mini/<null>; ",
			"git_commit: agent_direct=7d27c7ba124843d113d1d29fde1c84ad8393a51f ghx=ed5a848000000000000000000000000000000000"}},
		{"empty model mode is not a null mode", Options{SuitePaths: []string{caseSuites(t, "upstream-quirks")[0],
			write("ghx-suite.jsonl", strings.ReplaceAll(readFile(t, caseSuites(t, "upstream-quirks")[1]), `"mode":""}`, `"mode":null}`))}},
			[]string{"Latest benchmark files are not comparable across modes: model: agent_direct=openai/gpt-5.3-codex/ ghx=openai/gpt-5.3-codex/<null>"}},
		{"explicit unknown model", Options{SuitePaths: realSuites(), ExpectationsConfig: expectations, ExpectationsModel: "openai/gpt-9"}, []string{"^No expectations configured for model 'openai/gpt-9'. Known models: openai/gpt-5.1-codex-mini, openai/gpt-5.3-codex", "expectations.json"}},
		{"inferred unknown model", Options{SuitePaths: caseSuites(t, "unknown-model"), ExpectationsConfig: expectations}, []string{"^No expectations configured for model 'anthropic/claude-sonnet'"}},
		{"expectations not found", Options{SuitePaths: realSuites(), ExpectationsModel: "openai/gpt-5.3-codex"}, []string{"Expectations config not found at ", "config/expectations.json"}},
		{"broken expectations JSON", Options{SuitePaths: realSuites(), ExpectationsConfig: write("e1.json", "{\n  \"default_model\": \"x\",\n  \"expectations\": {\n")}, []string{"e1.json: invalid JSON"}},
		{"expectations missing key", Options{SuitePaths: realSuites(), ExpectationsConfig: write("e2.json", strings.Replace(readFile(t, expectations), `"maxRetryRatePct": 15,`, ``, 1))}, []string{"e2.json: expectations.openai/gpt-5.3-codex.verify_pr.maxRetryRatePct: expected number, got missing key"}},
		{"expectations bad min samples", Options{SuitePaths: realSuites(), ExpectationsConfig: write("e3.json", strings.Replace(readFile(t, expectations), `"minSamplesPerScenarioPerMode": 2`, `"minSamplesPerScenarioPerMode": 0.5`, 1))}, []string{"verify_release.minSamplesPerScenarioPerMode: expected an integer >= 1, got 0.5"}},
		{"expectations wrong type", Options{SuitePaths: realSuites(), ExpectationsConfig: write("e4.json", `{"default_model": 3, "expectations": {}}`)}, []string{"e4.json: line 1: default_model: expected string, got number"}},
		{"inconsistent models", Options{SuitePaths: []string{realSuites()[0], caseSuites(t, "unknown-model")[0]}, ExpectationsConfig: expectations}, []string{"Unable to infer single model signature from rows: anthropic/claude-sonnet, openai/gpt-5.3-codex"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			tc.opts.SummaryJSON = filepath.Join(out, "s.json")
			tc.opts.SummaryMD = filepath.Join(out, "s.md")
			res, err := run(t, tc.opts)
			if err == nil {
				t.Fatalf("no error; gate %+v", res.Gate)
			}
			if errors.Is(err, ErrGateFailed) {
				t.Fatalf("bad input reported as gate failure: %v", err)
			}
			for _, w := range tc.want {
				// "^..." : the message starts with it, as upstream's does.
				if p, ok := strings.CutPrefix(w, "^"); ok {
					if !strings.HasPrefix(err.Error(), p) {
						t.Errorf("error %q does not start with %q", err, p)
					}
				} else if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			entries, _ := os.ReadDir(out)
			if len(entries) != 0 {
				t.Errorf("files written on bad input: %v", entries)
			}
		})
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSkipBadRows(t *testing.T) {
	tmp := t.TempDir()
	good := readFile(t, realSuites()[1])
	lines := strings.Split(strings.TrimSpace(good), "\n")
	lines[3] = strings.Replace(lines[3], `"success":true`, `"success":"yes"`, 1)
	lines[7] = lines[7][:100]
	bad := filepath.Join(tmp, "bad-ghx-suite.jsonl")
	if err := os.WriteFile(bad, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	suites := []string{realSuites()[0], bad}
	if _, err := run(t, Options{SuitePaths: suites}); err == nil || !strings.Contains(err.Error(), "bad-ghx-suite.jsonl:4: success: expected boolean, got a string") {
		t.Fatalf("without skipping: err = %v", err)
	}
	res, err := run(t, Options{SuitePaths: suites, SkipBadRows: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.SkippedRows != 2 || len(res.BadRows) != 2 || res.BadRows[1].Line != 8 || res.Summary.Modes.Get("ghx").Runs != 18 {
		t.Fatalf("skipped %d %v, ghx runs %d", res.SkippedRows, res.BadRows, res.Summary.Modes.Get("ghx").Runs)
	}
}

// TestDiscovery reads results/*-suite.jsonl under Dir, keeping the last
// (newest) file per mode, as the benchmark's report does.
func TestDiscovery(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	if err := os.MkdirAll(results, 0o755); err != nil {
		t.Fatal(err)
	}
	copyTo := func(src, name string) {
		if err := os.WriteFile(filepath.Join(results, name), []byte(readFile(t, src)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	real := realSuites()
	copyTo(caseSuites(t, "runner-errors")[1], "2026-02-17T09-00-00-000Z-ghx-suite.jsonl")
	copyTo(real[0], "2026-02-25T17-18-19-058Z-agent_direct-suite.jsonl")
	copyTo(real[1], "2026-02-25T17-35-31-510Z-ghx-suite.jsonl")
	copyTo(real[1], "notes.jsonl")
	res, err := run(t, Options{Dir: dir, SummaryJSON: "reports/latest-summary.json", SummaryMD: "reports/latest-summary.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.SuitePaths) != 2 || !strings.HasSuffix(res.SuitePaths[1], "2026-02-25T17-35-31-510Z-ghx-suite.jsonl") {
		t.Fatalf("suite paths %v", res.SuitePaths)
	}
	if res.SummaryJSON != filepath.Join(dir, "reports", "latest-summary.json") {
		t.Fatalf("summary at %s", res.SummaryJSON)
	}
	if res.Summary.GateV2.Efficiency.TokensActiveReductionPct != 27.545968882602544 {
		t.Fatalf("read the wrong files: %+v", res.Summary.GateV2.Efficiency)
	}
	if _, err := run(t, Options{Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "No benchmark result rows found") {
		t.Fatalf("empty results: err = %v", err)
	}
}

// TestGateFlag checks that only Gate turns a failing gate into an error,
// and that the summaries are written either way.
func TestGateFlag(t *testing.T) {
	for _, gate := range []bool{false, true} {
		var out strings.Builder
		res, err := run(t, Options{SuitePaths: realSuites(), Gate: gate, Stdout: &out})
		if gate != errors.Is(err, ErrGateFailed) {
			t.Fatalf("gate=%v: err = %v", gate, err)
		}
		for _, p := range []string{res.SummaryJSON, res.SummaryMD} {
			if _, err := os.Stat(p); err != nil {
				t.Fatalf("gate=%v: %v", gate, err)
			}
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if !gate && len(lines) != 2 {
			t.Fatalf("without gate printed %q", lines)
		}
		if gate {
			want := []string{
				"Benchmark verify profile: verify_pr",
				"Benchmark model(s): agent_direct=openai/gpt-5.3-codex/<null>; ghx=openai/gpt-5.3-codex/<null>",
				"Benchmark verify result: FAIL",
				" - [PASS] reliability_success_rate_non_inferior: value=0.00 >= threshold=-3.00",
			}
			for i, w := range want {
				if lines[2+i] != w {
					t.Errorf("line %d = %q, want %q", 2+i, lines[2+i], w)
				}
			}
			if lines[len(lines)-1] != " - [FAIL] efficiency_tool_call_reduction: value=16.67 >= threshold=20.00" {
				t.Errorf("last line %q", lines[len(lines)-1])
			}
		}
	}
}

func TestSummaryJSONShape(t *testing.T) {
	res, err := run(t, Options{SuitePaths: realSuites()})
	if err != nil {
		t.Fatal(err)
	}
	data := readFile(t, res.SummaryJSON)
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"generatedAt", "modes", "profiling", "deltaVsAgentDirect", "gateV2"} {
		if _, ok := m[k]; !ok {
			t.Errorf("missing key %s", k)
		}
	}
	if !strings.HasSuffix(data, "}\n") || !strings.Contains(data, "\n  \"modes\": {\n    \"agent_direct\": {") || strings.Contains(data, `\u003c`) {
		t.Errorf("layout: %s", data[:200])
	}
	if strings.Index(data, `"agent_direct": {`) > strings.Index(data, `"ghx": {`) {
		t.Error("modes not in first-appearance order")
	}
}

func TestToFixed(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		d    int
		want string
	}{
		{34072.5, 0, "34073"}, {909.5, 0, "910"}, {2870.5, 0, "2871"}, {25410.5, 0, "25411"},
		{0.5, 0, "1"}, {1.5, 0, "2"}, {2.5, 0, "3"}, {-2.5, 0, "-3"},
		{1.005, 2, "1.00"}, {99.995, 2, "100.00"}, {-0.001, 0, "-0"}, {1e21, 2, "1e+21"}, {9.999, 2, "10.00"}, {16.666666666666664, 2, "16.67"},
		{27.545968882602544, 2, "27.55"}, {-3, 2, "-3.00"}, {0, 2, "0.00"}, {math.Copysign(0, -1), 2, "0.00"},
		{-0.001, 2, "-0.00"}, {1e-7, 2, "0.00"}, {4, 1, "4.0"}, {12724.5, 0, "12725"}, {0.125, 2, "0.13"},
	} {
		if got := ToFixed(tc.x, tc.d); got != tc.want {
			t.Errorf("ToFixed(%v, %d) = %q, want %q", tc.x, tc.d, got, tc.want)
		}
	}
}

// TestToFixedAgainstNode compares ToFixed with JavaScript itself when
// node is installed (the test environment installs it for codex).
func TestToFixedAgainstNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	var xs []float64
	seed := uint64(42)
	for i := 0; i < 2000; i++ {
		seed = seed*6364136223846793005 + 1442695040888963407
		// Halves, thirds and random fractions at several magnitudes.
		mag := math.Pow(10, float64(seed>>60%7)-2)
		xs = append(xs, float64(int64(seed>>33)%200001-100000)/float64(1+seed>>40%8)*mag/1000)
		xs = append(xs, float64(int64(seed>>20)%100000)+0.5, float64(int64(seed>>24)%10000)/1000+0.005)
	}
	js, _ := json.Marshal(xs)
	cmd := exec.Command(node, "-e", `const xs = JSON.parse(require("fs").readFileSync(0, "utf8"));
for (const x of xs) console.log([0, 1, 2].map(d => x.toFixed(d)).join(" "));`)
	cmd.Stdin = strings.NewReader(string(js))
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(xs) {
		t.Fatalf("node printed %d lines for %d numbers", len(lines), len(xs))
	}
	for i, x := range xs {
		got := ToFixed(x, 0) + " " + ToFixed(x, 1) + " " + ToFixed(x, 2)
		if got != lines[i] {
			t.Errorf("%v: ours %q, node %q", x, got, lines[i])
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0}, {[]float64{5}, 5}, {[]float64{3, 1}, 2}, {[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7, 7, 7, 1, 7}, 7}, {[]float64{1.5, -2, 10}, 1.5}, {[]float64{2, 2, 1, 1}, 1.5},
		{[]float64{5e9, 1, 2}, 2},
	} {
		var v values
		for _, x := range tc.in {
			v.add(x)
		}
		if got := v.median(); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestParseProfile(t *testing.T) {
	for in, want := range map[string]string{"": "verify_pr", "verify_pr": "verify_pr", "pr_fast": "verify_pr", "verify_release": "verify_release"} {
		if got, err := ParseProfile(in); err != nil || got != want {
			t.Errorf("ParseProfile(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseProfile("release_strict"); err == nil {
		t.Error("release_strict accepted")
	}
}

// TestCancelled stops a report whose context is cancelled without writing
// anything.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	_, err := Run(ctx, Options{SuitePaths: realSuites(), Dir: dir})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("wrote %v", entries)
	}
}

// TestManySuiteFiles reads more files than there are CPUs and merges the
// rows of each mode across them.
func TestManySuiteFiles(t *testing.T) {
	real := realSuites()
	var paths []string
	for i := 0; i < 6; i++ {
		paths = append(paths, real[i%2])
	}
	res, err := run(t, Options{SuitePaths: paths})
	if err != nil {
		t.Fatal(err)
	}
	if ad := res.Summary.Modes.Get("agent_direct"); ad.Runs != 60 || ad.MedianLatencyMs != 34072.5 {
		t.Fatalf("agent_direct = %+v", ad)
	}
	if e := res.Summary.GateV2.Efficiency; e.TokensActiveReductionPct != 27.545968882602544 {
		t.Fatalf("efficiency = %+v", e)
	}
}

// TestLaterExpectationsFile loads the later upstream expectations.json,
// which adds a cost threshold and raises the sample minimums: extra keys
// are ignored, the ten known ones are used.
func TestLaterExpectationsFile(t *testing.T) {
	exp, err := LoadExpectations(filepath.Join(suitesDir(), "expectations-ac70361.json"))
	if err != nil {
		t.Fatal(err)
	}
	th, err := exp.For("openai/gpt-5.3-codex", ProfileVerifyRelease)
	if err != nil {
		t.Fatal(err)
	}
	if th.MinSamplesPerScenarioPerMode != 5 || th.MinToolCallReductionPct != 30 {
		t.Fatalf("thresholds = %+v", th)
	}
	res, err := run(t, Options{SuitePaths: realSuites(), ExpectationsConfig: filepath.Join(suitesDir(), "expectations-ac70361.json"), GateProfile: "verify_release"})
	if err != nil {
		t.Fatal(err)
	}
	// Five iterations per scenario meet the minimum of 5.
	if e := res.Summary.GateV2.Efficiency; e.MinSamplesPerScenarioPerMode != 5 || e.EligibleScenarioCount != 4 {
		t.Fatalf("efficiency = %+v", e)
	}
}

package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestReportStatsBinary runs `benchgate report --stats` from the built
// binary on the real 2026-02-25 suites: on these four scenarios the
// repetitions show every reduction beyond its threshold (pass; v2 fails
// tool calls, and the note says why the two disagree); judged as scenarios like these (--stats-scope scenarios) four
// are underpowered at 95%; and the v2 summary is the same file as
// without --stats.
func TestReportStatsBinary(t *testing.T) {
	bin := testenv.Benchgate(t)
	suites, err := filepath.Abs(filepath.Join("..", "..", "testdata", "suites"))
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"report", "--suite-jsonl", filepath.Join(suites, "2026-02-25-agent_direct-suite.jsonl"), "--suite-jsonl", filepath.Join(suites, "2026-02-25-ghx-suite.jsonl")}
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string
		stderr   string
		verdict  string
		noStats  bool
		statsDir string
		// md are texts latest-stats.md must hold.
		md []string
	}{
		{name: "gate", args: []string{"--gate", "--stats"}, code: 0, verdict: "pass",
			stdout: []string{"Benchmark verify result: FAIL", "Benchmark stats result: PASS", "tokens_active", "n=4", "PASS [",
				"success       PASS: on these 4 scenarios: ghx succeeded in 20 of 20 runs, agent_direct in 20 of 20"},
			md: []string{"| efficiency_tool_call_reduction | 16.67% | 38.74% | [26.52%, 51.79%] | 95.00% / 98.33% | 4 | 20.00% | PASS |",
				"tool_calls: v2's value 16.67% and the gate's estimate 38.74% fall on opposite sides of the threshold 20.00%."}},
		{name: "scenario scope", args: []string{"--gate", "--stats", "--stats-scope", "scenarios"}, code: 1, verdict: "underpowered",
			stdout: []string{"Benchmark stats result: UNDERPOWERED", "UNDERPOWERED ["}, stderr: "statistical gate underpowered"},
		{name: "allowed", args: []string{"--gate", "--stats", "--stats-allow-undecided"}, code: 0, verdict: "pass",
			stdout: []string{"Benchmark stats result: PASS"}},
		{name: "no gate", args: []string{"--stats"}, code: 0, verdict: "pass", stdout: []string{"latest-stats.md"}},
		{name: "own paths", args: []string{"--stats", "--stats-json=st/s.json", "--stats-md", "st/s.md"}, code: 0, verdict: "pass", statsDir: "st"},
		{name: "plan", args: []string{"--stats", "--plan"}, code: 0, verdict: "pass",
			stdout: []string{"Benchmark stats plan: repetitions per arm for 80% power on these scenarios (a pass tested at the confidence, a fail at the strictest Holm level)",
				" - tokens_active 4 scenarios × 5 repetitions; run-to-run noise", " - gate: if the true reductions are the ones observed"}},
		{name: "plan, scenario scope", args: []string{"--stats", "--plan", "--stats-scope=scenarios"}, code: 0, verdict: "underpowered",
			stdout: []string{"Benchmark stats plan: scenarios for 80% power at 98.33% confidence (the strictest Holm level)", " - tokens_active n=4 at 5 repetitions; log-ratio noise", "     at observed  (31.61%): power now 0%; needs ", "     at no change (0.00%)"}},
		{name: "scenario scope, a benchmark of 45", args: []string{"--stats", "--stats-scope", "scenarios", "--stats-benchmark-scenarios", "45"}, code: 0, verdict: "underpowered",
			md: []string{"- tool_calls: no feasible size decides it: about 256 scenarios at 5 repetitions would give 80% power at the observed reduction (26.22%), and the benchmark has 45; judge it on this suite (scope suite) instead",
				"- tokens_active: about 37 scenarios at 10 repetitions would give 80% power to decide it at the observed reduction (31.61%; the benchmark has 45)"}},
		{name: "bad benchmark size", args: []string{"--stats", "--stats-benchmark-scenarios=-1"}, code: 2, stderr: "--stats-benchmark-scenarios: expected a number of scenarios of at least 0, got -1", noStats: true},
		{name: "bad scope", args: []string{"--stats", "--stats-scope", "all"}, code: 2, stderr: `--stats-scope: expected suite or scenarios, got "all"`, noStats: true},
		{name: "flag without --stats", args: []string{"--stats-confidence", "0.9"}, code: 2, stderr: "--stats-confidence needs --stats", noStats: true},
		{name: "plan without --stats", args: []string{"--plan"}, code: 2, stderr: "--plan needs --stats", noStats: true},
		{name: "bad confidence", args: []string{"--stats", "--stats-confidence", "1.5"}, code: 2, stderr: "--stats-confidence: expected a number from 0.5 to 0.999, got 1.5", noStats: true},
		{name: "empty path", args: []string{"--stats", "--stats-json="}, code: 2, stderr: "Missing value for --stats-json", noStats: true},
	}
	var plain []byte
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bin, append(append([]string{}, base...), tc.args...)...)
			cmd.Dir = dir
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			code := exitCodeOf(t, cmd.Run())
			if code != tc.code {
				t.Fatalf("exit code: expected %d, got %d\nstdout:\n%s\nstderr:\n%s", tc.code, code, out.String(), errb.String())
			}
			for _, s := range tc.stdout {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout: expected %q in\n%s", s, out.String())
				}
			}
			if !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr: expected %q, got %q", tc.stderr, errb.String())
			}
			statsJSON := filepath.Join(dir, "reports", "latest-stats.json")
			if tc.statsDir != "" {
				statsJSON = filepath.Join(dir, tc.statsDir, "s.json")
			}
			data, err := os.ReadFile(statsJSON)
			if tc.noStats {
				if err == nil {
					t.Errorf("bad flags: expected no %s", statsJSON)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var st report.StatsReport
			if err := json.Unmarshal(data, &st); err != nil {
				t.Fatalf("%s: %v", statsJSON, err)
			}
			if string(st.Verdict) != tc.verdict || len(st.Efficiency) != 3 {
				t.Errorf("%s: expected verdict %s with 3 checks, got %s with %d", statsJSON, tc.verdict, st.Verdict, len(st.Efficiency))
			}
			// The plan is in the files with or without --plan, and the
			// sentence in latest-stats.md is the check's one sentence.
			md, err := os.ReadFile(strings.TrimSuffix(statsJSON, ".json") + ".md")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range st.Efficiency {
				if st.Scope == "scenarios" {
					p := e.Plan
					if p == nil || p.Scenarios != 4 || p.Repetitions != 5 || p.Observed.CurrentPower != 0 || p.Observed.Scenarios <= 4 {
						t.Errorf("%s: expected a plan for 4 scenarios at 5 repetitions asking for more, got %+v", e.Metric, p)
						continue
					}
				} else if p := e.SuitePlan; p == nil || p.Scenarios != 4 || p.Repetitions != 5 || (e.Verdict != "pass" && p.RepetitionsNeeded <= 5) {
					t.Errorf("%s: expected a suite plan for 4 scenarios at 5 repetitions asking for more, got %+v", e.Metric, p)
				}
				if e.Verdict == "pass" {
					continue
				}
				want := "- " + e.Metric + ": " + e.ToDecide
				if e.ToDecide == "" || !strings.Contains(string(md), "### Power planner") || !strings.Contains(string(md), want) {
					t.Errorf("stats Markdown: expected the planner section with %q", want)
				}
			}
			for _, w := range tc.md {
				if !strings.Contains(string(md), w) {
					t.Errorf("stats Markdown lacks %q", w)
				}
			}
			if !strings.Contains(string(md), "**What this verdict is about**") {
				t.Error("stats Markdown: expected the scope sentence")
			}
			summary, err := os.ReadFile(filepath.Join(dir, "reports", "latest-summary.md"))
			if err != nil {
				t.Fatal(err)
			}
			// The "Generated:" line is the clock's; the rest must not move.
			summary = regexp.MustCompile(`(?m)^Generated: .*$`).ReplaceAll(summary, nil)
			if plain == nil {
				plain = summary
			} else if !bytes.Equal(plain, summary) {
				t.Error("latest-summary.md differs between runs with different --stats flags")
			}
		})
	}
}

// TestReportStatsWithHistory: --stats beside --history writes one
// latest-stats file holding the statistical gate and the history.
func TestReportStatsWithHistory(t *testing.T) {
	suites, err := filepath.Abs(filepath.Join("..", "..", "testdata", "suites"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var out, errb bytes.Buffer
	env := &Env{Dir: dir, Stdout: &out, Stderr: &errb}
	code := runReport(t.Context(), env, []string{"--stats", "--history", suites,
		"--suite-jsonl", filepath.Join(suites, "2026-02-25-agent_direct-suite.jsonl"), "--suite-jsonl", filepath.Join(suites, "2026-02-25-ghx-suite.jsonl")})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc map[string]any
	data, err := os.ReadFile(filepath.Join(dir, "reports", "latest-stats.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"verdict", "efficiency", "history"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("latest-stats.json: expected key %q, got %v", k, keys(doc))
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "reports", "latest-stats.md"))
	if !strings.Contains(string(md), "## Statistical Gate") {
		t.Errorf("latest-stats.md: expected the statistical gate section, got\n%s", md)
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// clearEffectSuites writes a suite pair in dir where ghx is a clear 50%
// win: agent_direct's rows are the real 2026-02-25 ones, and each ghx row
// is the agent_direct row of the next repetition of the same scenario
// with half its active tokens, latency and tool calls, so the
// repetitions keep the real run-to-run noise.
func clearEffectSuites(t *testing.T, dir string) []string {
	t.Helper()
	suites, err := filepath.Abs(filepath.Join("..", "..", "testdata", "suites"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(suites, "2026-02-25-agent_direct-suite.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	byScenario := map[string][]int{}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r map[string]any
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		byScenario[r["scenario_id"].(string)] = append(byScenario[r["scenario_id"].(string)], len(rows))
		rows = append(rows, r)
	}
	var gx bytes.Buffer
	for _, idx := range byScenario {
		for k, i := range idx {
			src := rows[idx[(k+1)%len(idx)]]
			r := map[string]any{}
			for key, v := range src {
				r[key] = v
			}
			r["mode"], r["iteration"] = "ghx", rows[i]["iteration"]
			tok := map[string]any{}
			for key, v := range src["tokens"].(map[string]any) {
				tok[key] = v
			}
			cache := tok["cache_read"].(float64)
			tok["total"] = cache + float64(int((tok["total"].(float64)-cache)/2))
			r["tokens"] = tok
			r["latency_ms_wall"] = float64(int(src["latency_ms_wall"].(float64) / 2))
			r["tool_calls"] = float64(int(src["tool_calls"].(float64) / 2))
			line, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			gx.Write(append(line, '\n'))
		}
	}
	ghx := filepath.Join(dir, "ghx-suite.jsonl")
	if err := os.WriteFile(ghx, gx.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{filepath.Join(suites, "2026-02-25-agent_direct-suite.jsonl"), ghx}
}

// TestReportStatsDecidesClearEffect: through the built binary, a clear
// win on the real 4 × 5 suite passes the gate in the suite scope, and
// says which scope decided and what it does not claim; judged as
// scenarios like these, four scenarios cannot decide it.
func TestReportStatsDecidesClearEffect(t *testing.T) {
	bin := testenv.Benchgate(t)
	dir := t.TempDir()
	paths := clearEffectSuites(t, dir)
	for _, tc := range []struct {
		scope   string
		code    int
		verdict string
	}{{"suite", 0, "pass"}, {"scenarios", 1, "underpowered"}} {
		t.Run(tc.scope, func(t *testing.T) {
			cmd := exec.Command(bin, "report", "--suite-jsonl", paths[0], "--suite-jsonl", paths[1], "--gate", "--stats", "--stats-scope", tc.scope,
				"--summary-json", tc.scope+"/s.json", "--summary-md", tc.scope+"/s.md")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if code := exitCodeOf(t, err); code != tc.code {
				t.Fatalf("exit code: expected %d, got %d\n%s", tc.code, code, out)
			}
			data, err := os.ReadFile(filepath.Join(dir, tc.scope, "latest-stats.json"))
			if err != nil {
				t.Fatal(err)
			}
			var st report.StatsReport
			if err := json.Unmarshal(data, &st); err != nil {
				t.Fatal(err)
			}
			if string(st.Verdict) != tc.verdict || st.Scope != tc.scope {
				t.Errorf("expected %s in scope %s, got %s in %s: %s\n%s", tc.verdict, tc.scope, st.Verdict, st.Scope, st.Reason, out)
			}
			want := "on these 4 scenarios (5 repetitions per arm), beyond the noise of the repetitions; it claims nothing about scenarios outside this suite"
			if tc.scope == "scenarios" {
				want = "on scenarios like these 4"
			}
			if !strings.Contains(st.ScopeText, want) {
				t.Errorf("scope: expected %q, got %q", want, st.ScopeText)
			}
		})
	}
}

// exitCodeOf is the exit code of a finished command: 0 without error,
// the process's code for an exit error; any other error stops the test.
func exitCodeOf(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/testenv"
)

// TestReportStatsBinary runs `benchgate report --stats` from the built
// binary on the real 2026-02-25 suites: four scenarios are underpowered
// at 95%, which fails the gate unless undecided results are allowed, and
// the v2 summary is the same file as without --stats.
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
	}{
		{name: "gate", args: []string{"--gate", "--stats"}, code: 1, verdict: "underpowered",
			stdout: []string{"Benchmark verify result: FAIL", "Benchmark stats result: UNDERPOWERED", "tokens_active", "n=4", "UNDERPOWERED ["},
			stderr: "statistical gate underpowered"},
		{name: "allowed", args: []string{"--gate", "--stats", "--stats-allow-undecided"}, code: 0, verdict: "underpowered",
			stdout: []string{"Benchmark stats result: UNDERPOWERED"}},
		{name: "no gate", args: []string{"--stats"}, code: 0, verdict: "underpowered", stdout: []string{"latest-stats.md"}},
		{name: "own paths", args: []string{"--stats", "--stats-json=st/s.json", "--stats-md", "st/s.md"}, code: 0, verdict: "underpowered", statsDir: "st"},
		{name: "plan", args: []string{"--stats", "--plan"}, code: 0, verdict: "underpowered",
			stdout: []string{"Benchmark stats plan: scenarios for 80% power at 98.33% confidence (the strictest Holm level)", " - tokens_active n=4 at 5 repetitions; log-ratio noise", "     at observed  (31.61%): power now 0%; needs ", "     at no change (0.00%)"}},
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
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
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
			// The plan is in the files with or without --plan: four
			// scenarios give no power, and the sentence in latest-stats.md
			// names the number the JSON holds.
			for _, e := range st.Efficiency {
				p := e.Plan
				if p == nil || p.Scenarios != 4 || p.Repetitions != 5 || p.Observed.CurrentPower != 0 || p.Observed.Scenarios <= 4 {
					t.Errorf("%s: expected a plan for 4 scenarios at 5 repetitions asking for more, got %+v", e.Metric, p)
					continue
				}
				md, err := os.ReadFile(strings.TrimSuffix(statsJSON, ".json") + ".md")
				if err != nil {
					t.Fatal(err)
				}
				want := fmt.Sprintf("- %s: about %d scenarios at 5 repetitions would give 80%% power", e.Metric, p.Observed.Scenarios)
				if !strings.Contains(string(md), "### Power planner") || !strings.Contains(string(md), want) {
					t.Errorf("stats Markdown: expected the planner section with %q", want)
				}
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

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// genSuite is a generated pair of suites: per scenario a level of each
// metric, ghx's values the level times cut (log-normal noise of sd
// noise on tokens and latency), and tool calls from calls(scenario,
// repetition, ghx).
type genSuite struct {
	scenarios, reps int
	cut, noise      float64
	calls           func(rng *rand.Rand, s, r int, ghx bool) int
	seed            uint64
	runID           string
}

func (g genSuite) write(t *testing.T, dir string) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(g.seed, 40))
	var ad, gx bytes.Buffer
	for s := 0; s < g.scenarios; s++ {
		tok, lat := 2000*math.Exp(0.5*rng.NormFloat64()), 30000*math.Exp(0.4*rng.NormFloat64())
		for _, ghx := range []bool{false, true} {
			mode, f, buf := "agent_direct", 1.0, &ad
			if ghx {
				mode, f, buf = "ghx", g.cut, &gx
			}
			for r := 1; r <= g.reps; r++ {
				e := func() float64 { return f * math.Exp(rng.NormFloat64()*g.noise) }
				fmt.Fprintf(buf, `{"timestamp":"2026-02-25T17:18:19.058Z","run_id":%q,"mode":%q,"scenario_id":"gen-%03d-wf-001","scenario_set":"all","iteration":%d,"session_id":null,"success":true,"output_valid":true,"latency_ms_wall":%d,"sdk_latency_ms":null,"tokens":{"input":%d,"output":0,"reasoning":0,"cache_read":0,"cache_write":0,"total":%d},"cost":0,"tool_calls":%d,"api_calls":0,"internal_retry_count":0,"external_retry_count":0,"model":{"provider_id":"openai","model_id":"gpt-5.3-codex","mode":null},"git":{"repo":null,"commit":null},"error":null}`+"\n",
					g.runID+"-"+mode, mode, s, r, int(math.Round(lat*e())), int(math.Round(tok*e())), int(math.Round(tok*e())), g.calls(rng, s, r, ghx))
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	paths := []string{filepath.Join(dir, "agent_direct-suite.jsonl"), filepath.Join(dir, "ghx-suite.jsonl")}
	for i, b := range []*bytes.Buffer{&ad, &gx} {
		if err := os.WriteFile(paths[i], b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

func constCalls(ad, ghx int) func(*rand.Rand, int, int, bool) int {
	return func(_ *rand.Rand, _, _ int, g bool) int {
		if g {
			return ghx
		}
		return ad
	}
}

func poissonCalls(ad, ghx float64) func(*rand.Rand, int, int, bool) int {
	return func(rng *rand.Rand, _, _ int, g bool) int {
		l := ad
		if g {
			l = ghx
		}
		k, p := 0, math.Exp(-l)
		for s, u := p, rng.Float64(); u > s; s += p {
			k++
			p *= l / float64(k)
		}
		return k
	}
}

// TestReportStatsEdgeCases runs `benchgate report --gate --stats` from
// the built binary on the designs where the statistical gate used to go
// wrong, each checked by hand: a baseline that is a copy of the run and
// one that is an honest rerun, tool calls that are all zero or all
// equal, a true 50% cut at 1.5 calls per run, one scenario, and one
// repetition.
func TestReportStatsEdgeCases(t *testing.T) {
	bin := testenv.Benchgate(t)
	real, err := filepath.Abs(filepath.Join("..", "..", "testdata", "suites"))
	if err != nil {
		t.Fatal(err)
	}
	realSuites := []string{filepath.Join(real, "2026-02-25-agent_direct-suite.jsonl"), filepath.Join(real, "2026-02-25-ghx-suite.jsonl")}
	tests := []struct {
		name string
		// suites returns the suite paths and extra arguments, written
		// in dir.
		suites func(t *testing.T, dir string) ([]string, []string)
		code   int
		// checks: the verdict each efficiency check must have (by
		// metric), "" for any; baseline: the baseline's verdict, "" for
		// no baseline.
		checks   map[string]string
		baseline string
		// reason holds texts the tool-call check's reason must hold.
		reason []string
		// estimate bounds the tool-call estimate, when set.
		estimate []float64
	}{
		{name: "identical baseline, the real 4 × 5 suites and a copy",
			suites: func(t *testing.T, dir string) ([]string, []string) {
				for _, p := range realSuites {
					data, err := os.ReadFile(p)
					if err != nil {
						t.Fatal(err)
					}
					os.MkdirAll(filepath.Join(dir, "base"), 0o755)
					if err := os.WriteFile(filepath.Join(dir, "base", filepath.Base(p)), data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return realSuites, []string{"--baseline", "base"}
			},
			code: 0, baseline: "pass", checks: map[string]string{"tokens_active": "pass", "latency": "pass", "tool_calls": "pass"}},
		{name: "a rerun of the same commit as baseline, 4 × 5, low noise",
			suites: func(t *testing.T, dir string) ([]string, []string) {
				g := genSuite{scenarios: 4, reps: 5, cut: 0.5, noise: 0.03, calls: constCalls(8, 4), seed: 1, runID: "now"}
				cur := g.write(t, dir)
				g.seed, g.runID = 2, "before"
				g.write(t, filepath.Join(dir, "base"))
				return cur, []string{"--baseline", "base"}
			},
			code: 0, baseline: "pass", checks: map[string]string{"tokens_active": "pass", "latency": "pass", "tool_calls": "pass"}},
		{name: "all-zero tool calls, 4 × 5",
			suites: func(t *testing.T, dir string) ([]string, []string) {
				return genSuite{scenarios: 4, reps: 5, cut: 0.5, noise: 0.1, calls: constCalls(0, 0), seed: 3, runID: "z"}.write(t, dir), nil
			},
			code: 1, checks: map[string]string{"tokens_active": "pass", "latency": "pass", "tool_calls": "underpowered"},
			reason: []string{"every scenario is 0 in both arms (4), which says nothing about a ratio"}},
		{name: "all-equal tool calls, 4 in every run of both, 4 × 5",
			suites: func(t *testing.T, dir string) ([]string, []string) {
				return genSuite{scenarios: 4, reps: 5, cut: 0.5, noise: 0.1, calls: constCalls(4, 4), seed: 4, runID: "e"}.write(t, dir), nil
			},
			code: 1, checks: map[string]string{"tool_calls": "fail"}, reason: []string{"is below the threshold 20.00%"}, estimate: []float64{0, 0}},
		{name: "a true 50% cut at 1.5 tool calls, 15 × 4",
			suites: func(t *testing.T, dir string) ([]string, []string) {
				return genSuite{scenarios: 15, reps: 4, cut: 0.5, noise: 0.25, calls: poissonCalls(1.5, 0.75), seed: 5, runID: "l"}.write(t, dir), nil
			},
			code: 0, checks: map[string]string{"tokens_active": "pass", "latency": "pass", "tool_calls": "pass"}, estimate: []float64{30, 70}},
		{name: "one scenario × 5, a clear 50% cut",
			suites: func(t *testing.T, dir string) ([]string, []string) {
				return genSuite{scenarios: 1, reps: 5, cut: 0.5, noise: 0.1, calls: constCalls(10, 5), seed: 6, runID: "o"}.write(t, dir), nil
			},
			code: 0, checks: map[string]string{"tokens_active": "pass", "latency": "pass", "tool_calls": "pass"}},
		{name: "one repetition, 4 × 1",
			suites: func(t *testing.T, dir string) ([]string, []string) {
				return genSuite{scenarios: 4, reps: 1, cut: 0.5, noise: 0.1, calls: constCalls(10, 5), seed: 7, runID: "r"}.write(t, dir), nil
			},
			code: 1, checks: map[string]string{"tokens_active": "underpowered", "latency": "underpowered", "tool_calls": "underpowered"},
			reason: []string{"no arm of any scenario has two repetitions, so nothing measures the run-to-run noise"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			suites, extra := tc.suites(t, dir)
			args := []string{"report", "--gate", "--stats"}
			for _, s := range suites {
				args = append(args, "--suite-jsonl", s)
			}
			cmd := exec.Command(bin, append(args, extra...)...)
			cmd.Dir = dir
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if code := exitCodeOf(t, cmd.Run()); code != tc.code {
				t.Fatalf("exit code: expected %d, got %d\nstdout:\n%s\nstderr:\n%s", tc.code, code, out.String(), errb.String())
			}
			data, err := os.ReadFile(filepath.Join(dir, "reports", "latest-stats.json"))
			if err != nil {
				t.Fatal(err)
			}
			var st struct {
				Efficiency []struct {
					Metric, Verdict, Reason, Estimand string
					EstimatePct                       float64 `json:"estimateReductionPct"`
					LowPct                            float64 `json:"lowReductionPct"`
					HighPct                           float64 `json:"highReductionPct"`
					Threshold                         float64 `json:"thresholdReductionPct"`
					NoInterval                        bool
				}
				Baseline *struct {
					Verdict string
					Modes   []struct{ Scope string }
				}
			}
			if err := json.Unmarshal(data, &st); err != nil {
				t.Fatal(err)
			}
			for _, e := range st.Efficiency {
				if want := tc.checks[e.Metric]; want != "" && e.Verdict != want {
					t.Errorf("%s: expected %s, got %s: %s", e.Metric, want, e.Verdict, e.Reason)
				}
				if e.Estimand == "" {
					t.Errorf("%s: no estimand named", e.Metric)
				}
				// The interval agrees with the verdict; a check without
				// one is underpowered.
				if e.NoInterval != (e.Verdict == "underpowered") {
					t.Errorf("%s: %s, noInterval %v", e.Metric, e.Verdict, e.NoInterval)
				}
				if !e.NoInterval && ((e.Verdict == "pass") != (e.LowPct > e.Threshold) || (e.Verdict == "fail") != (e.HighPct < e.Threshold)) {
					t.Errorf("%s: %s with interval [%v, %v] against %v", e.Metric, e.Verdict, e.LowPct, e.HighPct, e.Threshold)
				}
				if e.Metric != "tool_calls" {
					continue
				}
				for _, r := range tc.reason {
					if !strings.Contains(e.Reason, r) {
						t.Errorf("tool_calls reason: expected %q in %q", r, e.Reason)
					}
				}
				if len(tc.estimate) == 2 && (e.EstimatePct < tc.estimate[0]-1e-9 || e.EstimatePct > tc.estimate[1]+1e-9) {
					t.Errorf("tool_calls estimate %v, expected within %v", e.EstimatePct, tc.estimate)
				}
			}
			switch {
			case tc.baseline == "" && st.Baseline != nil:
				t.Errorf("unexpected baseline section")
			case tc.baseline != "":
				if st.Baseline == nil || st.Baseline.Verdict != tc.baseline {
					t.Fatalf("baseline: expected %s, got %+v\n%s", tc.baseline, st.Baseline, out.String())
				}
				for _, m := range st.Baseline.Modes {
					if m.Scope != "suite" {
						t.Errorf("baseline judged in scope %q, expected the gate's suite scope", m.Scope)
					}
				}
			}
		})
	}
}

package report

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/stats"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestStatsRealSuites judges the real 2026-02-25 suites: four scenarios
// can never reach 95%, so every efficiency check is underpowered and the
// gate fails, unless undecided results are allowed. The estimates are
// the Hodges–Lehmann estimates of the per-scenario ratios of the v2
// medians listed in docs/statistics.md.
func TestStatsRealSuites(t *testing.T) {
	// Per-scenario medians of the stable rows (agent_direct, ghx), in
	// the order ci-diagnose, issue-triage, pr-fix, pr-review.
	medians := map[string][4][2]float64{
		StatsTokensActive: {{707, 671}, {704, 759}, {944, 472}, {2615, 1118}},
		StatsLatency:      {{32769, 27638}, {16638, 16481}, {35406, 25084}, {64389, 32864}},
		StatsToolCalls:    {{4, 4}, {3, 2}, {3, 3}, {9, 4}},
	}
	for _, allow := range []bool{false, true} {
		t.Run(fmt.Sprintf("allow undecided %v", allow), func(t *testing.T) {
			res, err := run(t, Options{SuitePaths: realSuites(), Gate: true, Stats: StatsOptions{Enabled: true, AllowUndecided: allow, Scope: stats.ScopeScenarios}})
			if allow != (err == nil) {
				t.Fatalf("expected error %v, got %v", !allow, err)
			}
			if err != nil && !errors.Is(err, ErrGateFailed) {
				t.Fatalf("expected the gate to fail, got %v", err)
			}
			st := res.Stats
			if st.Verdict != stats.Underpowered || st.Passed != allow {
				t.Errorf("verdict: expected underpowered, passed=%v, got %s, passed=%v (%s)", allow, st.Verdict, st.Passed, st.Reason)
			}
			if len(st.Efficiency) != 3 {
				t.Fatalf("expected 3 efficiency checks, got %d", len(st.Efficiency))
			}
			for _, e := range st.Efficiency {
				m := medians[e.Metric]
				var d []float64
				for _, p := range m {
					d = append(d, math.Log(p[1]/p[0]))
				}
				if want := stats.ReductionPct(stats.HodgesLehmann(d)); math.Abs(e.EstimatePct-want) > 1e-9 {
					t.Errorf("%s: estimate expected %v (from the listed medians), got %v", e.Metric, want, e.EstimatePct)
				}
				if e.Scenarios != 4 || e.Verdict != stats.Underpowered || e.MoreScenarios != e.MinScenarios-4 {
					t.Errorf("%s: expected 4 scenarios, underpowered, %d more; got %d, %s, %d", e.Metric, e.MinScenarios-4, e.Scenarios, e.Verdict, e.MoreScenarios)
				}
				for i, p := range e.Pairs {
					if p.Base != m[i][0] || p.Target != m[i][1] {
						t.Errorf("%s: pair %d expected %v, got %v→%v", e.Metric, i, m[i], p.Base, p.Target)
					}
				}
			}
			if st.Success.Scenarios != 4 || st.Success.BothSucceeded != 4 || st.Success.Verdict != stats.Pass {
				t.Errorf("success: expected 4 scenarios all succeeding, got %+v", st.Success)
			}
			for _, p := range []string{res.StatsJSON, res.StatsMD} {
				if filepath.Dir(p) != filepath.Dir(res.SummaryJSON) {
					t.Errorf("%s: expected it beside %s", p, res.SummaryJSON)
				}
			}
		})
	}
}

// TestStatsLeavesSummaryAlone: the v2 summary files and the gate lines
// are byte-identical with and without --stats.
func TestStatsLeavesSummaryAlone(t *testing.T) {
	read := func(stats bool) (string, string, string) {
		var out bytes.Buffer
		dir := t.TempDir()
		res, _ := Run(t.Context(), Options{SuitePaths: realSuites(), Dir: dir, Gate: true, Now: fixedNow, Stdout: &out, Stats: StatsOptions{Enabled: stats}})
		j, _ := os.ReadFile(res.SummaryJSON)
		m, _ := os.ReadFile(res.SummaryMD)
		lines := strings.ReplaceAll(out.String(), dir, "DIR")
		return string(j), string(m), lines
	}
	j1, m1, o1 := read(false)
	j2, m2, o2 := read(true)
	if j1 != j2 || m1 != m2 {
		t.Error("the v2 summary changed with --stats")
	}
	if !strings.HasPrefix(strings.Replace(o2, "Wrote DIR/reports/latest-stats.json\nWrote DIR/reports/latest-stats.md\n", "", 1), o1) {
		t.Errorf("the v2 lines changed with --stats:\n%s\nwithout:\n%s", o2, o1)
	}
}

// writeSimSuites writes a suite pair of n scenarios with reps rows per
// mode: a scenario's agent_direct level, ghx at ratio times it, every
// row with log-normal noise of sd noise on tokens, latency and tool
// calls (tool calls rounded, at least 1).
func writeSimSuites(t testing.TB, dir string, seed uint64, n, reps int, ratio, noise float64) []string {
	rng := rand.New(rand.NewPCG(seed, 99))
	var ad, gx bytes.Buffer
	for s := 0; s < n; s++ {
		tok, lat, tools := 2000*math.Exp(rng.NormFloat64()*0.5), 30000*math.Exp(rng.NormFloat64()*0.4), 8*math.Exp(rng.NormFloat64()*0.3)
		for _, mode := range []string{"agent_direct", "ghx"} {
			f, buf := 1.0, &ad
			if mode == "ghx" {
				f, buf = ratio, &gx
			}
			for r := 1; r <= reps; r++ {
				e := func() float64 { return f * math.Exp(rng.NormFloat64()*noise) }
				active := math.Round(tok * e())
				fmt.Fprintf(buf, `{"timestamp":"2026-02-25T17:18:19.058Z","run_id":"r","mode":%q,"scenario_id":"sim-%03d-wf-001","scenario_set":"all","iteration":%d,"session_id":null,"success":true,"output_valid":true,"latency_ms_wall":%d,"sdk_latency_ms":null,"tokens":{"input":1,"output":1,"reasoning":0,"cache_read":5000,"cache_write":0,"total":%d},"cost":0,"tool_calls":%d,"api_calls":0,"internal_retry_count":0,"external_retry_count":0,"model":{"provider_id":"openai","model_id":"gpt-5.3-codex","mode":null},"git":{"repo":null,"commit":null},"error":null}`+"\n",
					mode, s, r, int(math.Round(lat*e())), int(active)+5000, max(1, int(math.Round(tools*e()))))
			}
		}
	}
	paths := []string{filepath.Join(dir, "agent_direct-suite.jsonl"), filepath.Join(dir, "ghx-suite.jsonl")}
	for i, b := range []*bytes.Buffer{&ad, &gx} {
		if err := os.WriteFile(paths[i], b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// TestStatsSimulatedSuites runs report --stats on generated suites with
// a known true effect, 200 seeds each, under verify_pr (15/15/20): a 30%
// reduction with low noise passes, no change with high noise never
// passes and is inconclusive (or underpowered) in at least 95% of the
// runs, and a 30% increase fails.
func TestStatsSimulatedSuites(t *testing.T) {
	tests := []struct {
		name         string
		n, reps      int
		ratio, noise float64
		want         stats.Verdict
		minShare     float64
		never        stats.Verdict
	}{
		{"true 30% reduction, low noise", 12, 3, 0.7, 0.05, stats.Pass, 1, stats.Fail},
		{"true 0%, high noise", 8, 1, 1.0, 2.0, stats.Inconclusive, 0.95, stats.Pass},
		{"true 30% increase", 12, 3, 1.3, 0.05, stats.Fail, 1, stats.Pass},
	}
	const runs = 200
	for ti, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := map[stats.Verdict]int{}
			dir := t.TempDir()
			for seed := uint64(0); seed < runs; seed++ {
				paths := writeSimSuites(t, dir, uint64(ti)*10000+seed, tc.n, tc.reps, tc.ratio, tc.noise)
				// 200 resamples: the bootstrap is a cross-check and
				// takes no part in the verdict.
				res, err := Run(t.Context(), Options{SuitePaths: paths, Dir: dir, Gate: true, Now: fixedNow, Stats: StatsOptions{Enabled: true, Replicates: 200}})
				if err != nil && !errors.Is(err, ErrGateFailed) {
					t.Fatal(err)
				}
				v := res.Stats.Verdict
				if v == stats.Underpowered {
					v = stats.Inconclusive
				}
				got[v]++
				if v != tc.want {
					t.Logf("seed %d: %s: %s", seed, v, strings.Join(res.Stats.StatsLines(), "; "))
				}
				if v == tc.never {
					t.Errorf("seed %d: %s, which this effect must never give: %s", seed, v, res.Stats.Reason)
				}
				if (v == stats.Pass) != res.Stats.Passed || (err == nil) != res.Stats.Passed {
					t.Errorf("seed %d: verdict %s but passed=%v, error %v", seed, v, res.Stats.Passed, err)
				}
			}
			t.Logf("%v", got)
			if share := float64(got[tc.want]) / runs; share < tc.minShare {
				t.Errorf("expected %s in at least %.0f%% of %d runs, got %v", tc.want, tc.minShare*100, runs, got)
			}
		})
	}
}

func TestStatsInconclusiveSaysWhatWouldDecide(t *testing.T) {
	dir := t.TempDir()
	paths := writeSimSuites(t, dir, 5, 10, 2, 0.83, 0.3)
	res, err := Run(t.Context(), Options{SuitePaths: paths, Dir: dir, Gate: true, Now: fixedNow, Stats: StatsOptions{Enabled: true, Scope: stats.ScopeScenarios}})
	if !errors.Is(err, ErrGateFailed) {
		t.Fatalf("expected the gate to fail, got %v", err)
	}
	found := false
	for _, e := range res.Stats.Efficiency {
		if e.Verdict == stats.Inconclusive && strings.Contains(e.ToDecide, "scenarios at") && e.PlanSentence() == e.Metric+": "+e.ToDecide {
			found = true
			if e.MoreScenarios <= 0 || e.RepetitionsNeeded <= 2 {
				t.Errorf("%s: expected more scenarios > 0 and repetitions > 2, got %d and %d", e.Metric, e.MoreScenarios, e.RepetitionsNeeded)
			}
		}
	}
	if !found {
		t.Fatalf("expected an inconclusive check that names the scenarios needed; got %+v", res.Stats.StatsLines())
	}
	md, err := os.ReadFile(res.StatsMD)
	gfm.Require(t, "latest-stats.md", string(md))
	if err != nil || !strings.Contains(string(md), "INCONCLUSIVE") || !strings.Contains(string(md), "bootstrap") {
		t.Errorf("latest-stats.md: expected the verdicts and the bootstrap column, got %s (%v)", md, err)
	}
}

func TestStatsPaths(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"stats off", Options{Stats: StatsOptions{Confidence: 7}}, ""},
		{"confidence too low", Options{Stats: StatsOptions{Enabled: true, Confidence: 0.4}}, "stats_confidence: expected a number from 0.5 to 0.999, got 0.4"},
		{"confidence 1", Options{Stats: StatsOptions{Enabled: true, Confidence: 1}}, "got 1"},
		{"stats over summary", Options{SummaryJSON: "a.json", Stats: StatsOptions{Enabled: true, Confidence: 0.95, JSON: "a.json"}}, "stats_json and summary_json are the same file"},
		{"stats md over stats json", Options{Stats: StatsOptions{Enabled: true, Confidence: 0.95, JSON: "x", MD: "x"}}, "stats_md and stats_json are the same file"},
		{"fine", Options{Stats: StatsOptions{Enabled: true, Confidence: 0.9}}, ""},
	}
	for _, tc := range tests {
		err := CheckStatsOptions("/w", tc.opts)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: expected %q, got %q", tc.name, tc.want, got)
		}
		// The options are named by their keys; the command line names
		// its flags.
		var oe *exitcode.OptionError
		if err != nil && (!errors.As(err, &oe) || strings.Contains(got, "--")) {
			t.Errorf("%s: %q is not an option error naming keys", tc.name, got)
		}
	}
}

func TestStatsMissingMode(t *testing.T) {
	res, err := run(t, Options{SuitePaths: caseSuites(t, "missing-mode"), Gate: true, Stats: StatsOptions{Enabled: true}})
	if !errors.Is(err, ErrGateFailed) || res.Stats.Verdict != stats.Fail || !strings.Contains(res.Stats.Reason, "Insufficient data") {
		t.Fatalf("expected the statistical gate to fail for want of a mode, got %v, %+v", err, res.Stats)
	}
}

func TestStatsBar(t *testing.T) {
	tests := []struct {
		est, lo, hi, th float64
		want            string
	}{
		// cells: floor((v+100)/200·30); 15% is cell 17, 20% cell 18.
		{30, 20, 40, 15, "[·················|=o==········]"},
		{0, -150, 150, 15, "[<==============o=|===========>]"},
		{-50, -60, -40, 20, "[······=o==········|···········]"},
	}
	for _, tc := range tests {
		got := StatsBar(tc.est, tc.lo, tc.hi, tc.th)
		if got != tc.want {
			t.Errorf("StatsBar(%v, %v, %v, %v): expected %s, got %s", tc.est, tc.lo, tc.hi, tc.th, tc.want, got)
		}
	}
}

// TestStatsZeroToolCalls: agent_direct makes no tool call and ghx makes
// three in every scenario. Both modes have values, so the tool-call check
// fails (a regression), and --stats-allow-undecided does not let it pass.
func TestStatsZeroToolCalls(t *testing.T) {
	dir := t.TempDir()
	paths := writeSimSuites(t, dir, 7, 12, 3, 0.7, 0.05)
	calls := regexp.MustCompile(`"tool_calls":\d+`)
	for i, n := range []string{"0", "3"} {
		data, err := os.ReadFile(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(paths[i], calls.ReplaceAll(data, []byte(`"tool_calls":`+n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Run(t.Context(), Options{SuitePaths: paths, Dir: dir, Gate: true, Now: fixedNow, Stats: StatsOptions{Enabled: true, AllowUndecided: true}})
	if !errors.Is(err, ErrGateFailed) {
		t.Fatalf("expected the gate to fail, got %v", err)
	}
	tools := res.Stats.Efficiency[2]
	if tools.Metric != StatsToolCalls || tools.Verdict != stats.Fail || tools.Scenarios != 12 || res.Stats.Verdict != stats.Fail {
		t.Errorf("expected the tool-call check to fail on 12 scenarios and the gate with it, got %s on %d (%s); gate %s", tools.Verdict, tools.Scenarios, tools.Reason, res.Stats.Verdict)
	}
	// Three runs of 0 against three of 3: half a unit added to each
	// arm's total, 0.5 against 9.5, nineteen times as many.
	if math.Abs(tools.EstimatePct+1800) > 1e-9 {
		t.Errorf("estimate: expected -1800%% (totals 0.5 → 9.5), got %v", tools.EstimatePct)
	}
}

// TestStatsSuiteSuccessLoss: in the suite scope the success check
// compares every run within each scenario, failed runs included: ghx
// failing 2 of 3 runs in each of 4 scenarios where agent_direct never
// fails is a significant loss and fails the gate; failing 1 run in one
// scenario is not.
func TestStatsSuiteSuccessLoss(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fails func(scenario, repetition int) bool
		want  stats.Verdict
	}{
		{"two of three runs fail everywhere", func(_, r int) bool { return r != 1 }, stats.Fail},
		// No stable ghx row is left for the efficiency checks; the
		// success check still sees every run.
		{"every ghx run fails", func(_, _ int) bool { return true }, stats.Fail},
		{"one run fails once", func(s, r int) bool { return s == 0 && r == 2 }, stats.Pass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ad, gx := filepath.Join(dir, "ad.jsonl"), filepath.Join(dir, "ghx.jsonl")
			os.WriteFile(ad, []byte(testenv.SuiteJSONL("agent_direct", 3, 4, 1000, nil)), 0o644)
			os.WriteFile(gx, []byte(testenv.SuiteJSONL("ghx", 3, 4, 500, tc.fails)), 0o644)
			res, err := Run(t.Context(), Options{SuitePaths: []string{ad, gx}, Dir: dir, Gate: true, Now: fixedNow, Stats: StatsOptions{Enabled: true}})
			if err != nil && !errors.Is(err, ErrGateFailed) {
				t.Fatal(err)
			}
			s := res.Stats.Success
			if s.Verdict != tc.want || s.Scope != stats.ScopeSuite || s.Scenarios != 4 || !strings.Contains(s.Reason, "on these 4 scenarios") {
				t.Errorf("expected %s on 4 scenarios in the suite scope, got %+v", tc.want, s)
			}
			if tc.want == stats.Fail && (res.Stats.Passed || !errors.Is(err, ErrGateFailed)) {
				t.Errorf("a significant loss must fail the gate: passed=%v, %v", res.Stats.Passed, err)
			}
		})
	}
}

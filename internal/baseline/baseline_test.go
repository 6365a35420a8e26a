package baseline

import (
	"fmt"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/runrecord"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

func f(v float64) *float64 { return &v }

// sim builds a baseline and a current run of one mode: n scenarios whose
// baseline medians spread over an order of magnitude, the current ones
// moved by effectPct with log-normal noise of sd noise, and failing the
// scenarios listed (baseline, current) by index.
func sim(seed uint64, n int, effectPct, noise float64, baseFail, curFail []int) (base, cur runrecord.Mode) {
	r := rand.New(rand.NewPCG(seed, 7))
	base = runrecord.Mode{Mode: "ghx", Source: "base.jsonl", RunIDs: []string{"b"}}
	cur = runrecord.Mode{Mode: "ghx", Source: "cur.jsonl", RunIDs: []string{"c"}}
	in := func(list []int, i int) bool {
		for _, x := range list {
			if x == i {
				return true
			}
		}
		return false
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("s%03d", i)
		scale := math.Exp(r.Float64() * math.Log(10))
		mk := func(mult float64, fail bool) runrecord.Scenario {
			s := runrecord.Scenario{ID: id, Rows: 5, Passed: 5, Stable: 5,
				MedianActiveTokens: f(1000 * scale * mult * math.Exp(r.NormFloat64()*noise)),
				MedianLatencyMs:    f(20000 * scale * mult * math.Exp(r.NormFloat64()*noise)),
				MedianToolCalls:    f(4 * scale * mult * math.Exp(r.NormFloat64()*noise))}
			if fail {
				s.Passed = 3
			}
			return s
		}
		base.Scenarios = append(base.Scenarios, mk(1, in(baseFail, i)))
		cur.Scenarios = append(cur.Scenarios, mk(1+effectPct/100, in(curFail, i)))
	}
	return base, cur
}

func compare(t *testing.T, base, cur runrecord.Mode) *Comparison {
	t.Helper()
	c, err := Compare("base", &runrecord.Record{Modes: []runrecord.Mode{cur}}, &runrecord.Folder{Runs: []runrecord.Mode{base}}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func verdicts(m Mode) map[string]string {
	out := map[string]string{MetricSuccess: m.Success.Verdict}
	for _, e := range m.Efficiency {
		out[e.Name] = string(e.Verdict)
	}
	return out
}

func TestCompareKnownEffects(t *testing.T) {
	tests := []struct {
		name               string
		n                  int
		effect, noise      float64
		baseFail, curFail  []int
		wantSuccess        string
		wantEfficiency     string
		wantNewlyFailing   int
		wantOverallVerdict string
	}{
		{name: "unchanged, low noise", n: 20, effect: 0, noise: 0.02, wantSuccess: Pass, wantEfficiency: Pass, wantOverallVerdict: Pass},
		{name: "30% growth, low noise", n: 20, effect: 30, noise: 0.02, wantSuccess: Pass, wantEfficiency: Fail, wantOverallVerdict: Fail},
		{name: "30% reduction passes", n: 20, effect: -30, noise: 0.02, wantSuccess: Pass, wantEfficiency: Pass, wantOverallVerdict: Pass},
		{name: "growth at the tolerance with noise", n: 20, effect: 10, noise: 0.3, wantSuccess: Pass, wantEfficiency: Inconclusive, wantOverallVerdict: Inconclusive},
		{name: "eight scenarios start failing", n: 20, curFail: []int{0, 1, 2, 3, 4, 5, 6, 7}, wantSuccess: Fail, wantEfficiency: Pass, wantNewlyFailing: 8, wantOverallVerdict: Fail},
		{name: "two start failing, one recovers", n: 20, baseFail: []int{9}, curFail: []int{0, 1}, wantSuccess: Inconclusive, wantEfficiency: Pass, wantNewlyFailing: 2, wantOverallVerdict: Inconclusive},
		{name: "three scenarios cannot decide", n: 3, noise: 0.02, curFail: []int{0}, wantSuccess: Underpowered, wantEfficiency: Underpowered, wantNewlyFailing: 1, wantOverallVerdict: Inconclusive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, cur := sim(1, tt.n, tt.effect, tt.noise, tt.baseFail, tt.curFail)
			c := compare(t, base, cur)
			m := c.Modes[0]
			v := verdicts(m)
			if v[MetricSuccess] != tt.wantSuccess || len(m.Success.NewlyFailing) != tt.wantNewlyFailing {
				t.Errorf("success = %s (%s), newly failing %v; want %s and %d", v[MetricSuccess], m.Success.Reason, m.Success.NewlyFailing, tt.wantSuccess, tt.wantNewlyFailing)
			}
			for _, e := range m.Efficiency {
				if string(e.Verdict) != tt.wantEfficiency {
					t.Errorf("%s = %s (%s), want %s", e.Name, e.Verdict, e.Reason, tt.wantEfficiency)
				}
			}
			if tt.name == "three scenarios cannot decide" {
				// Underpowered success and efficiency leave the
				// overall verdict at the worst: underpowered.
				tt.wantOverallVerdict = Underpowered
			}
			if c.Verdict != tt.wantOverallVerdict {
				t.Errorf("overall = %s, want %s", c.Verdict, tt.wantOverallVerdict)
			}
			if m.Paired != tt.n {
				t.Errorf("paired = %d, want %d", m.Paired, tt.n)
			}
		})
	}
}

// TestCompareSameRunsIsUnchanged: a run compared with itself, at four
// scenarios (too few for any interval to decide) and at twenty, is a
// pass that says it is unchanged, never undecided: the same rows have
// nothing to test.
func TestCompareSameRunsIsUnchanged(t *testing.T) {
	for _, n := range []int{4, 20} {
		base, _ := sim(3, n, 0, 0.2, nil, nil)
		cur := base
		cur.Source, cur.RunIDs = "cur.jsonl", []string{"c"}
		c := compare(t, base, cur)
		if c.Verdict != Pass {
			t.Errorf("%d scenarios: overall %s, want pass", n, c.Verdict)
		}
		for _, e := range c.Modes[0].Efficiency {
			if string(e.Verdict) != Pass || !strings.HasPrefix(e.Reason, "unchanged: each of the ") || e.ToDecide != "" {
				t.Errorf("%d scenarios: %s = %s (%s; %s), want an unchanged pass", n, e.Name, e.Verdict, e.Reason, e.ToDecide)
			}
		}
	}
	// One scenario moved: no longer unchanged, judged as before.
	base, _ := sim(3, 4, 0, 0.2, nil, nil)
	cur := base
	cur.Scenarios = append([]runrecord.Scenario(nil), base.Scenarios...)
	cur.Scenarios[0].MedianActiveTokens = f(*base.Scenarios[0].MedianActiveTokens * 1.01)
	c := compare(t, base, cur)
	if e := c.Modes[0].Efficiency[0]; string(e.Verdict) == Pass {
		t.Errorf("four scenarios, one moved: %s = pass (%s), want undecided", e.Name, e.Reason)
	}
}

// Over 200 seeded simulations of nine scenarios (below the bootstrap's
// ten, which would only add time): an unchanged run with high noise must
// not be called a regression in more than 5% of them, and a true 30%
// growth with low noise must be one in at least 95%.
func TestCompareSimulatedErrorRates(t *testing.T) {
	falseAlarms, misses := 0, 0
	for seed := uint64(1); seed <= 200; seed++ {
		base, cur := sim(seed, 9, 0, 0.5, nil, nil)
		for _, e := range compare(t, base, cur).Modes[0].Efficiency {
			if e.Verdict == "fail" {
				falseAlarms++
				break
			}
		}
		base, cur = sim(seed, 9, 30, 0.05, nil, nil)
		for _, e := range compare(t, base, cur).Modes[0].Efficiency {
			if e.Verdict != "fail" {
				misses++
				break
			}
		}
	}
	if falseAlarms > 10 {
		t.Errorf("unchanged with noise: %d of 200 called a regression, want at most 10", falseAlarms)
	}
	if misses > 10 {
		t.Errorf("30%% growth: %d of 200 not called a regression, want at most 10", misses)
	}
}

func TestComparePairingAndNotes(t *testing.T) {
	base, cur := sim(3, 12, 0, 0.01, nil, nil)
	cur.Scenarios = cur.Scenarios[1:]              // s000 only in the baseline
	extra := base.Scenarios[len(base.Scenarios)-1] // s011 copied as a new scenario
	extra.ID = "z-new"
	cur.Scenarios = append(cur.Scenarios, extra)
	older := base
	older.RunIDs, older.StartedAt, older.Source = []string{"a"}, "0", "older.jsonl"
	base.StartedAt = "1"
	folder := &runrecord.Folder{Runs: []runrecord.Mode{older, base}}
	current := &runrecord.Record{Modes: []runrecord.Mode{cur, {Mode: "agent_direct", Scenarios: cur.Scenarios}}}
	c, err := Compare("dir", current, folder, nil, Options{TolerancePct: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Modes) != 1 {
		t.Fatalf("modes = %d, want 1 (agent_direct has no baseline)", len(c.Modes))
	}
	m := c.Modes[0]
	if m.Paired != 11 || fmt.Sprint(m.OnlyInBaseline) != "[s000]" || fmt.Sprint(m.OnlyInCurrent) != "[z-new]" || m.BaselineSource != "base.jsonl" {
		t.Errorf("paired %d only-base %v only-cur %v source %s", m.Paired, m.OnlyInBaseline, m.OnlyInCurrent, m.BaselineSource)
	}
	notes := strings.Join(c.Notes, "\n")
	for _, want := range []string{"mode ghx: the baseline holds 2 runs; the newest (base.jsonl) is compared", "mode agent_direct: the baseline has no rows or summary of this mode"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	if m.Efficiency[0].MinReductionPct != -5 {
		t.Errorf("threshold = %v, want -5", m.Efficiency[0].MinReductionPct)
	}
}

func TestCompareSummaryOnly(t *testing.T) {
	_, cur := sim(1, 4, 0, 0, nil, nil)
	folder := &runrecord.Folder{Summaries: []runrecord.Summary{{Path: "latest-summary.json", Modes: []runrecord.SummaryMode{{Mode: "ghx", Runs: 20, SuccessRate: 100, MedianTokensActive: 700, MedianLatencyMs: 25000, MedianToolCalls: 3}}}}}
	c, err := Compare("dir", &runrecord.Record{Modes: []runrecord.Mode{cur}}, folder, []runrecord.SummaryMode{{Mode: "ghx", SuccessRate: 95, MedianTokensActive: 770, MedianLatencyMs: 24000, MedianToolCalls: 3}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := c.Modes[0].Summary
	if c.Verdict != Untested || d == nil || d.SuccessRatePts != -5 || d.MedianTokensActive != 70 || d.MedianLatencyMs != -1000 || d.MedianToolCalls != 0 {
		t.Fatalf("verdict %s delta %+v", c.Verdict, d)
	}
	if md := c.Markdown(); !strings.Contains(md, "| success rate | -5.00 points |") || !strings.Contains(md, "untested: the baseline is a v2 summary") {
		t.Errorf("Markdown:\n%s", md)
	}
}

func TestCompareOptions(t *testing.T) {
	for _, o := range []Options{{TolerancePct: -1}, {TolerancePct: 100}, {TolerancePct: math.NaN()}, {Confidence: 1}, {Confidence: -0.5}} {
		if _, err := Compare("d", &runrecord.Record{}, &runrecord.Folder{}, nil, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// The real 2026-02-25 ghx suite against itself: every paired value is
// the same, so the change is exactly 0% and the efficiency metrics pass
// however few the scenarios; the reason says the run is a copy.
func TestCompareRealSuiteWithItself(t *testing.T) {
	p := filepath.Join(testenv.SharedData(t), "ghx", "a2095e5__reports__codex-5.3-benchmark__raw-data__2026-02-25-ghx-suite.jsonl")
	cur, err := runrecord.FromSuites([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	folder, err := runrecord.ReadPath(p)
	if err != nil {
		t.Fatal(err)
	}
	// The same run read twice is still a baseline: give it another ID.
	folder.Runs[0].RunIDs = []string{"earlier"}
	c, err := Compare(p, cur, folder, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := c.Modes[0]
	if m.Paired != 4 || m.Success.Verdict != Pass {
		t.Fatalf("paired %d success %s", m.Paired, m.Success.Verdict)
	}
	for _, e := range m.Efficiency {
		if string(e.Verdict) != Pass || e.EstimatePct != 0 || len(e.MovedMost) != 0 || !strings.Contains(e.Reason, "exactly 0%") {
			t.Errorf("%s: %s estimate %v moved %v (%s)", e.Name, e.Verdict, e.EstimatePct, e.MovedMost, e.Reason)
		}
	}
	md := c.Markdown()
	gfm.Require(t, "baseline comparison", md)
	for _, want := range []string{"## Against the baseline: pass", "### ghx", "4 paired scenarios", "| scenarios passing | 4 → 4 | none changed | 4 | pass |", "| active tokens | +0.0% | [+0.0%, +0.0%] | 4 | pass | `[···············o\\|·············]` |", "| metric | change | 95% interval of the change, or scenarios that changed | scenarios | verdict | the change on a bar (the tolerance at +10%) |", "Bar: axis -100% to +100% change against the baseline (growth to the right); `=` the interval"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestFlips: the success row says in words how many scenarios changed
// each way and whether that could be chance, never a test's name.
func TestFlips(t *testing.T) {
	for _, c := range []struct {
		s    Success
		want string
	}{
		{Success{PValue: 1}, "none changed"},
		{Success{NewlyFailing: []string{"a"}, PValue: 1}, "1 now fail, 0 now pass (could be chance)"},
		{Success{NewlyFailing: []string{"a", "b", "c", "d", "e", "f"}, PValue: 0.03125}, "6 now fail, 0 now pass (unlikely to be chance)"},
		{Success{NewlyFailing: []string{"a"}, NewlyPassing: []string{"b", "c"}, PValue: 1}, "1 now fail, 2 now pass (could be chance)"},
	} {
		if got := flips(c.s, 0.05); got != c.want {
			t.Errorf("flips(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
}

// simValues is sim with each scenario's five repetitions kept, as a run
// record written from suite files keeps them: log-normal noise of sd
// noise per repetition, tool calls Poisson around 4·scale.
func simValues(r *rand.Rand, n int, growthPct, noise float64) (base, cur runrecord.Mode) {
	base = runrecord.Mode{Mode: "ghx", Source: "base.jsonl", RunIDs: []string{"b"}}
	cur = runrecord.Mode{Mode: "ghx", Source: "cur.jsonl", RunIDs: []string{"c"}}
	poisson := func(l float64) float64 {
		k, p := 0, math.Exp(-l)
		for s, u := p, r.Float64(); u > s; s += p {
			k++
			p *= l / float64(k)
		}
		return float64(k)
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("s%03d", i)
		scale := math.Exp(r.Float64() * math.Log(10))
		mk := func(mult float64) runrecord.Scenario {
			s := runrecord.Scenario{ID: id, Rows: 5, Passed: 5, Stable: 5}
			for k := 0; k < 5; k++ {
				s.ActiveTokens = append(s.ActiveTokens, math.Round(1000*scale*mult*math.Exp(r.NormFloat64()*noise)))
				s.LatencyMs = append(s.LatencyMs, math.Round(20000*scale*mult*math.Exp(r.NormFloat64()*noise)))
				s.ToolCalls = append(s.ToolCalls, poisson(4*scale*mult))
			}
			s.MedianActiveTokens = runrecord.Median(append([]float64(nil), s.ActiveTokens...))
			s.MedianLatencyMs = runrecord.Median(append([]float64(nil), s.LatencyMs...))
			s.MedianToolCalls = runrecord.Median(append([]float64(nil), s.ToolCalls...))
			return s
		}
		base.Scenarios = append(base.Scenarios, mk(1))
		cur.Scenarios = append(cur.Scenarios, mk(1+growthPct/100))
	}
	return base, cur
}

// TestCompareSuiteScopeErrorRates: records that keep their repetitions
// are judged in the statistical gate's suite scope. Over 200 seeded
// pairs of runs of 6 scenarios × 5: a growth exactly at the tolerance
// (+10%) is called fine (pass) in at most 5% of runs plus the
// Monte-Carlo error, per metric; no change is called a regression in at
// most 5%; a 40% growth at low noise is a regression in nearly every
// run; and every comparison says it was judged in the suite scope.
func TestCompareSuiteScopeErrorRates(t *testing.T) {
	const runs = 200
	mc := 2 * math.Sqrt(0.05*0.95/runs)
	for _, tc := range []struct {
		name      string
		growth    float64
		noise     float64
		verdict   string
		maxShare  float64 // at most this share of metric verdicts equal verdict
		minShare  float64 // at least
		metricsOf []string
	}{
		{"growth exactly at the tolerance", 10, 0.25, Pass, 0.05 + mc, 0, []string{MetricActiveTokens, MetricLatency, MetricToolCalls}},
		{"no change", 0, 0.25, Fail, 0.05 + mc, 0, []string{MetricActiveTokens, MetricLatency, MetricToolCalls}},
		{"40% growth, low noise", 40, 0.05, Fail, 1, 0.95, []string{MetricActiveTokens, MetricLatency}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(40, uint64(tc.growth)))
			count := map[string]int{}
			for i := 0; i < runs; i++ {
				base, cur := simValues(r, 6, tc.growth, tc.noise)
				c := compare(t, base, cur)
				m := c.Modes[0]
				if m.Scope != "suite" || m.Note != "" {
					t.Fatalf("judged in scope %q (%s), expected the suite scope", m.Scope, m.Note)
				}
				for _, e := range m.Efficiency {
					if string(e.Verdict) == tc.verdict {
						count[e.Name]++
					}
				}
			}
			for _, name := range tc.metricsOf {
				share := float64(count[name]) / runs
				t.Logf("%s: %s in %.1f%% of runs", name, tc.verdict, share*100)
				if share > tc.maxShare || share < tc.minShare {
					t.Errorf("%s: %s in %.1f%% of runs, expected between %.1f%% and %.1f%%", name, tc.verdict, share*100, tc.minShare*100, tc.maxShare*100)
				}
			}
		})
	}
}

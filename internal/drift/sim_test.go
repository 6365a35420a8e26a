package drift

import (
	"math"
	"path/filepath"
	"sync"
	"testing"

	"github.com/benchgate/benchgate/internal/drift/changepoint"
	"github.com/benchgate/benchgate/internal/runrecord"
	"github.com/benchgate/benchgate/internal/testsupport/drifttest"
)

// The real suites: 4 scenarios x 5 repetitions per mode.
var realSuites = []string{
	filepath.Join("..", "..", "testdata", "suites", "2026-02-25-agent_direct-suite.jsonl"),
	filepath.Join("..", "..", "testdata", "suites", "2026-02-25-ghx-suite.jsonl"),
}

var (
	noiseOnce sync.Once
	noise     *drifttest.Noise
	noiseErr  error
)

func realNoise(t testing.TB) *drifttest.Noise {
	t.Helper()
	noiseOnce.Do(func() { noise, noiseErr = drifttest.Real(realSuites...) })
	if noiseErr != nil {
		t.Fatal(noiseErr)
	}
	return noise
}

// simHistory is runs 0 to runs-1 of the seeded history.
func simHistory(n *drifttest.Noise, seed uint64, runs int, changes ...drifttest.Change) *History {
	var modes []runrecord.Mode
	for i := 0; i < runs; i++ {
		modes = append(modes, n.Run(seed, i, changes...)...)
	}
	return Group(modes)
}

func find(series []Series, metric, mode, scenario string) *Series {
	for i := range series {
		if series[i].Metric == metric && series[i].Mode == mode && series[i].Scenario == scenario {
			return &series[i]
		}
	}
	return nil
}

func changesOf(rep *Report, metric, mode, scenario string) []ChangePoint {
	var out []ChangePoint
	for _, c := range rep.ChangePoints {
		if c.Metric == metric && c.Mode == mode && c.Scenario == scenario {
			out = append([]ChangePoint{c}, out...) // oldest first
		}
	}
	return out
}

// runNoise is the per-run noise of a suite-level series: the standard
// deviation of its values over their mean, pooled over seeded histories
// without a change.
func runNoise(t testing.TB, metric, mode string) float64 {
	n := realNoise(t)
	var sum float64
	const seeds = 30
	for seed := uint64(1000); seed < 1000+seeds; seed++ {
		h := simHistory(n, seed, 40)
		s := find(h.Series(true), metric, mode, "")
		m, sd := 0.0, 0.0
		for _, v := range s.Values {
			m += v
		}
		m /= float64(len(s.Values))
		for _, v := range s.Values {
			sd += (v - m) * (v - m)
		}
		sum += math.Sqrt(sd/float64(len(s.Values)-1)) / m
	}
	return sum / seeds
}

func within(c ChangePoint, at int) bool { return c.After.Index >= at-1 && c.After.Index <= at+1 }

// stepRate is the share of seeds whose 40-run history has a change
// point at run 25 (give or take one) in its suite-level series of metric
// and mode, when the mode's rows of runs 25 on are multiplied by 1 + k
// times the series' per-run noise. Only that series is scanned (as
// Analyze scans each).
func stepRate(t *testing.T, metric, mode string, k float64, seeds int) float64 {
	n := realNoise(t)
	sig := runNoise(t, metric, mode)
	d := changepoint.NewDetector(changepoint.Options{})
	hit := 0
	for seed := uint64(0); seed < uint64(seeds); seed++ {
		h := simHistory(n, seed, 40, drifttest.Change{Metric: metric, Mode: mode, From: 25, Factor: 1 + k*sig})
		s := find(h.Series(true), metric, mode, "")
		for _, c := range h.scan(d, s) {
			if within(c, 25) {
				hit++
				break
			}
		}
	}
	rate := float64(hit) / float64(seeds)
	t.Logf("%s %s: step of %.0f x per-run noise (%+.1f%%) at run 25 of 40 found there (±1) in %.1f%% of %d seeds", metric, mode, k, 100*k*sig, 100*rate, seeds)
	return rate
}

// steps are the steps the tests and the calibration look for, and the
// share of seeds that must find each at run 25 ± 1.
var steps = []struct {
	metric, mode string
	k, want      float64
}{
	// Latency varies least from run to run; active tokens most, with
	// heavy tails (cache reads).
	{MetricLatency, "ghx", 3, 0.90},
	{MetricActiveTokens, "agent_direct", 3, 0.90},
	{MetricLatency, "ghx", 2, 0.80},
	{MetricActiveTokens, "agent_direct", 2, 0.80},
}

// TestDriftFindsAStepAtTheRealNoise checks the power at 100 seeds per
// step; the long calibration (TestDriftCalibrationPower) measures it at
// 400 for docs/drift.md.
func TestDriftFindsAStepAtTheRealNoise(t *testing.T) {
	for _, tc := range steps {
		if got := stepRate(t, tc.metric, tc.mode, tc.k, 100); got < tc.want {
			t.Errorf("%s %s step %.0fσ found at 25±1 in %.0f%% of seeds, want at least %.0f%%", tc.metric, tc.mode, tc.k, 100*got, 100*tc.want)
		}
	}
}

// nullRates runs seeded histories of runs runs without a change and
// returns the share of series, and of histories, with a change point.
func nullRates(t testing.TB, runs, seeds int, suiteOnly bool) (perSeries, perHistory float64) {
	n := realNoise(t)
	alarms, series, histories := 0, 0, 0
	for seed := uint64(0); seed < uint64(seeds); seed++ {
		h := simHistory(n, 7_000_000+seed, runs)
		rep, ss := Analyze(h, Options{SuiteOnly: suiteOnly})
		series += len(ss)
		seen := map[string]bool{}
		for _, c := range rep.ChangePoints {
			seen[c.Metric+"\x00"+c.Mode+"\x00"+c.Scenario] = true
		}
		alarms += len(seen)
		if len(seen) > 0 {
			histories++
		}
	}
	return float64(alarms) / float64(series), float64(histories) / float64(seeds)
}

func TestDriftHistoriesWithoutAStepRarelyRaiseOne(t *testing.T) {
	perSeries, perHistory := nullRates(t, 40, 100, false)
	t.Logf("40 runs without a change: a change point in %.2f%% of series, %.0f%% of histories", 100*perSeries, 100*perHistory)
	if perSeries > 0.05 {
		t.Errorf("false alarms in %.2f%% of series, want at most 5%%", 100*perSeries)
	}
}

// outliers are the runs out of line the tests and the calibration put
// at run 25 of 40: a slow runner (every ghx row twice as long), a run
// where agent_direct read three times the tokens.
var outliers = []struct {
	metric, mode string
	factor       float64
}{
	{MetricLatency, "ghx", 2},
	{MetricActiveTokens, "agent_direct", 3},
}

// outlierAlarms counts the seeds whose 40-run history, with run 25's
// rows of mode multiplied by factor, has any change point in the
// suite-level series of metric.
func outlierAlarms(t *testing.T, metric, mode string, factor float64, seeds int) int {
	n := realNoise(t)
	d := changepoint.NewDetector(changepoint.Options{})
	alarms := 0
	for seed := uint64(0); seed < uint64(seeds); seed++ {
		h := simHistory(n, seed, 40, drifttest.Change{Metric: metric, Mode: mode, From: 25, To: 26, Factor: factor})
		s := find(h.Series(true), metric, mode, "")
		if s.Values[25] < 1.5*s.Values[24] {
			t.Fatalf("%s %s seed %d: the outlier run is not one: %v", metric, mode, seed, s.Values[23:28])
		}
		if cps := h.scan(d, s); len(cps) > 0 {
			alarms++
			t.Logf("%s %s seed %d: one outlier run (25) made a change point: %+v", metric, mode, seed, cps)
		}
	}
	t.Logf("%s %s: one run ×%g at run 25 of 40 raised a change point in %d of %d seeds", metric, mode, factor, alarms, seeds)
	return alarms
}

// TestDriftOneOutlierRunIsNotAChange: one run out of line raises no
// change point in its series at all.
func TestDriftOneOutlierRunIsNotAChange(t *testing.T) {
	for _, tc := range outliers {
		if got := outlierAlarms(t, tc.metric, tc.mode, tc.factor, 40); got > 0 {
			t.Errorf("%s %s: one outlier run raised a change point in %d of 40 seeds, want none", tc.metric, tc.mode, got)
		}
	}
}

// twoStepsFound counts the seeds whose 50-run history, with ghx latency
// up by 3 x its per-run noise at run 15 and again at run 32, has change
// points at both (each give or take one).
func twoStepsFound(t *testing.T, seeds int) int {
	n := realNoise(t)
	sig := runNoise(t, MetricLatency, "ghx")
	d := changepoint.NewDetector(changepoint.Options{})
	both := 0
	for seed := uint64(0); seed < uint64(seeds); seed++ {
		h := simHistory(n, seed, 50,
			drifttest.Change{Metric: drifttest.Latency, Mode: "ghx", From: 15, Factor: 1 + 3*sig},
			drifttest.Change{Metric: drifttest.Latency, Mode: "ghx", From: 32, Factor: 1 + 3*sig})
		var first, second bool
		for _, c := range h.scan(d, find(h.Series(true), MetricLatency, "ghx", "")) {
			first = first || within(c, 15)
			second = second || within(c, 32)
		}
		if first && second {
			both++
		}
	}
	t.Logf("two steps of 3 x noise at runs 15 and 32 of 50: both found (±1) in %d of %d seeds", both, seeds)
	return both
}

func TestDriftTwoStepsAreBothFound(t *testing.T) {
	const seeds = 50
	if both := twoStepsFound(t, seeds); both < seeds*8/10 {
		t.Errorf("both steps found in %d of %d seeds, want at least 80%%", both, seeds)
	}
}

// TestDriftAppendingRunsNeverMovesAChangePoint analyses every prefix of
// seeded histories (with a step, with two, without) and checks that a
// change point once confirmed is found at the same run, with the same
// p-value, in every longer prefix, and that provisional ones (the
// newest, marked so) rarely move by more than one run when confirmed.
func TestDriftAppendingRunsNeverMovesAChangePoint(t *testing.T) {
	n := realNoise(t)
	sig := runNoise(t, MetricLatency, "ghx")
	cases := [][]drifttest.Change{
		{{Metric: drifttest.Latency, Mode: "ghx", From: 25, Factor: 1 + 3*sig}},
		{{Metric: drifttest.Latency, Mode: "ghx", From: 20, Factor: 1 + 2*sig}, {Metric: drifttest.ActiveTokens, Mode: "", From: 35, Factor: 1.5}},
		nil,
	}
	moved, provisional := 0, 0
	for ci, changes := range cases {
		for seed := uint64(0); seed < 8; seed++ {
			var modes []runrecord.Mode
			confirmed := map[string]ChangePoint{}
			var pending map[string]ChangePoint
			for i := 0; i < 50; i++ {
				modes = append(modes, n.Run(seed, i, changes...)...)
				if i < 12 {
					continue
				}
				rep, _ := Analyze(Group(modes), Options{SuiteOnly: true})
				now := map[string]bool{}
				nextPending := map[string]ChangePoint{}
				for _, c := range rep.ChangePoints {
					key := c.Metric + "/" + c.Mode + "/" + c.Scenario + "@" + changeName(c.Before, c.After)
					series := c.Metric + "/" + c.Mode + "/" + c.Scenario
					if c.Provisional {
						nextPending[series] = c
						continue
					}
					now[key] = true
					if old, ok := confirmed[key]; ok && old.PValue != c.PValue {
						t.Errorf("case %d seed %d: %s p-value changed from %g to %g", ci, seed, key, old.PValue, c.PValue)
					}
					if _, ok := confirmed[key]; !ok {
						if p, ok := pending[series]; ok {
							provisional++
							if d := p.After.Index - c.After.Index; d < -1 || d > 1 {
								moved++
								t.Logf("case %d seed %d: provisional %s at run %d confirmed at run %d", ci, seed, series, p.After.Index, c.After.Index)
							}
						}
						confirmed[key] = c
					}
				}
				for key := range confirmed {
					if !now[key] {
						t.Errorf("case %d seed %d: confirmed change point %s gone after %d runs", ci, seed, key, i+1)
					}
				}
				pending = nextPending
			}
		}
	}
	t.Logf("%d provisional change points confirmed later, %d of them more than one run away", provisional, moved)
	if provisional == 0 || moved*20 > provisional {
		t.Errorf("%d of %d provisional change points moved by more than one run, want at most 5%%", moved, provisional)
	}
}

package drift

import (
	"fmt"
	"math"
	"testing"

	"github.com/benchgate/benchgate/internal/drift/changepoint"
	"github.com/benchgate/benchgate/internal/runrecord"
)

// TestChangesLevelsShiftWorseAndOpen checks, on series worked out by hand,
// the levels, shift, direction and whether a change is still open: what
// --fail-on decides the exit code from.
func TestChangesLevelsShiftWorseAndOpen(t *testing.T) {
	flat := func(v float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	cat := func(parts ...[]float64) []float64 {
		var out []float64
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	type want struct {
		before, after, shift float64
		worse, open          bool
	}
	for _, tc := range []struct {
		name   string
		metric string
		values []float64
		at     []int
		want   []want
	}{
		{"latency up: worse, open", MetricLatency, cat(flat(10, 10), flat(20, 10)), []int{10},
			[]want{{10, 20, 100, true, true}}},
		{"success rate up: better", MetricSuccessRate, cat(flat(80, 10), flat(100, 10)), []int{10},
			[]want{{80, 100, 25, false, true}}},
		{"tokens up then back: the first is undone, the second better", MetricActiveTokens, cat(flat(100, 10), flat(150, 10), flat(110, 10)), []int{10, 20},
			[]want{{100, 150, 50, true, false}, {150, 110, -100.0 * 40 / 150, false, true}}},
		{"tool calls up twice: both open", MetricToolCalls, cat(flat(4, 10), flat(6, 10), flat(8, 10)), []int{10, 20},
			[]want{{4, 6, 50, true, true}, {6, 8, 100.0 / 3, true, true}}},
		// Levels are the runs around a change, at most the window (40)
		// each side: the 50 runs at 1 long before do not count.
		{"level from the nearest window", MetricLatency, cat(flat(1, 50), flat(2, 40), flat(4, 10)), []int{50, 90},
			[]want{{1, 2, 100, true, true}, {2, 4, 100, true, true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &History{}
			s := &Series{Metric: tc.metric, Mode: "ghx", Values: tc.values}
			for i := range tc.values {
				h.Runs = append(h.Runs, &Run{Commit: "c" + string(rune('a'+i%26))})
				s.Runs = append(s.Runs, i)
			}
			var cps []changepoint.ChangePoint
			for _, at := range tc.at {
				cps = append(cps, changepoint.ChangePoint{Index: at, PValue: 0.0003})
			}
			got := h.changes(s, cps, 1, changepoint.DefaultWindow)
			if len(got) != len(tc.want) {
				t.Fatalf("%d change points, want %d", len(got), len(tc.want))
			}
			for i, w := range tc.want {
				c := got[i]
				if c.BeforeLevel != w.before || c.AfterLevel != w.after || c.ShiftPct == nil || *c.ShiftPct < w.shift-1e-9 || *c.ShiftPct > w.shift+1e-9 ||
					c.Worse != w.worse || c.Open != w.open {
					t.Errorf("change %d: %v -> %v shift %v worse %v open %v; want %+v", i, c.BeforeLevel, c.AfterLevel, *c.ShiftPct, c.Worse, c.Open, w)
				}
				if c.Before.Index != tc.at[i]-1 || c.After.Index != tc.at[i] {
					t.Errorf("change %d between runs %d and %d, want %d and %d", i, c.Before.Index, c.After.Index, tc.at[i]-1, tc.at[i])
				}
				// Constant sides: every resample has the same medians, so
				// the interval is the shift itself.
				if c.LowPct == nil || c.HighPct == nil || *c.LowPct != *c.ShiftPct || *c.HighPct != *c.ShiftPct {
					t.Errorf("change %d: interval [%v, %v] does not hold %v", i, *c.LowPct, *c.HighPct, *c.ShiftPct)
				}
			}
		})
	}
}

// TestRatioIsWorseWhenGhxLosesGround: for the ratio ghx/agent_direct, a
// higher ratio of tokens is worse, a lower ratio of success rates is.
func TestRatioIsWorseWhenGhxLosesGround(t *testing.T) {
	for _, tc := range []struct {
		metric string
		from   float64
		to     float64
		worse  bool
	}{
		{MetricActiveTokens, 0.5, 0.8, true},
		{MetricLatency, 0.9, 0.7, false},
		{MetricSuccessRate, 1, 0.8, true},
		{MetricSuccessRate, 0.8, 1, false},
	} {
		h := &History{}
		s := &Series{Metric: tc.metric, Mode: RatioMode}
		for i := 0; i < 20; i++ {
			v := tc.from
			if i >= 10 {
				v = tc.to
			}
			h.Runs = append(h.Runs, &Run{})
			s.Runs, s.Values = append(s.Runs, i), append(s.Values, v)
		}
		got := h.changes(s, []changepoint.ChangePoint{{Index: 10}}, 1, changepoint.DefaultWindow)
		if got[0].Worse != tc.worse {
			t.Errorf("%s ratio %v -> %v: worse %v, want %v", tc.metric, tc.from, tc.to, got[0].Worse, tc.worse)
		}
	}
}

// TestSeriesComponents checks what the scan reads of each series, worked
// out by hand on one run: the logarithms of 1 + each scenario's value
// for a suite series of tokens, latency or tool calls (NaN for a
// scenario the mode lacks), their difference for the ratio, one value
// for a scenario's series, the success rate as it is.
func TestSeriesComponents(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	sc := func(id string, tokens, latency, tools float64, passed int) runrecord.Scenario {
		return runrecord.Scenario{ID: id, Rows: 5, Passed: passed, Stable: passed,
			MedianActiveTokens: f(tokens), MedianLatencyMs: f(latency), MedianToolCalls: f(tools)}
	}
	h := &History{Runs: []*Run{{Commit: "c1", modes: map[string]*runrecord.Mode{
		"ghx":          {Mode: "ghx", Scenarios: []runrecord.Scenario{sc("a", 999, 1999, 0, 5), sc("b", 99, 2999, 3, 4)}},
		"agent_direct": {Mode: "agent_direct", Scenarios: []runrecord.Scenario{sc("a", 1999, 999, 1, 5)}},
	}}}}
	l := math.Log
	nan := math.NaN()
	series := h.Series(false)
	for _, tc := range []struct {
		metric, mode, scenario string
		want                   []float64
	}{
		{MetricLatency, "ghx", "", []float64{l(2000), l(3000)}},
		{MetricActiveTokens, "ghx", "", []float64{l(1000), l(100)}},
		{MetricToolCalls, "ghx", "", []float64{0, l(4)}},
		{MetricLatency, "agent_direct", "", []float64{l(1000), nan}},
		{MetricLatency, RatioMode, "", []float64{l(2000) - l(1000), nan}},
		{MetricActiveTokens, RatioMode, "a", []float64{l(1000) - l(2000)}},
		{MetricLatency, "ghx", "b", []float64{l(3000)}},
		{MetricSuccessRate, "ghx", "", []float64{90}},
		{MetricSuccessRate, "ghx", "b", []float64{80}},
	} {
		s := find(series, tc.metric, tc.mode, tc.scenario)
		if s == nil {
			t.Errorf("%s %s %q: no series", tc.metric, tc.mode, tc.scenario)
			continue
		}
		ok := s.width == len(tc.want) && len(s.detect) == len(tc.want)
		for i := 0; ok && i < len(tc.want); i++ {
			g, w := s.detect[i], tc.want[i]
			ok = (math.IsNaN(g) && math.IsNaN(w)) || math.Abs(g-w) < 1e-12
		}
		if !ok {
			t.Errorf("%s %s %q: the scan reads %v (%d per run), want %v", tc.metric, tc.mode, tc.scenario, s.detect, s.width, tc.want)
		}
	}
}

// TestChangePointIDs: a change point's ID names its series and the first
// run after it by its commit; when the run before ran the same commit
// (an unchanged branch run on a schedule), also by its start (or run
// ID), so that two change points of one series never share an ID, and
// with it an issue.
func TestChangePointIDs(t *testing.T) {
	values := make([]float64, 30)
	for i := range values {
		values[i] = float64(10 * (1 + i/10)) // 10, then 20 from run 10, 30 from run 20
	}
	for _, tc := range []struct {
		name string
		run  func(i int) *Run
		want []string // the change points' IDs, at runs 10 and 20
	}{
		{"a commit a run", func(i int) *Run { return &Run{Commit: fmt.Sprintf("c%d", i), StartedAt: fmt.Sprintf("t%02d", i)} },
			[]string{"latency_ms/ghx/@c10", "latency_ms/ghx/@c20"}},
		{"one commit throughout", func(i int) *Run {
			return &Run{Commit: "c", RunID: fmt.Sprint("r", i), StartedAt: fmt.Sprintf("t%02d", i)}
		},
			[]string{"latency_ms/ghx/@c@t10", "latency_ms/ghx/@c@t20"}},
		{"one commit, no start", func(i int) *Run { return &Run{Commit: "c", RunID: fmt.Sprint("r", i)} },
			[]string{"latency_ms/ghx/@c@r10", "latency_ms/ghx/@c@r20"}},
		{"a new commit at the first change only", func(i int) *Run {
			return &Run{Commit: fmt.Sprint("c", min(i, 10)/10), StartedAt: fmt.Sprintf("t%02d", i)}
		},
			[]string{"latency_ms/ghx/@c1", "latency_ms/ghx/@c1@t20"}},
		{"no commits", func(i int) *Run { return &Run{RunID: fmt.Sprint("r", i)} },
			[]string{"latency_ms/ghx/@r10", "latency_ms/ghx/@r20"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &History{}
			s := &Series{Metric: MetricLatency, Mode: "ghx", Values: values}
			for i := range values {
				h.Runs = append(h.Runs, tc.run(i))
				s.Runs = append(s.Runs, i)
			}
			got := h.changes(s, []changepoint.ChangePoint{{Index: 10}, {Index: 20}}, 1, changepoint.DefaultWindow)
			if len(got) != 2 || got[0].ID != tc.want[0] || got[1].ID != tc.want[1] {
				var ids []string
				for _, c := range got {
					ids = append(ids, c.ID)
				}
				t.Errorf("IDs %q, want %q", ids, tc.want)
			}
		})
	}
}

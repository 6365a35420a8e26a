// Package drift names the runs where a benchmark's figures moved, from
// the runs benchgate already keeps (run records and suite files): for
// each metric (active tokens, latency, tool calls, success rate), each
// mode and the ghx/agent_direct ratio, over the suite and over each
// scenario, it finds the change points of the series of runs with a
// permutation-tested forward scan (package changepoint) and says, for
// each, the last run before and the first run after, the commits
// between them, the levels on each side and the size of the change with
// an interval.
package drift

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/benchgate/benchgate/internal/drift/changepoint"
	"github.com/benchgate/benchgate/internal/runrecord"
)

// Schema names the format of drift.json.
const Schema = "benchgate.drift/v1"

// Metrics are the figures followed, in the order outputs list them.
var Metrics = []string{MetricActiveTokens, MetricLatency, MetricToolCalls, MetricSuccessRate}

// The metric names of drift.json.
const (
	MetricActiveTokens = "active_tokens"
	MetricLatency      = "latency_ms"
	MetricToolCalls    = "tool_calls"
	MetricSuccessRate  = "success_rate"
)

// RatioMode is the mode name of the ghx/agent_direct ratio series.
const RatioMode = "ghx/agent_direct"

// History is the runs read, oldest first.
type History struct {
	Runs []*Run
	// Notes say what was left out and why.
	Notes []string
}

// Run is one benchmark run: its modes, when it started and the commit
// it ran.
type Run struct {
	key     string
	sources []string
	// Source names the files the run was read from.
	Source    string
	RunID     string
	Commit    string
	StartedAt string
	modes     map[string]*runrecord.Mode
}

// Options tune the analysis.
type Options struct {
	// Detect tunes the change point scan.
	Detect changepoint.Options
	// SuiteOnly leaves the per-scenario series out.
	SuiteOnly bool
}

// Report is drift.json.
type Report struct {
	Schema string `json:"schema"`
	// Runs is how many runs the history held, FirstRun and LastRun the
	// oldest and newest.
	Runs     int     `json:"runs"`
	FirstRun *RunRef `json:"first_run,omitempty"`
	LastRun  *RunRef `json:"last_run,omitempty"`
	Method   Method  `json:"method"`
	// Series counts the series examined; ChangePoints lists every change
	// point found, newest first.
	Series       int           `json:"series"`
	ChangePoints []ChangePoint `json:"change_points"`
	Notes        []string      `json:"notes"`
}

// Method says how change points were found, so a reader can reproduce
// them.
type Method struct {
	Name         string  `json:"name"`
	Alpha        float64 `json:"alpha"`
	Permutations int     `json:"permutations"`
	MinSize      int     `json:"min_size"`
	Window       int     `json:"window"`
	Settle       int     `json:"settle"`
	Seed         uint64  `json:"seed"`
}

// RunRef names a run of the history.
type RunRef struct {
	// Index is the run's place in the history, 0 the oldest.
	Index     int    `json:"index"`
	RunID     string `json:"run_id"`
	Commit    string `json:"commit"`
	StartedAt string `json:"started_at"`
	Source    string `json:"source"`
}

// ChangePoint is one change of one series.
type ChangePoint struct {
	// ID names the change point the same way in every later analysis of
	// the history (metric, mode, scenario and the first run after it):
	// the Action's issue marker.
	ID       string `json:"id"`
	Metric   string `json:"metric"`
	Mode     string `json:"mode"`
	Scenario string `json:"scenario"`
	// Before is the last run at the old level, After the first at the new.
	Before RunRef `json:"before"`
	After  RunRef `json:"after"`
	// BeforeLevel and AfterLevel are the medians of the series from the
	// previous change point (or the first run) to this one, and from
	// this one to the next (or the last run), at most Window runs (the
	// method's) on each side.
	BeforeLevel float64 `json:"before_level"`
	AfterLevel  float64 `json:"after_level"`
	// ShiftPct is AfterLevel over BeforeLevel less one, in percent, with
	// its 95% bootstrap interval; null when BeforeLevel is 0.
	ShiftPct *float64 `json:"shift_pct"`
	LowPct   *float64 `json:"low_pct"`
	HighPct  *float64 `json:"high_pct"`
	// PValue is the permutation p-value of the look that found it.
	PValue float64 `json:"p_value"`
	// Worse says the change is for the worse (more tokens, latency or
	// tool calls, a lower success rate; for the ratio, ghx losing
	// ground: a higher ratio, or a lower one for the success rate).
	Worse bool `json:"worse"`
	// Open is false once a later change point of the series brought the
	// level back (to within half this change of the level before it).
	Open bool `json:"open"`
	// Provisional says the history ends too soon after the change for its
	// place to be final; a later analysis may place it a run or two
	// away. Other change points never move as runs are added.
	Provisional bool `json:"provisional"`
	// Points is how many runs the series has.
	Points int `json:"points"`
	// CompareURL links the commits between Before and After, when the
	// repository is known and both are commits.
	CompareURL string `json:"compare_url,omitempty"`
}

// Link fills the change points' CompareURL for the repository at
// repoURL ("https://github.com/owner/name").
func (r *Report) Link(repoURL string) {
	for i := range r.ChangePoints {
		r.ChangePoints[i].CompareURL = CompareURL(r.ChangePoints[i], repoURL)
	}
}

// Series is one followed series: the runs that have a value, and those
// values, oldest first.
type Series struct {
	Metric, Mode, Scenario string
	Runs                   []int
	Values                 []float64
	// Levels is each value's segment median, the change points' steps.
	Levels []float64
	// detect is what the scan reads, width values per run (see
	// components).
	detect []float64
	width  int
}

// Analyze finds the change points of every series of h. The series are
// independent and are scanned concurrently, one per CPU.
func Analyze(h *History, o Options) (*Report, []Series) {
	series := h.Series(o.SuiteOnly)
	det := o.Detect
	rep := &Report{Schema: Schema, Runs: len(h.Runs), Series: len(series), ChangePoints: []ChangePoint{}, Notes: append([]string{}, h.Notes...)}
	def := changepoint.NewDetector(det).Options()
	rep.Method = Method{Name: "forward scan, weighted two-sample t, permutation test", Alpha: def.Alpha, Permutations: def.Permutations(),
		MinSize: def.MinSize, Window: def.Window, Settle: def.Settle, Seed: def.Seed}
	if n := 2 * def.MinSize; len(h.Runs) < n {
		rep.Notes = append(rep.Notes, TooFewRuns(len(h.Runs), def.MinSize))
	}
	if len(h.Runs) > 0 {
		f, l := h.ref(0), h.ref(len(h.Runs)-1)
		rep.FirstRun, rep.LastRun = &f, &l
	}
	found := make([][]ChangePoint, len(series))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := changepoint.NewDetector(det)
			for i := range next {
				found[i] = h.scan(d, &series[i])
			}
		}()
	}
	for i := range series {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, cps := range found {
		rep.ChangePoints = append(rep.ChangePoints, cps...)
	}
	sort.SliceStable(rep.ChangePoints, func(i, j int) bool {
		a, b := rep.ChangePoints[i], rep.ChangePoints[j]
		if a.After.Index != b.After.Index {
			return a.After.Index > b.After.Index
		}
		return a.ID < b.ID
	})
	return rep, series
}

// TooFewRuns says that a history of runs runs is too short for any
// change point, so that "0 change points" is not read as "nothing
// changed".
func TooFewRuns(runs, minSize int) string {
	return fmt.Sprintf("%d runs: a change point needs at least %d runs at each level, %d in all, so none can be found yet", runs, minSize, 2*minSize)
}

// scan finds the change points of s with d and fills s.Levels.
func (h *History) scan(d *changepoint.Detector, s *Series) []ChangePoint {
	o := d.Options()
	return h.changes(s, d.DetectComponents(s.detect, s.width), o.Seed, o.Window)
}

func (h *History) ref(i int) RunRef {
	r := h.Runs[i]
	return RunRef{Index: i, RunID: r.RunID, Commit: r.Commit, StartedAt: r.StartedAt, Source: r.Source}
}

// changes turns the scan's change points of s into reported ones and
// fills s.Levels. A change's levels are the medians of the runs on each
// side of it, back to the change before (or the first run) and on to
// the change after (or the last run), at most window runs each side: a
// level is what the runs around the change say, and the cost of its
// interval stays bounded however long the history.
func (h *History) changes(s *Series, cps []changepoint.ChangePoint, seed uint64, window int) []ChangePoint {
	bounds := []int{0}
	for _, c := range cps {
		bounds = append(bounds, c.Index)
	}
	bounds = append(bounds, len(s.Values))
	s.Levels = make([]float64, len(s.Values))
	for k := 0; k+1 < len(bounds); k++ {
		l := median(s.Values[bounds[k]:bounds[k+1]])
		for i := bounds[k]; i < bounds[k+1]; i++ {
			s.Levels[i] = l
		}
	}
	out := make([]ChangePoint, 0, len(cps))
	for k, c := range cps {
		before := s.Values[max(bounds[k], c.Index-window):c.Index]
		after := s.Values[c.Index:min(bounds[k+2], c.Index+window)]
		lb, la := median(before), median(after)
		cp := ChangePoint{Metric: s.Metric, Mode: s.Mode, Scenario: s.Scenario,
			Before: h.ref(s.Runs[c.Index-1]), After: h.ref(s.Runs[c.Index]),
			BeforeLevel: lb, AfterLevel: la, PValue: c.PValue, Provisional: c.Provisional, Points: len(s.Values), Open: true}
		cp.ID = s.Metric + "/" + s.Mode + "/" + s.Scenario + "@" + changeName(cp.Before, cp.After)
		if lb != 0 {
			v := 100 * (la/lb - 1)
			cp.ShiftPct = &v
			cp.LowPct, cp.HighPct = shiftInterval(before, after, seed^uint64(c.Index))
		}
		cp.Worse = (la > lb) != (s.Metric == MetricSuccessRate)
		out = append(out, cp)
	}
	// A change is undone when a later level comes back to within half
	// of it from the level before it.
	for k := range out {
		half := math.Abs(out[k].AfterLevel-out[k].BeforeLevel) / 2
		for _, later := range out[k+1:] {
			if math.Abs(later.AfterLevel-out[k].BeforeLevel) <= half {
				out[k].Open = false
			}
		}
	}
	return out
}

// changeName is how a change point's ID names where it is: the first
// run after it by runName, and, when the run before ran the same commit
// (scheduled runs of an unchanged branch: the environment moved), also
// by its start or run ID, since the commit alone names every run of it
// and two change points of one series would share an ID (and an issue).
// Neither changes as runs are appended, so the ID stays the same.
func changeName(before, after RunRef) string {
	n := runName(after)
	if after.Commit == "" || after.Commit != before.Commit {
		return n
	}
	switch {
	case after.StartedAt != "":
		return n + "@" + after.StartedAt
	case after.RunID != "":
		return n + "@" + after.RunID
	}
	return n
}

// runName is how a change point's ID names its run: the commit, else the
// run ID, else the start.
func runName(r RunRef) string {
	switch {
	case r.Commit != "":
		return r.Commit
	case r.RunID != "":
		return r.RunID
	}
	return r.StartedAt
}

// bootstraps is how many resamples the interval of a shift takes.
const bootstraps = 2000

// shiftInterval is the 95% percentile bootstrap interval of the ratio of
// the two segments' medians, in percent (each segment resampled on its
// own, with a seeded generator); nil where a resampled median before is
// 0.
func shiftInterval(before, after []float64, seed uint64) (*float64, *float64) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	bb, ab := make([]float64, len(before)), make([]float64, len(after))
	ratios := make([]float64, 0, bootstraps)
	for range bootstraps {
		for i := range bb {
			bb[i] = before[rng.IntN(len(before))]
		}
		for i := range ab {
			ab[i] = after[rng.IntN(len(after))]
		}
		mb := medianInPlace(bb)
		if mb == 0 {
			return nil, nil
		}
		ratios = append(ratios, 100*(medianInPlace(ab)/mb-1))
	}
	sort.Float64s(ratios)
	lo, hi := ratios[int(0.025*bootstraps)], ratios[int(0.975*bootstraps)-1]
	return &lo, &hi
}

// median of v (not changed); 0 for none.
func median(v []float64) float64 {
	return medianInPlace(append([]float64(nil), v...))
}

// medianInPlace is the median of s, which it sorts; 0 for none.
func medianInPlace(s []float64) float64 {
	if len(s) == 0 {
		return 0
	}
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Series returns every series of the history: per metric, for each mode
// and the ghx/agent_direct ratio, the suite's and (unless suiteOnly)
// each scenario's, in a fixed order.
func (h *History) Series(suiteOnly bool) []Series {
	modeSet := map[string]bool{}
	scenSet := map[string]bool{}
	for _, r := range h.Runs {
		for name, m := range r.modes {
			modeSet[name] = true
			for _, s := range m.Scenarios {
				scenSet[s.ID] = true
			}
		}
	}
	modes := slices.Sorted(maps.Keys(modeSet))
	if modeSet["ghx"] && modeSet["agent_direct"] {
		modes = append(modes, RatioMode)
	}
	all := slices.Sorted(maps.Keys(scenSet))
	scenarios := append([]string{""}, all...)
	if suiteOnly {
		scenarios = []string{""}
	}
	var out []Series
	for _, metric := range Metrics {
		for _, sc := range scenarios {
			for _, mode := range modes {
				s := Series{Metric: metric, Mode: mode, Scenario: sc}
				for i, r := range h.Runs {
					if v, ok := r.value(metric, mode, sc); ok {
						s.Runs = append(s.Runs, i)
						s.Values = append(s.Values, v)
						s.detect, s.width = r.components(s.detect, metric, mode, sc, v, all)
					}
				}
				if len(s.Values) > 0 {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// components appends to dst what the scan reads of the run's value v
// of a series, and says how many values that is per run. Tokens,
// latency and tool calls vary by a factor rather than by an amount, so
// the scan reads their logarithms (of 1 + v, for a count that may be
// 0; for the ratio, the difference of the two modes' logarithms); a
// suite-level series of them reads each scenario's value (NaN where
// the run lacks it), so that a change moving every scenario is judged
// by the run-to-run noise of each scenario rather than by that of the
// suite's median. The success rate is read as it is: the suite's rate
// already pools every row.
func (r *Run) components(dst []float64, metric, mode, scenario string, v float64, scenarios []string) ([]float64, int) {
	if metric == MetricSuccessRate {
		return append(dst, v), 1
	}
	if scenario != "" || len(scenarios) == 0 {
		return append(dst, r.logValue(metric, mode, scenario)), 1
	}
	for _, sc := range scenarios {
		dst = append(dst, r.logValue(metric, mode, sc))
	}
	return dst, len(scenarios)
}

// logValue is log(1 + the run's value) of metric for mode and scenario;
// for the ratio, the difference of the modes' ones; NaN without a value.
func (r *Run) logValue(metric, mode, scenario string) float64 {
	if mode == RatioMode {
		return r.logValue(metric, "ghx", scenario) - r.logValue(metric, "agent_direct", scenario)
	}
	v, ok := r.value(metric, mode, scenario)
	if !ok || v < 0 {
		return math.NaN()
	}
	return math.Log1p(v)
}

// value is the run's figure of metric for mode (or the ratio) and
// scenario ("" for the suite).
func (r *Run) value(metric, mode, scenario string) (float64, bool) {
	if mode == RatioMode {
		g, ok1 := r.value(metric, "ghx", scenario)
		a, ok2 := r.value(metric, "agent_direct", scenario)
		if !ok1 || !ok2 || a == 0 {
			return 0, false
		}
		return g / a, true
	}
	m := r.modes[mode]
	if m == nil {
		return 0, false
	}
	if scenario == "" {
		return suiteValue(m, metric)
	}
	s := m.Scenario(scenario)
	if s == nil {
		return 0, false
	}
	switch metric {
	case MetricActiveTokens:
		return deref(s.MedianActiveTokens)
	case MetricLatency:
		return deref(s.MedianLatencyMs)
	case MetricToolCalls:
		return deref(s.MedianToolCalls)
	}
	return 100 * float64(s.Passed) / float64(s.Rows), s.Rows > 0
}

// suiteValue is the run's figure for the whole suite: the success rate
// and medians of the run's totals; for tool calls, which totals do not
// keep, the median of the scenarios' medians.
func suiteValue(m *runrecord.Mode, metric string) (float64, bool) {
	t := m.RunTotals()
	switch metric {
	case MetricActiveTokens:
		return deref(t.MedianActiveTokens)
	case MetricLatency:
		return deref(t.MedianLatencyMs)
	case MetricToolCalls:
		var v []float64
		for _, s := range m.Scenarios {
			if s.MedianToolCalls != nil {
				v = append(v, *s.MedianToolCalls)
			}
		}
		return deref(runrecord.Median(v))
	}
	return deref(t.SuccessRatePct())
}

func deref(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

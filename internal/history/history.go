// Package history names flaky scenarios: over the recent runs of a mode
// (earlier runs' suite files or run records, and the current run), a
// scenario that both passed and failed is flaky. The label informs and
// never excuses: a failing flaky scenario is still a failure. For each
// scenario and mode it gives the runs seen, pass^k (the chance that a
// fresh run of k repetitions passes every one of them, estimated from all
// repetitions in the window, as tau-bench's pass^k is) and the flip rate
// (how often the verdict changed from one run to the next).
package history

import (
	"fmt"
	"sort"
	"strings"

	"github.com/benchgate/benchgate/internal/runrecord"
)

// DefaultWindow is how many recent runs of a mode are looked at.
const DefaultWindow = 10

// Report is the history of every scenario of every mode seen.
type Report struct {
	// Window is the most runs per mode looked at, the current included.
	Window int `json:"window"`
	// Modes says how many runs of each mode were in the window.
	Modes []ModeRuns `json:"modes"`
	// Scenarios lists every scenario of every mode, by mode then ID.
	Scenarios []Scenario `json:"scenarios"`
	// Flaky lists the flaky scenarios: failing in the current run first,
	// then by flip rate (highest first), mode and ID.
	Flaky []Scenario `json:"flaky"`
	// NewFailures lists the scenarios that passed in every earlier run
	// and fail now, by mode and ID; none of them is flaky.
	NewFailures []Scenario `json:"newFailures"`
}

// ModeRuns says which runs of a mode the window held.
type ModeRuns struct {
	Mode string `json:"mode"`
	Runs int    `json:"runs"`
	// Sources name the runs, oldest first.
	Sources []string `json:"sources"`
	// Trend is each run's totals, oldest first, the current run last
	// when there is one.
	Trend []Point `json:"trend"`
}

// Point is one run of a mode in the trend.
type Point struct {
	Source    string `json:"source"`
	StartedAt string `json:"startedAt"`
	// SuccessRatePct is the share of rows with success true; the
	// medians are over the run's stable rows. nil where a run has none.
	SuccessRatePct     *float64 `json:"successRatePct"`
	MedianActiveTokens *float64 `json:"medianActiveTokens"`
	MedianLatencyMs    *float64 `json:"medianLatencyMs"`
	// Commit is the git commit the run's rows name (the first, when they
	// name several), so a trend can label the run; "" when none.
	Commit string `json:"commit,omitempty"`
}

// Scenario is one scenario of one mode over the window.
type Scenario struct {
	Mode string `json:"mode"`
	ID   string `json:"scenarioId"`
	// RunsSeen counts the runs in the window that ran the scenario;
	// RunsPassed those in which every repetition passed.
	RunsSeen   int `json:"runsSeen"`
	RunsPassed int `json:"runsPassed"`
	// Outcomes is one letter per run seen, oldest first: P passed, F failed.
	Outcomes string `json:"outcomes"`
	// K is the repetitions of a run (the median over the runs seen);
	// PassK is the estimated chance that all K pass: C(c,K)/C(n,K) over
	// the n repetitions in the window of which c passed.
	K     int     `json:"k"`
	PassK float64 `json:"passK"`
	// FlipRate is the share of consecutive runs whose verdicts differ.
	FlipRate float64 `json:"flipRate"`
	// EarlierSeen and EarlierPassed are RunsSeen and RunsPassed without
	// the current run: a scenario is judged on what happened before it.
	EarlierSeen   int `json:"earlierSeen"`
	EarlierPassed int `json:"earlierPassed"`
	// Flaky: it both passed and failed in earlier runs. NewFailure: it
	// passed in every earlier run and fails now.
	Flaky      bool `json:"flaky"`
	NewFailure bool `json:"newFailure"`
	// InCurrent says the current run ran the scenario; FailingNow that
	// it failed there.
	InCurrent  bool `json:"inCurrent"`
	FailingNow bool `json:"failingNow"`
}

// Label is the short text shown beside a flaky scenario: "flaky: passed
// 4 of 6 earlier runs", or beside a new failure: "new failure: passed
// all 5 earlier runs".
func (s Scenario) Label() string {
	if s.NewFailure {
		return fmt.Sprintf("new failure: passed all %d earlier runs", s.EarlierSeen)
	}
	return fmt.Sprintf("flaky: passed %d of %d earlier runs", s.EarlierPassed, s.EarlierSeen)
}

// Analyze builds the history of the past runs and the current run (nil
// when there is none; it is then not part of the window). A past run
// that is the current run (the same mode and run IDs) counts once. Per
// mode, the newest window runs are kept.
func Analyze(past []runrecord.Mode, current *runrecord.Record, window int) *Report {
	if window <= 0 {
		window = DefaultWindow
	}
	byMode := map[string][]runrecord.Mode{}
	var modes []string
	add := func(m runrecord.Mode) {
		if _, ok := byMode[m.Mode]; !ok {
			modes = append(modes, m.Mode)
		}
		byMode[m.Mode] = append(byMode[m.Mode], m)
	}
	currentKeys := map[string]bool{}
	if current != nil {
		for _, m := range current.Modes {
			currentKeys[m.Key()] = true
		}
	}
	sorted := append([]runrecord.Mode(nil), past...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].StartedAt < sorted[j].StartedAt })
	for _, m := range sorted {
		if !currentKeys[m.Key()] {
			add(m)
		}
	}
	if current != nil {
		for _, m := range current.Modes {
			add(m)
		}
	}
	sort.Strings(modes)
	rep := &Report{Window: window, Modes: []ModeRuns{}, Scenarios: []Scenario{}, Flaky: []Scenario{}, NewFailures: []Scenario{}}
	for _, mode := range modes {
		runs := byMode[mode]
		if len(runs) > window {
			runs = runs[len(runs)-window:]
		}
		mr := ModeRuns{Mode: mode, Runs: len(runs)}
		for _, r := range runs {
			mr.Sources = append(mr.Sources, r.Source)
			t := r.RunTotals()
			pt := Point{Source: r.Source, StartedAt: r.StartedAt, SuccessRatePct: t.SuccessRatePct(),
				MedianActiveTokens: t.MedianActiveTokens, MedianLatencyMs: t.MedianLatencyMs}
			if len(r.GitCommits) > 0 {
				pt.Commit = r.GitCommits[0]
			}
			mr.Trend = append(mr.Trend, pt)
		}
		rep.Modes = append(rep.Modes, mr)
		var cur *runrecord.Mode
		if current != nil {
			cur = current.Mode(mode)
		}
		rep.Scenarios = append(rep.Scenarios, scenarios(mode, runs, cur)...)
	}
	for _, s := range rep.Scenarios {
		if s.Flaky {
			rep.Flaky = append(rep.Flaky, s)
		}
		if s.NewFailure {
			rep.NewFailures = append(rep.NewFailures, s)
		}
	}
	sort.SliceStable(rep.Flaky, func(i, j int) bool {
		a, b := rep.Flaky[i], rep.Flaky[j]
		if a.FailingNow != b.FailingNow {
			return a.FailingNow
		}
		if a.FlipRate != b.FlipRate {
			return a.FlipRate > b.FlipRate
		}
		if a.Mode != b.Mode {
			return a.Mode < b.Mode
		}
		return a.ID < b.ID
	})
	return rep
}

// scenarios computes the history of every scenario the runs of one mode
// ran, sorted by ID.
func scenarios(mode string, runs []runrecord.Mode, cur *runrecord.Mode) []Scenario {
	type acc struct {
		outcomes   []byte
		rows, pass int
		reps       []int
	}
	accs := map[string]*acc{}
	for _, r := range runs {
		for _, s := range r.Scenarios {
			a := accs[s.ID]
			if a == nil {
				a = &acc{}
				accs[s.ID] = a
			}
			o := byte('F')
			if s.Pass() {
				o = 'P'
			}
			a.outcomes = append(a.outcomes, o)
			a.rows += s.Rows
			a.pass += s.Passed
			a.reps = append(a.reps, s.Rows)
		}
	}
	ids := make([]string, 0, len(accs))
	for id := range accs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]Scenario, 0, len(ids))
	for _, id := range ids {
		a := accs[id]
		s := Scenario{Mode: mode, ID: id, RunsSeen: len(a.outcomes), Outcomes: string(a.outcomes)}
		s.RunsPassed = strings.Count(s.Outcomes, "P")
		s.K = medianInt(a.reps)
		s.PassK = PassK(a.rows, a.pass, s.K)
		s.FlipRate = FlipRate(s.Outcomes)
		if cur != nil {
			if cs := cur.Scenario(id); cs != nil {
				s.InCurrent = true
				s.FailingNow = !cs.Pass()
			}
		}
		// The current run is the last outcome of its mode's runs; the
		// label is judged on the runs before it, so that a scenario that
		// breaks now is a new failure, not a flaky one.
		earlier := s.Outcomes
		if s.InCurrent {
			earlier = earlier[:len(earlier)-1]
		}
		s.EarlierSeen, s.EarlierPassed = len(earlier), strings.Count(earlier, "P")
		s.Flaky = s.EarlierPassed > 0 && s.EarlierPassed < s.EarlierSeen
		s.NewFailure = s.FailingNow && s.EarlierSeen > 0 && s.EarlierPassed == s.EarlierSeen
		out = append(out, s)
	}
	return out
}

// PassK estimates the chance that k repetitions all pass from n
// repetitions of which c passed: C(c,k)/C(n,k), the unbiased estimator
// tau-bench uses. It is 0 when c < k and 1 when c == n.
func PassK(n, c, k int) float64 {
	if n <= 0 || k <= 0 || c < k {
		return 0
	}
	if k > n {
		k = n
	}
	p := 1.0
	for i := 0; i < k; i++ {
		p *= float64(c-i) / float64(n-i)
	}
	return p
}

// FlipRate is the share of consecutive outcomes (P/F letters) that
// differ; 0 for fewer than two.
func FlipRate(outcomes string) float64 {
	if len(outcomes) < 2 {
		return 0
	}
	flips := 0
	for i := 1; i < len(outcomes); i++ {
		if outcomes[i] != outcomes[i-1] {
			flips++
		}
	}
	return float64(flips) / float64(len(outcomes)-1)
}

func medianInt(v []int) int {
	if len(v) == 0 {
		return 0
	}
	s := append([]int(nil), v...)
	sort.Ints(s)
	return s[len(s)/2]
}

// FlakyIn returns the flaky scenarios of mode, by ID.
func (r *Report) FlakyIn(mode string) map[string]Scenario {
	out := map[string]Scenario{}
	for _, s := range r.Flaky {
		if s.Mode == mode {
			out[s.ID] = s
		}
	}
	return out
}

package history

import (
	"fmt"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"math"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/runrecord"
)

func TestPassK(t *testing.T) {
	tests := []struct {
		n, c, k int
		want    float64
	}{
		{10, 10, 5, 1},
		{10, 4, 5, 0},         // fewer passes than k
		{10, 5, 5, 1.0 / 252}, // C(5,5)/C(10,5)
		{10, 9, 5, 0.5},       // C(9,5)/C(10,5) = 126/252
		{6, 4, 1, 4.0 / 6},    // k=1 is the pass rate
		{3, 2, 5, 0},          // k above n is capped at n: 2 < 3 passes
		{0, 0, 1, 0},
		{4, 4, 0, 0},
	}
	for _, tt := range tests {
		if got := PassK(tt.n, tt.c, tt.k); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("PassK(%d,%d,%d) = %v, want %v", tt.n, tt.c, tt.k, got, tt.want)
		}
	}
}

func TestFlipRate(t *testing.T) {
	for in, want := range map[string]float64{"": 0, "P": 0, "PP": 0, "PF": 1, "PFPF": 1, "PPFF": 1.0 / 3, "PPPPPF": 0.2} {
		if got := FlipRate(in); math.Abs(got-want) > 1e-12 {
			t.Errorf("FlipRate(%q) = %v, want %v", in, got, want)
		}
	}
}

// run builds one run of mode from "id:rows:passed" items.
func run(mode, runID, started string, items ...string) runrecord.Mode {
	m := runrecord.Mode{Mode: mode, Source: runID + ".jsonl", RunIDs: []string{runID}, StartedAt: started}
	for _, it := range items {
		var id string
		var rows, passed int
		fmt.Sscanf(strings.ReplaceAll(it, ":", " "), "%s %d %d", &id, &rows, &passed)
		m.Scenarios = append(m.Scenarios, runrecord.Scenario{ID: id, Rows: rows, Passed: passed})
	}
	return m
}

func TestAnalyze(t *testing.T) {
	past := []runrecord.Mode{
		run("ghx", "r3", "2026-03-03", "a:5:5", "b:5:4", "c:5:5"),
		run("ghx", "r1", "2026-03-01", "a:5:5", "b:5:5", "c:5:0"),
		run("ghx", "r2", "2026-03-02", "a:5:5", "b:5:5", "c:5:0"),
		run("agent_direct", "q1", "2026-03-01", "a:5:5"),
		// The current run again, as a downloaded artifact: counts once.
		run("ghx", "r4", "2026-03-04", "a:5:5", "b:5:5"),
	}
	current := &runrecord.Record{Modes: []runrecord.Mode{run("ghx", "r4", "2026-03-04", "a:5:5", "b:5:5"), run("agent_direct", "q2", "2026-03-04", "a:5:4")}}
	tests := []struct {
		name      string
		current   *runrecord.Record
		window    int
		wantRuns  string
		wantFlaky []string // mode/id label, in order
		wantNow   []bool
		wantNew   []string
	}{
		// Judged on the earlier runs only: agent_direct/a passed its one
		// earlier run and fails now, a new failure and not flaky; by flip
		// rate, b (PPF before now, 1/2) before c (FFP, 1/2), then by ID.
		{name: "whole window with the current run", current: current, window: 10, wantRuns: "agent_direct 2, ghx 4",
			wantFlaky: []string{"ghx/b flaky: passed 2 of 3 earlier runs", "ghx/c flaky: passed 1 of 3 earlier runs"},
			wantNow:   []bool{false, false},
			wantNew:   []string{"agent_direct/a new failure: passed all 1 earlier runs"}},
		// ghx/b: F in r3, P now: one earlier run, which failed, is not flaky.
		{name: "window of two keeps the newest", current: current, window: 2, wantRuns: "agent_direct 2, ghx 2",
			wantNow: []bool{},
			wantNew: []string{"agent_direct/a new failure: passed all 1 earlier runs"}},
		{name: "past only", current: nil, window: 0, wantRuns: "agent_direct 1, ghx 4",
			wantFlaky: []string{"ghx/b flaky: passed 3 of 4 earlier runs", "ghx/c flaky: passed 1 of 3 earlier runs"},
			wantNow:   []bool{false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := Analyze(past, tt.current, tt.window)
			var runs []string
			for _, m := range rep.Modes {
				runs = append(runs, fmt.Sprintf("%s %d", m.Mode, m.Runs))
			}
			if got := strings.Join(runs, ", "); got != tt.wantRuns {
				t.Errorf("runs = %s, want %s", got, tt.wantRuns)
			}
			var flaky, news []string
			now := []bool{}
			for _, s := range rep.Flaky {
				flaky = append(flaky, s.Mode+"/"+s.ID+" "+s.Label())
				now = append(now, s.FailingNow)
			}
			for _, s := range rep.NewFailures {
				news = append(news, s.Mode+"/"+s.ID+" "+s.Label())
			}
			if strings.Join(flaky, "\n") != strings.Join(tt.wantFlaky, "\n") || fmt.Sprint(now) != fmt.Sprint(tt.wantNow) {
				t.Errorf("flaky = %q %v\nwant %q %v", flaky, now, tt.wantFlaky, tt.wantNow)
			}
			if strings.Join(news, "\n") != strings.Join(tt.wantNew, "\n") {
				t.Errorf("new failures = %q, want %q", news, tt.wantNew)
			}
		})
	}
	rep := Analyze(past, current, 10)
	var b Scenario
	for _, s := range rep.Scenarios {
		if s.Mode == "ghx" && s.ID == "b" {
			b = s
		}
	}
	// b: runs r1 r2 r3 r4 = P P F P; 19 of 20 repetitions passed, k=5:
	// C(19,5)/C(20,5) = 15/20.
	if b.Outcomes != "PPFP" || b.K != 5 || math.Abs(b.PassK-0.75) > 1e-12 || math.Abs(b.FlipRate-2.0/3) > 1e-12 || !b.InCurrent || b.FailingNow {
		t.Errorf("ghx/b = %+v", b)
	}
	md := rep.Markdown()
	gfm.Require(t, "flaky scenarios", md)
	for _, want := range []string{"## Flaky scenarios", "agent_direct 2, ghx 4", "New failures (passed in every earlier run, fail now): `agent_direct/a`.", "| ghx | b | 2 of 3 | ✓✓✗✓ | 75% (5 repetitions) | 2 of 3 times | passes |"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if got := Analyze(nil, nil, 0).Markdown(); !strings.Contains(got, "No scenario both passed and failed") {
		t.Errorf("empty history Markdown: %s", got)
	}
}

// TestTrend: each mode's runs of the window, oldest first, the current
// last, each with its success rate (records without totals: the rows
// that passed).
func TestTrend(t *testing.T) {
	past := []runrecord.Mode{
		run("ghx", "r2", "2026-03-02", "a:5:5", "b:5:0"),
		run("ghx", "r1", "2026-03-01", "a:5:5", "b:5:5"),
	}
	tokens := 640.0
	cur := run("ghx", "r3", "2026-03-03", "a:4:3")
	cur.Totals = &runrecord.Totals{Rows: 4, Succeeded: 3, MedianActiveTokens: &tokens}
	rep := Analyze(past, &runrecord.Record{Modes: []runrecord.Mode{cur}}, 10)
	var got []string
	for _, p := range rep.Modes[0].Trend {
		tok := "-"
		if p.MedianActiveTokens != nil {
			tok = fmt.Sprint(*p.MedianActiveTokens)
		}
		got = append(got, fmt.Sprintf("%s %.0f%% %s", p.Source, *p.SuccessRatePct, tok))
	}
	if want := "r1.jsonl 100% -, r2.jsonl 50% -, r3.jsonl 75% 640"; strings.Join(got, ", ") != want {
		t.Errorf("trend %s, want %s", strings.Join(got, ", "), want)
	}
}

package action

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/history"
	"github.com/benchgate/benchgate/internal/jobsummary"
)

// trendMetric is one number of a run the trend follows.
type trendMetric struct {
	title, unit string
	pick        func(history.Point) *float64
	format      func(float64) string
}

var trendMetrics = []trendMetric{
	{"Success rate", "% of rows", func(p history.Point) *float64 { return p.SuccessRatePct }, func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "%" }},
	{"Median active tokens", "active tokens", func(p history.Point) *float64 { return p.MedianActiveTokens }, func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }},
	{"Median wall latency", "seconds", func(p history.Point) *float64 { return seconds(p.MedianLatencyMs) }, func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + " s" }},
}

// seconds is a latency in milliseconds in seconds, as charts and the
// comment give it.
func seconds(ms *float64) *float64 {
	if ms == nil {
		return nil
	}
	s := msToSeconds(*ms)
	return &s
}

// runLabel names a run on a trend's axis: its commit, short, as the
// pull request's page shows commits; else the day and time it started;
// else its place in the window.
func runLabel(p history.Point, i int) string {
	if c := p.Commit; c != "" {
		return c[:min(7, len(c))]
	}
	if t, err := time.Parse(time.RFC3339, p.StartedAt); err == nil {
		return t.UTC().Format("01-02 15:04")
	}
	return "run " + strconv.Itoa(i+1)
}

// trendOf returns a mode's runs in the history, oldest first.
func trendOf(h *history.Report, mode string) []history.Point {
	if h == nil {
		return nil
	}
	for _, m := range h.Modes {
		if m.Mode == mode {
			return m.Trend
		}
	}
	return nil
}

// trendCharts draws, for the last runs both modes have, the success
// rate, median active tokens and median latency: agent_direct as bars,
// ghx as a line, oldest run first.
func trendCharts(sec *jobsummary.Section, h *history.Report) {
	ad, gx := trendOf(h, "agent_direct"), trendOf(h, "ghx")
	n := min(len(ad), len(gx))
	if n < 2 {
		return
	}
	ad, gx = ad[len(ad)-n:], gx[len(gx)-n:]
	labels := make([]string, n)
	for i := range labels {
		labels[i] = runLabel(gx[i], i)
	}
	sec.Para("Trend over the last %d runs of both modes, oldest first, each run named by its commit (or its start):", n)
	for _, m := range trendMetrics {
		var bars, line []float64
		for i := 0; i < n; i++ {
			a, g := m.pick(ad[i]), m.pick(gx[i])
			if a == nil || g == nil {
				bars = nil
				break
			}
			bars, line = append(bars, round2(*a)), append(line, round2(*g))
		}
		if bars == nil {
			continue
		}
		sec.Mermaid(jobsummary.TrendChart(fmt.Sprintf("%s, last %d runs", m.title, n), m.unit, labels,
			jobsummary.Series{Name: "agent_direct", Values: bars}, jobsummary.Series{Name: "ghx", Values: line}))
	}
}

// trendLine says in one line how each mode's numbers moved from the
// oldest run of the history to the newest.
func trendLine(h *history.Report) string {
	var parts []string
	runs := 0
	for _, mode := range []string{"ghx", "agent_direct"} {
		pts := trendOf(h, mode)
		if len(pts) < 2 {
			continue
		}
		runs = max(runs, len(pts))
		first, last := pts[0], pts[len(pts)-1]
		var ms []string
		for _, m := range trendMetrics {
			a, b := m.pick(first), m.pick(last)
			if a == nil || b == nil {
				continue
			}
			ms = append(ms, fmt.Sprintf("%s %s → %s", strings.ToLower(m.title), m.format(*a), m.format(*b)))
		}
		if len(ms) > 0 {
			parts = append(parts, mode+" "+strings.Join(ms, ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("**Trend** (up to %d runs, oldest → newest): %s.", runs, strings.Join(parts, "; "))
}

func round2(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 2, 64), 64)
	return f
}

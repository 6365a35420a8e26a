package drift

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/jobsummary"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// maxCharts bounds the charts drift.md draws (the newest change points'
// series first); the table lists every change point.
const maxCharts = 12

// commitPattern is what a commit must look like to be linked: the
// history may come from artifacts, and a link is built from it.
var commitPattern = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

// Markdown is drift.md: one line per change point, newest first, then a
// chart of each series with a change point, its values as bars and its
// levels as a line. repoURL ("https://github.com/owner/name"), when
// set, links commits and the range between them.
func Markdown(rep *Report, h *History, series []Series, repoURL string) string {
	var b strings.Builder
	b.WriteString("# Benchmark drift\n\n")
	span := ""
	if rep.FirstRun != nil && rep.LastRun != nil {
		span = fmt.Sprintf(" from %s to %s", runText(*rep.FirstRun, repoURL), runText(*rep.LastRun, repoURL))
	}
	fmt.Fprintf(&b, "%s of %s%s; %s.\n\n", textfmt.Count(rep.Series, "series", "series"), textfmt.Count(rep.Runs, "run", "runs"), span,
		textfmt.Count(len(rep.ChangePoints), "change point", "change points"))
	if rep.Runs < 2*rep.Method.MinSize {
		b.WriteString(TooFewRuns(rep.Runs, rep.Method.MinSize) + ".\n\n")
	}
	if len(rep.ChangePoints) > 0 {
		b.WriteString("| first run after | metric | mode | scenario | before → after | shift (95% interval) | p | look at |\n|---|---|---|---|---|---|---|---|\n")
		for _, c := range rep.ChangePoints {
			state := ""
			switch {
			case c.Provisional:
				state = " (provisional)"
			case !c.Open:
				state = " (undone later)"
			}
			scen := "suite"
			if c.Scenario != "" {
				scen = textfmt.CodeCell(c.Scenario)
			}
			fmt.Fprintf(&b, "| %s%s | %s | %s | %s | %s → %s | %s | %s | %s |\n", runText(c.After, repoURL), state, c.Metric, c.Mode, scen,
				Level(c.Metric, c.BeforeLevel), Level(c.Metric, c.AfterLevel), shiftText(c), strconv.FormatFloat(c.PValue, 'g', 2, 64), rangeText(c, repoURL))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Method: %s (α %g per look, %d permutations, at least %d runs each side, window %d runs, placed after %d more runs, seed %d); see docs/drift.md.\n",
		rep.Method.Name, rep.Method.Alpha, rep.Method.Permutations, rep.Method.MinSize, rep.Method.Window, rep.Method.Settle, rep.Method.Seed)
	charts, changed := Charts(rep, h, series)
	for _, c := range charts {
		fmt.Fprintf(&b, "\n%s\n", textfmt.Fence("mermaid", c))
	}
	if len(charts) < changed {
		fmt.Fprintf(&b, "\n(Charts of the %d newest changed series; drift.json lists them all.)\n", len(charts))
	}
	return b.String()
}

// Charts are the mermaid charts of the series with a change point, the
// newest change points' series first and at most maxCharts of them:
// each run's value as bars and the levels as a line, so the steps show.
// changed is how many series have a change point.
func Charts(rep *Report, h *History, series []Series) (charts []string, changed int) {
	drawn := map[string]bool{}
	for _, c := range rep.ChangePoints {
		key := c.Metric + "\x00" + c.Mode + "\x00" + c.Scenario
		if drawn[key] {
			continue
		}
		drawn[key] = true
		if len(charts) >= maxCharts {
			continue
		}
		for _, s := range series {
			if s.Metric != c.Metric || s.Mode != c.Mode || s.Scenario != c.Scenario {
				continue
			}
			labels := make([]string, len(s.Runs))
			for i, r := range s.Runs {
				labels[i] = chartLabel(h, r)
			}
			title := c.Metric + " " + c.Mode
			if c.Scenario != "" {
				title += " " + textfmt.Truncate(textfmt.OneLine(c.Scenario), 40)
			}
			charts = append(charts, jobsummary.TrendChart(title, unit(c.Metric), labels,
				jobsummary.Series{Name: "each run", Values: rounded(s.Values)}, jobsummary.Series{Name: "level", Values: rounded(s.Levels)}))
		}
	}
	return charts, len(drawn)
}

func unit(metric string) string {
	switch metric {
	case MetricLatency:
		return "ms"
	case MetricSuccessRate:
		return "% of rows"
	case MetricToolCalls:
		return "tool calls"
	}
	return "active tokens"
}

func rounded(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i], _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	}
	return out
}

// chartLabel names run i on a chart's axis: its short commit, else its
// start, else its number.
func chartLabel(h *History, i int) string {
	r := h.Runs[i]
	if commitPattern.MatchString(r.Commit) {
		return r.Commit[:7]
	}
	if t, err := time.Parse(time.RFC3339, r.StartedAt); err == nil {
		return t.UTC().Format("01-02 15:04")
	}
	return "run " + strconv.Itoa(i+1)
}

// Level writes a level of metric as drift.md and the log show it: whole
// numbers from 100 on, three significant digits below, % for a rate.
func Level(metric string, v float64) string {
	s := strconv.FormatFloat(v, 'f', 0, 64)
	if math.Abs(v) < 100 {
		s = strconv.FormatFloat(v, 'g', 3, 64)
	}
	if metric == MetricSuccessRate {
		s += "%"
	}
	return s
}

// LevelWithUnit writes a level of c's series as the job summary and the
// issues show it: as Level, with " ms" for latency, and no unit at all
// for the ratio of two modes.
func (c ChangePoint) LevelWithUnit(v float64) string {
	s := Level("", v)
	if c.Mode == RatioMode {
		return s
	}
	switch c.Metric {
	case MetricSuccessRate:
		s += "%"
	case MetricLatency:
		s += " ms"
	}
	return s
}

func pct(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", *v)
}

func shiftText(c ChangePoint) string {
	if c.ShiftPct == nil {
		return "n/a"
	}
	return fmt.Sprintf("%s (%s to %s)", pct(c.ShiftPct), pct(c.LowPct), pct(c.HighPct))
}

// runText names a run: its short commit (linked when repoURL is set),
// else its run ID, with the day it started.
func runText(r RunRef, repoURL string) string {
	name := "run " + strconv.Itoa(r.Index+1)
	switch {
	case commitPattern.MatchString(r.Commit) && repoURL != "":
		name = fmt.Sprintf("[`%s`](%s/commit/%s)", r.Commit[:7], repoURL, r.Commit)
	case commitPattern.MatchString(r.Commit):
		name = "`" + r.Commit[:7] + "`"
	case r.RunID != "":
		name = textfmt.CodeCell(textfmt.Truncate(r.RunID, 12))
	}
	if t, err := time.Parse(time.RFC3339, r.StartedAt); err == nil {
		name += " " + t.UTC().Format("2006-01-02")
	}
	return name
}

// rangeText is where to look for the cause: the commits after the last
// run at the old level up to the first at the new.
func rangeText(c ChangePoint, repoURL string) string {
	a, b := c.Before.Commit, c.After.Commit
	if !commitPattern.MatchString(a) || !commitPattern.MatchString(b) {
		return "runs " + strconv.Itoa(c.Before.Index+1) + "–" + strconv.Itoa(c.After.Index+1)
	}
	if a == b {
		return "same commit (noise or environment)"
	}
	if repoURL == "" {
		return fmt.Sprintf("`%s..%s`", a[:7], b[:7])
	}
	return fmt.Sprintf("[`%s...%s`](%s/compare/%s...%s)", a[:7], b[:7], repoURL, a, b)
}

// CompareURL is the link to the commits between a change point's runs,
// or "" when either commit is not a commit or repoURL is not set.
func CompareURL(c ChangePoint, repoURL string) string {
	a, b := c.Before.Commit, c.After.Commit
	if repoURL == "" || !commitPattern.MatchString(a) || !commitPattern.MatchString(b) || a == b {
		return ""
	}
	return repoURL + "/compare/" + a + "..." + b
}

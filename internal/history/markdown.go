package history

import (
	"fmt"
	"strings"

	"github.com/benchgate/benchgate/internal/textfmt"
)

// Markdown renders the flaky scenarios as a section of the stats
// Markdown (heading level 2), with the window it looked at.
func (r *Report) Markdown() string {
	var b strings.Builder
	b.WriteString("## Flaky scenarios\n\n")
	var runs []string
	for _, m := range r.Modes {
		runs = append(runs, fmt.Sprintf("%s %d", m.Mode, m.Runs))
	}
	fmt.Fprintf(&b, "Runs looked at (at most %d per mode, the current included): %s.\n\n", r.Window, strings.Join(runs, ", "))
	if len(r.Flaky) == 0 {
		b.WriteString("No scenario both passed and failed in these runs.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "%d scenario(s) both passed and failed. The label only informs: a flaky scenario that fails now is still a failure.\n\n", len(r.Flaky))
	b.WriteString("| mode | scenario | passed | outcomes (oldest first) | pass^k | flip rate | now |\n")
	b.WriteString("|---|---|---:|---|---:|---:|---|\n")
	for _, s := range r.Flaky {
		now := "not run"
		switch {
		case s.InCurrent && s.FailingNow:
			now = "**fails**"
		case s.InCurrent:
			now = "passes"
		}
		fmt.Fprintf(&b, "| %s | %s | %d of %d | %s | %.2f (k=%d) | %.2f | %s |\n",
			textfmt.Cell(s.Mode), textfmt.Cell(s.ID), s.RunsPassed, s.RunsSeen, textfmt.CodeCell(s.Outcomes), s.PassK, s.K, s.FlipRate, now)
	}
	return b.String()
}

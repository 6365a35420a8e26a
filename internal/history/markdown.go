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
	fmt.Fprintf(&b, "Runs looked at (at most %d per mode, the current included): %s. A scenario is judged flaky on the runs before this one.\n\n", r.Window, strings.Join(runs, ", "))
	if len(r.NewFailures) > 0 {
		ids := make([]string, len(r.NewFailures))
		for i, s := range r.NewFailures {
			ids[i] = textfmt.Code(s.Mode + "/" + s.ID)
		}
		fmt.Fprintf(&b, "New failures (passed in every earlier run, fail now): %s.\n\n", strings.Join(ids, ", "))
	}
	if len(r.Flaky) == 0 {
		b.WriteString("No scenario both passed and failed in the earlier runs.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "%d scenario(s) both passed and failed in the earlier runs. The label only informs: a flaky scenario that fails now is still a failure.\n\n", len(r.Flaky))
	b.WriteString("| mode | scenario | earlier runs passed | each run, oldest first (✓ passed, ✗ failed; this run last) | chance that all repetitions of a run pass | changed between runs | now |\n")
	b.WriteString("|---|---|---:|---|---:|---:|---|\n")
	for _, s := range r.Flaky {
		now := "not run"
		switch {
		case s.InCurrent && s.FailingNow:
			now = "**fails**"
		case s.InCurrent:
			now = "passes"
		}
		fmt.Fprintf(&b, "| %s | %s | %d of %d | %s | %.0f%% (%d repetitions) | %s | %s |\n",
			textfmt.Cell(s.Mode), textfmt.Cell(s.ID), s.EarlierPassed, s.EarlierSeen, Marks(s.Outcomes), s.PassK*100, s.K, changes(s.Outcomes), now)
	}
	return b.String()
}

// Marks shows a run's outcomes (P passed, F failed, one letter a run) as
// marks a reader needs no key for: ✓ and ✗.
func Marks(outcomes string) string {
	return strings.NewReplacer("P", "✓", "F", "✗").Replace(outcomes)
}

// changes says how often consecutive runs differ, in words ("2 of 5
// times"): what a flip rate measures.
func changes(outcomes string) string {
	if len(outcomes) < 2 {
		return "–"
	}
	n := 0
	for i := 1; i < len(outcomes); i++ {
		if outcomes[i] != outcomes[i-1] {
			n++
		}
	}
	return fmt.Sprintf("%d of %d times", n, len(outcomes)-1)
}

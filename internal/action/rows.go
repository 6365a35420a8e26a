package action

import (
	"fmt"
	"sort"

	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/suite"
)

// suiteStats is what one suite file contributes to a summary.
type suiteStats struct {
	Rows int
	// Violations are the diagnostics of the failing rows, in file order:
	// the same ones set records in tracking.json.
	Violations []suite.Diagnostic
	// Iterations counts the rows of each scenario.
	Iterations map[string]int
	// per scenario: active tokens and latency of rows that passed
	Active  map[string][]float64
	Latency map[string][]float64
}

// readSuite judges a suite JSONL file with suite's lenient reader, as set
// does: every line is a row, and a line that is not a valid row is one
// more failing row with its diagnostic, so that the summary and the
// annotations point at it.
func readSuite(path string) (*suiteStats, error) {
	f, err := fsutil.OpenRegular(path, true)
	if err != nil {
		return nil, fmt.Errorf("read suite: %w", err)
	}
	defer f.Close()
	st := &suiteStats{Active: map[string][]float64{}, Latency: map[string][]float64{}, Iterations: map[string]int{}}
	err = suite.ReadChecked(f, path, func(c suite.Checked) error {
		st.Rows++
		st.Iterations[c.ScenarioID]++
		st.Violations = append(st.Violations, c.Diagnostics...)
		if c.Passed() {
			st.Active[c.ScenarioID] = append(st.Active[c.ScenarioID], c.Row.ActiveTokens())
			st.Latency[c.ScenarioID] = append(st.Latency[c.ScenarioID], c.Row.LatencyMsWall)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

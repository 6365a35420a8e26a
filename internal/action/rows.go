package action

import (
	"fmt"
	"sort"

	"github.com/benchgate/benchgate/internal/suite"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// violation is one blocking row rule that does not hold.
type violation struct {
	File       string
	Line       int
	ScenarioID string
	Field      string
	Want, Got  string
}

func (v violation) message() string {
	return fmt.Sprintf("%s: expected %s, got %s", v.Field, v.Want, v.Got)
}

// suiteStats is what one suite file contributes to a summary.
type suiteStats struct {
	Rows       int
	Violations []violation
	// per scenario: active tokens and latency of rows that passed
	Active  map[string][]float64
	Latency map[string][]float64
}

// readSuite reads a suite JSONL file with the suite package and keeps
// the rows that break a blocking rule (success true, output_valid true,
// error null) with their line. A row that cannot be read at all is one
// more failing row (field, expected, got from the parser), so that the
// summary and annotations still point at it.
func readSuite(path string) (*suiteStats, error) {
	st := &suiteStats{Active: map[string][]float64{}, Latency: map[string][]float64{}}
	opts := suite.ReadOptions{OnBadRow: func(e *suite.ParseError) error {
		st.Rows++
		st.Violations = append(st.Violations, violation{File: path, Line: e.Line, Field: e.Field, Want: e.Expected, Got: textfmt.Truncate(e.Got, 200)})
		return nil
	}}
	err := suite.ReadFileWith(path, opts, func(r *suite.Row) error {
		st.Rows++
		vs := r.Violations()
		for _, v := range vs {
			st.Violations = append(st.Violations, violation{File: path, Line: r.Line, ScenarioID: r.ScenarioID, Field: v.Field, Want: v.Want, Got: textfmt.Truncate(v.Got, 200)})
		}
		if len(vs) == 0 {
			st.Active[r.ScenarioID] = append(st.Active[r.ScenarioID], r.ActiveTokens())
			st.Latency[r.ScenarioID] = append(st.Latency[r.ScenarioID], r.LatencyMsWall)
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

package verify

import (
	"context"
	"io"
	"strconv"

	"github.com/benchgate/benchgate/internal/bench"

	"github.com/benchgate/benchgate/internal/suite"
)

// Row is what the set keeps of one suite JSONL row: suite's judgement of
// the line, plus the checks of the set's row-count contract. Raw keeps the
// line as the benchmark wrote it, so merged files carry every field the
// report reads.
type Row struct {
	File       string
	Line       int
	Mode       string
	ScenarioID string
	Iteration  int
	Raw        []byte
	// Problems lists what is wrong with this row; empty means it passes.
	Problems []Problem
	// Check results, for tracking.json's pass/fail counts.
	SuccessOK, OutputValidOK, ErrorNullOK bool
}

// Problem is one located row diagnostic, as tracking.json's failures
// carry it: suite's one diagnostic type.
type Problem = suite.Diagnostic

// ReadRows reads a suite JSONL file of one mode. A missing file reads as
// no rows (the benchmark wrote nothing). Lines that are not valid rows
// become rows with problems, so that they count against the set instead
// of being skipped silently.
func ReadRows(path, mode string) ([]Row, error) {
	rows, _, err := readEvidence(context.Background(), path, mode, nil)
	return rows, err
}

// parseRows judges every line with suite's lenient reader, so that set
// fails exactly the rows report refuses and the Action annotates (no
// tokens, "latency_ms_wall":"fast", a line over suite.MaxLineBytes, a
// number out of range, a broken rule), and adds the set's own checks.
func parseRows(r io.Reader, path, mode string) ([]Row, error) {
	var rows []Row
	err := suite.ReadChecked(r, path, func(c suite.Checked) error {
		rows = append(rows, setRow(c, mode))
		return nil
	})
	// suite's errors name the file already.
	return rows, err
}

// setRow turns suite's judgement of one line into the set's row. Every
// problem carries the mode of the file the row was read from. The
// row-count contract adds, for valid rows, what suite's rules leave alone:
// a row must name its scenario and iteration (the set counts and reruns by
// them) and belong to the file's mode.
func setRow(c suite.Checked, mode string) Row {
	// The row's scenario is compared by the rule the set file and
	// --scenario-id follow; an ID that rule refuses is kept as written,
	// and no set holds it.
	id := c.ScenarioID
	if n, err := bench.NormalizeScenarioID(id); err == nil {
		id = n
	}
	row := Row{File: c.File, Line: c.Line, Mode: mode, ScenarioID: id, Iteration: c.Iteration,
		SuccessOK: c.SuccessOK, OutputValidOK: c.OutputValidOK, ErrorNullOK: c.ErrorNullOK}
	if c.Raw != nil {
		row.Raw = append([]byte(nil), c.Raw...)
	}
	for _, d := range c.Diagnostics {
		d.Mode = mode
		row.Problems = append(row.Problems, d)
	}
	if c.Row == nil {
		return row // not a valid row: suite's diagnostic says why
	}
	add := func(field, want, got string) {
		row.Problems = append(row.Problems, Problem{Mode: mode, File: c.File, Line: c.Line, ScenarioID: c.ScenarioID,
			Iteration: c.Iteration, Field: field, Expected: want, Got: got})
	}
	if c.ScenarioID == "" {
		add("scenario_id", "a non-empty string", strconv.Quote(c.ScenarioID))
	}
	if c.Iteration < 1 {
		add("iteration", "an integer >= 1", strconv.Itoa(c.Iteration))
	}
	if c.Mode != mode {
		add("mode", strconv.Quote(mode), strconv.Quote(c.Mode))
	}
	return row
}

package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/benchgate/benchgate/internal/suite"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// Row is what the set check needs of one suite JSONL row. Raw keeps the
// line as the benchmark wrote it, so merged files carry every field the
// report reads.
type Row struct {
	File       string
	Line       int
	Mode       string
	ScenarioID string
	Iteration  int
	Raw        []byte
	// Problems lists the row rules this row breaks; empty means it passes.
	Problems []Problem
	// Check results, for tracking.json's pass/fail counts.
	SuccessOK, OutputValidOK, ErrorNullOK bool
}

// Problem is one broken rule, located precisely enough to act on.
type Problem struct {
	Mode       string `json:"mode"`
	File       string `json:"file"`
	Line       int    `json:"line"`
	ScenarioID string `json:"scenario_id"`
	Iteration  int    `json:"iteration,omitempty"`
	Field      string `json:"field"`
	Want       string `json:"expected"`
	Got        string `json:"got"`
}

func (p Problem) String() string {
	loc := p.File
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	sc := p.ScenarioID
	if sc == "" {
		sc = "(no scenario_id)"
	}
	if p.Iteration > 0 {
		sc = fmt.Sprintf("%s (iteration %d)", sc, p.Iteration)
	}
	return fmt.Sprintf("%s: %s row: scenario %s: %s: expected %s, got %s", loc, p.Mode, sc, p.Field, p.Want, p.Got)
}

// ReadRows reads a suite JSONL file of one mode. A missing file reads as
// no rows (the benchmark wrote nothing). Lines that are not valid rows
// become rows with problems, so that they count against the set instead
// of being skipped silently.
func ReadRows(path, mode string) ([]Row, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read rows: %w", err)
	}
	defer f.Close()
	return parseRows(f, path, mode)
}

// parseRows judges every line with suite's reader, so that set fails
// exactly the rows report refuses and the Action annotates: a row the
// strict reader cannot read (no tokens, "latency_ms_wall":"fast", a line
// over suite.MaxLineBytes, a number out of range) is a failing row here.
func parseRows(r io.Reader, path, mode string) ([]Row, error) {
	var rows []Row
	err := suite.ReadChecked(r, path, func(line int, c suite.Checked) error {
		rows = append(rows, checkedRow(c, path, line, mode))
		return nil
	})
	if err != nil {
		return rows, fmt.Errorf("read %s: %w", path, err)
	}
	return rows, nil
}

// checkedRow turns suite's judgement of one line into the set's row. The
// identity fields and the three rule flags are read from the raw line too,
// so that a malformed row still names its scenario (for reruns) and counts
// in tracking.json's per-check tallies.
func checkedRow(c suite.Checked, path string, line int, mode string) Row {
	if c.Raw == nil {
		// A line too long to keep: a failing row with only its location.
		row := Row{File: path, Line: line, Mode: mode}
		row.Problems = append(row.Problems, Problem{Mode: mode, File: path, Line: line, Field: c.Err.Field, Want: c.Err.Expected, Got: c.Err.Got})
		return row
	}
	row := parseRow(append([]byte(nil), c.Raw...), path, line, mode)
	if c.Err != nil && !hasField(row.Problems, c.Err.Field) {
		row.Problems = append([]Problem{{Mode: mode, File: path, Line: line, ScenarioID: row.ScenarioID,
			Iteration: row.Iteration, Field: c.Err.Field, Want: c.Err.Expected, Got: c.Err.Got}}, row.Problems...)
	}
	return row
}

func hasField(ps []Problem, field string) bool {
	for _, p := range ps {
		if p.Field == field {
			return true
		}
	}
	return false
}

// parseRow applies the row rules of the seed: success == true,
// output_valid == true, error == null; plus the identity fields the
// row-count contract needs.
func parseRow(b []byte, path string, line int, mode string) Row {
	row := Row{File: path, Line: line, Mode: mode, Raw: b}
	add := func(field, want, got string) {
		row.Problems = append(row.Problems, Problem{Mode: mode, File: path, Line: line,
			ScenarioID: row.ScenarioID, Iteration: row.Iteration, Field: field, Want: want, Got: got})
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		msg := "not JSON"
		if err != nil {
			msg = err.Error()
		}
		add("row", "a JSON object", textfmt.Truncate(msg, 120))
		return row
	}
	if err := json.Unmarshal(m["scenario_id"], &row.ScenarioID); err != nil || row.ScenarioID == "" {
		add("scenario_id", "a non-empty string", describe(m["scenario_id"]))
	}
	var it float64
	if err := json.Unmarshal(m["iteration"], &it); err != nil || it < 1 || it != float64(int(it)) {
		add("iteration", "an integer >= 1", describe(m["iteration"]))
	} else {
		row.Iteration = int(it)
	}
	if mv, ok := m["mode"]; ok {
		var got string
		if json.Unmarshal(mv, &got) != nil || got != mode {
			add("mode", strconv.Quote(mode), describe(mv))
		}
	}
	row.SuccessOK = isTrue(m["success"])
	if !row.SuccessOK {
		add("success", "true", describe(m["success"]))
	}
	row.OutputValidOK = isTrue(m["output_valid"])
	if !row.OutputValidOK {
		add("output_valid", "true", describe(m["output_valid"]))
	}
	ev, present := m["error"]
	row.ErrorNullOK = present && string(bytes.TrimSpace(ev)) == "null"
	if !row.ErrorNullOK {
		add("error", "null", describe(ev))
	}
	for i := range row.Problems {
		row.Problems[i].ScenarioID = row.ScenarioID
		row.Problems[i].Iteration = row.Iteration
	}
	return row
}

func isTrue(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "true" }

func describe(v json.RawMessage) string {
	if v == nil {
		return "nothing (field missing)"
	}
	return textfmt.Truncate(string(v), 120)
}

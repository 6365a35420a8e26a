package suite

import (
	"fmt"
	"strconv"
	"unicode"
)

// ShowID is a scenario ID as messages show it: as written when every
// character is printable and not a space, otherwise quoted with Go's
// escapes (a control character as \a or \x1b, a line break as \n), so
// that an ID read from a foreign suite can neither break a log line nor
// start a workflow command.
func ShowID(id string) string {
	for _, r := range id {
		if !unicode.IsGraphic(r) || unicode.IsSpace(r) || r == '"' || r == '\\' {
			return strconv.QuoteToGraphic(id)
		}
	}
	return id
}

// HasControl reports whether id holds a control or format character
// (C0, DEL, C1, a bidirectional override), which ShowID escapes.
func HasControl(id string) bool {
	for _, r := range id {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return true
		}
	}
	return false
}

// Diagnostic is one thing wrong with one suite row, located precisely
// enough to act on (as actionlint's Error is for a workflow): a line
// that is not a valid row, or a blocking rule the row breaks. It is the
// one diagnostic type of rows: report stops at it or skips it, set records
// it in tracking.json's failures (the JSON tags are that file's), and the
// Action annotates it.
type Diagnostic struct {
	// Mode is the benchmark mode of the row, when known.
	Mode string `json:"mode"`
	// File and Line (1-based) locate the row; Line is 0 for a row that is
	// missing from its file.
	File string `json:"file"`
	Line int    `json:"line"`
	// ScenarioID and Iteration identify the row, when known.
	ScenarioID string `json:"scenario_id"`
	Iteration  int    `json:"iteration,omitempty"`
	// Field is a dotted path ("tokens.cache_read"), or "row" for the line
	// as a whole.
	Field    string `json:"field"`
	Expected string `json:"expected"`
	Got      string `json:"got"`
}

// Error is "file:line: field: expected X, got Y", with "<mode> row:
// scenario S (iteration N): " after the location when the row's identity
// is known, so that a person can open the file at the line and see what
// to fix.
func (d Diagnostic) Error() string {
	loc := d.File
	if d.Line > 0 {
		loc = fmt.Sprintf("%s:%d", d.File, d.Line)
	}
	if d.Mode == "" && d.ScenarioID == "" {
		return fmt.Sprintf("%s: %s: expected %s, got %s", loc, d.Field, d.Expected, d.Got)
	}
	sc := ShowID(d.ScenarioID)
	if sc == "" {
		sc = "(no scenario_id)"
	}
	if d.Iteration > 0 {
		sc = fmt.Sprintf("%s (iteration %d)", sc, d.Iteration)
	}
	return fmt.Sprintf("%s: %s row: scenario %s: %s: expected %s, got %s", loc, d.Mode, sc, d.Field, d.Expected, d.Got)
}

// String is Error, so that a Diagnostic prints the same as a value.
func (d Diagnostic) String() string { return d.Error() }

// Rule is the part of a diagnostic that says what is wrong, without the
// location: "field: expected X, got Y".
func (d Diagnostic) Rule() string {
	return fmt.Sprintf("%s: expected %s, got %s", d.Field, d.Expected, d.Got)
}

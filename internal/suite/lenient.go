package suite

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/benchgate/benchgate/internal/textfmt"
)

// Checked is one line of a suite file judged leniently, the way `set`
// reads the files the benchmark just wrote and the Action annotates them:
// a line that is not a valid row is not a reason to stop but a failing
// row, located by file and line. A line passes here exactly when the
// strict reader reads it and it breaks no blocking rule.
type Checked struct {
	// Row is the decoded row, or nil when the line is not a valid row.
	Row *Row
	// Raw is the line as written (nil for a line over MaxLineBytes), kept
	// so that merged files carry every field. It aliases a buffer reused
	// for the next line: copy it to keep it.
	Raw  []byte
	File string
	Line int
	// Mode, ScenarioID and Iteration identify the row: from Row, or read
	// from Raw as far as it is JSON, so that a malformed row still names
	// its scenario (set reruns it).
	Mode       string
	ScenarioID string
	Iteration  int
	// SuccessOK, OutputValidOK and ErrorNullOK say whether each blocking
	// rule holds (success true, output_valid true, error null), read like
	// the identity, for per-rule tallies.
	SuccessOK, OutputValidOK, ErrorNullOK bool
	// Diagnostics says why the row fails: why the line is not a valid row
	// (the strict reader's diagnostic), then each rule it breaks. Empty
	// when the row passes.
	Diagnostics []Diagnostic
}

// Passed reports whether the row passes: it is a valid row and breaks no
// blocking rule.
func (c *Checked) Passed() bool { return len(c.Diagnostics) == 0 }

// ReadChecked streams every non-blank line of r to fn as a Checked value.
// It never stops at a bad row; it stops only when r cannot be read or fn
// returns an error.
func ReadChecked(r io.Reader, name string, fn func(Checked) error) error {
	return ReadCheckedWith(r, name, ReadOptions{}, fn)
}

// ReadCheckedWith is ReadChecked with options; only Upstream applies
// (a reader that only reports takes rows as upstream's report does).
func ReadCheckedWith(r io.Reader, name string, opts ReadOptions, fn func(Checked) error) error {
	dec := newDecoder()
	dec.upstream = opts.Upstream
	return eachLine(r, name, func(lineNo int, line []byte, tooLong int) error {
		var row Row
		d := dec.line(name, lineNo, line, tooLong, &row)
		if d == nil {
			return fn(Checked{Row: &row, Raw: line, File: name, Line: lineNo, Mode: row.Mode, ScenarioID: row.ScenarioID,
				Iteration: row.Iteration, SuccessOK: row.Success, OutputValidOK: row.OutputValid, ErrorNullOK: row.Error == nil,
				Diagnostics: row.Violations()})
		}
		c := Checked{File: name, Line: lineNo}
		if tooLong == 0 {
			c.Raw = line
			c.salvage()
		}
		d.Mode, d.ScenarioID, d.Iteration = c.Mode, c.ScenarioID, c.Iteration
		for _, v := range c.Diagnostics {
			if v.Field == d.Field {
				return fn(c)
			}
		}
		c.Diagnostics = append([]Diagnostic{*d}, c.Diagnostics...)
		return fn(c)
	})
}

// salvage reads what it can of a line the decoder refused: the identity
// and the three rules, each from its own key, as JSON.parse would see the
// line (a repeated key keeps its last value). A rule that does not hold,
// or whose key is missing, adds a diagnostic.
func (c *Checked) salvage() {
	var m map[string]json.RawMessage
	if json.Unmarshal(c.Raw, &m) != nil || m == nil {
		// Not JSON at all (a NaN, a cut line): the identity may still be
		// written plainly in it.
		c.Mode, c.ScenarioID, c.Iteration = identify(c.Raw)
		return
	}
	var s string
	if json.Unmarshal(m["mode"], &s) == nil {
		c.Mode = s
	}
	if json.Unmarshal(m["scenario_id"], &s) == nil {
		c.ScenarioID = s
	}
	var it float64
	if json.Unmarshal(m["iteration"], &it) == nil && it == float64(int(it)) {
		c.Iteration = int(it)
	}
	rule := func(field, want string, v json.RawMessage) bool {
		if string(bytes.TrimSpace(v)) == want {
			return true
		}
		c.Diagnostics = append(c.Diagnostics, c.diagnostic(field, want, describe(field, v)))
		return false
	}
	c.SuccessOK = rule("success", "true", m["success"])
	c.OutputValidOK = rule("output_valid", "true", m["output_valid"])
	c.ErrorNullOK = rule("error", "null", m["error"])
}

func (c *Checked) diagnostic(field, want, got string) Diagnostic {
	return Diagnostic{Mode: c.Mode, File: c.File, Line: c.Line, ScenarioID: c.ScenarioID, Iteration: c.Iteration,
		Field: field, Expected: want, Got: got}
}

// describe shows a raw value in a diagnostic: an error object as
// "type: message", as Violations does, anything else as written.
func describe(field string, v json.RawMessage) string {
	if v == nil {
		return "nothing (field missing)"
	}
	var e RowError
	if field == "error" && bytes.HasPrefix(bytes.TrimSpace(v), []byte("{")) && json.Unmarshal(v, &e) == nil && e.Type != "" {
		return textfmt.Truncate(e.Type+": "+e.Message, 200)
	}
	return textfmt.Truncate(string(v), 120)
}

// identify reads a row's mode, scenario_id and iteration from a line that
// is not valid JSON, where each is written as "key": value: a row with
// a NaN in it still names its scenario.
func identify(line []byte) (mode, id string, iteration int) {
	str := func(key string) string {
		v := valueOf(line, key)
		var s string
		if len(v) > 0 && v[0] == '"' {
			if end := stringEnd(v); end > 0 && json.Unmarshal(v[:end], &s) == nil {
				return s
			}
		}
		return ""
	}
	mode, id = str("mode"), str("scenario_id")
	v := valueOf(line, "iteration")
	n := 0
	for n < len(v) && v[n] >= '0' && v[n] <= '9' && n < 9 {
		n++
	}
	if n > 0 {
		for _, d := range v[:n] {
			iteration = iteration*10 + int(d-'0')
		}
	}
	return mode, id, iteration
}

// valueOf returns the bytes after the first "key": in line, or nil.
func valueOf(line []byte, key string) []byte {
	i := bytes.Index(line, []byte(`"`+key+`"`))
	if i < 0 {
		return nil
	}
	rest := bytes.TrimLeft(line[i+len(key)+2:], " \t")
	if len(rest) == 0 || rest[0] != ':' {
		return nil
	}
	return bytes.TrimLeft(rest[1:], " \t")
}

// stringEnd is the length of the JSON string literal v starts with, or 0.
func stringEnd(v []byte) int {
	for i := 1; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return 0
}

package suite

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxLineBytes bounds one row. Real rows are about 1 KB; a line this long
// is not a row but a corrupted or wrong file.
const MaxLineBytes = 16 << 20

// ParseError is a row that cannot be read. Its message has the form
// "file:line: field: expected X, got Y" so that a person can open the file
// at the line and see what to fix.
type ParseError struct {
	File     string
	Line     int    // 1-based
	Field    string // dotted path, e.g. "tokens.cache_read", or "row" for the line as a whole
	Expected string
	Got      string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %s: expected %s, got %s", e.File, e.Line, e.Field, e.Expected, e.Got)
}

// ErrStop may be returned by a ReadFile callback to end reading early
// without an error.
var ErrStop = errors.New("stop reading")

// ReadOptions tune ReadFileWith.
type ReadOptions struct {
	// OnBadRow is called for every row that cannot be read. Returning nil
	// skips the row and goes on; returning an error stops reading with that
	// error. A nil OnBadRow stops at the first bad row.
	OnBadRow func(*ParseError) error
}

// ReadFile streams the rows of the suite JSONL file at path to fn, in file
// order, and stops at the first malformed row with a *ParseError. Blank
// lines are skipped and unknown keys ignored, as the benchmark's own
// reader does.
//
// The *Row passed to fn is reused for the next row: copy the value (not
// the pointer) to keep it. A file without rows is not an error; callers
// that need rows decide what zero rows means for them.
func ReadFile(path string, fn func(*Row) error) error {
	return ReadFileWith(path, ReadOptions{}, fn)
}

// ReadFileWith is ReadFile with options, e.g. to skip bad rows.
func ReadFileWith(path string, opts ReadOptions, fn func(*Row) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read suite: %w", err)
	}
	defer f.Close()
	err = Read(f, path, opts, fn)
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// Read streams rows from r; name is used as the file in error messages.
// A line over MaxLineBytes is a bad row like any other: it is reported
// with its line number, and with an OnBadRow that goes on, the rest of the
// file is read.
func Read(r io.Reader, name string, opts ReadOptions, fn func(*Row) error) error {
	dec := newDecoder()
	var row Row
	return eachLine(r, name, func(lineNo int, line []byte, tooLong int) error {
		var pe *ParseError
		if tooLong > 0 {
			pe = tooLongError(name, lineNo, tooLong)
		} else {
			row = Row{}
			if derr := dec.decodeRow(line, &row); derr != nil {
				fe := derr.(*fieldError)
				pe = &ParseError{File: name, Line: lineNo, Field: fe.Field, Expected: fe.Expected, Got: fe.Got}
			}
		}
		if pe != nil {
			if opts.OnBadRow == nil {
				return pe
			}
			return opts.OnBadRow(pe)
		}
		row.File, row.Line = name, lineNo
		return fn(&row)
	})
}

// ReadAll reads every row of the suite file at path, stopping at the
// first malformed row with a *ParseError.
func ReadAll(path string) ([]Row, error) {
	var rows []Row
	err := ReadFile(path, func(r *Row) error {
		rows = append(rows, *r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes bounds one row. Real rows are about 1 KB; a line this long
// is not a row but a corrupted or wrong file.
const MaxLineBytes = 16 << 20

// ErrStop may be returned by a ReadFile callback to end reading early
// without an error.
var ErrStop = errors.New("stop reading")

// ReadOptions tune ReadFileWith.
type ReadOptions struct {
	// OnBadRow is called for every line that is not a valid row. Returning
	// nil skips the line and goes on; returning an error stops reading
	// with that error. A nil OnBadRow stops at the first bad line.
	OnBadRow func(*Diagnostic) error
	// Upstream reads rows as upstream's report does, for a reader that
	// only reports: any non-empty scenario_id (s1, Repo_Issue_1,
	// swe/django-1234, non-ASCII) and any number in timing_breakdown.
	// Where IDs become paths or arguments (set, reruns) the strict rule
	// of the benchmark's ID pattern stays. An ID is shown escaped
	// (ShowID).
	Upstream bool
}

// ReadFile streams the rows of the suite JSONL file at path to fn, in file
// order, and stops at the first malformed row with a *Diagnostic: the
// strict reading of report. Blank lines are skipped and unknown keys
// ignored, as the benchmark's own reader does.
//
// The *Row passed to fn is reused for the next row: copy the value (not
// the pointer) to keep it. A file without rows is not an error; callers
// that need rows decide what zero rows means for them.
func ReadFile(path string, fn func(*Row) error) error {
	return ReadFileWith(path, ReadOptions{}, fn)
}

// ReadFileWith is ReadFile with options, e.g. to skip bad rows.
func ReadFileWith(path string, opts ReadOptions, fn func(*Row) error) error {
	return ReadFileContext(context.Background(), path, opts, fn)
}

// ReadFileContext is ReadFileWith that stops, with an error, once ctx is
// done. The file must be a regular file (a link to one is followed):
// see Open.
func ReadFileContext(ctx context.Context, path string, opts ReadOptions, fn func(*Row) error) error {
	f, err := Open(ctx, path, true)
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

// Read streams rows from r; name is used as the file in diagnostics.
// A line over MaxLineBytes is a bad row like any other: it is reported
// with its line number, and with an OnBadRow that goes on, the rest of the
// file is read.
func Read(r io.Reader, name string, opts ReadOptions, fn func(*Row) error) error {
	dec := newDecoder()
	dec.upstream = opts.Upstream
	var row Row
	return eachLine(r, name, func(lineNo int, line []byte, tooLong int) error {
		row = Row{}
		if d := dec.line(name, lineNo, line, tooLong, &row); d != nil {
			if opts.OnBadRow == nil {
				return d
			}
			return opts.OnBadRow(d)
		}
		return fn(&row)
	})
}

// line decodes one line into row (which must be zero) and locates it, or
// returns why the line is not a valid row. Both readers go through here,
// so the lenient and the strict reader fail the same lines.
func (dec *decoder) line(name string, lineNo int, line []byte, tooLong int, row *Row) *Diagnostic {
	if tooLong > 0 {
		return &Diagnostic{File: name, Line: lineNo, Field: "row",
			Expected: fmt.Sprintf("a line of at most %d bytes", MaxLineBytes), Got: fmt.Sprintf("a line of %d bytes", tooLong)}
	}
	if err := dec.decodeRow(line, row); err != nil {
		d := err.(*Diagnostic)
		d.File, d.Line = name, lineNo
		return d
	}
	row.File, row.Line = name, lineNo
	return nil
}

// ReadAll reads every row of the suite file at path, stopping at the
// first malformed row with a *Diagnostic.
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

package suite

import (
	"bufio"
	"bytes"
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
func Read(r io.Reader, name string, opts ReadOptions, fn func(*Row) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	dec := newDecoder()
	var long []byte
	var row Row
	lineNo := 0
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
				if len(long) > MaxLineBytes {
					return &ParseError{File: name, Line: lineNo + 1, Field: "row", Expected: fmt.Sprintf("a line of at most %d bytes", MaxLineBytes), Got: "a longer line"}
				}
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("read %s: %w", name, err)
		}
		if len(line) > 0 {
			lineNo++
			trimmed := bytes.TrimSpace(line)
			if len(trimmed) > 0 {
				row = Row{}
				if derr := dec.decodeRow(trimmed, &row); derr != nil {
					fe := derr.(*fieldError)
					pe := &ParseError{File: name, Line: lineNo, Field: fe.Field, Expected: fe.Expected, Got: fe.Got}
					if opts.OnBadRow == nil {
						return pe
					}
					if herr := opts.OnBadRow(pe); herr != nil {
						return herr
					}
				} else {
					row.File, row.Line = name, lineNo
					if ferr := fn(&row); ferr != nil {
						return ferr
					}
				}
			}
		}
		if err == io.EOF {
			return nil
		}
	}
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

package suite

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"unicode"
)

// eachLine calls fn for every non-blank line of r (trimmed) with its
// 1-based number. A line longer than MaxLineBytes is never held in memory
// whole: fn gets a nil line and the line's length in tooLong, and reading
// goes on with the next line, so one corrupted line cannot hide the rest
// of the file.
func eachLine(r io.Reader, name string, fn func(lineNo int, line []byte, tooLong int) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte
	lineNo := 0
	for {
		line, err := br.ReadSlice('\n')
		tooLong := 0
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				if tooLong > 0 {
					tooLong += len(line)
					continue
				}
				long = append(long, line...)
				if len(long) > MaxLineBytes {
					tooLong = len(long)
					long = long[:0]
				}
			}
			line = long
			if tooLong > 0 {
				line = nil
			}
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("read %s: %w", name, err)
		}
		if len(line) > 0 || tooLong > 0 {
			lineNo++
			trimmed := trimLine(line)
			if len(trimmed) > 0 || tooLong > 0 {
				if ferr := fn(lineNo, trimmed, tooLong); ferr != nil {
					return ferr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// tooLongError is the diagnostic of a line over MaxLineBytes.
func tooLongError(name string, lineNo, n int) *ParseError {
	return &ParseError{File: name, Line: lineNo, Field: "row", Expected: fmt.Sprintf("a line of at most %d bytes", MaxLineBytes), Got: fmt.Sprintf("a line of %d bytes", n)}
}

// Checked is one line of a suite file judged leniently, the way `set`
// reads the files the benchmark just wrote: a line that is not a valid row
// is not a reason to stop but a failing row, located by file and line.
type Checked struct {
	// Row is the decoded row, or nil when the line is not a valid row.
	Row *Row
	// Raw is the line as written (nil for a line over MaxLineBytes), kept
	// so that merged files carry every field.
	Raw []byte
	// Err says why the line is not a valid row; nil when Row is set. It
	// is the same error the strict reader stops with, so the lenient and
	// the strict reader fail the same lines.
	Err *ParseError
}

// ReadChecked streams every non-blank line of r to fn as a Checked value.
// It never stops at a bad row; it stops only when r cannot be read or fn
// returns an error. Raw aliases a buffer reused for the next line: copy it
// to keep it.
func ReadChecked(r io.Reader, name string, fn func(lineNo int, c Checked) error) error {
	dec := newDecoder()
	return eachLine(r, name, func(lineNo int, line []byte, tooLong int) error {
		if tooLong > 0 {
			return fn(lineNo, Checked{Err: tooLongError(name, lineNo, tooLong)})
		}
		var row Row
		if derr := dec.decodeRow(line, &row); derr != nil {
			fe := derr.(*fieldError)
			return fn(lineNo, Checked{Raw: line, Err: &ParseError{File: name, Line: lineNo, Field: fe.Field, Expected: fe.Expected, Got: fe.Got}})
		}
		row.File, row.Line = name, lineNo
		return fn(lineNo, Checked{Row: &row, Raw: line})
	})
}

// trimLine trims a line as JavaScript's String.prototype.trim does, which
// the benchmark's reader applies: white space and also U+FEFF, so that a
// byte-order mark before the first row is not part of it.
func trimLine(b []byte) []byte {
	return bytes.TrimFunc(b, func(r rune) bool { return r == '\uFEFF' || unicode.IsSpace(r) })
}

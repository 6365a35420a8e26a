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

// trimLine trims a line as JavaScript's String.prototype.trim does, which
// the benchmark's reader applies: white space and line terminators, and
// also U+FEFF, so that a byte-order mark before the first row is not part
// of it.
func trimLine(b []byte) []byte { return bytes.TrimFunc(b, isJSSpace) }

// isJSSpace reports whether JavaScript's trim removes r: Go's white space
// (the Unicode White_Space property) but for U+0085 (NEL), which
// JavaScript counts neither as white space nor as a line terminator, plus
// U+FEFF, which it does count.
func isJSSpace(r rune) bool {
	return r == '\uFEFF' || (r != '\u0085' && unicode.IsSpace(r))
}

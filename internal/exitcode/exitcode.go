// Package exitcode is the one place where benchgate's exit codes and the
// mapping of error kinds to them are defined. The command line, the
// Action and the modes' own results use it, so that a code means the same
// thing whoever reports it.
package exitcode

import (
	"errors"
	"fmt"
)

// Exit codes of every mode.
const (
	OK     = 0 // the mode ran and what it judged holds
	Failed = 1 // the mode ran and what it judged does not hold, or it could not finish
	Usage  = 2 // bad flags or bad input: nothing was judged
	// Incomplete is SWE-bench's "ended incomplete, nothing failed" (an
	// instance out of loops or budget), the code the origin scripts used.
	Incomplete = 20
)

// ErrUsage is the kind of every error caused by what the user asked for
// (a bad option value, a missing file, an unknown set): errors.Is(err,
// ErrUsage) maps err to Usage. Packages wrap it ("%w: ...") or return a
// *UsageError.
var ErrUsage = errors.New("bad input")

// UsageError marks an error as caused by the input, as cli/cli's
// FlagError does, without changing its message.
type UsageError struct{ Err error }

func (e *UsageError) Error() string        { return e.Err.Error() }
func (e *UsageError) Unwrap() error        { return e.Err }
func (e *UsageError) Is(target error) bool { return target == ErrUsage }

// Usagef is a *UsageError with a formatted message.
func Usagef(format string, a ...any) error {
	return &UsageError{Err: fmt.Errorf(format, a...)}
}

// Of is the exit code of a mode that returned err: OK for nil, Usage for
// an error of the input, Failed for any other.
func Of(err error) int {
	switch {
	case err == nil:
		return OK
	case errors.Is(err, ErrUsage):
		return Usage
	}
	return Failed
}

// Status is the word for an exit code that the Action's "status" output
// and summaries carry.
func Status(code int) string {
	switch code {
	case OK:
		return "pass"
	case Failed:
		return "fail"
	case Incomplete:
		return "incomplete"
	}
	return "error"
}

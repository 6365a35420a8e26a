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
	Failed = 1 // the mode ran and what it judged does not hold, or a run that started stopped before it could judge (its record says so)
	Usage  = 2 // the mode could not start: bad flags, bad input or bad setup, found before anything is judged; no record says otherwise
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

// ErrSetup is the kind of every error caused by the machine the mode
// runs on rather than by what it judges: a Docker engine or a model
// endpoint that cannot be reached. Nothing was judged, so it maps to
// Usage, and the error says what to do (SetupError.Fix).
var ErrSetup = errors.New("bad setup")

// SetupError is a missing or unreachable part of the setup, with what
// to do about it.
type SetupError struct {
	Err error
	// Fix says what to do, in a sentence ("start the Docker engine or set
	// DOCKER_HOST to its socket").
	Fix string
}

func (e *SetupError) Error() string {
	if e.Fix == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + "; " + e.Fix
}
func (e *SetupError) Unwrap() error        { return e.Err }
func (e *SetupError) Is(target error) bool { return target == ErrSetup }

// Of is the exit code of a mode that returned err: OK for nil, Usage for
// an error of the input or of the setup, Failed for any other.
func Of(err error) int {
	switch {
	case err == nil:
		return OK
	case errors.Is(err, ErrUsage), errors.Is(err, ErrSetup):
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

// CodeError ends a command with Code whatever the kind of Err: a gate
// that failed (Failed), a run that ended incomplete (Incomplete), a core
// error the command knows was caused by its input (Usage). A nil Err
// means the command has already said why (its result on stdout), so
// nothing more is printed.
type CodeError struct {
	Code int
	Err  error
}

func (e *CodeError) Error() string {
	if e.Err == nil {
		return ""
	}
	return e.Err.Error()
}
func (e *CodeError) Unwrap() error { return e.Err }

// WithCode is err ending its command with code; a nil err only sets the
// code (see CodeError).
func WithCode(code int, err error) error { return &CodeError{Code: code, Err: err} }

// Code is the exit code of a command that returned err: a CodeError's
// Code where err holds one, else Of(err).
func Code(err error) int {
	var ce *CodeError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return Of(err)
}

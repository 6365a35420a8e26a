package exitcode

import (
	"errors"
	"fmt"
	"strings"
)

// OptionError is a bad option value a core package found. Core packages
// name the option by its key (max_loops, codex_config), never by a
// command-line flag: the command line knows its flags and renames the
// option in the errors it prints (Rename), so a person reads "--max-loops
// 0: ..." and a program that calls the package reads "max_loops 0: ...".
type OptionError struct {
	// Option is the option's key; Rename replaces it with a flag name.
	Option string
	// Err is what follows the option's name: " 0: expected ...",
	// " is required", ": <cause>".
	Err error
}

func (e *OptionError) Error() string { return e.Option + e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

// Optionf is an *OptionError of option; format is what follows its name
// and may wrap a cause with %w.
func Optionf(option, format string, a ...any) error {
	return &OptionError{Option: option, Err: fmt.Errorf(format, a...)}
}

// Rename returns err as the command line shows it: every OptionError in
// its chain names its option as names maps it (the command's flags), in
// the message of err as a whole too; errors.Is and errors.As still reach
// everything err wraps. An option names does not hold keeps its key.
func Rename(err error, names map[string]string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var walk func(e error)
	walk = func(e error) {
		for ; e != nil; e = errors.Unwrap(e) {
			if oe, ok := e.(*OptionError); ok {
				if n, ok := names[oe.Option]; ok {
					old := oe.Error()
					oe.Option = n
					msg = strings.Replace(msg, old, oe.Error(), 1)
				}
			}
			if j, ok := e.(interface{ Unwrap() []error }); ok {
				for _, x := range j.Unwrap() {
					walk(x)
				}
				return
			}
		}
	}
	walk(err)
	return &renamed{msg: msg, err: err}
}

// renamed is an error shown with its options renamed.
type renamed struct {
	msg string
	err error
}

func (r *renamed) Error() string { return r.msg }
func (r *renamed) Unwrap() error { return r.err }

package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/benchgate/benchgate/internal/exitcode"
)

// A command's run returns the error that ends it, and exit is the one
// place that prints it and turns it into the exit code, the way the best
// Go command lines keep "what went wrong" apart from "how it is said":
// a command's parts return errors and never write to stderr themselves.

// exit prints err on stderr under the command's name ("benchgate
// report: ...") and returns its exit code (exitcode.Code): 0 for nil,
// the code a *exitcode.CodeError carries, else the code of the error's
// kind. Every wrong value of a command line (problems) gets a line of
// its own; an error with no message (the command has already said why)
// prints nothing.
func exit(env *Env, name string, err error) int {
	if err == nil {
		return ExitOK
	}
	printError(env.Stderr, name, err)
	var u *usageAfter
	if errors.As(err, &u) {
		u.fs.Usage()
	}
	return exitcode.Code(err)
}

// printError prints err's lines under the command's name; an empty name
// is benchgate's own ("benchgate: unknown command ...").
func printError(w io.Writer, name string, err error) {
	prefix := "benchgate " + name + ": "
	if name == "" {
		prefix = "benchgate: "
	}
	var ps problems
	if errors.As(err, &ps) {
		for _, p := range ps {
			fmt.Fprintf(w, "%s%s\n", prefix, p)
		}
		return
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(w, "%s%s\n", prefix, msg)
	}
}

// problems are every wrong value of one command line, found before
// anything is read, so that one fix of the command line fixes them all;
// each is printed on a line of its own. They are the input's fault:
// exit 2.
type problems []string

func (p problems) Error() string        { return strings.Join(p, "\n") }
func (p problems) Is(target error) bool { return target == exitcode.ErrUsage }

// usageAfter is an error after which the command's usage is printed
// (fs.Usage), for a command line that is missing what the command is
// about.
type usageAfter struct {
	err error
	fs  *pflag.FlagSet
}

func (u *usageAfter) Error() string { return u.err.Error() }
func (u *usageAfter) Unwrap() error { return u.err }

// withUsage is err printed with fs's usage after it.
func withUsage(err error, fs *pflag.FlagSet) error { return &usageAfter{err: err, fs: fs} }

// usageError is err, caused by the command line or its input, ending the
// command with exit 2 whatever its kind.
func usageError(err error) error { return exitcode.WithCode(ExitUsage, err) }

// usagef is a usageError with a formatted message.
func usagef(format string, a ...any) error {
	return usageError(fmt.Errorf(format, a...))
}

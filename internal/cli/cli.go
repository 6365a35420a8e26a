// Package cli turns a command line into a call of one benchgate mode.
// The binary's main and the GitHub Action adapter both go through Main, so
// a mode behaves the same whoever starts it.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/suggest"
)

// The exit codes under the names the commands use; package exitcode
// defines them and maps error kinds to them.
const (
	ExitOK         = exitcode.OK
	ExitFailed     = exitcode.Failed
	ExitUsage      = exitcode.Usage
	ExitIncomplete = exitcode.Incomplete
)

// Env is what a mode may use of the outside world. Tests fill it with
// buffers and temporary folders; main fills it from the process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads an environment variable; tests pass a map lookup.
	Getenv func(string) string
	// Dir is the working directory relative paths are resolved against.
	Dir string
	// Now is the clock, so that dated paths are reproducible in tests.
	Now func() time.Time
	// Result, when set, receives what the mode returned (the Action
	// renders it instead of looking for the mode's files).
	Result *Result
	// Action runs the GitHub Action's step for "benchgate action" and
	// returns its exit code; the binary's main sets it to the Action
	// adapter's, so that the command line never depends on the adapter
	// (the adapter depends on it). Nil refuses "benchgate action".
	Action func(ctx context.Context, step *ActionStep) int
	// ParseOnly stops a command once its flags have parsed, with exit 0
	// (the test of the help texts' examples that need a Docker engine or
	// a model endpoint checks them this way).
	ParseOnly bool
	// onParse, when set, receives every flag set parsed (tests read a
	// command's flags from it).
	onParse func(*pflag.FlagSet)
}

// ProcessEnv returns an Env backed by the real process.
func ProcessEnv() *Env {
	dir, err := os.Getwd()
	if err != nil {
		dir = "."
	}
	return &Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
		Dir:    dir,
		Now:    time.Now,
	}
}

// Command is one subcommand of the binary.
type Command struct {
	Name    string
	Summary string
	Run     func(ctx context.Context, env *Env, args []string) int
}

// Commands lists every mode the binary offers, in the order help shows.
func Commands() []Command {
	return []Command{
		{Name: "report", Summary: "Metric System v2 summary and gate over suite JSONL rows", Run: runReport},
		{Name: "set", Summary: "verify one scenario set: paired modes, row validation, bounded reruns", Run: runSet},
		{Name: "ordered", Summary: "verify the ordered scenario sets, stop at the first failure", Run: runOrdered},
		{Name: "swebench", Summary: "SWE-bench predictions: run, batch, prepare-images, merge", Run: runSwebench},
		{Name: "qa-audit", Summary: "prove every benchmark question by execution and remediate", Run: runQAAudit},
		{Name: "drift", Summary: "name the runs and commits where a metric moved, from the runs kept", Run: runDrift},
		{Name: "pr-comment", Summary: "post a pull-request comment kept in a file (the second stage for forks)", Run: runPRComment},
		{Name: "action", Summary: "run as the GitHub Action (inputs from BENCHGATE_INPUTS or INPUT_*)", Run: runAction},
	}
}

// Main runs the subcommand named by args[0] and returns the exit code.
func Main(ctx context.Context, env *Env, args []string) int {
	// "benchgate --help report" is read as "benchgate help report", as
	// git reads "git --help log".
	if len(args) > 1 && (args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
		return runHelp(ctx, env, args[1:])
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(env.Stdout)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	if args[0] == "version" || args[0] == "--version" {
		fmt.Fprintln(env.Stdout, "benchgate", Version)
		return ExitOK
	}
	name := args[0]
	// The Action's mode name for the batch is also accepted on the command line.
	if name == "swebench-batch" {
		return runSwebench(ctx, env, append([]string{"batch"}, args[1:]...))
	}
	for _, c := range Commands() {
		if c.Name == name {
			return c.Run(ctx, env, args[1:])
		}
	}
	// The batch's Action name is a command too, so a near miss of it is
	// suggested as well.
	return exit(env, "", usagef("unknown command %q%s (expected one of: %s)", name,
		suggest.DidYouMean(name, append(commandNames(), "swebench-batch", "help", "version"), func(c string) string { return "benchgate " + c }),
		strings.Join(commandNames(), ", ")))
}

// runHelp answers "benchgate help <command> [<subcommand>]" with exactly
// what "benchgate <command> [<subcommand>] --help" prints, so the two
// spellings never teach different things; an unknown topic is refused
// like an unknown command.
func runHelp(ctx context.Context, env *Env, topic []string) int {
	name := topic[0]
	if name == "swebench-batch" {
		name = "swebench"
		topic = append([]string{"swebench", "batch"}, topic[1:]...)
	}
	for _, c := range Commands() {
		if c.Name == name {
			return c.Run(ctx, env, append(append([]string(nil), topic[1:]...), "--help"))
		}
	}
	return exit(env, "help", usagef("unknown help topic %q%s (expected one of: %s)", name,
		suggest.DidYouMean(name, append(commandNames(), "swebench-batch"), func(c string) string { return "benchgate help " + c }),
		strings.Join(commandNames(), ", ")))
}

// Version is set at build time with -ldflags "-X ...cli.Version=...".
var Version = "dev"

func commandNames() []string {
	var names []string
	for _, c := range Commands() {
		names = append(names, c.Name)
	}
	sort.Strings(names)
	return names
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage:\n  benchgate <command> [flags]")
	fmt.Fprintln(w, "\nbenchgate runs AI-agent benchmarks in CI and judges them row by row; the same\ncommands run as a GitHub Action (benchgate action, docs/action.md).")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range Commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.Name, c.Summary)
	}
	fmt.Fprintln(w, "\nRun 'benchgate <command> --help' (or 'benchgate help <command>') for its flags and examples.")
	fmt.Fprintln(w, "\nExit codes: 0 the judged thing holds; 1 it does not, or a run that started stopped\nbefore it could judge (its record says fail and why); 2 it could not start: bad flags,\nbad input or bad setup, found before anything is judged (no record says otherwise);\n20 swebench run's incomplete instance.")
}

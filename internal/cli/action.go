package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"
)

// runAction is the GitHub Action's entry point (the image's ENTRYPOINT is
// "benchgate action"). Everything it needs comes from the step's
// environment: INPUT_* for the options, GITHUB_* for the workspace and
// the file commands, ACTIONS_* for artifact uploads. It takes no flags.
// It reads the step's inputs and hands the step to Env.Action, which
// runs the mode they name through ActionStep.RunMode.
func runAction(ctx context.Context, env *Env, args []string) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" {
			fmt.Fprint(env.Stdout, actionHelp)
			return ExitOK
		}
		return exit(env, "action", usagef("takes no arguments (got %q); options come from INPUT_* variables", args))
	}
	in, err := inputGetenv(env.Getenv)
	if err != nil {
		// The error may quote the inputs: escaped as command data.
		githubactions.New(githubactions.WithWriter(env.Stdout)).WithFieldsMap(map[string]string{"title": "benchgate"}).Errorf("%s", err)
		return ExitUsage
	}
	if env.Action == nil {
		return exit(env, "action", usagef("this build of benchgate has no GitHub Action adapter"))
	}
	return env.Action(ctx, &ActionStep{
		Getenv: in.getenv,
		Environ: func() []string {
			// The INPUT_* variables the step removed still count for
			// the warning about inputs given the wrong way.
			environ := os.Environ()
			for _, name := range in.removed {
				environ = append(environ, name+"=(removed by the step)")
			}
			return environ
		},
		InputsFromJSON: in.fromJSON,
		InputNames:     in.names,
		Stdout:         env.Stdout,
		Dir:            env.Dir,
		Now:            env.Now,
		RunMode: func(ctx context.Context, dir string, extra map[string]string, argv []string, stdout io.Writer, res *Result) int {
			return runActionMode(ctx, env, dir, extra, argv, stdout, res)
		},
	})
}

// ActionStep is what the GitHub Action adapter gets from "benchgate
// action": the step's inputs and environment, and the way to run the
// mode they name as a person would type it.
type ActionStep struct {
	// Getenv answers INPUT_* lookups from the step's inputs (however
	// they were passed) and everything else from the environment.
	Getenv func(string) string
	// Environ lists the step's environment, with the INPUT_* variables
	// the step removed, to warn about inputs given the wrong way.
	Environ func() []string
	// InputsFromJSON says the inputs came as one JSON object, so no
	// INPUT_* variable is read; InputNames are its names.
	InputsFromJSON bool
	InputNames     []string
	// Stdout is the step log.
	Stdout io.Writer
	Dir    string
	Now    func() time.Time
	// RunMode runs one mode in dir with extra environment variables and
	// argv (mode name first), writing its output to stdout, stores what
	// the mode returned in res, and returns its exit code. Before the
	// mode starts it removes the runner's credentials and the raw inputs
	// from the process environment (scrubRunnerEnv).
	RunMode func(ctx context.Context, dir string, extra map[string]string, argv []string, stdout io.Writer, res *Result) int
}

// stderrRecorder is offered by the stdout writer the Action adapter
// passes to RunMode: what the mode writes to stderr also goes to
// StderrWriter, so that the reason of a mode that stopped with an error
// reaches the job summary.
type stderrRecorder interface {
	StderrWriter() io.Writer
}

// runActionMode runs the mode argv names for the Action's step.
func runActionMode(ctx context.Context, env *Env, dir string, extra map[string]string, argv []string, stdout io.Writer, res *Result) int {
	// The inputs have been read and the artifact client holds its
	// token: nothing the mode starts (the benchmark, its agent, a
	// test) needs the runner's own credentials or the raw inputs.
	scrubRunnerEnv()
	// Secrets reach the mode and the commands it starts through the
	// environment, never through argv.
	for k, v := range extra {
		os.Setenv(k, v)
	}
	child := *env
	child.Dir = dir
	child.Result = res
	child.Stdout = stdout
	// The mode's stderr goes to the same stream as its stdout, so
	// that it stays inside the ::stop-commands:: window the adapter
	// opened there: the runner reads the two streams apart and a
	// workflow command printed on stderr could otherwise escape it.
	child.Stderr = stdout
	if r, ok := stdout.(stderrRecorder); ok {
		child.Stderr = io.MultiWriter(stdout, r.StderrWriter())
	}
	child.Getenv = func(k string) string {
		if v, ok := extra[k]; ok {
			return v
		}
		return env.Getenv(k)
	}
	return Main(ctx, &child, argv)
}

const actionHelp = `Usage:
  benchgate action

Runs as the GitHub Action: reads the step's inputs, runs that mode with the
same flags a person would type, and writes step outputs, the job summary,
annotations and artifacts. It takes no flags. The composite action
(action.yml) passes every input as one JSON object in BENCHGATE_INPUTS
(${{ toJSON(inputs) }}); without it, as in a docker:// step, each input is
read from INPUT_<NAME> the way the runner sets it (INPUT_SUITE-JSONL, dashes
kept). An INPUT_* variable that looks like an input but is not read gets a
warning naming the input meant. See docs/action.md.

Examples:
  # what the composite step runs
  BENCHGATE_INPUTS='{"mode":"report","suite-jsonl":"results/*-suite.jsonl","gate":"true"}' benchgate action
  # a docker:// step: the runner sets INPUT_* itself (env allows the dash)
  env INPUT_MODE=report 'INPUT_SUITE-JSONL=results/ghx-suite.jsonl' benchgate action
`

// runnerOnlyEnv are the variables the runner gives a step for its own
// services: the artifact and cache service token, the OIDC token request.
// A mode's children never need them, and a benchmark or an agent that
// could read them could upload or impersonate the job.
var runnerOnlyEnv = []string{
	"ACTIONS_RUNTIME_TOKEN",
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN",
	"ACTIONS_ID_TOKEN_REQUEST_URL",
	"ACTIONS_RESULTS_URL",
	"ACTIONS_RUNTIME_URL",
	"ACTIONS_CACHE_URL",
}

// scrubRunnerEnv removes the runner's own credentials, BENCHGATE_INPUTS
// and every INPUT_* variable (which hold the secrets given as inputs, under their input
// names) from the process environment that children inherit. The secrets
// the mode does need are set again under their own names by the caller.
func scrubRunnerEnv() {
	for _, k := range runnerOnlyEnv {
		os.Unsetenv(k)
	}
	os.Unsetenv(inputsVar)
	os.Unsetenv(inputsFileVar)
	for _, kv := range os.Environ() {
		if k, _, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "INPUT_") {
			os.Unsetenv(k)
		}
	}
}

package cli

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/benchgate/benchgate/internal/proc"
	"github.com/benchgate/benchgate/internal/suggest"
	"github.com/benchgate/benchgate/internal/textfmt"
	"github.com/spf13/pflag"
)

// parseCommandLine parses args into fs. run is false when the command
// must stop there with err: nil after --help (its help printed on stdout)
// or with Env.ParseOnly, else pflag's own error (it names the flag and
// the value: `invalid argument "x" for "--repetitions" flag`) said as
// valueError says it, exit 2. Every command parses through here so that
// no flag error is dropped.
func parseCommandLine(env *Env, fs *pflag.FlagSet, args []string) (run bool, err error) {
	h, hasHelp := helpFor(fs.Name())
	if hasHelp {
		// --help prints the command's help on stdout; a bad flag prints
		// only its error (pflag would dump every flag after it).
		fs.Usage = func() {}
	}
	err = fs.Parse(args)
	if env.onParse != nil {
		env.onParse(fs)
	}
	if hasHelp {
		fs.Usage = func() { h.Write(env.Stderr, fs) }
	}
	switch {
	case err == nil:
		return !env.ParseOnly, nil
	case errors.Is(err, pflag.ErrHelp):
		if hasHelp {
			h.Write(env.Stdout, fs)
		}
		return false, nil
	}
	return false, usagef("%v (see benchgate %s --help)", valueError(fs, err), fs.Name())
}

// pflagValue matches pflag's message for a value its flag type refuses:
// `invalid argument "two" for "-r, --repetitions" flag: strconv.ParseInt: ...`.
var pflagValue = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([^"]+)" flag: `)

// valueError says, for a value a flag's type refused, the flag, the value
// and what was expected (`--repetitions "two": expected a whole number
// such as 3`) instead of the Go parser's message; other errors pass as
// they are.
func valueError(fs *pflag.FlagSet, err error) error {
	if name, ok := strings.CutPrefix(err.Error(), "unknown flag: --"); ok {
		return fmt.Errorf("%w%s", err, suggest.DidYouMean(name, flagNames(fs), func(n string) string { return "--" + n }))
	}
	m := pflagValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	f := fs.Lookup(m[2])
	if f == nil {
		return err
	}
	want := map[string]string{
		"int": "a whole number such as 3", "int64": "a whole number such as 3", "int32": "a whole number such as 3",
		"uint": "a whole number >= 0 such as 3", "uint64": "a whole number >= 0 such as 3",
		"float64": "a number such as 10 or 2.5", "float32": "a number such as 10 or 2.5",
		"duration": "a duration such as 90s, 30m or 2h", "bool": "true or false",
	}[f.Value.Type()]
	if want == "" {
		return err
	}
	return fmt.Errorf("--%s %q: expected %s", f.Name, m[1], want)
}

// flagNames lists the flags a command takes, hidden ones left out (they
// are never suggested).
func flagNames(fs *pflag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	return names
}

// reapOrphans stops the benchmark and fixture processes that an earlier
// benchgate left running when it was killed with SIGKILL (they would go on
// writing into the folder this run is about to use), and says so.
func reapOrphans(env *Env, cmd string) {
	reaped, err := proc.ReapOrphans()
	if err != nil {
		fmt.Fprintf(env.Stderr, "benchgate %s: %v\n", cmd, err)
		return
	}
	for _, r := range reaped {
		fmt.Fprintf(env.Stderr, "benchgate %s: stopped process %s: it would go on writing into the folders this run uses\n", cmd, r)
	}
}

// checkAPIKeyEnv refuses, as the value of --api-key-env, the variables
// that hold the job's own credentials: the named variable is handed to the
// model client, and for swebench into the agent's container, where the
// agent could read it. A model key belongs in a variable of its own.
func checkAPIKeyEnv(name string) error {
	if name == "" {
		return nil
	}
	return checkEnvName("--api-key-env", name, name)
}

// checkEnvEntry refuses an --env K=V entry whose K is not a variable name
// or is one of the job's credentials: --env values go into the agent's
// container as they are, so GITHUB_TOKEN=... there would hand the agent
// the job's token as surely as --api-key-env GITHUB_TOKEN. The value is
// never printed: it may be a key.
func checkEnvEntry(kv string) error {
	k, _, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return fmt.Errorf("--env %q: expected K=V", textfmt.Truncate(k, 64))
	}
	return checkEnvName("--env", k, k+"=...")
}

// checkEnvName checks name, given to flag as shown, against the names of
// the job's credentials: GITHUB_TOKEN and GH_TOKEN can push to the
// repository; ACTIONS_* reach the runner's services; INPUT_* are raw
// Action inputs.
func checkEnvName(flag, name, shown string) error {
	upper := strings.ToUpper(name)
	switch {
	case upper == "GITHUB_TOKEN" || upper == "GH_TOKEN" || upper == "GH_ENTERPRISE_TOKEN":
	case strings.HasPrefix(upper, "ACTIONS_") || strings.HasPrefix(upper, "INPUT_"):
	default:
		for i, r := range name {
			if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
				return fmt.Errorf("%s %q: expected an environment variable name (letters, digits, underscores)", flag, shown)
			}
		}
		return nil
	}
	return fmt.Errorf("%s %s: refused: that variable holds the job's GitHub or runner credentials, which the model endpoint and the agent must never get; put the model's key in its own variable (for example OPENAI_API_KEY)", flag, shown)
}

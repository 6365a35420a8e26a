package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// helpOf runs "benchgate <args> --help" in-process and returns stdout.
func helpOf(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Dir: t.TempDir()}
	if code := Main(context.Background(), env, append(args, "--help")); code != ExitOK {
		t.Fatalf("%v --help: exit %d\n%s", args, code, errb.String())
	}
	if errb.Len() > 0 {
		t.Errorf("%v --help wrote to stderr:\n%s", args, errb.String())
	}
	return out.String()
}

var flagLine = regexp.MustCompile(`^(?:  -\w, |      )--([a-z0-9-]+)`)

// TestEveryCommandTeaches: every command and subcommand prints a
// synopsis, a paragraph, its flags in groups sorted by name (every flag
// it takes, once), and at least two examples.
func TestEveryCommandTeaches(t *testing.T) {
	var names []string
	for _, c := range Commands() {
		if c.Name != "swebench" {
			names = append(names, c.Name)
		}
	}
	names = append(names, "swebench run", "swebench batch", "swebench prepare-images", "swebench merge")
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			out := helpOf(t, strings.Fields(name)...)
			if !strings.HasPrefix(out, "Usage:\n  benchgate "+name) {
				t.Errorf("no synopsis first:\n%s", out)
			}
			paras := strings.Split(out, "\n\n")
			if len(paras) < 3 || len(strings.Fields(paras[1])) < 15 {
				t.Errorf("no paragraph on what it does:\n%s", out)
			}
			_, examples, _ := strings.Cut(out, "Examples:\n")
			if n := strings.Count(examples, "\n  # "); n < 1 || strings.Count(examples, "  # ") < 2 {
				t.Errorf("fewer than two examples:\n%s", out)
			}
			h, ok := helpFor(name)
			if !ok {
				return // action: a text of its own, no flags
			}
			// Every flag once, each group sorted.
			seen := map[string]int{}
			var group []string
			check := func() {
				if !sort.StringsAreSorted(group) {
					t.Errorf("flags not sorted in a group: %v", group)
				}
				group = nil
			}
			for _, l := range strings.Split(out, "\n") {
				if m := flagLine.FindStringSubmatch(l); m != nil {
					seen[m[1]]++
					group = append(group, m[1])
				} else if strings.HasSuffix(l, ":") {
					check()
				}
			}
			check()
			fs := flagSetOf(t, name)
			fs.VisitAll(func(f *pflag.Flag) {
				if !f.Hidden && seen[f.Name] != 1 {
					t.Errorf("flag --%s listed %d times", f.Name, seen[f.Name])
				}
			})
			if len(h.Examples) < 2 {
				t.Errorf("%d examples", len(h.Examples))
			}
		})
	}
	sw := helpOf(t, "swebench")
	for _, sub := range []string{"run", "batch", "prepare-images", "merge"} {
		if !regexp.MustCompile(`(?m)^  ` + sub + ` +\S`).MatchString(sw) {
			t.Errorf("swebench --help does not list %s:\n%s", sub, sw)
		}
	}
	top := helpOf(t)
	if !strings.Contains(top, "BENCHGATE_INPUTS") {
		t.Errorf("benchgate --help does not say how the Action passes inputs:\n%s", top)
	}
}

// flagSetOf returns the flag set the command parses.
func flagSetOf(t *testing.T, name string) *pflag.FlagSet {
	t.Helper()
	var got *pflag.FlagSet
	env := &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Getenv: func(string) string { return "" }, Dir: t.TempDir(),
		onParse: func(fs *pflag.FlagSet) { got = fs }}
	Main(context.Background(), env, append(strings.Fields(name), "--help"))
	if got == nil {
		t.Fatalf("%s: no flag set parsed", name)
	}
	return got
}

// TestHelpExamplesRun runs every example of every help text as written,
// in a copy of the simulator's benchmark package (examples/) with the
// upstream suite files under results/ and benchgate and benchsim on
// PATH: each judges (exit 0 or 1), none is refused (exit 2). Examples
// that need a Docker engine, a model endpoint or GitHub are checked to
// parse.
func TestHelpExamplesRun(t *testing.T) {
	bg, sim := testenv.Benchgate(t), testenv.Benchsim(t)
	root := testenv.RepoRoot(t)
	ws := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(root, "examples")+"/.", ws).CombinedOutput(); err != nil {
		t.Fatalf("copy examples: %v\n%s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(ws, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	for mode, src := range map[string]string{"agent_direct": "2026-02-25-agent_direct-suite.jsonl", "ghx": "2026-02-25-ghx-suite.jsonl"} {
		b, err := os.ReadFile(filepath.Join(root, "testdata", "suites", src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "results", mode+"-suite.jsonl"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// ordered's cleanup removes the shared manifest: every example
	// starts from a seeded one, as a user's benchmark package has.
	seed := func(t *testing.T) {
		if out, err := exec.Command(sim, "fixtures", "seed", "--seed-id", "help", "--out", filepath.Join(ws, "fixtures", "latest.json")).CombinedOutput(); err != nil {
			t.Fatalf("seed: %v\n%s", err, out)
		}
	}
	path := filepath.Dir(bg) + string(os.PathListSeparator) + filepath.Dir(sim) + string(os.PathListSeparator) + os.Getenv("PATH")

	type ex struct{ cmd, needs string }
	var all []ex
	var names []string
	for name := range helps() {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, e := range helps()[name].Examples {
			all = append(all, ex{e.Command, e.Needs})
		}
	}
	// The texts of their own: action and swebench.
	for _, text := range []string{actionHelp, swebenchHelp} {
		_, examples, _ := strings.Cut(text, "Examples:\n")
		for _, l := range strings.Split(examples, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				all = append(all, ex{cmd: l})
			}
		}
	}
	for _, e := range all {
		t.Run(e.cmd, func(t *testing.T) {
			if e.needs != "" {
				// It needs what this machine may not have: its flags and
				// arguments must parse as the command reads them.
				args := strings.Fields(strings.TrimPrefix(e.cmd, "benchgate "))
				var errb bytes.Buffer
				env := &Env{Stdout: &bytes.Buffer{}, Stderr: &errb, Getenv: func(string) string { return "" }, Dir: ws, ParseOnly: true}
				if code := Main(context.Background(), env, args); code != ExitOK {
					t.Errorf("flags of %q do not parse (exit %d): %s", e.cmd, code, errb.String())
				}
				return
			}
			seed(t)
			cmd := exec.Command("sh", "-c", e.cmd)
			cmd.Dir = ws
			cmd.Env = append(os.Environ(), "PATH="+path)
			out, _ := cmd.CombinedOutput()
			// A gate may judge the upstream rows a failure (exit 1);
			// everything else must succeed.
			code := cmd.ProcessState.ExitCode()
			gated := strings.Contains(e.cmd, "--gate") || strings.Contains(e.cmd, `"gate":"true"`)
			if code != ExitOK && !(gated && code == ExitFailed) {
				t.Errorf("%q: exit %d, want 0%s\n%s", e.cmd, code, map[bool]string{true: " or 1 (the gate judged)"}[gated], out)
			}
		})
	}
}

// TestHelpTopic: "benchgate help <command>" prints what "<command> --help"
// prints, byte for byte, and an unknown topic is refused with exit 2 and
// the topic meant.
func TestHelpTopic(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Dir: t.TempDir()}
		code := Main(context.Background(), env, args)
		return code, out.String(), errb.String()
	}
	for _, topic := range []string{"report", "set", "ordered", "qa-audit", "pr-comment", "action", "drift", "swebench", "swebench run", "swebench batch", "swebench prepare-images", "swebench merge"} {
		t.Run(topic, func(t *testing.T) {
			code, out, errs := run(append([]string{"help"}, strings.Fields(topic)...)...)
			wantCode, want, wantErr := run(append(strings.Fields(topic), "--help")...)
			if code != wantCode || out != want || errs != wantErr {
				t.Errorf("help %s: exit %d, %d bytes out, stderr %q; %s --help: exit %d, %d bytes, stderr %q", topic, code, len(out), errs, topic, wantCode, len(want), wantErr)
			}
			if code != ExitOK || !strings.HasPrefix(out, "Usage:\n  benchgate "+strings.Fields(topic)[0]) {
				t.Errorf("help %s: exit %d:\n%s", topic, code, out)
			}
		})
	}
	for _, flag := range []string{"--help", "-h"} {
		code, out, _ := run(flag, "report")
		if _, want, _ := run("report", "--help"); code != ExitOK || out != want {
			t.Errorf("%s report: exit %d, %d bytes out, want report's help", flag, code, len(out))
		}
	}
	code, out, errs := run("help", "swebench-batch")
	if _, want, _ := run("swebench", "batch", "--help"); code != ExitOK || out != want {
		t.Errorf("help swebench-batch: exit %d, %q", code, errs)
	}
	for _, tc := range []struct{ topic, want string }{
		{"repot", `benchgate help: unknown help topic "repot"; did you mean benchgate help report? (expected one of: action, `},
		{"xyz", `benchgate help: unknown help topic "xyz" (expected one of: action, `},
	} {
		code, out, errs := run("help", tc.topic)
		if code != ExitUsage || out != "" || !strings.HasPrefix(errs, tc.want) {
			t.Errorf("help %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.topic, code, out, errs, tc.want)
		}
	}
}

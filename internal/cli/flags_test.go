package cli

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestFlagErrorsAreShown runs the real binary with a bad flag or value
// for every command: each exits 2 and says which flag and which value.
func TestFlagErrorsAreShown(t *testing.T) {
	bin := testenv.Benchgate(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"set", "--bogus"}, "benchgate set: unknown flag: --bogus"},
		{[]string{"set", "--set", "pr-exec", "--repetitions", "x"}, `benchgate set: --repetitions "x": expected a whole number such as 3 (see benchgate set --help)`},
		{[]string{"ordered", "--nope"}, "benchgate ordered: unknown flag: --nope"},
		{[]string{"ordered", "--repetitions", "1.5"}, `benchgate ordered: --repetitions "1.5": expected a whole number such as 3`},
		{[]string{"set", "--set", "pr-exec", "--repetitions", "two"}, `benchgate set: --repetitions "two": expected a whole number such as 3`},
		{[]string{"set", "--benchmark-timeout", "5"}, `benchgate set: --benchmark-timeout "5": expected a duration such as 90s, 30m or 2h`},
		{[]string{"report", "--baseline-tolerance", "ten"}, `benchgate report: --baseline-tolerance "ten": expected a number such as 10 or 2.5`},
		{[]string{"qa-audit", "--zzz", "q.yaml"}, "benchgate qa-audit: unknown flag: --zzz"},
		{[]string{"report", "--gate=maybe"}, `benchgate report: --gate "maybe": expected true or false`},
		{[]string{"report", "--suite-jsonl", "a-suite.jsonl", "--summary-json", "s.out", "--summary-md", "./s.out"}, "benchgate report: --summary-json and --summary-md are the same file"},
		{[]string{"report", "--suite-jsonl", "a-suite.jsonl", "--suite-jsonl", "./a-suite.jsonl"}, "benchgate report: --suite-jsonl ./a-suite.jsonl is given twice (first as a-suite.jsonl)"},
		{[]string{"swebench", "batch", "--api-key-env", "GITHUB_TOKEN", "--base-url", "http://127.0.0.1:1/v1", "--instance-file", "ids.txt"}, "benchgate swebench batch: --api-key-env GITHUB_TOKEN: refused"},
		{[]string{"swebench", "run", "--api-key-env", "ACTIONS_RUNTIME_TOKEN", "--base-url", "http://127.0.0.1:1/v1", "--instance-id", "a__b-1"}, "--api-key-env ACTIONS_RUNTIME_TOKEN: refused"},
		{[]string{"qa-audit", "--api-key-env", "gh_token", "q.yaml"}, "benchgate qa-audit: --api-key-env gh_token: refused"},
		{[]string{"qa-audit", "--api-key-env", "MY-KEY", "q.yaml"}, `--api-key-env "MY-KEY": expected an environment variable name`},
		{[]string{"report", "--stats", "--stats-json", "x.json", "--stats-md", "x.json"}, "benchgate report: --stats-md and --stats-json are the same file ("},
		{[]string{"report"}, "(name the files with --suite-jsonl)"},
		{[]string{"swebench", "run", "--env", "GITHUB_TOKEN=ghp_secret", "--base-url", "http://127.0.0.1:1/v1", "--instance-id", "a__b-1"}, "benchgate swebench run: --env GITHUB_TOKEN=...: refused"},
		{[]string{"swebench", "batch", "--env", "actions_runtime_token=x", "--base-url", "http://127.0.0.1:1/v1", "--instance-file", "ids.txt"}, "--env actions_runtime_token=...: refused"},
		{[]string{"swebench", "run", "--env", "MY KEY=1", "--base-url", "http://127.0.0.1:1/v1", "--instance-id", "a__b-1"}, `--env "MY KEY=...": expected an environment variable name`},
		{[]string{"swebench", "run", "--env", "=1", "--base-url", "http://127.0.0.1:1/v1", "--instance-id", "a__b-1"}, `--env "": expected K=V`},
		{[]string{"swebench", "batch", "--max-loops", "many"}, `benchgate swebench batch: --max-loops "many": expected a whole number`},
		// Mistyped commands and flags are answered with the one meant.
		{[]string{"repot"}, `benchgate: unknown command "repot"; did you mean benchgate report? (expected one of: action, drift, ordered, pr-comment, qa-audit, report, set, swebench)`},
		{[]string{"odered", "--repetitions", "3"}, "did you mean benchgate ordered?"},
		{[]string{"swebench-bach"}, "did you mean benchgate swebench-batch?"},
		{[]string{"swebench", "bach"}, `benchgate swebench: unknown subcommand "bach"; did you mean batch?`},
		{[]string{"report", "--gat"}, "benchgate report: unknown flag: --gat; did you mean --gate? (see benchgate report --help)"},
		{[]string{"report", "--stats-confidance", "0.9"}, "unknown flag: --stats-confidance; did you mean --stats-confidence?"},
		{[]string{"set", "--repetition=3"}, "benchgate set: unknown flag: --repetition; did you mean --repetitions?"},
		{[]string{"qa-audit", "--model-backed", "openai", "q.yaml"}, "unknown flag: --model-backed; did you mean --model-backend?"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stderr := runUsage(t, bin, tc.args...)
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tc.want)
			}
			if strings.Contains(stderr.String(), "ghp_secret") {
				t.Errorf("stderr shows the value of a refused --env entry: %q", stderr.String())
			}
		})
	}
}

// TestNoSuggestionForFarNames: a name nothing like a command or flag is
// not answered with a guess.
func TestNoSuggestionForFarNames(t *testing.T) {
	bin := testenv.Benchgate(t)
	for _, args := range [][]string{{"deploy"}, {"report", "--zzz"}, {"swebench", "evaluate"}} {
		if stderr := runUsage(t, bin, args...); strings.Contains(stderr.String(), "did you mean") {
			t.Errorf("%q: stderr %q; want no guess", args, stderr.String())
		}
	}
}

// runUsage runs the binary in an empty folder, wants exit code 2 and
// returns its stderr.
func runUsage(t *testing.T, bin string, args ...string) *bytes.Buffer {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitUsage {
		t.Fatalf("%q: err = %v, want exit %d\nstderr: %s", args, err, ExitUsage, stderr.String())
	}
	return &stderr
}

// TestReportSaysEveryBadValue: report names every wrong value of one
// command line, each on its own line, and reads nothing.
func TestReportSaysEveryBadValue(t *testing.T) {
	stderr := runUsage(t, testenv.Benchgate(t), "report", "--suite-jsonl", "missing-suite.jsonl", "--stats", "--stats-confidence", "95",
		"--baseline-tolerance", "-5", "--history-window", "0", "--gate-profile", "verify-pr")
	want := `benchgate report: --gate-profile: unknown gate profile "verify-pr": expected verify_pr or verify_release (pr_fast is an alias of verify_pr); did you mean verify_pr?
benchgate report: --stats-confidence: expected a number from 0.5 to 0.999, got 95
benchgate report: --baseline-tolerance: expected a percentage from 0 to below 100, got -5
benchgate report: --history-window: expected an integer >= 1, got 0
`
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
}

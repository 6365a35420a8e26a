package action

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunStepScript runs action.yml's "Run benchgate" step script with
// bash, as the runner does, in place of benchgate a script that records
// its starting environment (/proc/self/environ) and the inputs file:
// the secrets travel in a 0600 file, never in the environment block,
// and the INPUT_* variables the step removed are named, without values.
func TestRunStepScript(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc here")
	}
	md := loadActionYML(t)
	var script string
	for _, s := range md.Runs.Steps {
		if s.ID == "run" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatal("action.yml has no step with id run")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "benchgate")
	if err := os.WriteFile(fake, []byte(`#!/bin/sh
tr '\0' '\n' </proc/self/environ >"$0.environ"
cp "$BENCHGATE_INPUTS_FILE" "$0.inputs"
stat -c %a "$BENCHGATE_INPUTS_FILE" >"$0.mode"
umask >"$0.umask"
echo "$@" >"$0.args"
`), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", "umask 022\n"+script)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "RUNNER_TEMP=" + dir, "BENCHGATE_BINARY=" + fake,
		`BENCHGATE_INPUTS={"mode": "report", "openai-api-key": "sk-in-inputs"}`,
		"ACTIONS_RUNTIME_TOKEN=runtime-token", "ACTIONS_ID_TOKEN_REQUEST_TOKEN=oidc-token",
		"INPUT_SUITE_JSONL=results/x-suite.jsonl", "INPUT_OPENAI-API-KEY=sk-as-input", "INPUT_EMPTY="}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("step script: %v\n%s", err, out)
	}
	read := func(suffix string) string {
		b, err := os.ReadFile(fake + suffix)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	environ := read(".environ")
	for _, leak := range []string{"sk-in-inputs", "sk-as-input", "runtime-token", "oidc-token", "BENCHGATE_INPUTS=", "INPUT_"} {
		if strings.Contains(environ, leak) {
			t.Errorf("benchgate's starting environment holds %q:\n%s", leak, environ)
		}
	}
	if !strings.Contains(environ, "BENCHGATE_INPUTS_FILE="+dir) {
		t.Errorf("no BENCHGATE_INPUTS_FILE under RUNNER_TEMP:\n%s", environ)
	}
	inputs := read(".inputs")
	for _, want := range []string{`"openai-api-key": "sk-in-inputs"`, "\nACTIONS_RUNTIME_TOKEN=runtime-token\n",
		"\nREMOVED_INPUT=INPUT_SUITE_JSONL\n", "\nREMOVED_INPUT=INPUT_OPENAI-API-KEY\n"} {
		if !strings.Contains(inputs, want) {
			t.Errorf("inputs file lacks %q:\n%s", want, inputs)
		}
	}
	for _, leak := range []string{"sk-as-input", "results/x-suite.jsonl", "oidc-token", "INPUT_EMPTY"} {
		if strings.Contains(inputs, leak) {
			t.Errorf("inputs file holds %q:\n%s", leak, inputs)
		}
	}
	if mode := strings.TrimSpace(read(".mode")); mode != "600" {
		t.Errorf("inputs file mode %s, want 600", mode)
	}
	// The step leaves the umask alone: what benchgate and its children
	// create (results, the qa-audit sandbox's folders) keeps the runner's
	// usual modes.
	if got := strings.TrimSpace(read(".umask")); got != "0022" {
		t.Errorf("benchgate started with umask %s, want the step's 0022", got)
	}
	if args := strings.TrimSpace(read(".args")); args != "action" {
		t.Errorf("benchgate ran with %q, want action", args)
	}
}

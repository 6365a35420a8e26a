package action_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/action"
	"github.com/benchgate/benchgate/internal/verify"
)

// envDumpingBench rewrites the workspace's bench.json so that every
// benchmark command first writes its environment to envFile, then runs
// the simulator as before.
func envDumpingBench(t *testing.T, s *step, envFile string) {
	t.Helper()
	path := filepath.Join(s.ws, "bench", "bench.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	argv := cfg["benchmark"].([]any)
	cfg["benchmark"] = append([]any{"sh", "-c", `env >> "$0"; exec benchsim "$@"`, envFile}, argv[1:]...)
	b, _ = json.Marshal(cfg)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBenchmarkChildGetsNoRunnerCredentials runs a set whose benchmark
// command records its environment: the secret given as an input reaches
// it under its own name, the runner's artifact token and the raw INPUT_*
// variables do not.
func TestBenchmarkChildGetsNoRunnerCredentials(t *testing.T) {
	s := newStep(t, map[string]string{
		"mode": "set", "set": "pr-exec", "provider": "openai", "model": "gpt-5.1-codex-mini",
		"working-directory": "bench", "bench-config": "bench.json", "out-dir": "out/pr-exec",
		"upload-artifacts": "false", "openai-api-key": "sk-test-key-value",
	})
	benchWorkspace(t, s)
	envFile := filepath.Join(s.files, "bench-env.txt")
	envDumpingBench(t, s, envFile)
	s.env["ACTIONS_RUNTIME_TOKEN"] = "runtime-token-value"
	s.env["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] = "oidc-token-value"
	s.run(t)
	if s.code != 0 {
		t.Fatalf("exit %d\n%s", s.code, s.stdout)
	}
	b, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatalf("the benchmark command did not run: %v\n%s", err, s.stdout)
	}
	env := string(b)
	if !strings.Contains(env, "OPENAI_API_KEY=sk-test-key-value") {
		t.Errorf("the benchmark lacks the API key it was given:\n%s", env)
	}
	for _, leak := range []string{"runtime-token-value", "oidc-token-value", "INPUT_"} {
		if strings.Contains(env, leak) {
			t.Errorf("the benchmark's environment holds %q:\n%s", leak, env)
		}
	}
}

// TestOutputInjectionByInput gives an out-dir whose text, written as a
// step output with the library's fixed delimiter, ended the value early
// and set status=pass and exit-code=0 after a failing gate.
func TestOutputInjectionByInput(t *testing.T) {
	s := newStep(t, nil)
	copyFile(t, filepath.Join("testdata", "suites", "agent_direct-suite.jsonl"), filepath.Join(s.ws, "suites", "agent_direct-suite.jsonl"))
	copyFile(t, filepath.Join("testdata", "suites", "ghx-suite.jsonl"), filepath.Join(s.ws, "suites", "ghx-suite.jsonl"))
	evil := "out\n_GitHubActionsFileCommandDelimeter_\nstatus<<X\npass\nX\nexit-code<<Y\n0\nY\nz<<_GitHubActionsFileCommandDelimeter_"
	for k, v := range map[string]string{
		"mode": "report", "suite-jsonl": "suites/agent_direct-suite.jsonl\nsuites/ghx-suite.jsonl",
		"gate": "true", "gate-profile": "verify_release", "upload-artifacts": "false", "out-dir": evil,
	} {
		s.env["INPUT_"+strings.ToUpper(k)] = v
	}
	s.run(t)
	out := s.outputs(t)
	if s.code == 0 {
		// The real suites fail verify_release; the test needs a failing gate.
		t.Fatalf("gate passed; the test needs a failing one\n%s", s.stdout)
	}
	if out["status"] == "pass" || out["exit-code"] == "0" {
		t.Fatalf("outputs were injected: status=%q exit-code=%q", out["status"], out["exit-code"])
	}
	if out["status"] != action.Status(s.code) {
		t.Errorf("status = %q, want %q", out["status"], action.Status(s.code))
	}
}

// TestDefaultOutDirPerStep runs two set steps of one job with no out-dir:
// the second must not write into the first's folder.
func TestDefaultOutDirPerStep(t *testing.T) {
	inputs := map[string]string{
		"mode": "set", "provider": "openai", "model": "gpt-5.1-codex-mini",
		"working-directory": "bench", "bench-config": "bench.json", "upload-artifacts": "false",
	}
	first := newStep(t, inputs)
	first.env["INPUT_SET"] = "pr-exec"
	benchWorkspace(t, first)
	first.run(t)
	second := newStep(t, inputs)
	second.ws, second.env["GITHUB_WORKSPACE"] = first.ws, first.ws
	second.env["INPUT_SET"] = "issues"
	second.run(t)
	if first.code != 0 || second.code != 0 {
		t.Fatalf("exit %d and %d\n%s\n%s", first.code, second.code, first.stdout, second.stdout)
	}
	a, b := first.outputs(t)["tracking"], second.outputs(t)["tracking"]
	if a == "" || a == b {
		t.Fatalf("tracking outputs %q and %q: the steps share a folder", a, b)
	}
	for path, set := range map[string]string{a: "pr-exec", b: "issues"} {
		tr, err := verify.ReadTracking(filepath.Join(first.ws, path))
		if err != nil {
			t.Fatal(err)
		}
		if tr.Set != set {
			t.Errorf("%s is the tracking of set %q, want %q", path, tr.Set, set)
		}
	}
}

// TestUnwritableOutputFile gives a GITHUB_OUTPUT the step cannot write:
// a clear error naming the file and a failing step, never a panic.
func TestUnwritableOutputFile(t *testing.T) {
	s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "suites/agent_direct-suite.jsonl", "upload-artifacts": "false"})
	copyFile(t, filepath.Join("testdata", "suites", "agent_direct-suite.jsonl"), filepath.Join(s.ws, "suites", "agent_direct-suite.jsonl"))
	s.env["GITHUB_OUTPUT"] = filepath.Join(s.files, "no-such-folder", "set_output")
	s.run(t)
	if strings.Contains(s.stdout, "panic") {
		t.Fatalf("panicked:\n%s", s.stdout)
	}
	if s.code == 0 {
		t.Errorf("exit 0 although no output could be written\n%s", s.stdout)
	}
	if !strings.Contains(s.stdout, "::error title=benchgate%3A step outputs::cannot write the step's file commands: GITHUB_OUTPUT: open "+s.env["GITHUB_OUTPUT"]) {
		t.Errorf("no error naming GITHUB_OUTPUT and its path:\n%s", s.stdout)
	}
}

// TestModeStderrInsideStopCommands: the runner reads a step's stdout and
// stderr apart, so a workflow command a mode prints on stderr would
// escape the ::stop-commands:: window the adapter opens on stdout. The
// mode's stderr must therefore reach stdout, between the window's start
// and its end, and nothing of the mode may reach the process's stderr.
func TestModeStderrInsideStopCommands(t *testing.T) {
	s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "suites/missing-suite.jsonl", "upload-artifacts": "false"})
	s.splitStderr = true
	s.run(t)
	if s.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", s.code, s.stdout)
	}
	if s.stderr != "" {
		t.Errorf("the mode wrote to the process's stderr, outside the window:\n%s", s.stderr)
	}
	start := strings.Index(s.stdout, "::stop-commands::")
	if start < 0 {
		t.Fatalf("no ::stop-commands::\n%s", s.stdout)
	}
	token := strings.TrimSpace(s.stdout[start+len("::stop-commands::"):][:32])
	end := strings.Index(s.stdout, "::"+token+"::")
	msg := strings.Index(s.stdout, "benchgate report: ")
	if end < 0 || msg < start || msg > end {
		t.Errorf("the mode's error line is not inside the stop-commands window (start %d, message %d, end %d):\n%s", start, msg, end, s.stdout)
	}
}

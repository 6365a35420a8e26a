package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestActionQAAudit runs the built binary's Action entry point in
// qa-audit mode, as the runner starts the image, against the scripted
// model endpoint, real pytest and the fake GitHub API: the secrets are
// masked first and handed over in the environment, the quality report
// and the pull request URL become outputs, and the summary has the audit.
func TestActionQAAudit(t *testing.T) {
	py := testenv.Python(t)
	chat := newChatFake(t, qaTests, qaProposals)
	gh := ghfake.New("octo", "bench", "main", "ghs_tok", map[string]string{"benchmarks/stdlib/benchmark.yaml": qaQuestions})
	defer gh.Close()
	ws := qaRepo(t)
	files := t.TempDir()
	vars := map[string]string{
		"GITHUB_ACTIONS":         "true",
		"GITHUB_WORKSPACE":       ws,
		"GITHUB_OUTPUT":          filepath.Join(files, "out"),
		"GITHUB_STEP_SUMMARY":    filepath.Join(files, "summary"),
		"GITHUB_REPOSITORY":      "octo/bench",
		"GITHUB_RUN_ID":          "31",
		"GITHUB_RUN_ATTEMPT":     "1",
		"GITHUB_JOB":             "audit",
		"GITHUB_EVENT_NAME":      "schedule",
		"GITHUB_EVENT_PATH":      filepath.Join(files, "event.json"),
		"HOME":                   files,
		"PATH":                   os.Getenv("PATH"),
		"INPUT_MODE":             "qa-audit",
		"INPUT_DEFINITIONS":      "benchmarks\n",
		"INPUT_MODEL-BACKEND":    "openai",
		"INPUT_MODEL":            "local",
		"INPUT_MODEL-URL":        chat.URL + "/v1",
		"INPUT_PYTHON":           py,
		"INPUT_OPEN-PRS":         "true",
		"INPUT_PR-LABELS":        "qa-audit\nautomated",
		"INPUT_EXTRA-ARGS":       "--test-timeout\n30s\n--github-api-url\n" + gh.BaseURL(),
		"INPUT_GITHUB-TOKEN":     "ghs_tok",
		"INPUT_OPENAI-API-KEY":   "sk-local-123456",
		"INPUT_UPLOAD-ARTIFACTS": "true",
	}
	os.WriteFile(vars["GITHUB_EVENT_PATH"], []byte(`{"schedule":"0 6 * * 1"}`), 0o644)
	// The built binary, started as the runner starts a Docker action's
	// entry point: only the step's environment, the workspace as cwd.
	bin := testenv.Benchgate(t)
	cmd := exec.Command(bin, "action")
	cmd.Dir = ws
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	if code != ExitFailed {
		t.Fatalf("exit %d, want 1 (flawed cases)\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	log := stdout.String()
	if !strings.HasPrefix(log, "::add-mask::ghs_tok\n::add-mask::sk-local-123456\n") {
		t.Errorf("secrets not masked first:\n%s", log)
	}
	if strings.Count(log+stderr.String(), "sk-local-123456") != 1 {
		t.Errorf("the API key shows in the log outside its mask")
	}
	if !strings.Contains(log, "::warning::artifacts not uploaded (artifact upload needs ACTIONS_RESULTS_URL") {
		t.Errorf("no warning about the missing artifact service:\n%s", log)
	}
	outs := readOutputs(t, vars["GITHUB_OUTPUT"])
	if outs["quality-report"] != "benchgate-results/qa-audit-31-1/quality_report.json" || outs["status"] != "fail" {
		t.Errorf("outputs = %v", outs)
	}
	pulls := gh.Pulls()
	if len(pulls) != 1 {
		t.Fatalf("pulls = %+v", pulls)
	}
	if urls := strings.Split(outs["pr-urls"], "\n"); len(urls) != 1 || !strings.HasSuffix(urls[0], "/pull/1") {
		t.Errorf("pr-urls = %q", outs["pr-urls"])
	}
	sum, err := os.ReadFile(vars["GITHUB_STEP_SUMMARY"])
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"❌ **benchgate qa-audit: fail**: questions not Valid", "## QA audit", "pie title Verdicts", "stdlib:drifted_answer", "Pull requests:"} {
		if !strings.Contains(string(sum), w) {
			t.Errorf("summary lacks %q:\n%s", w, sum)
		}
	}
}

func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	return testenv.ReadGitHubOutput(t, path)
}

func TestActionTakesNoArguments(t *testing.T) {
	var stdout, stderr bytes.Buffer
	env := &Env{Stdout: &stdout, Stderr: &stderr, Dir: t.TempDir(), Now: time.Now, Getenv: func(string) string { return "" }}
	if code := Main(context.Background(), env, []string{"action", "--mode", "report"}); code != ExitUsage {
		t.Errorf("exit %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), "options come from INPUT_* variables") {
		t.Errorf("stderr = %q", stderr.String())
	}
}

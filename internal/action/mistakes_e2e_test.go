package action_test

// Mistakes as users make them, through the built binary started as the
// runner starts `benchgate action`: bad inputs stop the step before
// anything is judged, all of them reported at once, and a machine
// without the Docker engine or the model endpoint it needs is a bad
// setup (exit code 2) with what to do, said once.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/swebench"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// reportStepWithFailingRows is a report step over the real suites, with
// two ghx rows made to fail, so that a step that judged them would
// annotate rows and draw charts.
func reportStepWithFailingRows(t *testing.T, inputs map[string]string) *step {
	t.Helper()
	inputs["mode"], inputs["suite-jsonl"], inputs["upload-artifacts"] = "report", "suites/*-suite.jsonl", "false"
	s := newStep(t, inputs)
	copyFile(t, filepath.Join("testdata", "suites", "agent_direct-suite.jsonl"), filepath.Join(s.ws, "suites", "agent_direct-suite.jsonl"))
	b, err := os.ReadFile(filepath.Join("testdata", "suites", "ghx-suite.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ghx := strings.Replace(string(b), `"success":true`, `"success":false`, 2)
	if ghx == string(b) {
		t.Fatal("the fixture has no passing row to break")
	}
	if err := os.WriteFile(filepath.Join(s.ws, "suites", "ghx-suite.jsonl"), []byte(ghx), 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// nothingJudged checks what a step that stopped with exit code 2 shows:
// status error, no row annotations, no charts and no report section.
func nothingJudged(t *testing.T, s *step) (summary string) {
	t.Helper()
	if s.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", s.code, s.stdout)
	}
	if out := s.outputs(t); out["status"] != "error" || out["exit-code"] != "2" {
		t.Errorf("outputs %v, want status error and exit-code 2", out)
	}
	for _, l := range errorLines(s.stdout) {
		if strings.Contains(l, "file=") {
			t.Errorf("a row is annotated though nothing was judged: %s", l)
		}
	}
	if strings.Contains(s.stdout, "::warning file=") {
		t.Errorf("a row is annotated as a warning though nothing was judged:\n%s", s.stdout)
	}
	summary = s.summary(t)
	for _, bad := range []string{"```mermaid", "## Report", "failing rows"} {
		if strings.Contains(summary, bad) {
			t.Errorf("summary shows %q though nothing was judged:\n%s", bad, summary)
		}
	}
	return summary
}

// TestBadInputsAllAtOnce: four wrong values, one of them the percentage
// slip stats-confidence: 95, are all reported in one run, each naming the
// input, the value and what was expected, before report reads a row.
func TestBadInputsAllAtOnce(t *testing.T) {
	s := reportStepWithFailingRows(t, map[string]string{
		"gate": "yes", "stats": "true", "stats-confidence": "95",
		"gate-profile": "verify-pr", "baseline-tolerance": "-5",
	})
	s.run(t)
	sum := nothingJudged(t, s)
	want := []string{
		`::error title=benchgate%3A input gate::input "gate": expected true or false, got "yes"`,
		`::error title=benchgate%3A input gate-profile::input "gate-profile": expected verify_pr or verify_release (pr_fast is an alias of verify_pr), got "verify-pr"; did you mean "verify_pr"?`,
		`::error title=benchgate%3A input baseline-tolerance::input "baseline-tolerance": expected a percentage from 0 to below 100 such as 10, got "-5"`,
		`::error title=benchgate%3A input stats-confidence::input "stats-confidence": expected a number from 0.5 to 0.999 (a fraction, not a percentage: 0.95 means 95%25), got "95"`,
	}
	if got := errorLines(s.stdout); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("annotations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(s.stdout, "::group::benchgate report") {
		t.Errorf("report ran though its inputs were wrong:\n%s", s.stdout)
	}
	for _, row := range []string{"| `gate` | `yes` | true or false |", "| `stats-confidence` | `95` |", "4 inputs are wrong"} {
		if !strings.Contains(sum, row) {
			t.Errorf("summary lacks %q:\n%s", row, sum)
		}
	}
	// Nothing was written: the step's results folder was never made.
	if _, err := os.Stat(filepath.Join(s.ws, "benchgate-results")); err == nil {
		t.Errorf("a results folder was made for a step that did not run")
	}
}

// TestMisspelledInputsAndModeAreNamed: the composite action hands every
// input under with: to benchgate, a misspelled one included; it is
// refused with the input meant (the gate would otherwise silently stay
// off), and so is a misspelled mode. A value given to a misspelled
// input is never shown: it may be a secret.
func TestMisspelledInputsAndModeAreNamed(t *testing.T) {
	s := reportStepWithFailingRows(t, map[string]string{})
	for k := range s.env {
		if strings.HasPrefix(k, "INPUT_") {
			delete(s.env, k)
		}
	}
	s.env["BENCHGATE_INPUTS"] = `{"mode":"repot","suite-jsonl":"suites/*-suite.jsonl","gat":"true","openai-api-kye":"sk-do-not-show"}`
	s.run(t)
	sum := nothingJudged(t, s)
	want := []string{
		`::error title=benchgate%3A input gat::input "gat" is not an input of benchgate (docs/action.md lists them); did you mean "gate"?`,
		`::error title=benchgate%3A input openai-api-kye::input "openai-api-kye" is not an input of benchgate (docs/action.md lists them); did you mean "openai-api-key"?`,
		`::error title=benchgate%3A input mode::input "mode": expected one of report, set, ordered, swebench-batch, qa-audit, drift, pr-comment, got "repot"; did you mean "report"?`,
	}
	if got := errorLines(s.stdout); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("annotations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(s.stdout+sum, "sk-do-not-show") {
		t.Errorf("the value of a misspelled input is shown")
	}
	if !strings.Contains(sum, "| `gat` | (not shown) | no such input; did you mean `gate`? |") {
		t.Errorf("summary:\n%s", sum)
	}
}

// TestModeRefusalJudgesNothing: a value only the mode refuses (given in
// extra-args, which the step passes unchecked) still ends the step with
// exit code 2, the mode's message said once, and no row annotations,
// charts or report section, though the suites have failing rows.
func TestModeRefusalJudgesNothing(t *testing.T) {
	s := reportStepWithFailingRows(t, map[string]string{"stats": "true", "gate": "true", "extra-args": "--stats-confidence\n95"})
	s.run(t)
	sum := nothingJudged(t, s)
	why := "benchgate report: --stats-confidence: expected a number from 0.5 to 0.999, got 95"
	if errs := errorLines(s.stdout); len(errs) != 1 || !strings.Contains(errs[0], why) || !strings.Contains(errs[0], "nothing was judged") {
		t.Errorf("annotations %q, want one naming the cause", errs)
	}
	if n := strings.Count(sum, why); n != 1 {
		t.Errorf("summary says the cause %d times, want once:\n%s", n, sum)
	}
}

// TestUnreachableSetupIsExitTwo: swebench-batch on a runner whose
// Docker engine is not running, or whose model endpoint does not answer,
// judged nothing: exit code 2 (status error, not fail), the cause and
// what to do said once in the annotations and once in the summary.
func TestUnreachableSetupIsExitTwo(t *testing.T) {
	for _, tc := range []struct {
		name, dockerHost, cause, fix string
	}{
		{"no engine", "unix:///nonexistent/docker.sock", "no Docker engine answers at unix:///nonexistent/docker.sock", container.FixUnreachable},
		{"dead endpoint", testenv.DockerHost(t), "model endpoint preflight: GET http://127.0.0.1:1/v1/models", swebench.FixEndpoint},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStep(t, map[string]string{"mode": "swebench-batch", "instance-file": "ids.txt", "dataset-file": "tasks.jsonl",
				"base-url": "http://127.0.0.1:1/v1", "model": "m", "upload-artifacts": "false"})
			os.WriteFile(filepath.Join(s.ws, "ids.txt"), []byte("acme__widget-1\n"), 0o644)
			os.WriteFile(filepath.Join(s.ws, "tasks.jsonl"), []byte(`{"instance_id":"acme__widget-1","problem_statement":"fix it"}`+"\n"), 0o644)
			s.env["DOCKER_HOST"] = tc.dockerHost
			s.run(t)
			sum := nothingJudged(t, s)
			errs := errorLines(s.stdout)
			if len(errs) != 1 || !strings.Contains(errs[0], tc.cause) || !strings.Contains(errs[0], tc.fix) {
				t.Errorf("annotations %q, want one with %q and %q", errs, tc.cause, tc.fix)
			}
			// The summary names the engine's socket by its variable.
			// Text from outside benchgate (the endpoint's URL) shows with
			// invisible word joiners that keep it from becoming a link.
			cause := strings.ReplaceAll(tc.cause, tc.dockerHost, "$DOCKER_HOST")
			shown := strings.ReplaceAll(sum, "\u2060", "")
			if n := strings.Count(shown, tc.fix); n != 1 || !strings.Contains(shown, cause) {
				t.Errorf("summary says what to do %d times, want once with the cause:\n%s", n, sum)
			}
		})
	}
}

package action_test

// The pull-request view on outcomes beyond a plain pass or fail, through
// the built binary on a pull_request event against the stateful fake
// GitHub: the sticky comment, the job summary's opening, annotations,
// outputs and exit code must tell the same story on every run of a head.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/ghpr/ghfake"
	"github.com/benchgate/benchgate/internal/testenv/gfm"
)

// prComment is the one comment on pull request 1 and its first line
// after the marker; the test stops when there is not exactly one.
func prComment(t *testing.T, gh *ghfake.Server, s *step) (body, first string) {
	t.Helper()
	cs := gh.Comments(1)
	if len(cs) != 1 {
		t.Fatalf("%d comments on the pull request, want 1\n%s", len(cs), s.stdout)
	}
	body = cs[0].Body
	gfm.Require(t, "comment", body)
	_, rest, _ := strings.Cut(body, "\n")
	first, _, _ = strings.Cut(rest, "\n")
	return body, first
}

// sameOpening checks that the comment and the job summary open with the
// same line and that the outputs carry the exit code and status.
func sameOpening(t *testing.T, s *step, first string, code int, status string) {
	t.Helper()
	if s.code != code {
		t.Fatalf("exit %d, want %d\n%s", s.code, code, s.stdout)
	}
	sum := s.summary(t)
	gfm.Require(t, "job summary", sum)
	if sumFirst, _, _ := strings.Cut(sum, "\n"); sumFirst != first {
		t.Errorf("comment and summary open differently:\ncomment: %s\nsummary: %s", first, sumFirst)
	}
	out := s.outputs(t)
	if out["status"] != status || out["exit-code"] != strconv.Itoa(code) {
		t.Errorf("outputs status=%q exit-code=%q, want %s and %d", out["status"], out["exit-code"], status, code)
	}
	plain := stripLinks(strings.NewReplacer("**", "", "`", "").Replace(first))
	if !strings.Contains(s.stdout, "\n"+plain+"\n") {
		t.Errorf("the step log does not carry the first line %q:\n%s", plain, s.stdout)
	}
}

// rerun runs the step again as a rerun of the same head: the files of
// the earlier attempt are gone, the comment stays.
func (s *step) rerun(t *testing.T, attempt int) {
	t.Helper()
	os.Remove(s.env["GITHUB_STEP_SUMMARY"])
	os.Remove(s.env["GITHUB_OUTPUT"])
	s.env["GITHUB_RUN_ATTEMPT"] = strconv.Itoa(attempt)
	s.run(t)
}

// TestErrorReplacesAnEarlierPass: a pull request's head passed; a rerun
// of the same head then ends in error (exit code 2, nothing judged): its
// benchmark wrote no rows, an input is misspelled, or the mode refused a
// flag. Each time the sticky comment is updated to say error, with what
// went wrong in words and no table of checks, the summary opens with the
// same line, and a later passing run turns the comment back to a pass.
// Before, a step that stopped on its inputs made no API call, and a set
// step that stopped before its set ran updated another marker: the pass
// stood on the pull request beside a failed step.
func TestErrorReplacesAnEarlierPass(t *testing.T) {
	tests := []struct {
		name string
		// prepare returns a passing step; breakIt makes its rerun end in
		// error and mend undoes that.
		prepare       func(t *testing.T) *step
		breakIt, mend func(t *testing.T, s *step)
		mode, why     string
	}{
		{name: "benchmark wrote no rows", mode: "report", prepare: passingReport,
			breakIt: func(t *testing.T, s *step) { os.RemoveAll(filepath.Join(s.ws, "cur")) },
			mend:    func(t *testing.T, s *step) { writeGeneratedSuites(t, s.ws) },
			why:     `stopped before judging: bad input: input "suite-jsonl": expected a path or a pattern that matches files (no file matches cur/*-suite.jsonl), got "cur/*-suite.jsonl"`},
		{name: "misspelled input", mode: "report", prepare: passingReport,
			breakIt: func(t *testing.T, s *step) { s.inputsAsJSON(t, map[string]string{"gat": "true"}) },
			mend:    func(t *testing.T, s *step) { delete(s.env, "BENCHGATE_INPUTS") },
			why:     `stopped before judging: bad input: input "gat" is not an input of benchgate (docs/action.md lists them); did you mean "gate"?`},
		{name: "set refused a flag", mode: "set/pr-exec",
			prepare: func(t *testing.T) *step {
				return benchStep(t, map[string]string{"mode": "set", "set": "pr-exec", "provider": "openai", "model": "gpt-5.1-codex-mini"})
			},
			breakIt: func(t *testing.T, s *step) { s.env["INPUT_EXTRA-ARGS"] = "--max-reruns\nmany" },
			mend:    func(t *testing.T, s *step) { delete(s.env, "INPUT_EXTRA-ARGS") },
			why:     "stopped before judging: bad input or setup: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.prepare(t)
			s.env["INPUT_UPLOAD-ARTIFACTS"] = "false"
			gh := prStep(t, s, "octo/bench")
			s.run(t)
			body, first := prComment(t, gh, s)
			sameOpening(t, s, first, 0, "pass")
			if !strings.HasPrefix(first, "✅ ") || !strings.Contains(body, "mode="+tc.mode+" -->") {
				t.Fatalf("the first run did not post a pass under mode %s:\n%s", tc.mode, body)
			}

			tc.breakIt(t, s)
			s.rerun(t, 2)
			body, first = prComment(t, gh, s)
			sameOpening(t, s, first, 2, "error")
			want := "❌ **benchgate " + strings.Split(tc.mode, "/")[0] + ": error**: " + tc.why
			if !strings.HasPrefix(first, want) {
				t.Errorf("after the error the comment opens\n%s\nwant it to start\n%s", first, want)
			}
			if !strings.Contains(first, "head [`"+prHead[:7]+"`]") {
				t.Errorf("the error's first line does not name the head commit: %s", first)
			}
			if strings.Contains(body, "| check |") || strings.Contains(body, "✅") {
				t.Errorf("the error's comment still shows the pass or a table of checks:\n%s", body)
			}
			for _, dir := range []string{s.ws, s.files} {
				if strings.Contains(body, dir) || strings.Contains(s.summary(t), dir) {
					t.Errorf("the error shows the runner path %s:\n%s", dir, body)
				}
			}

			tc.mend(t, s)
			s.rerun(t, 3)
			_, first = prComment(t, gh, s)
			sameOpening(t, s, first, 0, "pass")
			if !strings.HasPrefix(first, "✅ ") {
				t.Errorf("a pass after the error did not replace it: %s", first)
			}
		})
	}
}

// inputsAsJSON passes the step's inputs, and extra ones, as the
// composite action does: one JSON object, every name given under with:.
func (s *step) inputsAsJSON(t *testing.T, extra map[string]string) {
	t.Helper()
	in := map[string]string{}
	for k, v := range s.env {
		if name, ok := strings.CutPrefix(k, "INPUT_"); ok {
			in[strings.ToLower(name)] = v
		}
	}
	for k, v := range extra {
		in[k] = v
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	s.env["BENCHGATE_INPUTS"] = string(b)
}

// passingReport is a report step whose suites pass every check.
func passingReport(t *testing.T) *step {
	s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "cur/*-suite.jsonl", "gate": "true"})
	writeGeneratedSuites(t, s.ws)
	return s
}

// writeGeneratedSuites writes a pair of suites in which ghx halves every
// cost of agent_direct.
func writeGeneratedSuites(t *testing.T, ws string) {
	t.Helper()
	os.MkdirAll(filepath.Join(ws, "cur"), 0o755)
	for name, text := range map[string]string{
		"agent_direct-suite.jsonl": suiteText("agent_direct", 4, 12, 1000),
		"ghx-suite.jsonl":          suiteText("ghx", 4, 12, 500),
	} {
		if err := os.WriteFile(filepath.Join(ws, "cur", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

package action_test

// Sequences of runs on one pull request, through the built binary on a
// pull_request event against the stateful fake GitHub: a later head, a
// comment deleted by hand, fail-on: never, a push event, no token, and a
// run stopped by SIGTERM after a pass.

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// setEventHead makes the pull request's head commit sha, as a push to
// its branch does.
func setEventHead(t *testing.T, s *step, sha string) {
	t.Helper()
	b, err := os.ReadFile(s.env["GITHUB_EVENT_PATH"])
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	ev["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = sha
	b, _ = json.Marshal(ev)
	if err := os.WriteFile(s.env["GITHUB_EVENT_PATH"], b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestErrorSequencesOnOnePullRequest: after a pass, an error for a newer
// head replaces the comment and names that head; a comment deleted by
// hand is made again by the next run; fail-on: never does not turn a bad
// input into a pass; a push event or a missing token makes no API call
// and says why in the log.
func TestErrorSequencesOnOnePullRequest(t *testing.T) {
	const newer = "bbbbbbbccccccccccccccccccccccccccccccccc"
	breakIt := func(s *step) { os.RemoveAll(filepath.Join(s.ws, "cur")) }
	start := func(t *testing.T, extra map[string]string) (*step, interface {
		Calls() []string
	}, func() (string, string)) {
		s := passingReport(t)
		s.env["INPUT_UPLOAD-ARTIFACTS"] = "false"
		for k, v := range extra {
			s.env["INPUT_"+strings.ToUpper(k)] = v
		}
		gh := prStep(t, s, "octo/bench")
		s.run(t)
		_, first := prComment(t, gh, s)
		sameOpening(t, s, first, 0, "pass")
		return s, gh, func() (string, string) { return prComment(t, gh, s) }
	}
	t.Run("error for a newer head", func(t *testing.T) {
		s, _, comment := start(t, nil)
		setEventHead(t, s, newer)
		breakIt(s)
		s.rerun(t, 1)
		body, first := comment()
		sameOpening(t, s, first, 2, "error")
		if !strings.HasPrefix(first, "❌ **benchgate report: error**") || !strings.Contains(first, "head [`bbbbbbb`]") || strings.Contains(body, prHead[:7]) {
			t.Errorf("the error for the newer head does not replace the pass or name its head:\n%s", body)
		}
	})
	t.Run("comment deleted between runs", func(t *testing.T) {
		s := passingReport(t)
		s.env["INPUT_UPLOAD-ARTIFACTS"] = "false"
		gh := prStep(t, s, "octo/bench")
		s.run(t)
		prComment(t, gh, s)
		gh.DeleteComment(gh.Comments(1)[0].ID)
		breakIt(s)
		s.rerun(t, 2)
		_, first := prComment(t, gh, s)
		sameOpening(t, s, first, 2, "error")
		writeGeneratedSuites(t, s.ws)
		s.rerun(t, 3)
		_, first = prComment(t, gh, s)
		sameOpening(t, s, first, 0, "pass")
	})
	t.Run("fail-on never does not hide a bad input", func(t *testing.T) {
		s, _, comment := start(t, map[string]string{"fail-on": "never"})
		breakIt(s)
		s.rerun(t, 2)
		_, first := comment()
		sameOpening(t, s, first, 2, "error")
		if !strings.HasPrefix(first, "❌ **benchgate report: error**") {
			t.Errorf("first line %s", first)
		}
	})
	t.Run("push event and no token after an error", func(t *testing.T) {
		s := passingReport(t)
		s.env["INPUT_UPLOAD-ARTIFACTS"] = "false"
		gh := prStep(t, s, "octo/bench")
		breakIt(s)
		s.env["GITHUB_EVENT_NAME"] = "push"
		os.WriteFile(s.env["GITHUB_EVENT_PATH"], []byte(`{"ref":"refs/heads/main","after":"`+prMerge+`","repository":{"full_name":"octo/bench"}}`), 0o644)
		s.run(t)
		if s.code != 2 || len(gh.Calls()) != 0 || !strings.Contains(s.stdout, "\npr-comment: the event push is not a pull request; no comment\n") {
			t.Errorf("push: exit %d, calls %v, log:\n%s", s.code, gh.Calls(), s.stdout)
		}
		s.env["GITHUB_EVENT_NAME"] = "pull_request"
		gh = prStep(t, s, "octo/bench")
		delete(s.env, "INPUT_GITHUB-TOKEN")
		s.rerun(t, 2)
		if s.code != 2 || len(gh.Calls()) != 0 || !strings.Contains(s.stdout, "\n::notice::pr-comment: no github-token; the comment was not posted\n") {
			t.Errorf("no token: exit %d, calls %v, log:\n%s", s.code, gh.Calls(), s.stdout)
		}
	})
}

// TestStoppedRunReplacesAnEarlierPass: a set passed for the head; its
// rerun is stopped by SIGTERM (a cancelled workflow) after some rows
// landed. The step fails, and the comment says so with the signal,
// rather than keeping the pass. Before, the comment was posted under the
// cancelled context ("context canceled") and the pass stood.
func TestStoppedRunReplacesAnEarlierPass(t *testing.T) {
	s := benchStep(t, map[string]string{"mode": "set", "set": "pr-exec", "provider": "openai", "model": "gpt-5.1-codex-mini"})
	gh := prStep(t, s, "octo/bench")
	s.run(t)
	_, first := prComment(t, gh, s)
	sameOpening(t, s, first, 0, "pass")

	s.env["BENCHSIM_HOLD"] = filepath.Join(s.files, "never") // the last row never lands
	s.env["BENCHSIM_PACE"] = "50ms"
	os.Remove(s.env["GITHUB_STEP_SUMMARY"])
	os.Remove(s.env["GITHUB_OUTPUT"])
	s.env["GITHUB_RUN_ATTEMPT"] = "2"
	bg, sim := binaries(t)
	cmd := exec.Command(bg, "action")
	cmd.Dir = s.ws
	cmd.Env = []string{"PATH=" + filepath.Dir(bg) + ":" + filepath.Dir(sim) + ":" + os.Getenv("PATH")}
	for k, v := range s.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	started := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for a row of this run to land, then stop it.
	for landed := false; !landed; {
		time.Sleep(20 * time.Millisecond)
		filepath.WalkDir(s.ws, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, "-suite.jsonl") {
				if fi, _ := d.Info(); fi != nil && fi.Size() > 0 && fi.ModTime().After(started) {
					landed = true
				}
			}
			return nil
		})
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	s.stdout, s.code = out.String(), cmd.ProcessState.ExitCode()
	body, first := prComment(t, gh, s)
	sameOpening(t, s, first, 1, "fail")
	if !strings.HasPrefix(first, "❌ **benchgate set: fail**") || !strings.Contains(first, "benchgate received SIGTERM") || !strings.Contains(first, "head [`"+prHead[:7]+"`]") {
		t.Errorf("after SIGTERM the comment opens\n%s\n%s", first, body)
	}
}

// TestStoppedBatchShowsNoRunnerPath: a swebench-batch step under
// fail-on: never (its default) on a pull request is stopped by SIGTERM
// while an instance's agent runs. A stopped batch fails the step
// whatever fail-on says, and every view says so alike: the comment, the
// summary's opening, an error annotation, the outputs (status fail,
// enforced false, exit code 1) and verdict.json. None of them, nor the
// step log (the mode's command and output included), shows a runner
// path: the workspace, the runner's temporary folder, the runner's file
// commands or the Docker engine's socket. Before, the log's group title
// and the batch's own lines named the results folder, the step summary
// file and every log by their absolute paths.
func TestStoppedBatchShowsNoRunnerPath(t *testing.T) {
	host := testenv.DockerHost(t)
	dc := swebenchtest.Docker(t)
	const id = "acme__stopped-1"
	swebenchtest.ImportImage(t, dc, "sweb.eval.arm64."+id+":latest", true)
	s := newStep(t, map[string]string{"mode": "swebench-batch", "max-loops": "1", "out-dir": "runs", "upload-artifacts": "false",
		"extra-args": "--network\nnone\n--env\nFAKE_CODEX_SCENARIO=hang"})
	dataset := swebenchtest.DatasetFile(t, s.ws, id)
	s.env["INPUT_INSTANCE-FILE"] = filepath.Base(dataset)
	s.env["DOCKER_HOST"] = host
	gh := prStep(t, s, "octo/bench")

	bg, sim := binaries(t)
	cmd := exec.Command(bg, "action")
	cmd.Dir = s.ws
	cmd.Env = []string{"PATH=" + filepath.Dir(bg) + ":" + filepath.Dir(sim) + ":" + os.Getenv("PATH")}
	for k, v := range s.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the agent's execute phase runs, then stop the step.
	for running := false; !running; {
		time.Sleep(50 * time.Millisecond)
		m, _ := filepath.Glob(filepath.Join(s.ws, "runs", "*", id, "logs", "codex_execute_1.jsonl"))
		running = len(m) > 0
		if cmd.ProcessState != nil {
			t.Fatalf("the step ended before its agent ran:\n%s", out.String())
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	s.stdout, s.code = out.String(), cmd.ProcessState.ExitCode()

	body, first := prComment(t, gh, s)
	sameOpening(t, s, first, 1, "fail")
	if !strings.HasPrefix(first, "❌ **benchgate swebench-batch: fail**") || strings.Contains(first, "not enforced") {
		t.Errorf("a stopped batch under fail-on: never opens\n%s", first)
	}
	if o := s.outputs(t); o["enforced"] != "false" {
		t.Errorf("output enforced = %q, want false (fail-on: never, which a stop overrides)", o["enforced"])
	}
	if v := keptVerdict(t, s); v.Status != "fail" || v.ExitCode != 1 || v.NotEnforced() {
		t.Errorf("verdict.json: status %s, exit code %d, not enforced %v", v.Status, v.ExitCode, v.NotEnforced())
	}
	if len(errorLines(s.stdout)) == 0 {
		t.Errorf("a stopped step has no error annotation:\n%s", s.stdout)
	}
	if !strings.Contains(s.stdout, "::endgroup::") || !strings.Contains(s.stdout, "received SIGTERM") {
		t.Fatalf("the step log has no mode group, or the stop is not in it:\n%s", s.stdout)
	}
	views := map[string]string{"comment": body, "job summary": s.summary(t), "step log": s.stdout}
	for name, text := range views {
		for _, dir := range []string{s.ws, s.env["RUNNER_TEMP"], s.files, strings.TrimPrefix(host, "unix://")} {
			if i := strings.Index(text, dir); i >= 0 {
				t.Errorf("the %s shows the runner path %s: …%s…", name, dir, text[max(0, i-150):min(len(text), i+len(dir)+100)])
			}
		}
	}
}

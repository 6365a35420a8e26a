package action_test

// The pull-request view on outcomes beyond a plain pass or fail, through
// the built binary on a pull_request event against the stateful fake
// GitHub: the sticky comment, the job summary's opening, annotations,
// outputs and exit code must tell the same story on every run of a head.

import (
	"archive/zip"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/action"
	"github.com/benchgate/benchgate/internal/prcomment"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
	"github.com/benchgate/benchgate/internal/testsupport/mermaid"
	"github.com/benchgate/benchgate/internal/verdict"
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

// keptVerdict reads the verdict.json the step kept in its run folder.
func keptVerdict(t *testing.T, s *step) verdict.Verdict {
	t.Helper()
	var v verdict.Verdict
	b, err := os.ReadFile(filepath.Join(s.ws, s.outputs(t)["out-dir"], action.VerdictFile))
	if err != nil {
		t.Fatalf("no verdict kept: %v", err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestUnchangedRunIsACleanPass: rows judged against a baseline and a
// history holding the same rows (four scenarios, as the benchmark's
// real suites have). Nothing moved, so the
// run is a clean ✅ that says it is unchanged against the baseline, with
// nothing undecided and no advice to let undecided checks pass. Before,
// the ties of identical rows made six baseline checks "undecided, and
// allowed to pass", the table marked them "decided the exit code" while
// the exit code ignored them, and "Next" told the reader to set
// stats-allow-undecided after the first line said they were allowed.
// Then undecided checks a user did allow (stats-allow-undecided: true)
// pass the step without being called decisive, and "Next" says how much
// more data would decide them instead of asking for what is set.
func TestUnchangedRunIsACleanPass(t *testing.T) {
	t.Run("same rows as the baseline", func(t *testing.T) {
		s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "cur/*-suite.jsonl", "gate": "true", "upload-artifacts": "false",
			"baseline": "baseline", "history": "history"})
		// Four scenarios: too few for a baseline interval to decide
		// anything, so only identical rows can be a clean pass.
		for day, dir := range map[int]string{1: "history/run-1", 2: "history/run-2", 3: "baseline", 4: "cur"} {
			os.MkdirAll(filepath.Join(s.ws, dir), 0o755)
			os.WriteFile(filepath.Join(s.ws, dir, "agent_direct-suite.jsonl"), []byte(suiteText("agent_direct", day, 4, 1000)), 0o644)
			os.WriteFile(filepath.Join(s.ws, dir, "ghx-suite.jsonl"), []byte(suiteText("ghx", day, 4, 500)), 0o644)
		}
		gh := prStep(t, s, "octo/bench")
		s.run(t)
		body, first := prComment(t, gh, s)
		sameOpening(t, s, first, 0, "pass")
		want := "✅ **benchgate report: pass**: all 17 checks pass; unchanged against the baseline · 0 checks failed, 0 scenarios failing · head [`" + prHead[:7] + "`]"
		if !strings.HasPrefix(first, want) {
			t.Errorf("first line\n%s\nwant it to start\n%s", first, want)
		}
		if !strings.HasSuffix(first, " and baseline folder baseline") {
			t.Errorf("first line does not name the baseline as a folder: %s", first)
		}
		for _, bad := range []string{"⚠️", "undecided", "decided the exit code", "stats-allow-undecided", "**Next**"} {
			if strings.Contains(body, bad) {
				t.Errorf("an unchanged run's comment says %q:\n%s", bad, body)
			}
		}
		if !strings.Contains(body, "| ✅ | ghx: active_tokens change against the baseline | 0.00% [0.00%, 0.00%] | ≤ 10.00% | the two runs hold the same values in every one of the 4 paired scenarios") {
			t.Errorf("the table does not say the baseline check is unchanged:\n%s", body)
		}
		if out := s.outputs(t); out["baseline-verdict"] != "pass" {
			t.Errorf("baseline-verdict output %q, want pass", out["baseline-verdict"])
		}
		for _, c := range keptVerdict(t, s).Checks {
			if c.Status != verdict.Pass || !c.Decided {
				t.Errorf("verdict.json: %s is %s (decided %v), want a pass that decided the exit code", c.ID, c.Status, c.Decided)
			}
		}
	})
	t.Run("undecided checks allowed to pass", func(t *testing.T) {
		s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "cur/*-suite.jsonl", "gate": "true", "upload-artifacts": "false",
			"stats": "true", "stats-allow-undecided": "true"})
		writeNoisySuites(t, s.ws)
		gh := prStep(t, s, "octo/bench")
		s.run(t)
		body, first := prComment(t, gh, s)
		sameOpening(t, s, first, 0, "pass")
		want := "⚠️ **benchgate report: pass**: 9 of 10 checks pass; undecided, and allowed to pass: active-token reduction "
		if !strings.HasPrefix(first, want) || !strings.Contains(first, ", needs ≥ 15.00% (undecided) · 0 checks failed, 1 undecided, 0 scenarios failing · ") {
			t.Errorf("first line\n%s\nwant it to start\n%s", first, want)
		}
		if strings.Contains(body, "decided the exit code") || strings.Contains(body, "stats-allow-undecided") {
			t.Errorf("checks allowed to pass are called decisive, or Next asks for what is set:\n%s", body)
		}
		for _, w := range []string{"| ≥ 15.00% | undecided, allowed to pass;",
			"**Next**: The data do not decide active-token reduction, which did not fail the step: the table says how much more would."} {
			if !strings.Contains(body, w) {
				t.Errorf("comment lacks %q:\n%s", w, body)
			}
		}
		for _, c := range keptVerdict(t, s).Checks {
			if c.Status == verdict.Undecided && c.Decided {
				t.Errorf("verdict.json: undecided %s decided the exit code of a pass", c.ID)
			}
		}
	})
}

// TestRecoveredScenarioIsNamed: a scenario that failed in every earlier
// run of the history passes now, while another fails for the first time.
// The comment names the new failure first, with one count of what broke
// and where it was measured, and then the recovered scenario as good
// news. Before, the recovered scenario was only in a collapsed section
// of the job summary.
func TestRecoveredScenarioIsNamed(t *testing.T) {
	s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "cur/*-suite.jsonl", "gate": "false", "upload-artifacts": "false", "history": "history"})
	for day, dir := range map[int]string{1: "history/run-1", 2: "history/run-2", 3: "cur"} {
		fail := []int{3} // s-003 failed in both earlier runs
		if dir == "cur" {
			fail = []int{5} // and passes now, while s-005 fails
		}
		os.MkdirAll(filepath.Join(s.ws, dir), 0o755)
		os.WriteFile(filepath.Join(s.ws, dir, "agent_direct-suite.jsonl"), []byte(suiteText("agent_direct", day, 12, 1000)), 0o644)
		os.WriteFile(filepath.Join(s.ws, dir, "ghx-suite.jsonl"), []byte(suiteText("ghx", day, 12, 500, fail...)), 0o644)
	}
	gh := prStep(t, s, "octo/bench")
	s.run(t)
	body, first := prComment(t, gh, s)
	sameOpening(t, s, first, 0, "fail")
	if !strings.Contains(first, " · 1 scenario failing (1 new against the history) · ") {
		t.Errorf("first line does not count the new failure against the history: %s", first)
	}
	failing := strings.Index(body, "**Failing scenarios** (1):\n\n- **new** `s-005`")
	recovered := strings.Index(body, "**Recovered, passing now** (1): `ghx/s-003` (failed in all 2 earlier runs).")
	if failing < 0 || recovered < 0 || recovered < failing {
		t.Errorf("the comment does not name the new failure, then the recovered scenario:\n%s", body)
	}
	if v := keptVerdict(t, s); len(v.Recovered) != 1 || v.Recovered[0].ID != "s-003" || v.NewAgainst != "history" {
		t.Errorf("verdict.json: recovered %+v, new against %q", v.Recovered, v.NewAgainst)
	}
}

// writeNoisySuites writes four scenarios in which ghx saves a fifth of
// agent_direct's active tokens, with repetitions ±30% apart: too noisy
// for the statistical gate to decide the 15% it needs.
func writeNoisySuites(t *testing.T, ws string) {
	t.Helper()
	os.MkdirAll(filepath.Join(ws, "cur"), 0o755)
	os.WriteFile(filepath.Join(ws, "cur", "agent_direct-suite.jsonl"), []byte(noisySuite(t, "agent_direct", 4, 1000, 0.3)), 0o644)
	os.WriteFile(filepath.Join(ws, "cur", "ghx-suite.jsonl"), []byte(noisySuite(t, "ghx", 4, 800, 0.3)), 0o644)
}

// noisySuite is suiteText whose active tokens vary between the
// repetitions of a scenario by ±spread (the first repetition low, the
// last high), so that the statistical gate has noise to beat.
func noisySuite(t *testing.T, mode string, n int, tokens, spread float64) string {
	t.Helper()
	var out []string
	for i, line := range strings.Split(strings.TrimSpace(suiteText(mode, 4, n, tokens)), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		f := 1 + spread*float64(i%3-1)
		tok := row["tokens"].(map[string]any)
		tok["input"], tok["total"] = tok["input"].(float64)*f, tok["total"].(float64)*f
		b, _ := json.Marshal(row)
		out = append(out, string(b))
	}
	return strings.Join(out, "\n") + "\n"
}

var (
	svgRect = regexp.MustCompile(`<rect x="[^"]*" y="[^"]*" width="([0-9.]+)" height="([0-9.]+)"`)
	svgLine = regexp.MustCompile(`<g class="line-plot-[0-9]+"><path d="([^"]*)"`)
	svgText = regexp.MustCompile(`<text [^>]*>([^<]*)</text>`)
)

// TestOneScenarioChartDrawsBothModes: a report over one scenario, its
// job summary's charts drawn by mermaid in Chromium as GitHub draws
// them. Each chart shows agent_direct and ghx as marks with an area or
// a length, each named. Before, ghx was a line of one point, which
// mermaid draws as nothing: only agent_direct was visible.
func TestOneScenarioChartDrawsBothModes(t *testing.T) {
	s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "cur/*-suite.jsonl", "gate": "false", "upload-artifacts": "false"})
	os.MkdirAll(filepath.Join(s.ws, "cur"), 0o755)
	os.WriteFile(filepath.Join(s.ws, "cur", "agent_direct-suite.jsonl"), []byte(suiteText("agent_direct", 4, 1, 1000)), 0o644)
	os.WriteFile(filepath.Join(s.ws, "cur", "ghx-suite.jsonl"), []byte(suiteText("ghx", 4, 1, 500)), 0o644)
	s.run(t)
	if s.code != 0 {
		t.Fatalf("exit %d\n%s", s.code, s.stdout)
	}
	sum := s.summary(t)
	gfm.Require(t, "job summary", sum)
	charts := mermaid.Charts(sum)
	if len(charts) != 2 {
		t.Fatalf("%d charts in the summary, want 2 (active tokens, latency)", len(charts))
	}
	for i, svg := range mermaid.Render(t, charts...) {
		marks := 0
		for _, m := range svgRect.FindAllStringSubmatch(svg, -1) {
			if w, _ := strconv.ParseFloat(m[1], 64); w > 0 {
				if h, _ := strconv.ParseFloat(m[2], 64); h > 0 && w < 900 {
					marks++ // a bar (the background is the whole 900-wide chart)
				}
			}
		}
		for _, m := range svgLine.FindAllStringSubmatch(svg, -1) {
			if strings.Contains(m[1], "L") {
				marks++ // a line of at least two points
			}
		}
		var texts []string
		for _, m := range svgText.FindAllStringSubmatch(svg, -1) {
			texts = append(texts, m[1])
		}
		all := strings.Join(texts, "|")
		if marks != 2 || !strings.Contains(all, "agent_direct") || !strings.Contains(all, "ghx") {
			t.Errorf("chart %d draws %d visible marks (want one per mode) and says %q:\n%s", i+1, marks, all, charts[i])
		}
	}
}

// keptFile is the pr-comment.json a fork's run kept in its comment
// artifact, as the second stage downloads it.
func keptFile(t *testing.T, storage string) []byte {
	t.Helper()
	var found []byte
	filepath.WalkDir(storage, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(p, "pr-comment") {
			return nil
		}
		r, err := zip.OpenReader(p)
		if err != nil {
			return nil
		}
		defer r.Close()
		for _, f := range r.File {
			if f.Name == prcomment.FileName {
				rc, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				found, _ = io.ReadAll(rc)
				rc.Close()
			}
		}
		return nil
	})
	if found == nil {
		t.Fatalf("no %s kept in %s", prcomment.FileName, storedNames(t, storage))
	}
	return found
}

// TestForkSecondStageDescribesWhatItPosted: a pull request from a fork
// fails its report (its token may only read, so the comment is kept as
// an artifact); the second stage, a workflow_run workflow on the base
// branch's commit, posts it. The second stage's job summary, log line
// and outputs describe what it posted: the failed verdict, its deciding
// check and counts, and the pull request's head commit, never the base
// branch's commit the workflow_run checked out. Before, its summary read
// "✅ pr-comment: pass · 0 checks failed · head <base commit>".
func TestForkSecondStageDescribesWhatItPosted(t *testing.T) {
	first := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "suites/agent_direct-suite.jsonl\nsuites/ghx-suite.jsonl", "gate": "true"})
	for _, f := range []string{"agent_direct-suite.jsonl", "ghx-suite.jsonl"} {
		copyFile(t, filepath.Join("testdata", "suites", f), filepath.Join(first.ws, "suites", f))
	}
	gh := prStep(t, first, "mallory/bench")
	storage := artifactStorage(t, first)
	first.run(t)
	if first.code != 1 {
		t.Fatalf("the fork's run exited %d, want 1\n%s", first.code, first.stdout)
	}
	if n := len(gh.Comments(1)); n != 0 {
		t.Fatalf("the fork's run posted %d comments", n)
	}

	// The second stage: workflow_run on main's commit, a token that can write.
	const mainSHA = "2222222222222222222222222222222222222222"
	second := newStep(t, map[string]string{"mode": "pr-comment", "comment-file": "kept/" + prcomment.FileName, "github-token": "tok"})
	os.MkdirAll(filepath.Join(second.ws, "kept"), 0o755)
	os.WriteFile(filepath.Join(second.ws, "kept", prcomment.FileName), keptFile(t, storage), 0o644)
	ev, _ := json.Marshal(map[string]any{
		"workflow_run": map[string]any{"head_sha": prHead, "name": "bench", "event": "pull_request", "conclusion": "failure"},
		"repository":   map[string]any{"full_name": "octo/bench"},
	})
	os.WriteFile(second.env["GITHUB_EVENT_PATH"], ev, 0o644)
	for k, v := range map[string]string{"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_API_URL": gh.URL + "/api-v3", "GITHUB_REPOSITORY": "octo/bench",
		"GITHUB_SHA": mainSHA, "GITHUB_WORKFLOW": "benchmark comment", "GITHUB_RUN_ID": "9002"} {
		second.env[k] = v
	}
	second.run(t)
	body, posted := prComment(t, gh, second)
	if !strings.HasPrefix(posted, "❌ **benchgate report: fail**: tool-call reduction 16.67%, needs ≥ 20.00%") {
		t.Errorf("the posted comment opens %s", posted)
	}
	if second.code != 0 {
		t.Fatalf("second stage exit %d\n%s", second.code, second.stdout)
	}
	sum := second.summary(t)
	gfm.Require(t, "job summary", sum)
	sumFirst, _, _ := strings.Cut(sum, "\n")
	want := "✅ **benchgate pr-comment: pass**: posted ❌ report fail: tool-call reduction 16.67%, needs ≥ 20.00% · 1 check failed, 0 scenarios failing · head [`" + prHead[:7] + "`](https://github.com/octo/bench/commit/" + prHead + ") against base [`" + prBase[:7] + "`]"
	if !strings.HasPrefix(sumFirst, want) {
		t.Errorf("second stage's summary opens\n%s\nwant\n%s", sumFirst, want)
	}
	if strings.Count(sum, mainSHA[:7]) != strings.Count(sum, "this run checked out `"+mainSHA[:12]+"…` of the base branch") {
		t.Errorf("the second stage's summary names the base branch's commit %s as what it is about:\n%s", mainSHA[:7], sum)
	}
	if !strings.Contains(sum, "| ❌ | tool-call reduction | 16.67% | ≥ 20.00% | **decided the exit code** |") || !strings.Contains(body, "| ❌ | tool-call reduction | 16.67% |") {
		t.Errorf("the second stage's summary does not show the posted table:\n%s", sum)
	}
	plain := stripLinks(strings.NewReplacer("**", "", "`", "").Replace(sumFirst))
	if !strings.Contains(second.stdout, "\n"+plain+"\n") {
		t.Errorf("the log does not end with the summary's first line %q:\n%s", plain, second.stdout)
	}
	out := second.outputs(t)
	if out["status"] != "pass" || out["posted-status"] != "fail" || out["posted-head-sha"] != prHead || !strings.HasPrefix(out["pr-comment-url"], "https://") {
		t.Errorf("outputs %v: want status pass, posted-status fail, posted-head-sha %s and the comment's URL", out, prHead)
	}
}

// TestFlakyScenarioIsNotCalledRecovered: s-003 failed in the baseline
// and passes now, which alone would make it recovered; but the history
// says it passed in one of its two earlier runs and failed in the other.
// The comment lists it among the flaky scenarios with a note that it
// failed in the baseline and passes now, and never as recovered, while
// s-007, which failed in the baseline and in every earlier run, is
// recovered. verdict.json says the same.
func TestFlakyScenarioIsNotCalledRecovered(t *testing.T) {
	s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "cur/*-suite.jsonl", "gate": "false", "upload-artifacts": "false",
		"baseline": "baseline", "history": "history"})
	for day, run := range []struct {
		dir  string
		fail []int
	}{{"history/run-1", []int{3, 7}}, {"history/run-2", []int{7}}, {"baseline", []int{3, 7}}, {"cur", nil}} {
		os.MkdirAll(filepath.Join(s.ws, run.dir), 0o755)
		os.WriteFile(filepath.Join(s.ws, run.dir, "agent_direct-suite.jsonl"), []byte(suiteText("agent_direct", day+1, 12, 1000)), 0o644)
		os.WriteFile(filepath.Join(s.ws, run.dir, "ghx-suite.jsonl"), []byte(suiteText("ghx", day+1, 12, 500, run.fail...)), 0o644)
	}
	gh := prStep(t, s, "octo/bench")
	s.run(t)
	body, first := prComment(t, gh, s)
	sameOpening(t, s, first, 0, "pass")
	if !strings.Contains(body, "**Recovered, passing now** (1): `ghx/s-007` (failed in the baseline).") {
		t.Errorf("the scenario that failed everywhere before is not recovered:\n%s", body)
	}
	if !strings.Contains(body, "`ghx/s-003` (passed 1 of 2 earlier runs; it failed in the baseline and passes now, flaky rather than recovered)") {
		t.Errorf("the flaky scenario has no note:\n%s", body)
	}
	if strings.Contains(body, "`ghx/s-003` (failed in") {
		t.Errorf("the flaky scenario is called recovered:\n%s", body)
	}
	v := keptVerdict(t, s)
	if len(v.Recovered) != 1 || v.Recovered[0].ID != "s-007" {
		t.Errorf("verdict.json: recovered %+v, want s-007 alone", v.Recovered)
	}
	found := false
	for _, f := range v.Flaky {
		found = found || (f.ID == "s-003" && f.BaselineFailed && !f.FailingNow)
	}
	if !found {
		t.Errorf("verdict.json: flaky %+v lacks s-003 with its baseline failure", v.Flaky)
	}
}

// TestGateFalseFailingChecksSayFail: a report with gate: false whose
// checks would have failed passes the step (exit-code 0, enforced
// false), and its status output and verdict.json say "fail", as a batch
// under fail-on never does, so the documented enforced == 'false' &&
// status != 'pass' finds it. Before, status said "pass" beside a
// comment reading "not enforced: 2 of 9 checks would have failed". A
// scenario ID full of Markdown and workflow-command characters stays
// inside the views, and no view names the workspace or runner temp.
func TestGateFalseFailingChecksSayFail(t *testing.T) {
	s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "cur/*-suite.jsonl", "gate": "false", "upload-artifacts": "false"})
	const hostile = "s|`x`**<!-- -->::error::boom"
	quoted, _ := json.Marshal(hostile)
	os.MkdirAll(filepath.Join(s.ws, "cur"), 0o755)
	for mode, text := range map[string]string{"agent_direct": suiteText("agent_direct", 4, 12, 1000), "ghx": suiteText("ghx", 4, 12, 500, 2)} {
		text = strings.ReplaceAll(text, `"s-001"`, string(quoted))
		os.WriteFile(filepath.Join(s.ws, "cur", mode+"-suite.jsonl"), []byte(text), 0o644)
	}
	gh := prStep(t, s, "octo/bench")
	s.run(t)
	_, first := prComment(t, gh, s)
	sameOpening(t, s, first, 0, "fail")
	if !strings.HasPrefix(first, "⚠️ **benchgate report: not enforced**: 2 of 9 checks would have failed (gate: false)") {
		t.Errorf("first line: %s", first)
	}
	if o := s.outputs(t); o["enforced"] != "false" {
		t.Errorf("output enforced = %q, want false", o["enforced"])
	}
	for _, line := range strings.Split(s.stdout, "\n") {
		if strings.HasPrefix(line, "::error") {
			t.Errorf("an error annotation on a step whose failures are not enforced: %s", line)
		}
	}
	if v := keptVerdict(t, s); v.Status != "fail" || v.ExitCode != 0 || v.Enforced || !v.NotEnforced() {
		t.Errorf("verdict.json: status %q, exit code %d, enforced %v", v.Status, v.ExitCode, v.Enforced)
	}
	views := map[string]string{"log": s.stdout, "summary": s.summary(t)}
	for _, c := range gh.Comments(1) {
		views["comment"] = c.Body
	}
	for name, text := range views {
		for _, dir := range []string{s.ws, s.files, s.env["RUNNER_TEMP"]} {
			if strings.Contains(text, dir) {
				t.Errorf("the %s names the runner path %s", name, dir)
			}
		}
	}
}

// TestOutDirInRunnerTempNotShown: an out-dir in the runner's temporary
// folder (out-dir: ${{ runner.temp }}/bench) is named $RUNNER_TEMP/bench
// in the log's verdict annotation, whether the failures are enforced
// (an error) or not (a warning). Before, both named the absolute path.
func TestOutDirInRunnerTempNotShown(t *testing.T) {
	for _, gate := range []string{"true", "false"} {
		t.Run("gate "+gate, func(t *testing.T) {
			s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "cur/*-suite.jsonl", "gate": gate, "upload-artifacts": "false"})
			os.MkdirAll(filepath.Join(s.ws, "cur"), 0o755)
			os.WriteFile(filepath.Join(s.ws, "cur", "agent_direct-suite.jsonl"), []byte(suiteText("agent_direct", 4, 12, 1000)), 0o644)
			os.WriteFile(filepath.Join(s.ws, "cur", "ghx-suite.jsonl"), []byte(suiteText("ghx", 4, 12, 500, 1, 2)), 0o644)
			prStep(t, s, "octo/bench")
			s.env["INPUT_OUT-DIR"] = filepath.Join(s.env["RUNNER_TEMP"], "bench")
			s.run(t)
			if want := map[string]int{"true": 1, "false": 0}[gate]; s.code != want {
				t.Fatalf("exit %d, want %d\n%s", s.code, want, s.stdout)
			}
			if strings.Contains(s.stdout, s.env["RUNNER_TEMP"]) || !strings.Contains(s.stdout, "the job summary and $RUNNER_TEMP/bench tell") {
				t.Errorf("the log names the runner's temporary folder, or not as $RUNNER_TEMP:\n%s", s.stdout)
			}
		})
	}
}

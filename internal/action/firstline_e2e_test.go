package action_test

import (
	"archive/zip"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/action"
	"github.com/benchgate/benchgate/internal/prcomment"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
	"github.com/benchgate/benchgate/internal/verdict"
)

// The commits of the pull request the first-line tests judge: its head,
// its base, and the merge commit GitHub checks out (GITHUB_SHA), which a
// maintainer never pushed and must never see named.
const (
	prHead  = "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c"
	prBase  = "a0b1c2d3e4f5061728394a5b6c7d8e9f00112233"
	prMerge = "9999999999999999999999999999999999999999"
)

// prStep is a step on pull request 1 of octo/bench with pr-comment:
// always against the stateful fake GitHub; from names the head
// repository (a fork when it is not octo/bench, whose run gets a token
// that may only read).
func prStep(t *testing.T, s *step, from string) *ghfake.Server {
	t.Helper()
	gh := ghfake.New("octo", "bench", "main", "tok", nil)
	t.Cleanup(gh.Close)
	if from != "octo/bench" {
		gh.ReadOnlyToken = "ro-tok"
	}
	gh.AddPull(ghfake.Pull{Title: "change", Head: "feature", Base: "main", HeadSHA: prHead})
	onPull(t, s, gh, from)
	return gh
}

// onPull makes s a step on pull request 1 of gh, as prStep does: a
// second step (another leg of a matrix) on the same pull request.
func onPull(t *testing.T, s *step, gh *ghfake.Server, from string) {
	t.Helper()
	token := "tok"
	if from != "octo/bench" {
		token = "ro-tok"
	}
	event := map[string]any{
		"pull_request": map[string]any{"number": 1,
			"head": map[string]any{"sha": prHead, "ref": "feature", "repo": map[string]any{"full_name": from}},
			"base": map[string]any{"sha": prBase, "ref": "main", "repo": map[string]any{"full_name": "octo/bench"}}},
		"repository": map[string]any{"full_name": "octo/bench"},
	}
	b, _ := json.Marshal(event)
	if err := os.WriteFile(s.env["GITHUB_EVENT_PATH"], b, 0o644); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"GITHUB_API_URL": gh.URL + "/api-v3", "GITHUB_REPOSITORY": "octo/bench", "GITHUB_SHA": prMerge,
		"GITHUB_BASE_REF": "main", "GITHUB_HEAD_REF": "feature", "GITHUB_WORKFLOW": "bench", "RUNNER_TEMP": t.TempDir(),
		"INPUT_PR-COMMENT": "always", "INPUT_GITHUB-TOKEN": token,
	} {
		s.env[k] = v
	}
}

// firstLineCase is one of the runs a maintainer reads on a pull request.
type firstLineCase struct {
	name string
	// prepare builds the step (inputs, workspace, fake GitHub).
	prepare func(t *testing.T) (*step, *ghfake.Server)
	code    int
	status  string
	// first must start the first line, after the mark; also are further
	// parts of it (the deciding checks with value and threshold).
	mark, first string
	also        []string
	// comment holds text the comment must show beyond its first line;
	// summary, text the job summary must show.
	comment, summary []string
	// kept: the comment could not be posted (a fork) and is read from
	// the artifact the step kept for the second stage.
	kept bool
	// notEnforced: the step passed only because its failures are not
	// enforced (fail-on: never).
	notEnforced bool
}

// TestFirstLineAnswersTheQuestion runs `benchgate action` on a
// pull_request event as the runner starts it, for six runs a maintainer
// meets: a clear win, a reliability regression, an inconclusive noisy
// change, an ordered run failing at set 3, a SWE-bench batch with mixed
// outcomes and a pull request from a fork. For each, the comment (as the
// fake GitHub keeps it, or as kept for the second stage) and the job
// summary render through cmark-gfm, open with the same first line (the
// status mark, the deciding checks with value and threshold, the head
// commit of the pull request, never the merge commit), and the table,
// the annotations, the outputs and the log say the same.
func TestFirstLineAnswersTheQuestion(t *testing.T) {
	report := func(inputs map[string]string, suites func(ws string)) func(t *testing.T) (*step, *ghfake.Server) {
		return func(t *testing.T) (*step, *ghfake.Server) {
			in := map[string]string{"mode": "report", "suite-jsonl": "cur/agent_direct-suite.jsonl\ncur/ghx-suite.jsonl", "gate": "true", "upload-artifacts": "false"}
			for k, v := range inputs {
				in[k] = v
			}
			s := newStep(t, in)
			suites(s.ws)
			return s, prStep(t, s, "octo/bench")
		}
	}
	write := func(ws, name, text string) {
		p := filepath.Join(ws, "cur", name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			panic(err)
		}
	}
	generated := func(ghxTokens float64, ghxFails ...int) func(ws string) {
		return func(ws string) {
			write(ws, "agent_direct-suite.jsonl", suiteText("agent_direct", 4, 12, 1000))
			write(ws, "ghx-suite.jsonl", suiteText("ghx", 4, 12, ghxTokens, ghxFails...))
		}
	}
	tests := []firstLineCase{
		{name: "clear win", prepare: report(map[string]string{"stats": "true"}, generated(500)), code: 0, status: "pass",
			mark: "✅", first: "**benchgate report: pass**: all ", also: []string{"checks pass; closest to its threshold: ", ", needs "},
			comment: []string{"| ✅ | active-token reduction | 50.00% [", "gate v2's median of per-scenario reductions: 50.00%"}},
		{name: "reliability regression", prepare: report(nil, generated(500, 1, 2, 3, 4)), code: 1, status: "fail",
			mark: "❌", first: "**benchgate report: fail**: success rate change, ghx against agent_direct -33.33 points, needs ≥ -3.00 points; output validity (ghx) 66.67%, needs ≥ 97.00%",
			comment: []string{"| ❌ | success rate change, ghx against agent_direct | -33.33 points | ≥ -3.00 points | **decided the exit code** |",
				"- `s-001`: 3 of 3 iterations failed in ghx; first error: `success: expected true, got false`",
				"A reliability check failed"}},
		{name: "inconclusive noisy change", prepare: report(map[string]string{"stats": "true"}, func(ws string) { writeNoisySuites(t, ws) }), code: 1, status: "fail",
			mark: "❌", first: "**benchgate report: fail**: active-token reduction 20.00% [",
			also:    []string{"], needs ≥ 15.00% (undecided) · 0 checks failed, 1 undecided"},
			comment: []string{"The data do not decide active-token reduction: the table says how much more would (or set stats-allow-undecided: true"}},
		{name: "ordered run failing at set 3", code: 1, status: "fail",
			prepare: func(t *testing.T) (*step, *ghfake.Server) {
				s := benchStep(t, map[string]string{"mode": "ordered", "provider": "openai"})
				s.failWith(t, `{"rules":[{"scenario":"issue-close-001","behavior":"always_fail","field":"output_valid"}]}`)
				return s, prStep(t, s, "octo/bench")
			},
			mark: "❌", first: "**benchgate ordered: fail**: issues: failing rows after reruns (success, output_valid, error null) 2 rows, needs ≤ 0 rows",
			also:    []string{"1 scenario failing, 6 of 9 sets not run"},
			summary: []string{"| 3 | [issues](#set-issues-terminal_fail) | terminal_fail |", "| 4 | release-delivery | **not run** | - | - | - | - |", "| 9 | ci-log-analysis | **not run** |"},
			comment: []string{"**Sets**: failed: `issues` terminal_fail; 6 of 9 not run: `release-delivery`",
				"- `issues/issue-close-001`: 2 of 2 iterations failed in agent_direct and ghx; first error: `success: expected true, got false`",
				"`issue-close-001` fail(s) in both agent_direct and ghx: a fixture or scenario problem rather than ghx.",
				"The run stopped at set `issues`; 6 later sets did not run.",
				"gh workflow run rerun-scenarios.yml --ref feature -f set=issues -f scenario_ids=issue-close-001\n"}},
		{name: "SWE-bench batch with mixed outcomes", code: 0, status: "fail",
			prepare: func(t *testing.T) (*step, *ghfake.Server) {
				host := testenv.DockerHost(t)
				dc := swebenchtest.Docker(t)
				swebenchtest.ImportImage(t, dc, "sweb.eval.arm64.acme__actione2e-1:latest", true)
				s := newStep(t, map[string]string{"mode": "swebench-batch", "max-loops": "1", "out-dir": "runs", "upload-artifacts": "false",
					"extra-args": "--network\nnone\n--env\nFAKE_CODEX_SCENARIO=success"})
				dataset := swebenchtest.DatasetFile(t, s.ws, "acme__actione2e-2", "acme__actione2e-1")
				s.env["INPUT_INSTANCE-FILE"] = filepath.Base(dataset)
				s.env["DOCKER_HOST"] = host
				return s, prStep(t, s, "octo/bench")
			},
			mark: "⚠️", first: "**benchgate swebench-batch: not enforced**: 1 of 2 instances did not succeed (fail-on: never) · head ", notEnforced: true,
			comment: []string{"- `acme__actione2e-2`: `failed: missing_image", "**Failing instances** (1):", "| ❌ | instances that did not succeed | 1 instance | ≤ 0 instances | not enforced (fail-on: never) |"}},
		{name: "pull request from a fork", code: 1, status: "fail", kept: true,
			prepare: func(t *testing.T) (*step, *ghfake.Server) {
				s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "suites/agent_direct-suite.jsonl\nsuites/ghx-suite.jsonl", "gate": "true"})
				for _, f := range []string{"agent_direct-suite.jsonl", "ghx-suite.jsonl"} {
					copyFile(t, filepath.Join("testdata", "suites", f), filepath.Join(s.ws, "suites", f))
				}
				return s, prStep(t, s, "mallory/bench")
			},
			mark: "❌", first: "**benchgate report: fail**: tool-call reduction 16.67%, needs ≥ 20.00%"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, gh := tc.prepare(t)
			storage := ""
			if tc.kept {
				// The artifact server of this step: where the kept comment is.
				storage = artifactStorage(t, s)
			}
			s.run(t)
			if s.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", s.code, tc.code, s.stdout)
			}
			out := s.outputs(t)
			if out["status"] != tc.status || out["exit-code"] != strconv.Itoa(tc.code) || out["enforced"] != strconv.FormatBool(!tc.notEnforced) {
				t.Errorf("outputs status=%q exit-code=%q enforced=%q, want %s, %d and %v", out["status"], out["exit-code"], out["enforced"], tc.status, tc.code, !tc.notEnforced)
			}
			sum := s.summary(t)
			gfm.Require(t, "job summary", sum)
			var body string
			if tc.kept {
				if n := len(gh.Comments(1)); n != 0 {
					t.Errorf("a fork's run posted %d comments with a read-only token", n)
				}
				body = keptComment(t, storage)
			} else {
				cs := gh.Comments(1)
				if len(cs) != 1 {
					t.Fatalf("%d comments on the pull request, want 1\n%s", len(cs), s.stdout)
				}
				body = cs[0].Body
			}
			gfm.Require(t, "comment", body)
			marker, rest, _ := strings.Cut(body, "\n")
			if !strings.HasPrefix(marker, "<!-- benchgate-comment ") {
				t.Errorf("comment starts %q, not with its marker", marker)
			}
			first, _, _ := strings.Cut(rest, "\n")
			sumFirst, _, _ := strings.Cut(sum, "\n")
			if first != sumFirst {
				t.Errorf("comment and summary open differently:\ncomment: %s\nsummary: %s", first, sumFirst)
			}
			// The first line: mark, mode and status, the deciding checks
			// with value and threshold, the head commit linked.
			if !strings.HasPrefix(first, tc.mark+" "+tc.first) {
				t.Errorf("first line\n%s\nwant it to start\n%s %s", first, tc.mark, tc.first)
			}
			for _, w := range append(tc.also, "head [`"+prHead[:7]+"`](https://github.com/octo/bench/commit/"+prHead+") against base [`"+prBase[:7]+"`](https://github.com/octo/bench/commit/"+prBase+")") {
				if !strings.Contains(first, w) {
					t.Errorf("first line lacks %q:\n%s", w, first)
				}
			}
			// No runner path: the workspace, the runner's temporary folder
			// and its file-command folder never show.
			// Nor does the Docker engine's socket, nor an error annotation
			// beside a step that passed (fail-on: never).
			if tc.code == 0 {
				if errs := errorLines(s.stdout); len(errs) > 0 {
					t.Errorf("a step that exited 0 has error annotations: %q", errs)
				}
			}
			runnerPaths := []string{s.ws, s.env["RUNNER_TEMP"], s.files}
			if sock := strings.TrimPrefix(s.env["DOCKER_HOST"], "unix://"); sock != "" {
				runnerPaths = append(runnerPaths, sock)
				if strings.Contains(s.stdout[strings.Index(s.stdout, "::endgroup::"):], sock) {
					t.Errorf("the annotations or the log line after the mode's output show the Docker socket %s", sock)
				}
			}
			for _, dir := range runnerPaths {
				if strings.Contains(body, dir) || strings.Contains(sum, dir) {
					i := strings.Index(sum, dir)
					if i < 0 {
						i = 0
					}
					t.Errorf("the comment or summary shows the runner path %s: %.300s", dir, sum[max(0, i-200):])
				}
			}
			// The merge commit is named only as what the run checked out.
			if strings.Contains(body, prMerge[:7]) || strings.Count(sum, prMerge[:7]) != strings.Count(sum, "the run checked out the merge commit `"+prMerge[:7]) {
				t.Errorf("the merge commit is named as what was judged")
			}
			html := gfm.GitHubHTML(t, rest)
			if p := firstParagraph(html); !strings.HasPrefix(p, tc.mark+" <strong>benchgate ") {
				t.Errorf("rendered, the comment opens with %q", p)
			}
			for _, w := range tc.comment {
				if !strings.Contains(body, w) {
					t.Errorf("comment lacks %q:\n%s", w, body)
				}
			}
			for _, w := range tc.summary {
				if !strings.Contains(sum, w) {
					t.Errorf("summary lacks %q", w)
				}
			}
			// The verdict kept as data in the run folder renders the same
			// first line: the second stage and any later reader get the
			// judgement itself, not only its Markdown.
			var kept verdict.Verdict
			if b, err := os.ReadFile(filepath.Join(s.ws, out["out-dir"], action.VerdictFile)); err != nil {
				t.Errorf("no verdict kept: %v", err)
			} else if err := json.Unmarshal(b, &kept); err != nil {
				t.Errorf("%s: %v", action.VerdictFile, err)
			} else if err := kept.Validate(); err != nil {
				t.Errorf("%s: %v", action.VerdictFile, err)
			} else if kept.Headline() != first {
				t.Errorf("the kept verdict's first line differs:\n%s\n%s", kept.Headline(), first)
			} else if kept.Enforced == tc.notEnforced || kept.NotEnforced() != tc.notEnforced {
				t.Errorf("%s: enforced %v, not enforced %v; want not enforced %v", action.VerdictFile, kept.Enforced, kept.NotEnforced(), tc.notEnforced)
			}
			// Every check the table marks as deciding a failed run is in
			// the first line; the log ends with the same line, plain.
			for _, row := range strings.Split(rest, "\n") {
				if strings.HasPrefix(row, "| ❌ |") && strings.Contains(row, "**decided the exit code**") {
					name := strings.TrimSpace(strings.Split(row, "|")[2])
					if !strings.Contains(first, name) && !strings.Contains(first, "; and ") {
						t.Errorf("the table's deciding check %q is not in the first line", name)
					}
				}
			}
			plain := strings.NewReplacer("**", "", "`", "").Replace(first)
			plain = stripLinks(plain)
			if !strings.Contains(s.stdout, "\n"+plain+"\n") {
				t.Errorf("the step log does not end with the first line %q:\n%s", plain, s.stdout)
			}
			if tc.notEnforced {
				// The annotations say it as the first line does: a
				// warning stating it, and no error beside the green step.
				want := "::warning title=benchgate swebench-batch::" + strings.ReplaceAll(plain, "%", "%25") + ";"
				if !strings.Contains(s.stdout, want) {
					t.Errorf("no warning annotation states the first line %q:\n%s", want, s.stdout)
				}
				for _, w := range []string{": fail", "scenario"} {
					if strings.Contains(first, w) {
						t.Errorf("the first line of a step whose failures are not enforced says %q: %s", w, first)
					}
				}
			}
			if tc.name != "ordered run failing at set 3" && tc.code != 0 && strings.HasPrefix(tc.first, "**benchgate report") {
				want := "::error title=benchgate report::" + strings.ReplaceAll(plain, "%", "%25") + ";"
				if !strings.Contains(s.stdout, want) {
					t.Errorf("no error annotation states the first line %q:\n%s", want, strings.Join(errorLines(s.stdout), "\n"))
				}
			}
		})
	}
}

// stripLinks turns "[text](url)" into "text", as the plain headline has it.
func stripLinks(s string) string {
	for {
		i := strings.Index(s, "](")
		if i < 0 {
			return s
		}
		open := strings.LastIndex(s[:i], "[")
		end := strings.Index(s[i:], ")")
		if open < 0 || end < 0 {
			return s
		}
		s = s[:open] + s[open+1:i] + s[i+end+1:]
	}
}

// firstParagraph is the text of the first <p> of rendered HTML.
func firstParagraph(html string) string {
	_, rest, ok := strings.Cut(html, "<p>")
	if !ok {
		return ""
	}
	p, _, _ := strings.Cut(rest, "</p>")
	return p
}

// artifactStorage is the folder of the act artifact server the step
// uploads to: the one actServer started for it.
func artifactStorage(t *testing.T, s *step) string {
	t.Helper()
	art, storage := actServer(t)
	for k, v := range art {
		s.env[k] = v
	}
	return storage
}

// keptComment reads pr-comment.json from the comment artifact the step
// kept for the second stage and returns its body.
func keptComment(t *testing.T, storage string) string {
	t.Helper()
	var zips []string
	filepath.WalkDir(storage, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, "pr-comment") {
			zips = append(zips, p)
		}
		return nil
	})
	for _, z := range zips {
		r, err := zip.OpenReader(z)
		if err != nil {
			continue
		}
		defer r.Close()
		for _, f := range r.File {
			if f.Name != prcomment.FileName {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			// The kept file is data; the comment is what the second stage
			// renders from it.
			p := filepath.Join(t.TempDir(), prcomment.FileName)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := prcomment.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if f.HeadSHA != prHead {
				t.Errorf("kept comment judged %q, want the head %s", f.HeadSHA, prHead)
			}
			c, err := f.Comment(prcomment.Binding{Workflow: "bench", HeadSHA: prHead, LinkPrefix: "https://github.com/octo/bench/"})
			if err != nil {
				t.Fatal(err)
			}
			return c.Body
		}
	}
	t.Fatalf("no %s in the stored artifacts: %v", prcomment.FileName, zips)
	return ""
}

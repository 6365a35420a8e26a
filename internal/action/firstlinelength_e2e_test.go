package action_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/benchgate/benchgate/internal/prcomment"
	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// maxFirstLine is the most characters the first line may show, as a
// reader sees it rendered (marks, words, figures, commits; no Markdown
// syntax, no link targets): about three lines of a comment on a laptop
// screen, read in one glance. The figures of every case are kept in
// testdata/firstline-lengths.txt and in docs/action.md.
const maxFirstLine = 320

// lengthsFile keeps the measured figures; -update rewrites it.
const lengthsFile = "testdata/firstline-lengths.txt"

// TestFirstLineLength runs the cases a pull request meets through the
// built binary on a pull_request event against the stateful fake GitHub,
// and measures the first line of the comment (the job summary opens with
// the same line; for the fork's second stage, its own summary's line,
// which names what it posted): a pass, a failure, an error, an unchanged
// run, the fork's second stage, SWE-bench not enforced, one and fifty
// scenarios, and a bad input after an earlier pass. In each, the views
// agree: the comment (rendered through cmark-gfm) and the job summary
// open with the same line, the log carries it, the exit code, status and
// enforced outputs and verdict.json say the same, and error annotations
// appear exactly when the step failed. Each first line stays within
// maxFirstLine characters as rendered, and the figures are compared with
// the kept ones, so a change of length is seen in review.
func TestFirstLineLength(t *testing.T) {
	report := func(t *testing.T, inputs map[string]string, n int, ghxFails ...int) *step {
		in := map[string]string{"mode": "report", "suite-jsonl": "cur/*-suite.jsonl", "gate": "true", "upload-artifacts": "false"}
		for k, v := range inputs {
			in[k] = v
		}
		s := newStep(t, in)
		os.MkdirAll(filepath.Join(s.ws, "cur"), 0o755)
		os.WriteFile(filepath.Join(s.ws, "cur", "agent_direct-suite.jsonl"), []byte(suiteText("agent_direct", 4, n, 1000)), 0o644)
		os.WriteFile(filepath.Join(s.ws, "cur", "ghx-suite.jsonl"), []byte(suiteText("ghx", 4, n, 500, ghxFails...)), 0o644)
		return s
	}
	// Each case returns the step whose first line is measured, run;
	// lastGH is the fake GitHub its comment went to.
	var lastGH *ghfake.Server
	cases := []struct {
		name string
		run  func(t *testing.T) *step
		code int
		// status is the status output; notEnforced, a pass whose
		// failures were not enforced.
		status      string
		notEnforced bool
	}{
		{name: "pass", code: 0, status: "pass", run: func(t *testing.T) *step {
			s := report(t, map[string]string{"stats": "true"}, 12)
			lastGH = prStep(t, s, "octo/bench")
			s.run(t)
			return s
		}},
		{name: "fail", code: 1, status: "fail", run: func(t *testing.T) *step {
			s := report(t, nil, 12, 1, 2, 3, 4)
			lastGH = prStep(t, s, "octo/bench")
			s.run(t)
			return s
		}},
		{name: "error (no rows)", code: 2, status: "error", run: func(t *testing.T) *step {
			s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "cur/*-suite.jsonl", "gate": "true", "upload-artifacts": "false"})
			lastGH = prStep(t, s, "octo/bench")
			s.run(t)
			return s
		}},
		{name: "unchanged", code: 0, status: "pass", run: func(t *testing.T) *step {
			s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "cur/*-suite.jsonl", "gate": "true", "upload-artifacts": "false",
				"baseline": "baseline", "history": "history"})
			for day, dir := range map[int]string{1: "history/run-1", 2: "history/run-2", 3: "baseline", 4: "cur"} {
				os.MkdirAll(filepath.Join(s.ws, dir), 0o755)
				os.WriteFile(filepath.Join(s.ws, dir, "agent_direct-suite.jsonl"), []byte(suiteText("agent_direct", day, 4, 1000)), 0o644)
				os.WriteFile(filepath.Join(s.ws, dir, "ghx-suite.jsonl"), []byte(suiteText("ghx", day, 4, 500)), 0o644)
			}
			lastGH = prStep(t, s, "octo/bench")
			s.run(t)
			return s
		}},
		{name: "fork second stage", code: 0, status: "pass", run: func(t *testing.T) *step {
			first := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "suites/agent_direct-suite.jsonl\nsuites/ghx-suite.jsonl", "gate": "true"})
			for _, f := range []string{"agent_direct-suite.jsonl", "ghx-suite.jsonl"} {
				copyFile(t, filepath.Join("testdata", "suites", f), filepath.Join(first.ws, "suites", f))
			}
			gh := prStep(t, first, "mallory/bench")
			storage := artifactStorage(t, first)
			first.runWant(t, 1)
			second := newStep(t, map[string]string{"mode": "pr-comment", "comment-file": "kept/" + prcomment.FileName, "github-token": "tok"})
			os.MkdirAll(filepath.Join(second.ws, "kept"), 0o755)
			os.WriteFile(filepath.Join(second.ws, "kept", prcomment.FileName), keptFile(t, storage), 0o644)
			ev, _ := json.Marshal(map[string]any{
				"workflow_run": map[string]any{"head_sha": prHead, "name": "bench", "event": "pull_request", "conclusion": "failure"},
				"repository":   map[string]any{"full_name": "octo/bench"},
			})
			os.WriteFile(second.env["GITHUB_EVENT_PATH"], ev, 0o644)
			for k, v := range map[string]string{"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_API_URL": gh.URL + "/api-v3", "GITHUB_REPOSITORY": "octo/bench",
				"GITHUB_SHA": strings.Repeat("2", 40), "GITHUB_WORKFLOW": "benchmark comment", "GITHUB_RUN_ID": "9002"} {
				second.env[k] = v
			}
			second.run(t)
			return second
		}},
		{name: "swebench not enforced", code: 0, status: "fail", notEnforced: true, run: func(t *testing.T) *step {
			host := testenv.DockerHost(t)
			dc := swebenchtest.Docker(t)
			swebenchtest.ImportImage(t, dc, "sweb.eval.arm64.acme__actione2e-1:latest", true)
			s := newStep(t, map[string]string{"mode": "swebench-batch", "max-loops": "1", "out-dir": "runs", "upload-artifacts": "false",
				"extra-args": "--network\nnone\n--env\nFAKE_CODEX_SCENARIO=success"})
			dataset := swebenchtest.DatasetFile(t, s.ws, "acme__actione2e-2", "acme__actione2e-1")
			s.env["INPUT_INSTANCE-FILE"] = filepath.Base(dataset)
			s.env["DOCKER_HOST"] = host
			lastGH = prStep(t, s, "octo/bench")
			s.run(t)
			return s
		}},
		{name: "one scenario", code: 0, status: "pass", run: func(t *testing.T) *step {
			s := report(t, nil, 1)
			lastGH = prStep(t, s, "octo/bench")
			s.run(t)
			return s
		}},
		{name: "fifty scenarios, twelve failing", code: 1, status: "fail", run: func(t *testing.T) *step {
			var fails []int
			for i := 1; i <= 12; i++ {
				fails = append(fails, i*4)
			}
			s := report(t, map[string]string{"stats": "true"}, 50, fails...)
			lastGH = prStep(t, s, "octo/bench")
			s.run(t)
			return s
		}},
		{name: "bad input after an earlier pass", code: 2, status: "error", run: func(t *testing.T) *step {
			s := report(t, nil, 12)
			gh := prStep(t, s, "octo/bench")
			lastGH = gh
			s.runWant(t, 0)
			s.inputsAsJSON(t, map[string]string{"gat": "true"})
			s.rerun(t, 2)
			if _, first := prComment(t, gh, s); !strings.HasPrefix(first, "❌ **benchgate report: error**") {
				t.Errorf("the bad input did not replace the pass: %s", first)
			}
			return s
		}},
	}
	var figures []string
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.run(t)
			if s.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", s.code, tc.code, s.stdout)
			}
			first, _, _ := strings.Cut(s.summary(t), "\n")
			// Every view says the same: the comment opens with the
			// summary's line (the second stage's comment is the posted
			// verdict), the log carries it, the outputs and verdict.json
			// agree, and it renders through cmark-gfm.
			if s.env["INPUT_MODE"] != "pr-comment" {
				_, commentFirst := prComment(t, lastGH, s)
				if commentFirst != first {
					t.Errorf("comment opens\n%s\nsummary\n%s", commentFirst, first)
				}
			}
			sameOpening(t, s, first, tc.code, tc.status)
			if o := s.outputs(t); o["enforced"] != strconv.FormatBool(!tc.notEnforced) {
				t.Errorf("output enforced = %q", o["enforced"])
			}
			if tc.code != 2 && s.env["INPUT_MODE"] != "pr-comment" {
				// (The second stage keeps no run folder: the verdict it
				// posted is the first stage's, read from its file.)
				v := keptVerdict(t, s)
				if v.Headline() != first || v.NotEnforced() != tc.notEnforced || v.ExitCode != tc.code {
					t.Errorf("verdict.json: headline %q, not enforced %v, exit code %d", v.Headline(), v.NotEnforced(), v.ExitCode)
				}
			}
			if tc.code != 0 && len(errorLines(s.stdout)) == 0 {
				t.Errorf("a failed step has no error annotation:\n%s", s.stdout)
			}
			if tc.code == 0 && len(errorLines(s.stdout)) > 0 {
				t.Errorf("a passing step has error annotations: %q", errorLines(s.stdout))
			}
			shown := stripLinks(strings.NewReplacer("**", "", "`", "").Replace(first))
			n := utf8.RuneCountInString(shown)
			if n > maxFirstLine {
				t.Errorf("the first line shows %d characters, more than %d:\n%s", n, maxFirstLine, shown)
			}
			figures = append(figures, fmt.Sprintf("%-32s %4d shown  %4d Markdown bytes  %s", tc.name, n, len(first), shown))
		})
	}
	if t.Failed() || len(figures) != len(cases) {
		return
	}
	got := strings.Join(figures, "\n") + "\n"
	// -update is the golden files' flag, of the same test binary.
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(lengthsFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(lengthsFile)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/action -run TestFirstLineLength -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the first lines measured now (rerun with -update if the change is intended):\n%s", lengthsFile, "want:\n"+string(want)+"got:\n"+got)
	}
}

package action_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// suiteText is one suite file of mode: n scenarios of three repetitions
// with the given active tokens, failing every repetition of the scenarios
// in fail. day orders runs in time.
func suiteText(mode string, day, n int, tokens float64, fail ...int) string {
	return testenv.SuiteJSONL(mode, day, n, tokens, func(scenario, _ int) bool { return slices.Contains(fail, scenario) })
}

// TestReportBaselineFromBaseBranch runs `benchgate action` for a pull
// request against the stateful fake GitHub: the baseline is the newest
// completed run of the same workflow on main that kept the step's
// artifact, the history its three newest, and the step fails on a 30%
// growth of ghx's active tokens with a notice per flaky scenario. With
// nothing on main, the missing baseline is a notice and the step passes.
func TestReportBaselineFromBaseBranch(t *testing.T) {
	const n = 12
	tests := []struct {
		name        string
		setup       func(s *ghfake.Server)
		ghxTokens   float64
		wantCode    int
		wantVerdict string
		wantFlaky   string
		wantLog     []string
		wantSummary []string
		wantServed  int
	}{
		{name: "regression against main, flaky scenario named", ghxTokens: 650, wantCode: 1, wantVerdict: "fail", wantFlaky: "ghx/s-003", wantServed: 3,
			setup: func(s *ghfake.Server) {
				for day := 1; day <= 3; day++ {
					var fail []int
					if day == 2 {
						fail = []int{3}
					}
					id := s.AddRun(ghfake.WorkflowRun{Workflow: ".github/workflows/bench.yml", HeadBranch: "main", Event: "push", HeadSHA: fmt.Sprintf("%040d", day)})
					s.AddArtifact(id, "benchgate-bench-run", map[string]string{
						"agent_direct-suite.jsonl": suiteText("agent_direct", day, n, 1000),
						"ghx-suite.jsonl":          suiteText("ghx", day, n, 500, fail...),
					}, false)
				}
				// A run of another branch and the pull request's own run are never used.
				other := s.AddRun(ghfake.WorkflowRun{Workflow: ".github/workflows/bench.yml", HeadBranch: "feature"})
				s.AddArtifact(other, "benchgate-bench-run", map[string]string{"ghx-suite.jsonl": suiteText("ghx", 9, n, 5000)}, false)
				s.AddRun(ghfake.WorkflowRun{ID: 9001, Workflow: ".github/workflows/bench.yml", HeadBranch: "feature", Status: "in_progress"})
			},
			wantLog: []string{
				"::error title=benchgate%3A regressed against the baseline::regressed against the baseline: ghx active_tokens +30.0%",
				"::notice title=ghx%3A s-003::flaky: passed 2 of 3 earlier runs",
			},
			wantSummary: []string{"· against [baseline run 1002 at 0000000](https://github.com/octo/bench/actions/runs/1002)\n", "## Baseline and history", "Baseline: artifact `benchgate-bench-run` of bench.yml on `main`: #3 (run 1002,", "#### Against the baseline: fail", "##### ghx", "| active tokens | +30.0% |", "#### Flaky scenarios", "| ghx | s-003 | 2 of 3 | ✓✗✓✓ |"}},
		// A fork opens a pull request from its own branch called main: its
		// run is a pull_request run "on main", newer than main's own, and
		// its artifact claims ghx used a tenth of the tokens and that s-005
		// fails now and then. Neither reaches the honest pull request.
		{name: "a fork's run on a branch called main is neither baseline nor history", ghxTokens: 500, wantCode: 0, wantVerdict: "pass", wantFlaky: "", wantServed: 3,
			setup: func(s *ghfake.Server) {
				for day := 1; day <= 3; day++ {
					id := s.AddRun(ghfake.WorkflowRun{Workflow: ".github/workflows/bench.yml", HeadBranch: "main", Event: "push", HeadSHA: fmt.Sprintf("%040d", day)})
					s.AddArtifact(id, "benchgate-bench-run", map[string]string{
						"agent_direct-suite.jsonl": suiteText("agent_direct", day, n, 1000),
						"ghx-suite.jsonl":          suiteText("ghx", day, n, 500),
					}, false)
				}
				for _, ev := range []string{"pull_request", "pull_request_target", "push"} {
					fork := s.AddRun(ghfake.WorkflowRun{Workflow: ".github/workflows/bench.yml", HeadBranch: "main", Event: ev, HeadRepository: "mallory/bench"})
					s.AddArtifact(fork, "benchgate-bench-run", map[string]string{
						"agent_direct-suite.jsonl": suiteText("agent_direct", 5, n, 1000),
						"ghx-suite.jsonl":          suiteText("ghx", 5, n, 50, 5),
					}, false)
				}
			},
			wantLog:     []string{"baseline search: run 1005 (#6) skipped: its head commit came from mallory/bench, not octo/bench"},
			wantSummary: []string{"Baseline: artifact `benchgate-bench-run` of bench.yml on `main`: #3 (run 1002,", "#### Against the baseline: pass", "- run 1005 (#6) skipped: its head commit came from mallory/bench, not octo/bench"}},
		{name: "nothing on main: a notice, and the step passes", ghxTokens: 650, wantCode: 0, wantVerdict: "", wantFlaky: "", wantServed: 0,
			setup: func(s *ghfake.Server) {
				id := s.AddRun(ghfake.WorkflowRun{Workflow: ".github/workflows/bench.yml", HeadBranch: "main"})
				s.AddArtifact(id, "benchgate-bench-run", map[string]string{"x": "y"}, true)
			},
			wantLog: []string{
				"::notice title=benchgate baseline::no baseline: no completed push run of bench.yml on branch main of octo/bench kept an unexpired artifact benchgate-bench-run; the run is judged without one",
				"::notice title=benchgate history::no history:",
			},
			wantSummary: []string{"no baseline: no completed push run of bench.yml on branch main of octo/bench kept an unexpired artifact benchgate-bench-run; the run was judged without it."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gh := ghfake.New("octo", "bench", "main", "tok", nil)
			defer gh.Close()
			tt.setup(gh)
			s := newStep(t, map[string]string{
				"mode": "report", "suite-jsonl": "cur/agent_direct-suite.jsonl\ncur/ghx-suite.jsonl", "gate": "true",
				"baseline": "base-branch", "history": "base-branch", "history-runs": "4", "github-token": "tok",
				"upload-artifacts": "false",
			})
			for k, v := range map[string]string{
				"GITHUB_API_URL": gh.URL + "/api-v3", "GITHUB_REPOSITORY": "octo/bench", "GITHUB_BASE_REF": "main", "GITHUB_REF_NAME": "12/merge",
				"GITHUB_WORKFLOW_REF": "octo/bench/.github/workflows/bench.yml@refs/pull/12/merge", "RUNNER_TEMP": t.TempDir(),
			} {
				s.env[k] = v
			}
			for mode, tokens := range map[string]float64{"agent_direct": 1000, "ghx": tt.ghxTokens} {
				p := filepath.Join(s.ws, "cur", mode+"-suite.jsonl")
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(suiteText(mode, 4, n, tokens)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s.run(t)
			if s.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", s.code, tt.wantCode, s.stdout)
			}
			out := s.outputs(t)
			if out["baseline-verdict"] != tt.wantVerdict || out["flaky-scenarios"] != tt.wantFlaky {
				t.Errorf("baseline-verdict %q flaky-scenarios %q, want %q and %q", out["baseline-verdict"], out["flaky-scenarios"], tt.wantVerdict, tt.wantFlaky)
			}
			for _, w := range tt.wantLog {
				if !strings.Contains(s.stdout, w) {
					t.Errorf("step log lacks %q:\n%s", w, s.stdout)
				}
			}
			sum := s.summary(t)
			if strings.Contains(sum, s.env["RUNNER_TEMP"]) {
				t.Errorf("the job summary shows the runner's temporary folder %s", s.env["RUNNER_TEMP"])
			}
			for _, w := range tt.wantSummary {
				if !strings.Contains(sum, w) {
					t.Errorf("job summary lacks %q:\n%s", w, sum)
				}
			}
			if got := gh.ArchiveDownloads(); len(got) != tt.wantServed {
				t.Errorf("archives served %v, want %d", got, tt.wantServed)
			}
			if strings.Contains(s.stdout, "sig=") {
				t.Error("a signed archive URL reached the step log")
			}
			if _, err := os.Stat(filepath.Join(out["out-dir"], "run-record.json")); err != nil && !filepath.IsAbs(out["out-dir"]) {
				if _, err := os.Stat(filepath.Join(s.ws, out["out-dir"], "run-record.json")); err != nil {
					t.Errorf("the results folder holds no run-record.json for later baselines: %v", err)
				}
			}
		})
	}
}

// TestSetHistoryFromBaseBranch: a set step with history: base-branch.
// The two newest runs on main kept the set's artifact (its folder with
// the suite files) and passed; now pr-merge-execute-001 fails in both
// modes. It passed in every earlier run, so it is a new failure, named
// first, never flaky; it fails in both modes, which points at a fixture,
// and the summary gives the rerun to copy.
func TestSetHistoryFromBaseBranch(t *testing.T) {
	gh := ghfake.New("octo", "bench", "main", "tok", nil)
	defer gh.Close()
	s := benchStep(t, map[string]string{"mode": "set", "set": "pr-exec", "provider": "openai", "model": "gpt-5.1-codex-mini",
		"history": "base-branch", "history-runs": "3", "github-token": "tok"})
	for k, v := range map[string]string{
		"GITHUB_API_URL": gh.URL + "/api-v3", "GITHUB_REPOSITORY": "octo/bench", "GITHUB_BASE_REF": "main",
		"GITHUB_WORKFLOW_REF": "octo/bench/.github/workflows/bench.yml@refs/pull/12/merge", "RUNNER_TEMP": t.TempDir(),
	} {
		s.env[k] = v
	}
	// Two earlier passing runs of the set become main's artifacts.
	for i := 1; i <= 2; i++ {
		s.env["INPUT_OUT-DIR"] = fmt.Sprintf("out/main-%d", i)
		s.runWant(t, 0)
		files := map[string]string{}
		for _, m := range []string{"agent_direct", "ghx"} {
			b, err := os.ReadFile(filepath.Join(s.ws, "bench", "out", fmt.Sprintf("main-%d", i), m+"-suite.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			files[m+"-suite.jsonl"] = string(b)
		}
		id := gh.AddRun(ghfake.WorkflowRun{Workflow: ".github/workflows/bench.yml", HeadBranch: "main", Event: "push"})
		gh.AddArtifact(id, "benchgate-bench-pr-exec", files, false)
	}
	s.env["INPUT_OUT-DIR"] = "out/pr"
	s.env["GITHUB_OUTPUT"] = filepath.Join(s.files, "set_output_pr")
	s.env["GITHUB_STEP_SUMMARY"] = filepath.Join(s.files, "step_summary_pr")
	s.failWith(t, `{"rules":[{"scenario":"pr-merge-execute-001","behavior":"always_fail","field":"output_valid"}]}`)
	s.runWant(t, 1)
	out := s.outputs(t)
	if out["flaky-scenarios"] != "" || out["status"] != "fail" {
		t.Errorf("outputs = %v", out)
	}
	for _, m := range []string{"agent_direct", "ghx"} {
		want := "::notice title=" + m + "%3A pr-merge-execute-001::new failure: passed all 2 earlier runs"
		if !strings.Contains(s.stdout, want) {
			t.Errorf("step log lacks %q:\n%s", want, s.stdout)
		}
	}
	if strings.Contains(s.stdout, "flaky:") {
		t.Errorf("a new failure is called flaky:\n%s", s.stdout)
	}
	b, err := os.ReadFile(filepath.Join(s.ws, "bench", "out", "pr", "tracking.json"))
	if err != nil || !strings.Contains(string(b), `"final_status": "terminal_fail"`) {
		t.Errorf("tracking.json: %v\n%s", err, b)
	}
	sum := s.summary(t)
	for _, w := range []string{
		"❌ **benchgate set: fail**: pr-exec: failing rows after reruns (success, output_valid, error null) 2 rows, needs ≤ 0 rows · 1 check failed (and 1 recorded only), 1 scenario failing (1 new against the history)\n",
		"- **new** `pr-exec/pr-merge-execute-001`: 2 of 2 iterations failed in agent_direct and ghx; first error: `success: expected true, got false`; ",
		"`pr-merge-execute-001` fail(s) in both agent_direct and ghx: a fixture or scenario problem rather than ghx.",
		"gh workflow run rerun-scenarios.yml --ref bench -f set=pr-exec -f scenario_ids=pr-merge-execute-001\n",
		"History: artifact `benchgate-bench-pr-exec` of bench.yml on `main`: #2",
		"New failures (passed in every earlier run, fail now): `agent_direct/pr-merge-execute-001`, `ghx/pr-merge-execute-001`.",
	} {
		if !strings.Contains(sum, w) {
			t.Errorf("job summary lacks %q:\n%s", w, sum)
		}
	}
	// The second earlier run already found the first; the pull request's
	// run fetched both.
	if got := gh.ArchiveDownloads(); len(got) != 3 {
		t.Errorf("archives served %v, want 3", got)
	}
}

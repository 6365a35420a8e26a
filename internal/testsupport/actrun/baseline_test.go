package actrun

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestBenchBaselineWorkflow runs .github/workflows/examples/bench-
// baseline.yml as a repository would live with it: two pushes to main
// (the first with one failing repetition of ghx's s-003) pass and upload
// their results through act's artifact server; those artifacts, as they
// were uploaded, become main's runs on the fake GitHub the runner's
// GITHUB_API_URL names. A pull request whose ghx rows spend 30% more
// active tokens then downloads main's newest artifact as its baseline and
// the older one as its history: the job fails on the regression, names
// s-003 flaky, and the next step prints the verdicts from the outputs.
func TestBenchBaselineWorkflow(t *testing.T) {
	const workflow = ".github/workflows/bench-baseline.yml"
	gh := ghfake.New("octo", "bench", "main", "ghs_bench", nil)
	defer gh.Close()

	repo := t.TempDir()
	copyTree(t, filepath.Join(testenv.RepoRoot(t), ".github", "workflows", "examples"), filepath.Join(repo, ".github", "workflows"))
	commit := func(day int, ghxTokens float64, fails func(scenario, repetition int) bool) {
		writeFile(t, filepath.Join(repo, "reports", "suites", "agent_direct-suite.jsonl"), testenv.SuiteJSONL("agent_direct", day, 12, 1000, nil))
		writeFile(t, filepath.Join(repo, "reports", "suites", "ghx-suite.jsonl"), testenv.SuiteJSONL("ghx", day, 12, ghxTokens, fails))
		if day == 1 {
			gitCommitAll(t, repo)
			// act reads the repository's name from its origin remote.
			if out, err := exec.Command("git", "-C", repo, "remote", "add", "origin", "https://github.com/octo/bench.git").CombinedOutput(); err != nil {
				t.Fatalf("git remote add: %v: %s", err, out)
			}
			return
		}
		env := []string{"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com"}
		run(t, repo, env, "git", "commit", "-q", "-am", fmt.Sprintf("suites of day %d", day))
	}
	r := newRunner(t)
	// act sets no GITHUB_WORKFLOW_REF; the runner sets it to the workflow
	// file at the ref that triggered the run.
	args := func(ref string) []string {
		return []string{"--secret", "GITHUB_TOKEN=ghs_bench",
			"--env", "GITHUB_API_URL=" + strings.TrimSuffix(gh.BaseURL(), "/"),
			"--env", "GITHUB_WORKFLOW_REF=octo/bench/" + workflow + "@" + ref}
	}

	// Two pushes to main: the first has no baseline (a notice), both pass
	// and keep their results as the artifact later runs compare with.
	// Each run is listed as in progress while it runs, as GitHub lists it.
	served := 0
	for _, push := range []struct {
		day   int
		fails func(scenario, repetition int) bool
	}{{1, func(s, r int) bool { return s == 3 && r == 2 }}, {2, nil}} {
		commit(push.day, 500, push.fails)
		id := gh.AddRun(ghfake.WorkflowRun{Workflow: workflow, HeadBranch: "main", Event: "push", Status: "in_progress", HeadSHA: fmt.Sprintf("%040d", push.day)})
		artifacts := t.TempDir()
		res := r.exec(t, Run{Repo: repo, Workflow: workflow, Event: "push", ArtifactDir: artifacts, Args: args("refs/heads/main")})
		checkJobs(t, res, map[string]string{"bench": "success"})
		gh.CompleteRun(id, "success")
		notes := strings.Join(res.Commands("bench", "notice"), "\n")
		if want := "no baseline: no completed push run of bench-baseline.yml on branch main of octo/bench kept an unexpired artifact benchgate-bench-run"; push.day == 1 && !strings.Contains(notes, want) {
			t.Errorf("the first push does not say it has no baseline (%q); notices:\n%s", want, notes)
		}
		if got := res.Output("bench"); !strings.Contains(got, "report: pass, statistical gate: pass") {
			t.Errorf("day %d: the next step did not print the verdicts; output:\n%s", push.day, tail(got, 3000))
		}
		zips, _ := filepath.Glob(filepath.Join(artifacts, "*", "benchgate-bench-run", "benchgate-bench-run.zip"))
		if len(zips) != 1 {
			t.Fatalf("day %d: artifacts %v, want one benchgate-bench-run", push.day, artifactNames(t, artifacts))
		}
		zip, err := os.ReadFile(zips[0])
		if err != nil {
			t.Fatal(err)
		}
		gh.AddArtifactZip(id, "benchgate-bench-run", zip, false)
		served = len(gh.ArchiveDownloads())
	}

	// A fork's pull request from its own branch called main ran after
	// them and kept an artifact where ghx spent ten times the tokens: as
	// a baseline it would hide the pull request's regression.
	fork := gh.AddRun(ghfake.WorkflowRun{Workflow: workflow, HeadBranch: "main", Event: "pull_request", HeadRepository: "mallory/bench", HeadSHA: fmt.Sprintf("%040d", 9)})
	gh.AddArtifact(fork, "benchgate-bench-run", map[string]string{
		"agent_direct-suite.jsonl": testenv.SuiteJSONL("agent_direct", 3, 12, 1000, nil),
		"ghx-suite.jsonl":          testenv.SuiteJSONL("ghx", 3, 12, 5000, nil),
	}, false)

	// The pull request: ghx spends 30% more active tokens than on main.
	commit(3, 650, nil)
	gh.AddRun(ghfake.WorkflowRun{Workflow: workflow, HeadBranch: "feature", Event: "pull_request", Status: "in_progress"})
	artifacts := t.TempDir()
	res := r.exec(t, Run{Repo: repo, Workflow: workflow, Event: "pull_request", EventJSON: prEvent, ArtifactDir: artifacts,
		Args: args("refs/pull/7/merge")})
	checkJobs(t, res, map[string]string{"bench": "failure"})
	outs := res.Outputs("bench")
	if outs["status"] != "fail" || outs["baseline-verdict"] != "fail" || outs["flaky-scenarios"] != "ghx/s-003" || outs["stats-verdict"] != "pass" {
		t.Errorf("outputs status=%q baseline-verdict=%q flaky-scenarios=%q stats-verdict=%q, want fail, fail, ghx/s-003, pass",
			outs["status"], outs["baseline-verdict"], outs["flaky-scenarios"], outs["stats-verdict"])
	}
	if errs := strings.Join(res.Commands("bench", "error"), "\n"); !strings.Contains(errs, "regressed against the baseline: ghx active_tokens +30.0%") {
		t.Errorf("no error annotation names the regression; annotations:\n%s", errs)
	}
	if notes := strings.Join(res.Commands("bench", "notice"), "\n"); !strings.Contains(notes, "title=ghx%3A s-003::flaky: passed 1 of 2 earlier runs") {
		t.Errorf("no notice names ghx s-003 flaky; notices:\n%s", notes)
	}
	if got := res.Output("bench"); !strings.Contains(got, "against the baseline: fail") || !strings.Contains(got, "ghx/s-003") {
		t.Errorf("the next step did not print the baseline verdict and the flaky scenario; output:\n%s", tail(got, 3000))
	}
	// The history is both of main's artifacts, its newest the baseline:
	// each is downloaded once.
	if got := gh.ArchiveDownloads()[served:]; len(got) != 2 || got[0] == got[1] {
		t.Errorf("archives served %v, want each of main's two once", got)
	}
	jobSummary(t, artifacts, "benchgate-bench-run", "## Baseline and history", "Baseline: artifact `benchgate-bench-run` of bench-baseline.yml on `main`: #2",
		"#### Against the baseline: fail", "| active tokens | +30.0% |", "#### Flaky scenarios", "| ghx | s-003 | 1 of 2 | ✗✓✓ |",
		"Trend over the last 3 runs of both modes, oldest first, each run named by its commit (or its start):",
		"title \"Median active tokens, last 3 runs (grey bars: agent_direct, blue line: ghx)\"", "line [800, 775, 1007.5]", "line [97.22, 100, 100]")
}

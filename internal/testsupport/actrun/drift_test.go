package actrun

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/drifttest"
	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// addMainRuns adds runs from to to-1 of a history drawn from the real
// suites (testdata/suites: every real row of both modes drawn again at
// its scenario's real spread) as main's completed push runs of
// bench-baseline.yml, each with the artifact its report step keeps.
func addMainRuns(t *testing.T, gh *ghfake.Server, from, to int, changes ...drifttest.Change) {
	t.Helper()
	dir := filepath.Join(testenv.RepoRoot(t), "testdata", "suites")
	n, err := drifttest.Real(filepath.Join(dir, "2026-02-25-agent_direct-suite.jsonl"), filepath.Join(dir, "2026-02-25-ghx-suite.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i := from; i < to; i++ {
		files, err := n.SuiteFiles(3, i, changes...)
		if err != nil {
			t.Fatal(err)
		}
		id := gh.AddRun(ghfake.WorkflowRun{Workflow: ".github/workflows/bench-baseline.yml", HeadBranch: "main", Event: "push", HeadSHA: drifttest.Commit(i)})
		gh.AddArtifact(id, "benchgate-bench-run", files, false)
	}
}

// TestWeeklyDriftWorkflow runs .github/workflows/examples/weekly-drift.yml
// as its schedule would, three weeks in a row, against the fake GitHub
// the runner's GITHUB_API_URL names. main's benchmark workflow kept 40
// runs' suites, drawn from the real suites at their real noise with ghx's
// latency 15% higher from run 25 on. The first week the step downloads
// them, names the change at run 25 and opens one issue for each open
// change point; the summary lists them with the issue and a chart, and
// the next step prints the outputs. The second week, with the same runs,
// no issue is opened or edited. By the third, 20 more runs came with the
// latency back from run 45: the change is undone, its issue closed, and
// no issue is opened for the return.
func TestWeeklyDriftWorkflow(t *testing.T) {
	const workflow = ".github/workflows/weekly-drift.yml"
	gh := ghfake.New("octo", "bench", "main", "ghs_drift", nil)
	defer gh.Close()
	addMainRuns(t, gh, 0, 40, drifttest.Change{Metric: drifttest.Latency, Mode: "ghx", From: 25, Factor: 1.15})

	repo := t.TempDir()
	copyTree(t, filepath.Join(testenv.RepoRoot(t), ".github", "workflows", "examples"), filepath.Join(repo, ".github", "workflows"))
	gitCommitAll(t, repo)
	// act reads the repository's name from its origin remote.
	if out, err := exec.Command("git", "-C", repo, "remote", "add", "origin", "https://github.com/octo/bench.git").CombinedOutput(); err != nil {
		t.Fatalf("git remote add: %v: %s", err, out)
	}
	r := newRunner(t)
	week := func() (Result, map[string]string, string) {
		t.Helper()
		artifacts := t.TempDir()
		res := r.exec(t, Run{Repo: repo, Workflow: workflow, Event: "schedule", ArtifactDir: artifacts,
			Args: []string{"--secret", "GITHUB_TOKEN=ghs_drift", "--env", "GITHUB_API_URL=" + strings.TrimSuffix(gh.BaseURL(), "/")}})
		checkJobs(t, res, map[string]string{"drift": "success"})
		outs := res.Outputs("drift")
		if outs["exit-code"] != "0" || outs["status"] != "pass" {
			t.Errorf("exit-code %q, status %q; want 0 and pass (a change point is information)", outs["exit-code"], outs["status"])
		}
		return res, outs, jobSummary(t, artifacts, "benchgate-drift-run", "## Drift", "```mermaid\n",
			"History: artifact `benchgate-bench-run` of bench-baseline.yml on `main`")
	}

	// Week 1: the change is found and its issue opened.
	res, outs, sum := week()
	open, _ := strconv.Atoi(outs["open-change-points"])
	issues := gh.Issues()
	if open < 1 || len(issues) != open || len(strings.Split(outs["drift-issues"], "\n")) != open {
		t.Fatalf("%d open change points, %d issues, drift-issues %q; want one issue per open change point\n%s", open, len(issues), outs["drift-issues"], tail(res.Output("drift"), 4000))
	}
	var latency *ghfake.Issue
	for i, is := range issues {
		if strings.Contains(is.Title, "latency_ms of ghx (suite)") {
			latency = &issues[i]
		}
	}
	if latency == nil || latency.State != "open" || !strings.Contains(latency.Title, "for the worse, from "+drifttest.Commit(25)[:7]) &&
		!strings.Contains(latency.Title, "for the worse, from "+drifttest.Commit(24)[:7]) && !strings.Contains(latency.Title, "for the worse, from "+drifttest.Commit(26)[:7]) {
		t.Fatalf("no open issue for ghx's latency from run 25 ± 1 among %+v", issues)
	}
	num := strconv.Itoa(latency.Number)
	for _, want := range []string{": **latency_ms** ghx, suite: ", "**worse**, open; look at [`", "; issue [#" + num + "](https://github.com/octo/bench/issues/" + num + ") opened"} {
		if !strings.Contains(sum, want) {
			t.Errorf("week 1: the job summary lacks %q:\n%s", want, tail(sum, 4000))
		}
	}
	if got := res.Output("drift"); !strings.Contains(got, "open change points: "+outs["open-change-points"]+" (") || !strings.Contains(got, "https://github.com/octo/bench/issues/"+num) {
		t.Errorf("the next step did not print the outputs; output:\n%s", tail(got, 3000))
	}

	// Week 2: the same runs; no second issue, none edited.
	_, outs2, sum2 := week()
	if n := len(gh.Issues()); n != len(issues) || outs2["drift-issues"] != outs["drift-issues"] {
		t.Errorf("week 2: %d issues (was %d), drift-issues %q (was %q)", n, len(issues), outs2["drift-issues"], outs["drift-issues"])
	}
	for _, is := range gh.Issues() {
		if is.Edits != 0 {
			t.Errorf("week 2 edited issue #%d though it found the same", is.Number)
		}
	}
	if !strings.Contains(sum2, "; issue [#"+num+"](https://github.com/octo/bench/issues/"+num+") unchanged") {
		t.Errorf("week 2: the summary does not say the issue was kept:\n%s", tail(sum2, 4000))
	}

	// Week 3: 20 more runs, ghx's latency back from run 45.
	addMainRuns(t, gh, 40, 60, drifttest.Change{Metric: drifttest.Latency, Mode: "ghx", From: 25, To: 45, Factor: 1.15})
	_, outs3, sum3 := week()
	var closed ghfake.Issue
	for _, is := range gh.Issues() {
		if is.Number == latency.Number {
			closed = is
		}
		if is.Number > issues[len(issues)-1].Number && strings.Contains(is.Title, "latency_ms of ghx (suite)") {
			t.Errorf("week 3 opened issue #%d for the return of ghx's latency: %q", is.Number, is.Title)
		}
	}
	if closed.State != "closed" || closed.StateReason != "completed" || !strings.Contains(closed.Body, "**Undone**") {
		t.Errorf("week 3: issue #%d is %s (%s), want closed as completed, saying undone:\n%s", closed.Number, closed.State, closed.StateReason, closed.Body)
	}
	if strings.Contains(outs3["drift-issues"], "/issues/"+num+"\n") || strings.HasSuffix(outs3["drift-issues"], "/issues/"+num) {
		t.Errorf("week 3: drift-issues still lists the closed issue: %q", outs3["drift-issues"])
	}
	if !strings.Contains(sum3, "undone later; look at") || !strings.Contains(sum3, "](https://github.com/octo/bench/issues/"+num+") closed") {
		t.Errorf("week 3: the summary does not say the change was undone and its issue closed:\n%s", tail(sum3, 4000))
	}
}

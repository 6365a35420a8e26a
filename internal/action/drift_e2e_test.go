package action_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/drift"
	"github.com/benchgate/benchgate/internal/driftissue"
	"github.com/benchgate/benchgate/internal/testsupport/drifttest"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
	"github.com/benchgate/benchgate/internal/testsupport/mermaid"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// realNoise is the noise of the benchmark's real suites.
func realNoise(t *testing.T) *drifttest.Noise {
	t.Helper()
	dir := filepath.Join(testenv.RepoRoot(t), "testdata", "suites")
	n, err := drifttest.Real(filepath.Join(dir, "2026-02-25-agent_direct-suite.jsonl"), filepath.Join(dir, "2026-02-25-ghx-suite.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// addBenchRuns adds runs from to to-1 of a history drawn from the real
// suites as main's completed push runs of bench.yml, each keeping the
// artifact report's step keeps (its suite files).
func addBenchRuns(t *testing.T, gh *ghfake.Server, n *drifttest.Noise, from, to int, changes ...drifttest.Change) {
	t.Helper()
	for i := from; i < to; i++ {
		files, err := n.SuiteFiles(3, i, changes...)
		if err != nil {
			t.Fatal(err)
		}
		id := gh.AddRun(ghfake.WorkflowRun{Workflow: ".github/workflows/bench.yml", HeadBranch: "main", Event: "push", HeadSHA: drifttest.Commit(i)})
		gh.AddArtifact(id, "benchgate-bench-run", files, false)
	}
}

// TestDriftActionKeepsOneIssuePerChangePoint runs `benchgate action` with
// mode drift as a weekly workflow does, against the stateful fake GitHub:
// main's 40 runs of bench.yml kept their suites (the real suites drawn
// again at their real noise, ghx's latency 15% higher from run 25), and
// the step downloads them, finds the change, opens one issue for it and
// lists it in the summary with its chart. The next week, with the same
// runs, it opens no second issue; after 20 more runs whose latency went
// back, it closes the issue and opens none for the return.
func TestDriftActionKeepsOneIssuePerChangePoint(t *testing.T) {
	gh := ghfake.New("octo", "bench", "main", "tok", nil)
	defer gh.Close()
	n := realNoise(t)
	step := drifttest.Change{Metric: drifttest.Latency, Mode: "ghx", From: 25, Factor: 1.15}
	addBenchRuns(t, gh, n, 0, 40, step)

	s := newStep(t, map[string]string{"mode": "drift", "history": "base-branch", "history-workflow": "bench.yml", "history-runs": "100",
		"suite-only": "true", "github-token": "tok", "upload-artifacts": "false"})
	for k, v := range map[string]string{
		"GITHUB_API_URL": gh.URL + "/api-v3", "GITHUB_REPOSITORY": "octo/bench", "GITHUB_REF_NAME": "main", "GITHUB_EVENT_NAME": "schedule",
		"GITHUB_WORKFLOW_REF": "octo/bench/.github/workflows/drift.yml@refs/heads/main", "RUNNER_TEMP": t.TempDir(), "GITHUB_SERVER_URL": "https://github.com",
	} {
		s.env[k] = v
	}
	latency := func(rep *drift.Report) *drift.ChangePoint {
		for i, c := range rep.ChangePoints {
			if c.Metric == drift.MetricLatency && c.Mode == "ghx" && c.Scenario == "" {
				return &rep.ChangePoints[i]
			}
		}
		t.Fatalf("no change point of ghx's latency in %+v", rep.ChangePoints)
		return nil
	}
	week := func(i int) (map[string]string, *drift.Report, string) {
		s.env["GITHUB_OUTPUT"] = filepath.Join(s.files, fmt.Sprintf("set_output_week%d", i))
		s.env["GITHUB_STEP_SUMMARY"] = filepath.Join(s.files, fmt.Sprintf("step_summary_week%d", i))
		s.env["GITHUB_RUN_ID"] = strconv.Itoa(7000 + i)
		s.runWant(t, 0)
		out := s.outputs(t)
		var rep drift.Report
		b, err := os.ReadFile(filepath.Join(s.ws, out["drift-json"]))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		return out, &rep, s.summary(t)
	}

	out, rep, sum := week(1)
	c := latency(rep)
	if c.After.Index < 24 || c.After.Index > 26 || !c.Open || !c.Worse {
		t.Fatalf("ghx latency change point at run %d (open %v, worse %v), want an open change for the worse at 25 ± 1", c.After.Index, c.Open, c.Worse)
	}
	open, _ := strconv.Atoi(out["open-change-points"])
	issues := gh.Issues()
	if len(issues) != open || open < 1 || out["drift-issues"] == "" || len(strings.Split(out["drift-issues"], "\n")) != open {
		t.Fatalf("%d issues, %d open change points, drift-issues %q; want one issue per open change point", len(issues), open, out["drift-issues"])
	}
	var mine *ghfake.Issue
	for i, is := range issues {
		if strings.HasPrefix(is.Body, driftissue.Marker(*c)) {
			mine = &issues[i]
		}
	}
	if mine == nil || mine.State != "open" || !strings.Contains(mine.Title, "latency_ms of ghx (suite)") || mine.Labels[0] != driftissue.DefaultLabel {
		t.Fatalf("no open, labelled issue marked for %s among %+v", c.ID, issues)
	}
	link := fmt.Sprintf("https://github.com/octo/bench/compare/%s...%s", c.Before.Commit, c.After.Commit)
	for _, want := range []string{link, "https://github.com/octo/bench/actions/runs/7001"} {
		if !strings.Contains(mine.Body, want) {
			t.Errorf("issue body lacks %q:\n%s", want, mine.Body)
		}
	}
	gfm.RequireInert(t, "issue body", mine.Body, "https://github.com/octo/bench/")
	for _, want := range []string{"## Drift", "12 series of 40 runs from [`" + drifttest.Commit(0)[:7] + "`](https://github.com/octo/bench/commit/" + drifttest.Commit(0) + ") 2026-01-01",
		"- [`" + c.After.Commit[:7] + "`](https://github.com/octo/bench/commit/" + c.After.Commit + ")", ": **latency_ms** ghx, suite: ",
		"**worse**, open; look at [`" + c.Before.Commit[:7] + "..." + c.After.Commit[:7] + "`](" + link + "); issue [#" + strconv.Itoa(mine.Number) + "](https://github.com/octo/bench/issues/" + strconv.Itoa(mine.Number) + ") opened",
		"```mermaid\n", "History: artifact `benchgate-bench-run` of bench.yml on `main`"} {
		if !strings.Contains(sum, want) {
			t.Errorf("job summary lacks %q:\n%s", want, sum)
		}
	}
	gfm.Require(t, "job summary", sum)
	charts := mermaid.Charts(sum)
	if len(charts) == 0 {
		t.Fatalf("no chart in the job summary")
	}
	mermaid.Render(t, charts...)

	// A week later, the same runs: the same issues, none opened or edited.
	before := gh.Issues()
	out2, _, sum2 := week(2)
	after := gh.Issues()
	if len(after) != len(before) || out2["drift-issues"] != out["drift-issues"] {
		t.Errorf("second run: %d issues (was %d), drift-issues %q (was %q); want the same issues", len(after), len(before), out2["drift-issues"], out["drift-issues"])
	}
	for _, is := range after {
		if is.Edits != 0 {
			t.Errorf("issue #%d edited by a run that found the same", is.Number)
		}
	}
	if !strings.Contains(sum2, ") unchanged") {
		t.Errorf("second summary does not say the issues were kept unchanged:\n%s", sum2)
	}

	// 20 more runs on main, with ghx's latency back where it was from
	// run 45: the change is undone, its issue closed, none opened.
	addBenchRuns(t, gh, n, 40, 60, drifttest.Change{Metric: drifttest.Latency, Mode: "ghx", From: 25, To: 45, Factor: 1.15})
	out3, rep3, sum3 := week(3)
	if rep3.Runs != 60 {
		t.Fatalf("third run read %d runs, want 60", rep3.Runs)
	}
	if c3 := latency(rep3); c3.ID != c.ID || c3.Open {
		// The newest ghx latency change is the return; find the first.
		found := false
		for _, x := range rep3.ChangePoints {
			found = found || (x.ID == c.ID && !x.Open)
		}
		if !found {
			t.Fatalf("the change point %s is not in the third analysis as undone: %+v", c.ID, rep3.ChangePoints)
		}
	}
	var closed *ghfake.Issue
	all := gh.Issues()
	for i := range all {
		if all[i].Number == mine.Number {
			closed = &all[i]
		}
	}
	if closed.State != "closed" || closed.StateReason != "completed" || !strings.Contains(closed.Body, "**Undone**") {
		t.Errorf("issue #%d: %s (%s); want closed as completed, saying undone:\n%s", closed.Number, closed.State, closed.StateReason, closed.Body)
	}
	for _, is := range all[len(before):] {
		if strings.Contains(is.Title, "latency_ms of ghx (suite)") {
			t.Errorf("issue #%d opened for the return of ghx's latency: %q", is.Number, is.Title)
		}
	}
	if strings.Contains(out3["drift-issues"], "/issues/"+strconv.Itoa(mine.Number)+"\n") || strings.HasSuffix(out3["drift-issues"], "/issues/"+strconv.Itoa(mine.Number)) {
		t.Errorf("drift-issues still lists the closed issue: %q", out3["drift-issues"])
	}
	if !strings.Contains(sum3, "undone later; look at") || !strings.Contains(sum3, "](https://github.com/octo/bench/issues/"+strconv.Itoa(mine.Number)+") closed") {
		t.Errorf("third summary does not say the change was undone and its issue closed:\n%s", sum3)
	}
}

// TestDriftActionWithNothingKept: on a repository whose benchmark
// workflow kept nothing yet, the step says why there is no history in a
// notice and stops with exit 2 (there are no runs to read), opening no
// issue.
func TestDriftActionWithNothingKept(t *testing.T) {
	gh := ghfake.New("octo", "bench", "main", "tok", nil)
	defer gh.Close()
	// The one run kept an artifact that has expired.
	id := gh.AddRun(ghfake.WorkflowRun{Workflow: ".github/workflows/bench.yml", HeadBranch: "main", Event: "push"})
	gh.AddArtifact(id, "benchgate-bench-run", map[string]string{"x": "y"}, true)
	s := newStep(t, map[string]string{"mode": "drift", "history": "base-branch", "history-workflow": "bench.yml", "github-token": "tok", "upload-artifacts": "false"})
	for k, v := range map[string]string{
		"GITHUB_API_URL": gh.URL + "/api-v3", "GITHUB_REPOSITORY": "octo/bench", "GITHUB_REF_NAME": "main", "GITHUB_EVENT_NAME": "schedule", "RUNNER_TEMP": t.TempDir(),
	} {
		s.env[k] = v
	}
	s.runWant(t, 2)
	for _, want := range []string{"::notice title=benchgate history::no history: no completed push run of bench.yml on branch main of octo/bench kept an unexpired artifact benchgate-<job>-run; drift has no runs to read",
		"--history is required"} {
		if !strings.Contains(s.stdout, want) {
			t.Errorf("step log lacks %q:\n%s", want, s.stdout)
		}
	}
	if out := s.outputs(t); out["status"] != "error" || out["exit-code"] != "2" {
		t.Errorf("status %q exit-code %q, want error and 2", out["status"], out["exit-code"])
	}
	if n := len(gh.Issues()); n != 0 {
		t.Errorf("%d issues opened with nothing to read", n)
	}
}

// TestDriftActionFailOnWorse: a history folder in the workspace (the
// real suites drawn again, ghx's latency 15% higher from run 25) with
// fail-on worse fails the step (exit 1, status fail) on the open change
// for the worse, the check that decided it first in the summary; with
// issues off, no issue is asked for.
func TestDriftActionFailOnWorse(t *testing.T) {
	s := newStep(t, map[string]string{"mode": "drift", "history": "history", "fail-on": "worse", "suite-only": "true", "issues": "false", "upload-artifacts": "false"})
	if err := realNoise(t).WriteHistory(filepath.Join(s.ws, "history"), 3, 40, drifttest.Change{Metric: drifttest.Latency, Mode: "ghx", From: 25, Factor: 1.15}); err != nil {
		t.Fatal(err)
	}
	s.runWant(t, 1)
	out := s.outputs(t)
	if out["status"] != "fail" || out["worse-change-points"] == "0" || out["drift-issues"] != "" {
		t.Errorf("status %q, worse-change-points %q, drift-issues %q; want fail, at least 1, none", out["status"], out["worse-change-points"], out["drift-issues"])
	}
	sum := s.summary(t)
	for _, want := range []string{"❌ **benchgate drift: fail**: open change points for the worse " + out["worse-change-points"] + " change points, needs ≤ 0 change points",
		": **latency_ms** ghx, suite: ", "**worse**, open"} {
		if !strings.Contains(sum, want) {
			t.Errorf("job summary lacks %q:\n%s", want, sum)
		}
	}
	if strings.Contains(sum, "; issue [#") {
		t.Errorf("the summary names an issue though issues are off:\n%s", sum)
	}
}

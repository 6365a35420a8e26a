package actrun

import (
	"archive/zip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// runner is what every example run shares: act, the benchgate action
// served from this checkout's source, the stand-ins of the third-party
// setup actions that cannot be fetched here, and a PATH with the tools a
// job's setup steps would have installed.
type runner struct {
	act   string
	args  []string
	env   []string
	cache string
}

func newRunner(t *testing.T, path ...string) runner {
	t.Helper()
	standins := filepath.Join(testenv.RepoRoot(t), "internal", "testsupport", "actrun", "testdata", "standins")
	return runner{
		act: Act(t),
		args: []string{
			"--local-repository", "benchgate/benchgate@v1=" + actionSource(t),
			"--local-repository", "actions/setup-node@v4=" + filepath.Join(standins, "setup-node"),
			"--local-repository", "pnpm/action-setup@v4=" + filepath.Join(standins, "pnpm-setup"),
			"--local-repository", "actions/setup-python@v5=" + filepath.Join(standins, "setup-python"),
			"--local-repository", "actions/download-artifact@v4=" + filepath.Join(standins, "download-artifact"),
			"--local-repository", "actions/upload-artifact@v4=" + filepath.Join(standins, "upload-artifact"),
		},
		env:   []string{"PATH=" + strings.Join(append(path, os.Getenv("PATH")), string(os.PathListSeparator))},
		cache: t.TempDir(),
	}
}

func (r runner) exec(t *testing.T, run Run) Result {
	t.Helper()
	run.Args = append(append([]string{}, r.args...), run.Args...)
	run.Env = append(append([]string{}, r.env...), run.Env...)
	run.Cache = r.cache
	if run.ArtifactDir == "" {
		run.ArtifactDir = t.TempDir()
	}
	// The artifact stand-ins read and write the server's storage.
	run.Env = append(run.Env, "ACTRUN_ARTIFACT_DIR="+run.ArtifactDir)
	return Exec(t, r.act, run)
}

// artifactNames lists the artifacts the run's server holds (its storage
// keeps one folder per run ID, one entry per artifact name below).
func artifactNames(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	runs, _ := os.ReadDir(dir)
	for _, r := range runs {
		entries, _ := os.ReadDir(filepath.Join(dir, r.Name()))
		for _, e := range entries {
			names = append(names, e.Name())
		}
	}
	return names
}

// artifactFile returns one file of an uploaded artifact, as a user who
// downloads it would read it.
func artifactFile(t *testing.T, dir, artifact, file string) []byte {
	t.Helper()
	zips, _ := filepath.Glob(filepath.Join(dir, "*", artifact, artifact+".zip"))
	if len(zips) != 1 {
		t.Fatalf("artifact %s: %d uploads (%v), want 1; artifacts: %v", artifact, len(zips), zips, artifactNames(t, dir))
	}
	zr, err := zip.OpenReader(zips[0])
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != file {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Fatalf("artifact %s has no %s", artifact, file)
	return nil
}

// jobSummary returns the job summary a step wrote, from the copy the
// Action keeps in its run artifact (act clears a step's GITHUB_STEP_SUMMARY
// file when the next step starts and never shows it), checking that it
// holds every text in want.
func jobSummary(t *testing.T, dir, artifact string, want ...string) string {
	t.Helper()
	sum := string(artifactFile(t, dir, artifact, "job-summary.md"))
	for _, w := range want {
		if !strings.Contains(sum, w) {
			t.Errorf("the job summary in artifact %s lacks %q:\n%s", artifact, w, tail(sum, 4000))
		}
	}
	return sum
}

const prEvent = `{"pull_request": {"number": 7, "head": {"ref": "feature"}, "base": {"ref": "main"}}}`

// TestPRVerifyWorkflow runs .github/workflows/examples/pr-verify.yml as
// written, on a pull request of a benchmark repository whose benchmark
// is a real pnpm workspace package: one matrix entry's set has a
// scenario that always fails, so that job fails with its annotations and
// the ordered job (needs: set) does not run; without it every job passes
// and the ordered job runs the nine sets.
func TestPRVerifyWorkflow(t *testing.T) {
	pnpm, benchsim := testenv.Pnpm(t), testenv.Benchsim(t)
	r := newRunner(t, filepath.Dir(pnpm), filepath.Dir(benchsim))

	t.Run("a failing set fails its matrix entry only", func(t *testing.T) {
		repo := benchmarkRepo(t, pnpm, benchsim, `{"rules": [{"scenario": "workflow-runs-list-001", "behavior": "always_fail", "field": "success"}]}`)
		artifacts := t.TempDir()
		res := r.exec(t, Run{Repo: repo, Workflow: ".github/workflows/pr-verify.yml", Event: "pull_request", EventJSON: prEvent,
			Args: []string{"--secret", "OPENAI_API_KEY=sk-test"}, ArtifactDir: artifacts})
		want := map[string]string{"set[set=pr-exec]": "success", "set[set=issues]": "success", "set[set=ci-diagnostics]": "failure"}
		checkJobs(t, res, want)
		failing := "set[set=ci-diagnostics]"
		if out := res.Output(failing); !strings.Contains(out, "set ci-diagnostics: fail") {
			t.Errorf("the show step of %s did not print the failing status output; output:\n%s", failing, out)
		}
		errs := strings.Join(res.Commands(failing, "error"), "\n")
		if !strings.Contains(errs, "workflow-runs-list-001") {
			t.Errorf("no error annotation names the failing scenario; annotations:\n%s", errs)
		}
		if errs := res.Commands("set[set=pr-exec]", "error"); len(errs) != 0 {
			t.Errorf("the passing set has error annotations: %q", errs)
		}
		names := strings.Join(artifactNames(t, artifacts), "\n")
		for _, set := range []string{"pr-exec", "issues", "ci-diagnostics"} {
			if !strings.Contains(names, "verify-"+set+"-set-"+set) {
				t.Errorf("no artifact of set %s; artifacts:\n%s", set, names)
			}
		}
		jobSummary(t, artifacts, "verify-ci-diagnostics-set-ci-diagnostics", "❌ **benchgate set: fail**", "workflow-runs-list-001", "pull request #7")
		jobSummary(t, artifacts, "verify-pr-exec-set-pr-exec", "**benchgate set: pass**")
	})

	t.Run("all sets pass and the ordered job runs", func(t *testing.T) {
		repo := benchmarkRepo(t, pnpm, benchsim, "")
		artifacts := t.TempDir()
		res := r.exec(t, Run{Repo: repo, Workflow: ".github/workflows/pr-verify.yml", Event: "pull_request", EventJSON: prEvent,
			Args: []string{"--secret", "OPENAI_API_KEY=sk-test"}, ArtifactDir: artifacts})
		checkJobs(t, res, map[string]string{"set[set=pr-exec]": "success", "set[set=issues]": "success",
			"set[set=ci-diagnostics]": "success", "ordered": "success"})
		if out := res.Output("set[set=issues]"); !strings.Contains(out, "set issues: pass") || !strings.Contains(out, "tracking.json") {
			t.Errorf("the show step did not print status pass and the tracking path; output:\n%s", out)
		}
		jobSummary(t, artifacts, "benchgate-ordered-run", "**benchgate ordered: pass**", "## Consolidated summary")
		// Each set's progress names its place in the run, in the open
		// step log.
		if out := res.Output("ordered"); !strings.Contains(out, "progress: set pr-exec (set 1 of 9), first run") ||
			!strings.Contains(out, "progress: set ci-log-analysis (set 9 of 9), first run") {
			t.Errorf("the ordered job's log lacks the sets' progress lines with their place:\n%s", tail(out, 4000))
		}
	})
}

// TestRerunScenariosWorkflow runs .github/workflows/examples/rerun-
// scenarios.yml as a manual dispatch would: scenario IDs separated by a
// comma, spaces and a newline reach `set` as three IDs of the set.
func TestRerunScenariosWorkflow(t *testing.T) {
	pnpm, benchsim := testenv.Pnpm(t), testenv.Benchsim(t)
	r := newRunner(t, filepath.Dir(pnpm), filepath.Dir(benchsim))
	repo := benchmarkRepo(t, pnpm, benchsim, "")
	artifacts := t.TempDir()
	res := r.exec(t, Run{Repo: repo, Workflow: ".github/workflows/rerun-scenarios.yml", Event: "workflow_dispatch", ArtifactDir: artifacts,
		Args: []string{"--secret", "OPENAI_API_KEY=sk-test", "--input", "set=pr-exec",
			"--input", "scenario_ids=pr-merge-execute-001, pr-branch-update-001  pr-reviewers-request-001"}})
	checkJobs(t, res, map[string]string{"rerun": "success"})
	var tracking struct {
		Set       string   `json:"set"`
		Scenarios []string `json:"resolved_scenarios"`
	}
	if err := json.Unmarshal(artifactFile(t, artifacts, "benchgate-rerun-pr-exec", "tracking.json"), &tracking); err != nil {
		t.Fatal(err)
	}
	want := []string{"pr-merge-execute-001", "pr-branch-update-001", "pr-reviewers-request-001"}
	if tracking.Set != "pr-exec" || strings.Join(tracking.Scenarios, " ") != strings.Join(want, " ") {
		t.Errorf("tracking: set %q, scenarios %q; want pr-exec, %q", tracking.Set, tracking.Scenarios, want)
	}
	jobSummary(t, artifacts, "benchgate-rerun-pr-exec", append([]string{"**benchgate set: pass**"}, want...)...)
	if outs := res.Outputs("rerun"); outs["status"] != "pass" || !strings.HasSuffix(outs["tracking"], "/tracking.json") {
		t.Errorf("outputs status=%q tracking=%q, want pass and the set's tracking.json", outs["status"], outs["tracking"])
	}

	// A dispatch whose IDs carry the delimiter a fixed heredoc would use,
	// then a line that sets the list anew: with a random delimiter both
	// stay lines of the list, reach set, and set refuses them by name; a
	// fixed delimiter would have ended the list early and let the second
	// line choose the scenarios.
	res = r.exec(t, Run{Repo: repo, Workflow: ".github/workflows/rerun-scenarios.yml", Event: "workflow_dispatch", ArtifactDir: t.TempDir(),
		Args: []string{"--secret", "OPENAI_API_KEY=sk-test", "--input", "set=pr-exec",
			"--input", "scenario_ids=pr-merge-execute-001\nEND_OF_IDS\nlist=pr-view-001"}})
	if res.Jobs["rerun"] != "failure" || !strings.Contains(res.Log, "END_OF_IDS") || !strings.Contains(res.Log, "list=pr-view-001") {
		t.Errorf("job %q; want it to fail on the refused IDs END_OF_IDS and list=pr-view-001 given as they are; log tail:\n%s", res.Jobs["rerun"], tail(res.Log, 60000))
	}
}

func checkJobs(t *testing.T, res Result, want map[string]string) {
	t.Helper()
	for job, result := range want {
		if got := res.Jobs[job]; got != result {
			t.Errorf("job %s: %q, want %q", job, got, result)
		}
	}
	for job := range res.Jobs {
		if _, ok := want[job]; !ok {
			t.Errorf("job %s ran (%s), want it not to", job, res.Jobs[job])
		}
	}
	if t.Failed() {
		t.Logf("act log (tail):\n%s", tail(res.Log, 12000))
	}
}

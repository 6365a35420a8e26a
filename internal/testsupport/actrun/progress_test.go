package actrun

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestSetProgressInTheStepLog runs rerun-scenarios.yml with a benchmark
// that writes one row every two seconds: the step log shows progress lines that
// count the rows as they land, before the set's verdict, and outside any
// collapsed group.
func TestSetProgressInTheStepLog(t *testing.T) {
	pnpm, benchsim := testenv.Pnpm(t), testenv.Benchsim(t)
	r := newRunner(t, filepath.Dir(pnpm), filepath.Dir(benchsim))
	repo := benchmarkRepo(t, pnpm, benchsim, "")
	// Two seconds a row: the follower polls every 500 ms, so even a busy
	// machine shows the rows before the last one. The pace is the
	// benchmark's own (its script sets it): benchgate passes the benchmark
	// only the variables it allows, not the runner's whole environment.
	pkg := filepath.Join(repo, "packages", "benchmark", "package.json")
	b, err := os.ReadFile(pkg)
	if err != nil {
		t.Fatal(err)
	}
	paced := strings.Replace(string(b), `"benchmark": "benchsim benchmark"`, `"benchmark": "BENCHSIM_PACE=2s benchsim benchmark"`, 1)
	if paced == string(b) {
		t.Fatal("the fixture's benchmark script is no longer the one this test paces")
	}
	writeFile(t, pkg, paced)
	run(t, repo, []string{"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com"},
		"git", "commit", "-q", "-am", "a benchmark that writes a row every two seconds")
	res := r.exec(t, Run{Repo: repo, Workflow: ".github/workflows/rerun-scenarios.yml", Event: "workflow_dispatch",
		Args: []string{"--secret", "OPENAI_API_KEY=sk-test", "--input", "set=pr-exec",
			"--input", "scenario_ids=pr-merge-execute-001 pr-branch-update-001 pr-reviewers-request-001"}})
	checkJobs(t, res, map[string]string{"rerun": "success"})

	progress := regexp.MustCompile(`progress: set pr-exec, first run, (agent_direct|ghx): (\d)/3 rows, 0 failing, elapsed \S+, ETA \S+`)
	counts := map[string][]string{}
	verdict, group := -1, false
	var early []int
	for i, l := range res.Lines {
		if l.JobKey() != "rerun" {
			continue
		}
		msg := strings.TrimSpace(l.Msg)
		switch {
		case strings.Contains(msg, "::group::"):
			group = true
		case strings.Contains(msg, "::endgroup::"):
			group = false
		case strings.HasPrefix(msg, "set pr-exec: pass"):
			verdict = i
		}
		if m := progress.FindStringSubmatch(msg); m != nil {
			if group {
				t.Errorf("progress line inside a collapsed group: %q", msg)
			}
			counts[m[1]] = append(counts[m[1]], m[2])
			if m[2] != "3" {
				early = append(early, i)
			}
		}
	}
	if verdict < 0 {
		t.Fatalf("no verdict line in the step log:\n%s", tail(res.Output("rerun"), 4000))
	}
	for _, mode := range []string{"agent_direct", "ghx"} {
		c := counts[mode]
		if len(c) == 0 || c[len(c)-1] != "3" {
			t.Errorf("%s: progress counts %v, want them to end at 3 of 3", mode, c)
		}
	}
	if len(early) == 0 {
		t.Errorf("no progress line before all rows were written (counts %v):\n%s", counts, tail(res.Output("rerun"), 4000))
	}
	for _, i := range early {
		if i > verdict {
			t.Errorf("progress line %q came after the set's verdict", res.Lines[i].Msg)
		}
	}
}

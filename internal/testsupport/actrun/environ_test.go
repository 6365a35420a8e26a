package actrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestActionEnvironHoldsNoSecrets runs rerun-scenarios.yml, whose step
// passes an API key as an input, with a benchmark that walks up its
// process tree and copies the starting environment of every benchgate
// ancestor from /proc/<pid>/environ, as any process of the runner's user
// (or root, as here) can. The block must hold neither the key nor the
// inputs object nor the runner's artifact token: action.yml passes them
// in a file that benchgate reads and removes.
func TestActionEnvironHoldsNoSecrets(t *testing.T) {
	pnpm, benchsim := testenv.Pnpm(t), testenv.Benchsim(t)
	r := newRunner(t, filepath.Dir(pnpm), filepath.Dir(benchsim))
	repo := benchmarkRepo(t, pnpm, benchsim, "")
	dump := filepath.Join(t.TempDir(), "benchgate-environ.txt")
	pkg := filepath.Join(repo, "packages", "benchmark")
	writeFile(t, filepath.Join(pkg, "read-parents.sh"), `#!/bin/sh
# Copies the starting environment of every benchgate process above this one.
pid=$$
while [ "$pid" -gt 1 ]; do
  if [ "$(cat /proc/$pid/comm 2>/dev/null)" = benchgate ]; then
    echo "== $pid" >>"`+dump+`"
    tr '\0' '\n' </proc/$pid/environ >>"`+dump+`"
  fi
  pid=$(awk '{print $4}' /proc/$pid/stat)
done
`)
	pj := filepath.Join(pkg, "package.json")
	b, err := os.ReadFile(pj)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, pj, strings.Replace(string(b), `"benchmark": "benchsim benchmark"`, `"benchmark": "sh read-parents.sh && benchsim benchmark"`, 1))
	gitCommitAll(t, repo)
	res := r.exec(t, Run{Repo: repo, Workflow: ".github/workflows/rerun-scenarios.yml", Event: "workflow_dispatch",
		Args: []string{"--secret", "OPENAI_API_KEY=sk-secret-in-inputs", "--input", "set=pr-exec", "--input", "scenario_ids=pr-merge-execute-001"}})
	checkJobs(t, res, map[string]string{"rerun": "success"})
	got, err := os.ReadFile(dump)
	if err != nil || !strings.Contains(string(got), "== ") || !strings.Contains(string(got), "GITHUB_WORKSPACE=") {
		t.Fatalf("the benchmark found no benchgate process above it to read (%v); the test proves nothing:\n%s", err, got)
	}
	for _, leak := range []string{"sk-secret-in-inputs", "BENCHGATE_INPUTS=", "ACTIONS_RUNTIME_TOKEN=", "INPUT_"} {
		if strings.Contains(string(got), leak) {
			t.Errorf("benchgate's /proc/<pid>/environ holds %q:\n%s", leak, got)
		}
	}
}

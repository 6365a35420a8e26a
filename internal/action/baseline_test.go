package action

import (
	"io"
	"testing"

	"github.com/sethvargo/go-githubactions"
)

func TestWorkflowFile(t *testing.T) {
	for ref, want := range map[string]string{
		"octo/bench/.github/workflows/bench.yml@refs/pull/7/merge":     "bench.yml",
		"octo/bench/.github/workflows/ci/nightly.yaml@refs/heads/main": "nightly.yaml",
		"octo/bench/.github/workflows/bench.yml":                       "bench.yml",
		"":                                                             "",
		"octo/bench/other/bench.yml@refs/heads/main":                   "",
	} {
		if got := workflowFile(ref); got != want {
			t.Errorf("workflowFile(%q) = %q, want %q", ref, got, want)
		}
	}
}

// The artifact a step looks for on the base branch is the one the same
// step uploads there, in any run attempt, and nothing else.
func TestOwnArtifact(t *testing.T) {
	tests := []struct {
		mode, set, prefix, job string
		want                   string
		match, miss            []string
	}{
		{mode: "report", prefix: "benchgate", job: "bench", want: "benchgate-bench-run",
			match: []string{"benchgate-bench-run", "benchgate-bench-attempt2-run"},
			miss:  []string{"benchgate-bench-run-2", "benchgate-other-run", "xbenchgate-bench-run", "benchgate-bench-attemptx-run"}},
		{mode: "set", set: "pr-exec", prefix: "bg", job: "verify sets", want: "bg-verify-sets-pr-exec",
			match: []string{"bg-verify-sets-pr-exec", "bg-verify-sets-attempt3-pr-exec"},
			miss:  []string{"bg-verify-sets-run", "bg-verify-sets-pr-exec2"}},
		{mode: "report", prefix: "benchgate", want: "benchgate-run", match: []string{"benchgate-run"}, miss: []string{"benchgate-bench-run"}},
	}
	for _, tt := range tests {
		env := map[string]string{"GITHUB_JOB": tt.job, "INPUT_SET": tt.set}
		getenv := func(k string) string { return env[k] }
		r := &reporter{cfg: Config{Getenv: getenv}, a: githubactions.New(githubactions.WithWriter(io.Discard), githubactions.WithGetenv(getenv))}
		match, what := r.ownArtifact(&Plan{Mode: tt.mode, ArtifactPrefix: tt.prefix})
		if what != tt.want {
			t.Errorf("%s %s: looks for %q, want %q", tt.mode, tt.job, what, tt.want)
		}
		for _, n := range tt.match {
			if !match(n) {
				t.Errorf("%s: %q not matched", tt.want, n)
			}
		}
		for _, n := range tt.miss {
			if match(n) {
				t.Errorf("%s: %q matched", tt.want, n)
			}
		}
	}
}

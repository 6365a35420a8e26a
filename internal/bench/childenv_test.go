package bench

import (
	"strings"
	"testing"
)

func TestChildEnv(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "OPENAI_API_KEY=sk", "GITHUB_TOKEN=ghs", "GITHUB_ENV=/e", "GITHUB_OUTPUT=/o",
		"GITHUB_REPOSITORY=o/r", "ACTIONS_RUNTIME_TOKEN=x", "INPUT_GITHUB-TOKEN=ghs", "AWS_SECRET_ACCESS_KEY=k", "BENCH_GH_TOKEN=ghp", "BENCHSIM_PACE=1s", "NODE_OPTIONS=--x"}
	tests := []struct {
		pass []string
		want string
	}{
		{nil, "PATH=/bin HOME=/h LC_ALL=C OPENAI_API_KEY=sk NODE_OPTIONS=--x"},
		{[]string{"BENCH_GH_TOKEN", "BENCHSIM_*"}, "PATH=/bin HOME=/h LC_ALL=C OPENAI_API_KEY=sk BENCH_GH_TOKEN=ghp BENCHSIM_PACE=1s NODE_OPTIONS=--x"},
		// A prefix that covers the job's token and file commands still leaves them out.
		{[]string{"GITHUB_*", "ACTIONS*", "I*"}, "PATH=/bin HOME=/h LC_ALL=C OPENAI_API_KEY=sk GITHUB_REPOSITORY=o/r NODE_OPTIONS=--x"},
	}
	for _, tt := range tests {
		got := strings.Join(Config{PassEnv: tt.pass}.ChildEnv(environ), " ")
		if got != tt.want {
			t.Errorf("pass %q: %s, want %s", tt.pass, got, tt.want)
		}
	}
}

func TestCheckPassEnv(t *testing.T) {
	tests := []struct {
		names []string
		want  string
	}{
		{[]string{"BENCH_GH_TOKEN", "BENCHSIM_*", "GITHUB_*"}, ""},
		{[]string{"GITHUB_TOKEN"}, "pass_env[0]: GITHUB_TOKEN is never passed"},
		{[]string{"X", "GITHUB_STEP_SUMMARY"}, "pass_env[1]: GITHUB_STEP_SUMMARY is never passed"},
		{[]string{"ACTIONS_RUNTIME_TOKEN"}, "is never passed"},
		{[]string{"A=B"}, `pass_env[0]: expected a variable name`},
		{[]string{"*"}, `expected a variable name`},
		{[]string{"A*B"}, `expected a variable name`},
	}
	for _, tt := range tests {
		err := CheckPassEnv("pass_env", tt.names)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%q: %v, want %q", tt.names, err, tt.want)
		}
	}
}

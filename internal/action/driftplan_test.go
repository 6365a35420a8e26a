package action

import (
	"slices"
	"strings"
	"testing"
)

// TestBuildPlanDrift: drift's inputs become the command line's flags,
// and every bad one is named at once with what was expected.
func TestBuildPlanDrift(t *testing.T) {
	tests := []struct {
		name     string
		inputs   map[string]string
		wantArgs []string
		wantErrs []string
	}{
		{name: "base-branch history, the command line's options",
			inputs:   map[string]string{"mode": "drift", "history": "base-branch", "fail-on": "worse", "alpha": "0.001", "min-runs": "6", "seed": "7", "suite-only": "true", "repo": "octo/bench", "out-dir": "out"},
			wantArgs: []string{"drift", "--repo", "octo/bench", "--alpha", "0.001", "--min-runs", "6", "--seed", "7", "--suite-only", "--out-dir", "/ws/out", "--fail-on", "worse"}},
		{name: "defaults: fail-on none",
			inputs:   map[string]string{"mode": "drift", "history": "base-branch", "out-dir": "out"},
			wantArgs: []string{"drift", "--out-dir", "/ws/out", "--fail-on", "none"}},
		{name: "every bad input at once",
			inputs: map[string]string{"mode": "drift", "fail-on": "wrose", "alpha": "0.7", "issue-label": "drift,bench", "history-workflow": "../bench.yml", "history-runs": "500", "issues": "yes"},
			wantErrs: []string{`input "history": expected a value (required by mode drift)`, `input "fail-on": expected none, worse or any, got "wrose"; did you mean "worse"?`,
				`input "alpha": expected a number between 0 and 0.5`, `input "issue-label": expected a label of 1 to 50 characters without a comma`,
				`input "history-workflow": expected the file name of a workflow in .github/workflows`, `input "history-runs": expected a whole number from 1 to 150`,
				`input "issues": expected true or false, got "yes"`}},
		{name: "a history folder that does not exist",
			inputs:   map[string]string{"mode": "drift", "history": "no-such-folder"},
			wantErrs: []string{`input "history": expected an existing folder (/ws/no-such-folder does not exist), or base-branch`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := BuildPlan(func(k string) string { return tt.inputs[k] }, "/ws", "1-1")
			if len(tt.wantErrs) > 0 {
				if err == nil {
					t.Fatalf("no error; args %q", p.Args)
				}
				for _, w := range tt.wantErrs {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error lacks %q:\n%v", w, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.Args, tt.wantArgs) {
				t.Errorf("args %q, want %q", p.Args, tt.wantArgs)
			}
		})
	}
}

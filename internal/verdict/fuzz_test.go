package verdict

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzVerdictJSON reads a verdict as a trusted stage would read one a
// fork's run kept: whatever Validate accepts renders a one-line headline
// and a comment within its limit.
func FuzzVerdictJSON(f *testing.F) {
	seed := Verdict{Schema: Schema, Mode: "report", Status: "fail", ExitCode: 1, Enforced: true,
		Checks:   []Check{{ID: "efficiency_tool_call_reduction", Name: "tool-call reduction", Value: 16.67, Threshold: 20, Unit: "%", Direction: AtLeast, Status: Fail, Decided: true}},
		Failing:  []Scenario{{ID: "s-001", Modes: []string{"ghx"}, Failed: 2, Iterations: 5, FirstError: "success: expected true, got false", Where: "ghx-suite.jsonl:3"}},
		Compared: Compared{Head: "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c", HeadURL: "https://github.com/o/r/commit/1f2e3d4"}}
	b, _ := json.Marshal(seed)
	f.Add(b)
	f.Add([]byte(`{"schema":2,"mode":"set","next":["fails-in-both-modes","stopped-at-set"],"rerun":{"set":"pr-exec","ref":"x; curl e"},"status":"pass","checks":[{"id":"g","name":"gate\nx","text":"PASS","status":"pass"}],"failing":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v Verdict
		if json.Unmarshal(data, &v) != nil || v.Validate() != nil {
			return
		}
		if h := v.Headline(); strings.Contains(h, "\n") {
			t.Fatalf("headline spans lines: %q", h)
		}
		if c := v.Comment(4096); len(c) > 4096 {
			t.Fatalf("comment of %d bytes, limit 4096", len(c))
		}
	})
}

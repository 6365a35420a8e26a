package verify_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetHistoryNamesNewFailures: two earlier runs of pr-exec passed;
// now pr-merge-execute-001 fails in both modes every time. It is judged
// on the earlier runs, which it passed, so it is a new failure and never
// flaky: tracking.json names no flaky scenario, latest-stats.json names
// both modes' new failure, and the set fails on it.
func TestSetHistoryNamesNewFailures(t *testing.T) {
	f := newFixture(t, "none.json", nil)
	for _, run := range []string{"run1", "run2"} {
		args := append(f.setArgs("pr-exec"), "--out-dir", filepath.Join(f.dir, "history", run))
		if code, _, stderr := f.run(args...); code != 0 {
			t.Fatalf("%s: exit %d\n%s", run, code, stderr)
		}
	}
	f.failures = strings.Replace(f.failures, "none.json", "always-fail.json", 1)
	code, _, stderr := f.run(append(f.setArgs("pr-exec"), "--history", filepath.Join(f.dir, "history"))...)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a flaky scenario that fails is still a failure)\n%s", code, stderr)
	}
	out := filepath.Join(f.dir, "out", "pr-exec")
	tr := readTracking(t, filepath.Join(out, "tracking.json"))
	if tr.FinalStatus != "terminal_fail" {
		t.Errorf("final_status = %s, want terminal_fail", tr.FinalStatus)
	}
	if len(tr.FlakyScenarios) != 0 {
		t.Errorf("flaky_scenarios = %+v, want none: the scenario passed in every earlier run", tr.FlakyScenarios)
	}
	if strings.Contains(stderr, "flaky") {
		t.Errorf("stderr calls a new failure flaky:\n%s", stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "latest-stats.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		History struct {
			Flaky       []json.RawMessage `json:"flaky"`
			NewFailures []json.RawMessage `json:"newFailures"`
		} `json:"history"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.History.Flaky) != 0 || len(doc.History.NewFailures) != 2 {
		t.Errorf("latest-stats.json history: %v %s", err, b)
	}
}

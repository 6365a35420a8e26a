package verify_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetHistoryNamesFlakyScenarios: two earlier runs of pr-exec passed;
// now pr-merge-execute-001 fails in both modes every time. With
// --history, tracking.json names it flaky ("passed 2 of 3 recent runs")
// and the set still fails on it: the label only informs.
func TestSetHistoryNamesFlakyScenarios(t *testing.T) {
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
	var got []string
	for _, fl := range tr.FlakyScenarios {
		got = append(got, fl.Mode+" "+fl.ScenarioID+" "+fl.Label)
		if !fl.FailingNow || fl.RunsSeen != 3 || fl.RunsPassed != 2 {
			t.Errorf("flaky %+v: want failing now, 2 of 3", fl)
		}
	}
	want := []string{"agent_direct pr-merge-execute-001 flaky: passed 2 of 3 recent runs", "ghx pr-merge-execute-001 flaky: passed 2 of 3 recent runs"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("flaky_scenarios = %q, want %q", got, want)
	}
	if !strings.Contains(stderr, "set pr-exec: ghx pr-merge-execute-001: flaky: passed 2 of 3 recent runs (failing now: still a failure)") {
		t.Errorf("stderr does not name the flaky scenario:\n%s", stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "latest-stats.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		History struct {
			Flaky []json.RawMessage `json:"flaky"`
		} `json:"history"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.History.Flaky) != 2 {
		t.Errorf("latest-stats.json history: %v %s", err, b)
	}
}

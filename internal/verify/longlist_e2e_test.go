package verify_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetCountsLongIDLists runs a set of 300 scenarios that all fail:
// the rerun line, the final error and each unexpected-row diagnostic list
// the first 20 IDs and count the rest, instead of printing every ID (a
// rerun of 50,000 scenarios printed megabytes).
func TestSetCountsLongIDLists(t *testing.T) {
	bench := filepath.Join(t.TempDir(), "examples")
	if out, err := exec.Command("cp", "-r", filepath.Join(repoRoot(), "examples"), bench).CombinedOutput(); err != nil {
		t.Fatalf("copy examples: %v %s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(bench, "scenario-sets.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sets map[string]any
	json.Unmarshal(data, &sets)
	scenario, err := os.ReadFile(filepath.Join(bench, "scenarios", "issue-close-001.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 1; i <= 300; i++ {
		id := fmt.Sprintf("big-case-%03d", i)
		ids = append(ids, id)
		os.WriteFile(filepath.Join(bench, "scenarios", id+".json"), []byte(strings.Replace(string(scenario), "issue-close-001", id, -1)), 0o644)
	}
	sets["big"] = ids
	writeJSON(t, filepath.Join(bench, "scenario-sets.json"), sets)
	f := newFixture(t, "none.json", map[string]any{"bench_dir": bench})
	f.chaos(rule{"set": "big", "behavior": "always_fail"})
	code, _, stderr := f.run(f.setArgs("big")...)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	for _, want := range []string{
		"set big: rerun 1 of 2 for 300 failing scenario(s): big-case-001 big-case-002 ",
		" big-case-020 ... and 280 more\n",
		"set big failed blocking validation after 2 rerun(s): big-case-001, big-case-002, ",
		", big-case-020, ... and 280 more",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if strings.Contains(stderr, "big-case-021 ") || strings.Contains(stderr, "big-case-300,") {
		t.Errorf("stderr lists more than 20 IDs in a line")
	}
	tr := readTracking(t, filepath.Join(f.dir, "out", "big", "tracking.json"))
	if len(tr.FailingScenarios) != 300 || len(tr.Reruns[0].ScenarioIDs) != 300 {
		t.Errorf("tracking.json must keep every ID: %d failing, rerun of %d", len(tr.FailingScenarios), len(tr.Reruns[0].ScenarioIDs))
	}
}

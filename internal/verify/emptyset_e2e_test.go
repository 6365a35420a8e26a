package verify_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptySetElsewhere: a scenario-sets.json with an empty set that is
// not being run. set and ordered run and name it in a warning; a run of
// the empty set itself is refused with exit 2.
func TestEmptySetElsewhere(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(), "examples", "scenario-sets.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sets map[string]any
	if err := json.Unmarshal(data, &sets); err != nil {
		t.Fatal(err)
	}
	sets["experimental"] = []string{}
	path := filepath.Join(t.TempDir(), "scenario-sets.json")
	writeJSON(t, path, sets)
	f := newFixture(t, "none.json", map[string]any{"scenario_sets": path})
	warning := "warning: scenario sets " + path + ": this set has no scenarios: experimental (a run of it would be refused)"

	code, _, stderr := f.run(f.setArgs("ci-log-analysis")...)
	if code != 0 || !strings.Contains(stderr, "set ci-log-analysis: "+warning) {
		t.Errorf("set ci-log-analysis: exit %d, want 0 and the warning\n%s", code, stderr)
	}
	code, _, stderr = f.run(f.setArgs("experimental")...)
	if code != 2 || !strings.Contains(stderr, `set "experimental": expected a non-empty array of scenario IDs, got []`) {
		t.Errorf("set experimental: exit %d, want 2 naming the empty set\n%s", code, stderr)
	}
	code, _, stderr = f.run("ordered", "--config", f.config, "--provider", "openai", "--fixture-manifest", f.manifest, "--out-dir", filepath.Join(f.dir, "run"))
	if code != 0 || strings.Count(stderr, warning) != 1 || !strings.Contains(stderr, "ordered: "+warning) {
		t.Errorf("ordered: exit %d, want 0 and the warning once\n%s", code, stderr)
	}
}

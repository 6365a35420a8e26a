package verify_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetRecordsStatisticalGate: set --stats runs the report with the
// statistical gate and records it in tracking.json and in the log, one
// line per efficiency check; four scenarios are underpowered, which does
// not decide the set (row validation does).
func TestSetRecordsStatisticalGate(t *testing.T) {
	f := newFixture(t, "none.json", nil)
	code, _, stderr := f.run(f.setArgs("ci-diagnostics", "--stats")...)
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, stderr)
	}
	for _, s := range []string{"set ci-diagnostics: stats UNDERPOWERED (recorded; row validation decides the set)", "tokens_active", "n=4", "tool_calls"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}
	out := filepath.Join(f.dir, "out", "ci-diagnostics")
	// set refuses --stats-allow-undecided: nothing it writes suggests it.
	md, _ := os.ReadFile(filepath.Join(out, "latest-stats.md"))
	trackingRaw, _ := os.ReadFile(filepath.Join(out, "tracking.json"))
	for what, text := range map[string]string{"stderr": stderr, "latest-stats.md": string(md), "tracking.json": string(trackingRaw)} {
		if strings.Contains(text, "stats-allow-undecided") {
			t.Errorf("%s suggests --stats-allow-undecided, which set refuses:\n%s", what, text)
		}
	}
	tr := readTracking(t, filepath.Join(out, "tracking.json"))
	if tr.FinalStatus != "pass" || tr.Gate == nil || tr.Gate.Stats == nil {
		t.Fatalf("tracking.json: expected a passing set with gate.stats, got status %q gate %+v", tr.FinalStatus, tr.Gate)
	}
	st := tr.Gate.Stats
	if st.Verdict != "underpowered" || st.Passed || len(st.Lines) != 3 || !strings.HasPrefix(st.Lines[0], "tokens_active") {
		t.Errorf("gate.stats: expected underpowered, not passed, 3 lines; got %+v", *st)
	}
	for _, p := range []string{st.JSON, st.MD} {
		if filepath.Dir(p) != out {
			t.Errorf("stats file %s: expected it in the set folder %s", p, out)
		}
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	// Without --stats nothing of it appears.
	g := newFixture(t, "none.json", nil)
	if code, _, stderr := g.run(g.setArgs("ci-diagnostics")...); code != 0 || strings.Contains(stderr, "stats") {
		t.Errorf("without --stats: exit %d, stderr mentions stats:\n%s", code, stderr)
	}
	if tr := readTracking(t, filepath.Join(g.dir, "out", "ci-diagnostics", "tracking.json")); tr.Gate == nil || tr.Gate.Stats != nil {
		t.Errorf("without --stats: expected no gate.stats, got %+v", tr.Gate)
	}
}

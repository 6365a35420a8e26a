package runrecord

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestTotals: a record keeps each mode's run in three numbers (the
// share of rows with success true and the medians over the stable
// rows), and a record without them gives the nearest the scenarios do.
func TestTotals(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ghx-suite.jsonl")
	// 4 scenarios x 3 repetitions; scenario 1 fails its 2nd repetition.
	// Active tokens 100*(1+i/10), latency 10000*(1+i/10).
	if err := os.WriteFile(p, []byte(testenv.SuiteJSONL("ghx", 1, 4, 100, func(s, r int) bool { return s == 1 && r == 2 })), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := FromSuites([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	m := rec.Mode("ghx")
	tot := m.Totals
	// Stable active tokens: 110 twice, 100/120/130 three times each:
	// the middle of 11 values is 120.
	if tot == nil || tot.Rows != 12 || tot.Succeeded != 11 || *tot.MedianActiveTokens != 120 || *tot.MedianLatencyMs != 12000 {
		t.Fatalf("totals %+v", tot)
	}
	if r := *tot.SuccessRatePct(); r < 91.66 || r > 91.67 {
		t.Errorf("success rate %v, want 11/12", r)
	}
	old := *m
	old.Totals = nil
	got := old.RunTotals()
	// Scenario medians 100, 110, 120, 130: their median is 115; 11 of
	// 12 rows passed.
	if got.Rows != 12 || got.Succeeded != 11 || *got.MedianActiveTokens != 115 || *got.MedianLatencyMs != 11500 {
		t.Errorf("totals from scenarios %+v", got)
	}
}

package baseline

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/runrecord"
	"github.com/benchgate/benchgate/internal/stats"
)

// TestEfficiencyMetricsAreTheGateChecks: the metrics compared against a
// baseline are the statistical gate's efficiency checks (report.Checks
// with a StatsMetric), in their order, each reading the same values from
// a run record as the gate pairs from the rows: on the real suites, each
// scenario's median in the record is the gate's pair for that check.
func TestEfficiencyMetricsAreTheGateChecks(t *testing.T) {
	dir := t.TempDir()
	data, err := filepath.Abs(filepath.Join("..", "..", "testdata", "suites"))
	if err != nil {
		t.Fatal(err)
	}
	suites := []string{filepath.Join(data, "2026-02-25-agent_direct-suite.jsonl"), filepath.Join(data, "2026-02-25-ghx-suite.jsonl")}
	res, err := report.Run(context.Background(), report.Options{SuitePaths: suites, Dir: dir,
		SummaryJSON: filepath.Join(dir, "summary.json"), SummaryMD: filepath.Join(dir, "summary.md"),
		Stats: report.StatsOptions{Enabled: true, Scope: stats.ScopeScenarios}})
	if res == nil || res.Stats == nil {
		t.Fatalf("expected the statistical gate, got %v", err)
	}
	rec, err := runrecord.FromSuites(suites)
	if err != nil {
		t.Fatal(err)
	}
	mode := func(name string) *runrecord.Mode {
		for i := range rec.Modes {
			if rec.Modes[i].Mode == name {
				return &rec.Modes[i]
			}
		}
		t.Fatalf("no mode %s in the record", name)
		return nil
	}
	ad, ghx := mode("agent_direct"), mode("ghx")
	metrics := efficiencyMetrics()
	if len(metrics) != len(res.Stats.Efficiency) {
		t.Fatalf("%d baseline metrics, %d statistical checks", len(metrics), len(res.Stats.Efficiency))
	}
	for i, e := range res.Stats.Efficiency {
		em := metrics[i]
		if len(e.Pairs) == 0 {
			t.Errorf("%s: no pairs", e.Check)
		}
		for _, p := range e.Pairs {
			b, g := em.median(ad.Scenario(p.ID)), em.median(ghx.Scenario(p.ID))
			if b == nil || g == nil {
				t.Errorf("baseline metric %s, scenario %s: no median in the record", em.name, p.ID)
			} else if *b != p.Base || *g != p.Target {
				t.Errorf("baseline metric %s, check %s, scenario %s: record medians %v → %v; the gate pairs %v → %v", em.name, e.Check, p.ID, *b, *g, p.Base, p.Target)
			}
		}
	}
}

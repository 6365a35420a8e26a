package report

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkReportMillionRowsStats is BenchmarkReportMillionRows with
// --stats: the same million rows (200 scenarios of 2,500 repetitions per
// mode), so the difference of the two is what the statistical gate adds
// (docs/performance.md).
func BenchmarkReportMillionRowsStats(b *testing.B) {
	dir := b.TempDir()
	ad := filepath.Join(dir, "large-agent_direct-suite.jsonl")
	ghx := filepath.Join(dir, "large-ghx-suite.jsonl")
	writeLargeSuite(b, ad, "agent_direct", 500000, 200)
	writeLargeSuite(b, ghx, "ghx", 500000, 200)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Run(context.Background(), Options{
			SuitePaths:  []string{ad, ghx},
			Dir:         dir,
			SummaryJSON: filepath.Join(dir, "out", "s.json"),
			SummaryMD:   filepath.Join(dir, "out", "s.md"),
			Stats:       StatsOptions{Enabled: true},
		})
		if err != nil {
			b.Fatal(err)
		}
		if res.Stats == nil || len(res.Stats.Efficiency) != 3 || res.Stats.Efficiency[0].Scenarios != 200 || res.Stats.Efficiency[0].Bootstrap == nil {
			b.Fatalf("expected three checks over 200 scenarios with a bootstrap, got %+v", res.Stats)
		}
	}
}

// BenchmarkStatsOnly is the statistical gate alone on those rows' scenario
// values: 200 scenarios, 2,500 repetitions per mode.
func BenchmarkStatsOnly(b *testing.B) {
	dir := b.TempDir()
	ad := filepath.Join(dir, "large-agent_direct-suite.jsonl")
	ghx := filepath.Join(dir, "large-ghx-suite.jsonl")
	writeLargeSuite(b, ad, "agent_direct", 500000, 200)
	writeLargeSuite(b, ghx, "ghx", 500000, 200)
	res := &Result{}
	accs, err := readSuites(context.Background(), []string{ad, ghx}, false, res)
	if err != nil {
		b.Fatal(err)
	}
	th := DefaultThresholds(ProfileVerifyPR)
	s := buildSummary(accs, th, ProfileVerifyPR, "t")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := statsFor(accs, s, th, StatsOptions{Enabled: true}, "s.json"); err != nil {
			b.Fatal(err)
		}
	}
}

package report

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkReportMillionRowsStats runs report on the million rows of
// BenchmarkReportMillionRows (200 scenarios of 2,500 repetitions per
// mode) without and with --stats, on the same files, so the difference is
// what the statistical gate adds (docs/performance.md). Besides wall time
// each reports cpu-ns/op, the process's user+system CPU per run, which a
// shared machine's load disturbs far less than wall time.
func BenchmarkReportMillionRowsStats(b *testing.B) {
	dir := b.TempDir()
	ad := filepath.Join(dir, "large-agent_direct-suite.jsonl")
	ghx := filepath.Join(dir, "large-ghx-suite.jsonl")
	writeLargeSuite(b, ad, "agent_direct", 500000, 200)
	writeLargeSuite(b, ghx, "ghx", 500000, 200)
	for _, withStats := range []bool{false, true} {
		name := "v2"
		if withStats {
			name = "v2+stats"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime(b)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := Run(context.Background(), Options{
					SuitePaths:  []string{ad, ghx},
					Dir:         dir,
					SummaryJSON: filepath.Join(dir, "out", "s.json"),
					SummaryMD:   filepath.Join(dir, "out", "s.md"),
					Stats:       StatsOptions{Enabled: withStats},
				})
				if err != nil {
					b.Fatal(err)
				}
				if withStats && (res.Stats == nil || len(res.Stats.Efficiency) != 3 || res.Stats.Efficiency[0].Scenarios != 200 || res.Stats.Efficiency[0].Bootstrap == nil) {
					b.Fatalf("expected three checks over 200 scenarios with a bootstrap, got %+v", res.Stats)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the process's user+system CPU time so far, in nanoseconds.
func cpuTime(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
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
	start := cpuTime(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := statsFor(accs, s, th, StatsOptions{Enabled: true}, "s.json"); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
}

package drift

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/drifttest"
)

// BenchmarkAnalyze scans histories of 250 to 1,000 runs of the real
// suites' shape (2 modes, 4 scenarios x 5 repetitions) with a latency
// step and a token step: every metric of both modes and their ratio,
// for the suite alone (12 series) and with each scenario (60 series).
// Memory per analysis grows with the runs, not with the rows they came
// from (a run is one record).
func BenchmarkAnalyze(b *testing.B) {
	n := realNoise(b)
	for _, runs := range []int{250, 1000} {
		h := simHistory(n, 1, runs,
			drifttest.Change{Metric: drifttest.Latency, Mode: "ghx", From: runs / 3, Factor: 1.15},
			drifttest.Change{Metric: drifttest.ActiveTokens, From: 2 * runs / 3, Factor: 1.5})
		for _, suiteOnly := range []bool{true, false} {
			b.Run(fmt.Sprintf("runs=%d/suite-only=%v", runs, suiteOnly), func(b *testing.B) {
				b.ReportAllocs()
				before := cpuTime()
				for b.Loop() {
					Analyze(h, Options{SuiteOnly: suiteOnly})
				}
				// The machine is shared: CPU time says what the analysis
				// costs whatever else runs; wall time on two idle cores is
				// about half of it.
				b.ReportMetric(float64((cpuTime()-before).Milliseconds())/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

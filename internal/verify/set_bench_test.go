package verify_test

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/bench"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/verify"
)

// BenchmarkSet measures one set (pr-exec, 9 scenarios, seeded, paired
// modes, report) against benchsim, which exits as soon as it has written
// its rows. own-ms/set is the wall time minus the time spent waiting for
// children (preflight, seed, the slower of the two paired runs): what
// benchgate itself costs per set. The target is at most 100 ms.
func BenchmarkSet(b *testing.B) { benchmarkSet(b, false) }

// BenchmarkSetWithProgress is BenchmarkSet with the progress lines on
// (set's default on the command line): the follower polls both suite
// files while the benchmark runs and reads them once more at its end.
func BenchmarkSetWithProgress(b *testing.B) { benchmarkSet(b, true) }

func benchmarkSet(b *testing.B, progress bool) {
	root := repoRoot()
	sim := bins["benchsim"]
	cfg := bench.Default(filepath.Join(root, "examples"))
	cfg.Benchmark = append([]string{sim, "benchmark"}, cfg.Benchmark[6:]...)
	cfg.Fixtures = []string{sim, "fixtures", "{action}", "{seed_id}", "--out", "{out}"}
	cfg.ExpectationsConfig = "config/expectations.json"
	cfg.Env = []string{"BENCHSIM_FAILURES=" + filepath.Join(root, "testdata", "bench", "failures", "none.json")}
	dir := b.TempDir()
	manifest := filepath.Join(dir, "latest.json")
	if out, err := exec.Command(sim, "fixtures", "seed", "--out", manifest).CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	rep := func(ctx context.Context, req verify.ReportRequest) (bool, error) {
		res, err := report.Run(ctx, report.Options{SuitePaths: req.SuitePaths, Dir: req.Dir, GateProfile: req.GateProfile,
			ExpectationsConfig: req.ExpectationsConfig, SummaryJSON: req.SummaryJSON, SummaryMD: req.SummaryMD, SkipBadRows: true})
		if err != nil {
			return false, err
		}
		return res.Gate.Passed, nil
	}
	var own, wall time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := verify.RunSet(context.Background(), verify.SetOptions{
			Config: cfg, Set: "pr-exec", Provider: "openai", Model: "gpt-5.1-codex-mini", Repetitions: 1,
			OutDir: filepath.Join(dir, "out"), FixtureManifest: manifest, Report: rep,
			Progress: progress, Log: io.Discard,
		})
		d := time.Since(start)
		if err != nil || !res.Passed() {
			b.Fatalf("set did not pass: %v", err)
		}
		wall += d
		own += d - childWait(res.Tracking)
	}
	b.ReportMetric(float64(own.Milliseconds())/float64(b.N), "own-ms/set")
	b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "wall-ms/set")
}

// childWait is the time the set spent waiting for children: sequential
// steps add up, the two modes of one attempt run at once.
func childWait(t *verify.Tracking) time.Duration {
	steps := map[string]int64{}
	for _, c := range t.Commands {
		key := c.Step
		for _, m := range bench.Modes {
			if len(key) > len(m) && key[len(key)-len(m)-1:] == "-"+m {
				key = key[:len(key)-len(m)-1]
			}
		}
		steps[key] = max(steps[key], c.DurationMS)
	}
	var total int64
	for _, ms := range steps {
		total += ms
	}
	return time.Duration(total) * time.Millisecond
}

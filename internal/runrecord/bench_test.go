package runrecord

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// writeSuite writes rows rows of mode over scenarios scenarios, shaped
// like real rows, with values from a fixed sequence.
func writeSuite(tb testing.TB, path, mode string, rows, scenarios int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	seed := uint64(len(mode))*0x9E3779B97F4A7C15 + 1
	next := func(n uint64) uint64 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return seed % n
	}
	for i := 0; i < rows; i++ {
		ok := "true"
		if next(100) < 3 {
			ok = "false"
		}
		active := 300 + next(2000)
		fmt.Fprintf(w, `{"timestamp":"2026-02-25T17:18:19.058Z","run_id":"358249fe-%s","mode":%q,"scenario_id":"scenario-%03d-wf-001","scenario_set":"all","iteration":%d,"session_id":"s","success":%s,"output_valid":true,"latency_ms_wall":%d,"latency_ms_agent":15883,"sdk_latency_ms":2134,"tokens":{"input":%d,"output":92,"reasoning":18,"cache_read":8000,"cache_write":0,"total":%d},"cost":0,"tool_calls":%d,"api_calls":0,"internal_retry_count":0,"external_retry_count":0,"model":{"provider_id":"openai","model_id":"gpt-5.3-codex","mode":null},"git":{"repo":null,"commit":null},"error":null}`+"\n",
			mode, mode, i%scenarios, i/scenarios+1, ok, 15000+next(50000), active-110, active+8000, 1+next(9))
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkFromSuites1M is what --baseline, --history and --run-record
// add to report: reading a suite pair of 1,000,000 rows in all (500
// scenarios) into a run record. docs/performance.md has the figures.
func BenchmarkFromSuites1M(b *testing.B) {
	dir := b.TempDir()
	paths := []string{filepath.Join(dir, "agent_direct-suite.jsonl"), filepath.Join(dir, "ghx-suite.jsonl")}
	writeSuite(b, paths[0], "agent_direct", 500000, 500)
	writeSuite(b, paths[1], "ghx", 500000, 500)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rec, err := FromSuites(paths)
		if err != nil {
			b.Fatal(err)
		}
		if len(rec.Modes) != 2 || len(rec.Modes[0].Scenarios) != 500 {
			b.Fatalf("modes %d", len(rec.Modes))
		}
	}
}

package report

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// writeLargeSuite writes rows rows of mode to path, shaped like real rows
// (timing breakdown, unknown keys, a few failures) with values from a
// fixed pseudo-random sequence so every run reads the same bytes.
func writeLargeSuite(tb testing.TB, path, mode string, rows, scenarios int) {
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
	var buf []byte
	for i := 0; i < rows; i++ {
		sc := i % scenarios
		success, valid, errJSON := "true", "true", "null"
		timing := `,"timing_breakdown":{"assistant_total_ms":` + fmt.Sprint(10000+next(30000)) + `,"assistant_pre_reasoning_ms":4729,"assistant_reasoning_ms":` + fmt.Sprint(next(15000)) + `,"assistant_between_reasoning_and_tool_ms":1005,"assistant_post_tool_ms":155,"tool_total_ms":3482,"tool_bash_ms":3482,"tool_structured_output_ms":0,"observed_assistant_turns":3}`
		switch r := next(100); {
		case r < 3:
			success, errJSON = "false", `{"type":"assertion_failed","message":"Expected at most 4 tool call(s), got 6"}`
		case r < 4:
			success, valid, timing = "false", "false", ""
			errJSON = `{"type":"runner_error","message":"Timed out waiting for assistant message in session.messages"}`
		}
		cacheRead := 8000 + next(4000)
		active := 300 + next(2000)
		buf = fmt.Appendf(buf[:0], `{"timestamp":"2026-02-25T17:18:19.058Z","run_id":"358249fe-5b84-4492-8656-%012d","mode":%q,"scenario_id":"scenario-%03d-wf-001","scenario_set":"all","iteration":%d,"session_id":"ses_36a3134a5ffe93PRK6r2gRqZbT","success":%s,"output_valid":%s,"latency_ms_wall":%d,"latency_ms_agent":15883,"sdk_latency_ms":2134,"tokens":{"input":%d,"output":92,"reasoning":18,"cache_read":%d,"cache_write":0,"total":%d},"cost":0,"tool_calls":%d,"api_calls":0,"internal_retry_count":0,"external_retry_count":%d,"model":{"provider_id":"openai","model_id":"gpt-5.3-codex","mode":null},"git":{"repo":null,"commit":null},"error":%s%s}`+"\n",
			i, mode, sc, i/scenarios+1, success, valid, 15000+next(50000), active-110, cacheRead, active+cacheRead, 1+next(9), next(20)/19, errJSON, timing)
		if _, err := w.Write(buf); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// TestWriteLargeSuitePair writes the benchmark's suite pair to
// $BENCHGATE_LARGE_SUITE_DIR so the real binary can be measured on it
// (docs/performance.md); it does nothing otherwise.
func TestWriteLargeSuitePair(t *testing.T) {
	dir := os.Getenv("BENCHGATE_LARGE_SUITE_DIR")
	if dir == "" {
		t.Skip("set BENCHGATE_LARGE_SUITE_DIR to write the 1,000,000-row suite pair")
	}
	writeLargeSuite(t, filepath.Join(dir, "large-agent_direct-suite.jsonl"), "agent_direct", 500000, 200)
	writeLargeSuite(t, filepath.Join(dir, "large-ghx-suite.jsonl"), "ghx", 500000, 200)
}

// BenchmarkReportMillionRows runs the whole report (read, summarise, gate,
// write both summaries) over a suite pair of 1,000,000 rows in all.
func BenchmarkReportMillionRows(b *testing.B) {
	dir := b.TempDir()
	ad := filepath.Join(dir, "large-agent_direct-suite.jsonl")
	ghx := filepath.Join(dir, "large-ghx-suite.jsonl")
	writeLargeSuite(b, ad, "agent_direct", 500000, 200)
	writeLargeSuite(b, ghx, "ghx", 500000, 200)
	var size int64
	for _, p := range []string{ad, ghx} {
		st, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		size += st.Size()
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Run(context.Background(), Options{
			SuitePaths:  []string{ad, ghx},
			Dir:         dir,
			SummaryJSON: filepath.Join(dir, "out", "s.json"),
			SummaryMD:   filepath.Join(dir, "out", "s.md"),
		})
		if err != nil {
			b.Fatal(err)
		}
		if res.Summary.Modes[0].Runs != 500000 || res.Summary.GateV2.Efficiency.TotalScenarioCount != 200 {
			b.Fatalf("unexpected summary: %+v", res.Summary.Modes[0])
		}
	}
}

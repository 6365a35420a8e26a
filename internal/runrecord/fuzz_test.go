package runrecord

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Whatever a record file holds, decoding never panics, and a record it
// accepts encodes and decodes again to the same value.
func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte(`{"schema":"benchgate.run-record/v1","modes":[{"mode":"ghx","source":"s","run_ids":["r"],"run_id_count":1,"started_at":"t","model_signatures":["a/b/<null>"],"scenarios":[{"id":"a","rows":2,"passed":1,"stable":1,"median_active_tokens":3,"median_latency_ms":4,"median_tool_calls":5}]}]}`))
	f.Add([]byte(`{"schema":"benchgate.run-record/v1","modes":[]}`))
	f.Add([]byte(`{"schema":"x"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := DecodeRecord("f.json", b)
		if err != nil {
			return
		}
		again, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		rec2, err := DecodeRecord("f.json", again)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", again, err)
		}
		b2, _ := json.Marshal(rec2)
		if !bytes.Equal(again, b2) {
			t.Fatalf("round trip differs:\n%s\n%s", again, b2)
		}
	})
}

// Whatever a suite file holds, reading it never panics, every scenario
// has at least one row, no more passing or stable rows than rows, and
// medians exactly when there are stable rows.
func FuzzReadSuite(f *testing.F) {
	f.Add([]byte(row("ghx", "a-001", 1, "r", true, 1, 2, 3) + row("ghx", "a-001", 2, "r", false, 1, 2, 3)))
	f.Add([]byte(`{"mode":"ghx","scenario_id":"b-001","success":true}` + "\n"))
	f.Add([]byte("\n\nnot json\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := readSuite(bytes.NewReader(b), "f.jsonl")
		if err != nil {
			return
		}
		for _, m := range rec.Modes {
			for _, s := range m.Scenarios {
				if s.Rows < 1 || s.Passed > s.Rows || s.Stable > s.Rows || (s.MedianActiveTokens == nil) != (s.Stable == 0) {
					t.Fatalf("%s/%s: %+v", m.Mode, s.ID, s)
				}
			}
		}
		if enc, err := json.Marshal(rec); err != nil {
			t.Fatal(err)
		} else if _, err := DecodeRecord("f.json", enc); err != nil && rec.Modes != nil {
			// Scenario IDs from rows may repeat only if equal; decode
			// must accept what the builder produced.
			t.Fatalf("builder output refused: %v\n%s", err, enc)
		}
	})
}

// Whatever a summary file holds, reading its modes never panics and
// every number it accepts is within the suite bound.
func FuzzDecodeSummary(f *testing.F) {
	f.Add([]byte(`{"modes":{"ghx":{"mode":"ghx","runs":4,"successRate":75,"medianTokensActive":10,"medianLatencyMs":5,"medianToolCalls":1}}}`))
	f.Add([]byte(`{"modes":null}`))
	f.Add([]byte(`{"modes":{"a":{"successRate":1e300}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeSummary("s.json", b)
		if err != nil {
			return
		}
		for i, m := range s.Modes {
			if i > 0 && s.Modes[i-1].Mode > m.Mode {
				t.Fatalf("modes not sorted: %+v", s.Modes)
			}
			for _, v := range []float64{m.SuccessRate, m.MedianTokensActive, m.MedianLatencyMs, m.MedianToolCalls} {
				if v > 1e15 || v < -1e15 {
					t.Fatalf("accepted %v", v)
				}
			}
		}
	})
}

package drift

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/runrecord"
)

// Whatever a history's record holds, reading it never panics; a record
// refused is refused with its file name (and, for JSON it cannot parse,
// its line); a record accepted gives series without NaN whose change
// points name runs of the history.
func FuzzReadHistoryRecord(f *testing.F) {
	f.Add([]byte(`{"schema":"benchgate.run-record/v1","modes":[{"mode":"ghx","source":"s","run_ids":["r"],"run_id_count":1,"started_at":"t","model_signatures":[],"scenarios":[{"id":"a","rows":2,"passed":1,"stable":1,"median_active_tokens":3,"median_latency_ms":4,"median_tool_calls":5}]}]}`))
	f.Add([]byte("{\n\"schema\": \"benchgate.run-record/v1\",\n\"modes\": [{\"mode\": 3}]\n}"))
	f.Add([]byte(`{"schema":"benchgate.run-record/v1","modes":[{"mode":"agent_direct","source":"","run_ids":[],"run_id_count":0,"started_at":"","model_signatures":[],"scenarios":[{"id":"a","rows":1,"passed":0,"stable":0,"median_active_tokens":null,"median_latency_ms":null,"median_tool_calls":null}],"totals":{"rows":1,"succeeded":0,"median_active_tokens":null,"median_latency_ms":null}}]}`))
	f.Add([]byte("{\"schema\""))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "run-1", runrecord.FileName)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := ReadHistory(dir)
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		rep, series := Analyze(h, Options{})
		for _, s := range series {
			for _, v := range s.Values {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("series %s %s %q has %v", s.Metric, s.Mode, s.Scenario, v)
				}
			}
		}
		for _, c := range rep.ChangePoints {
			if c.After.Index >= len(h.Runs) || c.Before.Index < 0 {
				t.Fatalf("change point names a run outside the history: %+v", c)
			}
		}
	})
}

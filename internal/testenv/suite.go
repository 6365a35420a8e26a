package testenv

import (
	"encoding/json"
	"fmt"
	"strings"
)

// SuiteJSONL is one mode's suite file of a generated run: n scenarios
// (s-000, s-001, ...) of three repetitions, in the row schema the benchmark
// writes. Active tokens, latency and tool calls grow with the scenario by
// the same factor in every mode, so two modes' runs differ by one ratio
// per metric; ghx takes half the latency and tool calls of other modes.
// day orders runs in time (it sets the timestamps and the run ID); fails
// says which repetitions fail (nil: none).
func SuiteJSONL(mode string, day, n int, tokens float64, fails func(scenario, repetition int) bool) string {
	latency, tools := 20000.0, 10.0
	if mode == "ghx" {
		latency, tools = 10000, 5
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		scale := 1 + float64(i)/10
		for it := 1; it <= 3; it++ {
			ok := fails == nil || !fails(i, it)
			row := map[string]any{
				"timestamp": fmt.Sprintf("2026-03-%02dT10:%02d:%02d.000Z", day, i, it), "run_id": fmt.Sprintf("%s-%d", mode, day), "mode": mode,
				"scenario_id": fmt.Sprintf("s-%03d", i), "scenario_set": "pr-exec", "iteration": it, "session_id": nil,
				"success": ok, "output_valid": ok, "latency_ms_wall": latency * scale, "sdk_latency_ms": nil,
				"tokens": map[string]any{"input": tokens * scale, "output": 0, "reasoning": 0, "cache_read": 0, "cache_write": 0, "total": tokens * scale},
				"cost":   0, "tool_calls": tools, "api_calls": 0, "internal_retry_count": 0, "external_retry_count": 0,
				"model": map[string]any{"provider_id": "openai", "model_id": "m", "mode": nil},
				"git":   map[string]any{"repo": nil, "commit": nil}, "error": nil,
			}
			if !ok {
				row["error"] = map[string]any{"type": "assertion_failed", "message": "checks failed"}
			}
			line, err := json.Marshal(row)
			if err != nil {
				panic(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

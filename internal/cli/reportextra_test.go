package cli_test

import (
	"encoding/json"
	"fmt"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// genSuite writes one suite file of mode: n scenarios of reps
// repetitions each, with the given active tokens, latency and tool calls
// (a small per-scenario spread keeps the pairs apart), failing every
// repetition of the scenarios in fail.
func genSuite(t *testing.T, path, mode, runID string, n, reps int, tokens, latency, tools float64, fail ...int) {
	t.Helper()
	failing := map[int]bool{}
	for _, f := range fail {
		failing[f] = true
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		scale := 1 + float64(i)/10
		for it := 1; it <= reps; it++ {
			ok := !failing[i]
			row := map[string]any{
				"timestamp": fmt.Sprintf("2026-03-0%sT10:%02d:%02d.000Z", runID[len(runID)-1:], i, it), "run_id": runID, "mode": mode,
				"scenario_id": fmt.Sprintf("s-%03d", i), "scenario_set": "pr-exec", "iteration": it, "session_id": nil,
				"success": ok, "output_valid": ok, "latency_ms_wall": latency * scale, "sdk_latency_ms": nil,
				"tokens": map[string]any{"input": tokens * scale, "output": 0, "reasoning": 0, "cache_read": 0, "cache_write": 0, "total": tokens * scale},
				"cost":   0, "tool_calls": tools, "api_calls": 0, "internal_retry_count": 0, "external_retry_count": 0,
				"model": map[string]any{"provider_id": "openai", "model_id": "m", "mode": nil},
				"git":   map[string]any{"repo": nil, "commit": nil},
				"error": nil,
			}
			if !ok {
				row["error"] = map[string]any{"type": "assertion_failed", "message": "checks failed"}
			}
			line, _ := json.Marshal(row)
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportBaselineAndHistoryThroughBinary drives the real binary: a run
// whose ghx active tokens grew 30% against the baseline fails --gate on
// the baseline alone (gate v2 passes), an unchanged run passes, and
// earlier runs in which a scenario both passed and failed name it flaky.
func TestReportBaselineAndHistoryThroughBinary(t *testing.T) {
	bg := testenv.Benchgate(t)
	const n, reps = 12, 3
	type run struct {
		ghxTokens float64
		ghxFail   []int
	}
	tests := []struct {
		name         string
		current      run
		baseline     string // "runs" (suite files of run 1), "record", "summary", "missing"
		history      bool
		gate         bool
		wantCode     int
		wantStdout   []string
		wantVerdict  string
		wantFlaky    []string
		wantNoSumary bool
	}{
		{name: "30% more tokens regresses", current: run{ghxTokens: 650}, baseline: "runs", gate: true, wantCode: 1,
			wantStdout: []string{"Benchmark verify result: PASS", "Benchmark baseline result: fail"}, wantVerdict: "fail"},
		{name: "unchanged passes", current: run{ghxTokens: 500}, baseline: "record", gate: true, wantCode: 0,
			wantStdout: []string{"Benchmark baseline result: pass"}, wantVerdict: "pass"},
		{name: "regression without --gate is reported, exit 0", current: run{ghxTokens: 650}, baseline: "record", wantCode: 0,
			wantStdout: []string{"Benchmark baseline result: fail"}, wantVerdict: "fail"},
		{name: "summary-only baseline is untested", current: run{ghxTokens: 500}, baseline: "summary", gate: true, wantCode: 0,
			wantStdout: []string{"Benchmark baseline result: untested"}, wantVerdict: "untested"},
		{name: "flaky scenarios from history", current: run{ghxTokens: 500, ghxFail: []int{3}}, history: true, wantCode: 0,
			wantStdout: []string{"Benchmark flaky scenario: ghx s-003: flaky: passed 2 of 3 earlier runs"}, wantFlaky: []string{"ghx/s-003"}},
		{name: "missing baseline folder writes nothing", current: run{ghxTokens: 500}, baseline: "missing", wantCode: 2, wantNoSumary: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			// Earlier runs 1-3 (run 2 fails s-003), then the current run 4.
			for r := 1; r <= 3; r++ {
				var fail []int
				if r == 2 {
					fail = []int{3}
				}
				genSuite(t, filepath.Join(dir, "past", fmt.Sprintf("r%d", r), "agent_direct-suite.jsonl"), "agent_direct", fmt.Sprintf("ad-%d", r), n, reps, 1000, 20000, 10)
				genSuite(t, filepath.Join(dir, "past", fmt.Sprintf("r%d", r), "ghx-suite.jsonl"), "ghx", fmt.Sprintf("gx-%d", r), n, reps, 500, 10000, 5, fail...)
			}
			ad, ghx := filepath.Join(dir, "cur", "agent_direct-suite.jsonl"), filepath.Join(dir, "cur", "ghx-suite.jsonl")
			genSuite(t, ad, "agent_direct", "ad-4", n, reps, 1000, 20000, 10)
			genSuite(t, ghx, "ghx", "gx-4", n, reps, tt.current.ghxTokens, 10000, 5, tt.current.ghxFail...)

			args := []string{"report", "--suite-jsonl", ad, "--suite-jsonl", ghx, "--summary-json", "out/latest-summary.json", "--summary-md", "out/latest-summary.md"}
			if tt.gate {
				args = append(args, "--gate")
			}
			switch tt.baseline {
			case "runs":
				args = append(args, "--baseline", filepath.Join(dir, "past", "r1"))
			case "record":
				// A record written by an earlier report is a baseline.
				rec := exec.Command(bg, "report", "--suite-jsonl", filepath.Join(dir, "past", "r1", "agent_direct-suite.jsonl"), "--suite-jsonl", filepath.Join(dir, "past", "r1", "ghx-suite.jsonl"),
					"--summary-json", "earlier/latest-summary.json", "--summary-md", "earlier/latest-summary.md", "--run-record", "earlier/run-record.json")
				rec.Dir = dir
				if out, err := rec.CombinedOutput(); err != nil {
					t.Fatalf("earlier report: %v\n%s", err, out)
				}
				os.Remove(filepath.Join(dir, "earlier", "latest-summary.json"))
				args = append(args, "--baseline", "earlier")
			case "summary":
				rec := exec.Command(bg, "report", "--suite-jsonl", filepath.Join(dir, "past", "r1", "agent_direct-suite.jsonl"), "--suite-jsonl", filepath.Join(dir, "past", "r1", "ghx-suite.jsonl"),
					"--summary-json", "earlier/latest-summary.json", "--summary-md", "earlier/latest-summary.md")
				rec.Dir = dir
				if out, err := rec.CombinedOutput(); err != nil {
					t.Fatalf("earlier report: %v\n%s", err, out)
				}
				args = append(args, "--baseline", "earlier")
			case "missing":
				args = append(args, "--baseline", "nowhere")
			}
			if tt.history {
				args = append(args, "--history", filepath.Join(dir, "past"))
			}
			cmd := exec.Command(bg, args...)
			cmd.Dir = dir
			outb, err := cmd.CombinedOutput()
			out := string(outb)
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tt.wantCode, out)
			}
			for _, w := range tt.wantStdout {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tt.wantNoSumary {
				if _, err := os.Stat(filepath.Join(dir, "out", "latest-summary.json")); err == nil {
					t.Error("a summary was written although the baseline folder is missing")
				}
				if !strings.Contains(out, "--baseline: stat ") {
					t.Errorf("the error does not name --baseline:\n%s", out)
				}
				return
			}
			b, err := os.ReadFile(filepath.Join(dir, "out", "latest-stats.json"))
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Baseline *struct {
					Verdict string `json:"verdict"`
					Modes   []struct {
						Mode       string `json:"mode"`
						Efficiency []struct {
							Name      string `json:"name"`
							Verdict   string `json:"verdict"`
							MovedMost []struct {
								ID string `json:"id"`
							} `json:"movedMost"`
						} `json:"efficiency"`
					} `json:"modes"`
				} `json:"baseline"`
				History *struct {
					Flaky []struct {
						Mode string `json:"mode"`
						ID   string `json:"scenarioId"`
					} `json:"flaky"`
				} `json:"history"`
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			if tt.wantVerdict != "" && (doc.Baseline == nil || doc.Baseline.Verdict != tt.wantVerdict) {
				t.Errorf("stats baseline = %+v, want verdict %s", doc.Baseline, tt.wantVerdict)
			}
			if tt.wantVerdict == "fail" {
				for _, m := range doc.Baseline.Modes {
					e := m.Efficiency[0]
					if m.Mode == "ghx" && (e.Name != "active_tokens" || e.Verdict != "fail" || len(e.MovedMost) == 0) {
						t.Errorf("ghx active tokens = %+v, want a fail with the scenarios that moved", e)
					}
					if m.Mode == "agent_direct" && e.Verdict != "pass" {
						t.Errorf("agent_direct active tokens = %+v, want pass", e)
					}
				}
			}
			var flaky []string
			if doc.History != nil {
				for _, f := range doc.History.Flaky {
					flaky = append(flaky, f.Mode+"/"+f.ID)
				}
			}
			if fmt.Sprint(flaky) != fmt.Sprint(tt.wantFlaky) && !(len(flaky) == 0 && len(tt.wantFlaky) == 0) {
				t.Errorf("flaky = %v, want %v", flaky, tt.wantFlaky)
			}
			md, err := os.ReadFile(filepath.Join(dir, "out", "latest-stats.md"))
			if err != nil || !strings.HasPrefix(string(md), "# Benchmark statistics\n") {
				t.Errorf("latest-stats.md: %v\n%s", err, md)
			}
			gfm.Require(t, "latest-stats.md", string(md))
		})
	}
}

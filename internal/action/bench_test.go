package action

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sethvargo/go-githubactions"
)

// BenchmarkReportLargeSet measures what the adapter adds after a mode:
// reading back a set folder whose two suites hold 100,000 rows, every
// tenth failing, then outputs, annotations and a summary that must be cut
// down to 1 MiB.
func BenchmarkReportLargeSet(b *testing.B) {
	ws := b.TempDir()
	out := filepath.Join(ws, "benchgate-results", "set-1-1")
	if err := os.MkdirAll(out, 0o755); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"agent_direct", "ghx"} {
		f, err := os.Create(filepath.Join(out, mode+"-suite.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 50000; i++ {
			ok := i%10 != 0
			fmt.Fprintf(f, `{"timestamp":"2026-02-25T17:35:31.510Z","run_id":"r","mode":%q,"scenario_id":"scenario-%03d","scenario_set":null,"iteration":%d,"session_id":null,"success":%t,"output_valid":true,"latency_ms_wall":%d,"sdk_latency_ms":null,"tokens":{"input":1,"output":2,"reasoning":3,"cache_read":4,"cache_write":0,"total":%d},"cost":0,"tool_calls":1,"api_calls":0,"internal_retry_count":0,"external_retry_count":0,"model":{"provider_id":"openai","model_id":"m","mode":null},"git":{"repo":null,"commit":null},"error":null}`+"\n",
				mode, i%200, i/200+1, ok, 1000+i%977, 100+i%313)
		}
		f.Close()
	}
	tr, _ := json.Marshal(map[string]any{"set": "pr-exec", "final_status": "terminal_fail", "rows_expected": map[string]int{"agent_direct": 50000, "ghx": 50000}})
	os.WriteFile(filepath.Join(out, "tracking.json"), tr, 0o644)
	files := b.TempDir()
	env := map[string]string{
		"GITHUB_WORKSPACE": ws, "GITHUB_RUN_ID": "1", "GITHUB_RUN_ATTEMPT": "1",
		"INPUT_MODE": "set", "INPUT_SET": "pr-exec", "INPUT_OUT-DIR": "benchgate-results/set-1-1", "INPUT_PROVIDER": "openai", "INPUT_UPLOAD-ARTIFACTS": "false",
	}
	getenv := func(k string) string { return env[k] }
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		env["GITHUB_OUTPUT"] = filepath.Join(files, fmt.Sprintf("out%d", i))
		env["GITHUB_STEP_SUMMARY"] = filepath.Join(files, fmt.Sprintf("sum%d", i))
		code := Run(context.Background(), Config{
			GHA:    githubactions.New(githubactions.WithWriter(io.Discard), githubactions.WithGetenv(getenv)),
			Getenv: getenv,
			Run: func(_ context.Context, dir string, _ map[string]string, args []string, _ io.Writer, res *Result) int {
				*res = *filesResult(b, "set", dir, args)
				return 1
			},
		})
		if code != 1 {
			b.Fatal(code)
		}
		if st, err := os.Stat(env["GITHUB_STEP_SUMMARY"]); err != nil || st.Size() > 1<<20 {
			b.Fatalf("summary: %v", err)
		}
	}
}

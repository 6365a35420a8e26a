package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchgate/benchgate/internal/suite"
)

// FuzzFollowChunks: however the benchmark's writes split a file (inside
// a row, between rows, in many pieces), the follower ends with the same
// rows and failing rows as reading the whole file at once, and never
// counts a row that is still being written.
func FuzzFollowChunks(f *testing.F) {
	row := []byte(`{"timestamp":"2026-02-25T17:18:19.058Z","run_id":"r","mode":"ghx","scenario_id":"s-001","scenario_set":"all","iteration":1,"session_id":"x","success":true,"output_valid":true,"latency_ms_wall":1,"sdk_latency_ms":1,"tokens":{"input":1,"output":1,"reasoning":0,"cache_read":0,"cache_write":0,"total":2},"cost":0,"tool_calls":1,"api_calls":0,"internal_retry_count":0,"external_retry_count":0,"model":{"provider_id":"openai","model_id":"m","mode":null},"git":{"repo":null,"commit":null},"error":null}`)
	f.Add(append(append(append([]byte(nil), row...), '\n'), row...), uint16(10), uint16(300))
	f.Add([]byte("{not json\n\n"+string(row)+"\n"), uint16(3), uint16(12))
	f.Add([]byte(string(bytes.Replace(row, []byte(`"success":true`), []byte(`"success":false`), 1))+"\n"), uint16(0), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, a, b uint16) {
		if len(data) > 1<<16 {
			return
		}
		cuts := []int{int(a) % (len(data) + 1), int(b) % (len(data) + 1)}
		if cuts[0] > cuts[1] {
			cuts[0], cuts[1] = cuts[1], cuts[0]
		}
		path := filepath.Join(t.TempDir(), "ghx-suite.jsonl")
		fl := newFollower(Options{Files: []File{{Mode: "ghx", Path: path}}})
		prev := 0
		for _, c := range append(cuts, len(data)) {
			fh, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			fh.Write(data[prev:c])
			fh.Close()
			prev = c
			fl.poll()
			complete := data[:c]
			if i := bytes.LastIndexByte(complete, '\n'); i >= 0 {
				complete = complete[:i+1]
			} else {
				complete = nil
			}
			rows, failing := 0, 0
			suite.ReadChecked(bytes.NewReader(complete), path, func(ch suite.Checked) error {
				rows++
				if !ch.Passed() {
					failing++
				}
				return nil
			})
			got := fl.files[0]
			if got.rows != rows || got.failing != failing {
				t.Fatalf("after %d of %d bytes: follower %d rows %d failing, whole read %d rows %d failing", c, len(data), got.rows, got.failing, rows, failing)
			}
		}
	})
}

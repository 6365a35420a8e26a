package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportBadInputMessagesAndCodes runs the built binary over a real
// suite with one thing wrong at a time and checks the exit code and the
// one line that says what is wrong: the file, the line and the field of a
// bad row, the key path of a bad expectations file, the flag that was
// mistyped. Each message and code is the one the command line gave before
// its commands were parsed into option structs.
func TestReportBadInputMessagesAndCodes(t *testing.T) {
	real, err := os.ReadFile(filepath.Join("..", "..", "testdata", "suites", "2026-02-25-ghx-suite.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(real), "\n"), "\n")
	// row4 returns the real file with its fourth row changed by f.
	row4 := func(f func(map[string]any)) string {
		var o map[string]any
		if err := json.Unmarshal([]byte(lines[3]), &o); err != nil {
			t.Fatal(err)
		}
		f(o)
		b, _ := json.Marshal(o)
		l := append([]string(nil), lines...)
		l[3] = string(b)
		return strings.Join(l, "\n") + "\n"
	}
	cases := []struct {
		name, file, content string
		args                []string
		code                int
		stderr              string
	}{
		{"mode a number", "s.jsonl", row4(func(o map[string]any) { o["mode"] = 5 }), nil, 2,
			"s.jsonl:4: mode: expected one of agent_direct, mcp, ghx, got a number"},
		{"iteration a string", "s.jsonl", row4(func(o map[string]any) { o["iteration"] = "x" }), nil, 2,
			"s.jsonl:4: iteration: expected integer, got a string"},
		{"negative latency", "s.jsonl", row4(func(o map[string]any) { o["latency_ms_wall"] = -3 }), nil, 2,
			`s.jsonl:4: latency_ms_wall: expected a number of at least 0, got "-3"`},
		{"empty file", "s.jsonl", "", nil, 2, "s.jsonl: no rows (the file is empty)"},
		{"mistyped flag", "s.jsonl", lines[0] + "\n", []string{"--gaet"}, 2,
			"benchgate report: unknown flag: --gaet (see benchgate report --help)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, c.file), []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"report", "--suite-jsonl", c.file, "--summary-json", "o/s.json", "--summary-md", "o/s.md"}, c.args...)
			_, stderr, code := runDriftBinary(t, dir, args...)
			if code != c.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			if !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr does not say %q:\n%s", c.stderr, stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "o", "s.json")); err == nil {
				t.Errorf("a summary was written for bad input")
			}
		})
	}
}

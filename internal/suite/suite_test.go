package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goodRow is a complete row of the 02-17 schema with a null error.
const goodRow = `{"timestamp":"2026-02-17T10:00:00.000Z","run_id":"r1","mode":"ghx","scenario_id":"pr-view-001","scenario_set":"ci-verify-pr","iteration":1,"session_id":"ses_1","success":true,"output_valid":true,"latency_ms_wall":1200,"sdk_latency_ms":900,"tokens":{"input":10,"output":5,"reasoning":1,"cache_read":100,"cache_write":0,"total":116},"cost":0.5,"tool_calls":2,"api_calls":0,"internal_retry_count":0,"external_retry_count":0,"model":{"provider_id":"openai","model_id":"gpt-5.3-codex","mode":null},"git":{"repo":null,"commit":null},"error":null}`

func writeSuite(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x-ghx-suite.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadRealSuites(t *testing.T) {
	for _, tc := range []struct {
		file, mode string
		rows       int
	}{
		{"2026-02-25-agent_direct-suite.jsonl", ModeAgentDirect, 20},
		{"2026-02-25-ghx-suite.jsonl", ModeGhx, 20},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			path := filepath.Join("..", "..", "testdata", "suites", tc.file)
			rows, err := ReadAll(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != tc.rows {
				t.Fatalf("rows = %d, want %d", len(rows), tc.rows)
			}
			for i, r := range rows {
				if r.Mode != tc.mode || r.Line != i+1 || r.File != path {
					t.Fatalf("row %d: mode %q line %d file %q", i, r.Mode, r.Line, r.File)
				}
				if r.Tokens.Total != r.Tokens.Input+r.Tokens.Output+r.Tokens.Reasoning+r.Tokens.CacheRead+r.Tokens.CacheWrite {
					t.Fatalf("row %d: tokens.total %v does not add up", i, r.Tokens.Total)
				}
				if r.TimingBreakdown == nil || r.LatencyMsAgent == nil || r.Model.Mode != nil || r.Git.Commit != nil {
					t.Fatalf("row %d: optional/nullable fields decoded wrongly: %+v", i, r)
				}
				if len(r.Violations()) != 0 {
					t.Fatalf("row %d: unexpected violations %v", i, r.Violations())
				}
			}
			first := rows[0]
			if tc.mode == ModeAgentDirect && (first.ScenarioID != "issue-triage-comment-wf-001" || first.LatencyMsWall != 16638 || first.Tokens.CacheRead != 8832 || first.ActiveTokens() != 704 || first.TimingBreakdown.AssistantTotalMs != 14548) {
				t.Fatalf("first row decoded wrongly: %+v", first)
			}
		})
	}
}

// TestDecodeMatchesEncodingJSON checks the hand-written decoder against
// encoding/json on every real row.
func TestDecodeMatchesEncodingJSON(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "suites", "2026-02-25-ghx-suite.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := newDecoder()
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var want, got Row
		if err := json.Unmarshal([]byte(line), &want); err != nil {
			t.Fatal(err)
		}
		if err := d.decodeRow([]byte(line), &got); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if string(wj) != string(gj) {
			t.Fatalf("line %d:\n got %s\nwant %s", i+1, gj, wj)
		}
	}
}

func TestReadNullableAndEscapes(t *testing.T) {
	row := strings.Replace(goodRow, `"scenario_set":"ci-verify-pr"`, `"scenario_set":null`, 1)
	row = strings.Replace(row, `"session_id":"ses_1"`, `"session_id":null`, 1)
	row = strings.Replace(row, `"sdk_latency_ms":900`, `"sdk_latency_ms":null`, 1)
	row = strings.Replace(row, `"error":null`, `"error":{"type":"runner_error","message":"Timed out \"waiting\"\n\u00e9 \ud83d\ude00"},"extra":[1,{"a":[true,null]},"x"],"latency_ms_agent":1.5e3`, 1)
	path := writeSuite(t, "\n"+row+"\n\n")
	rows, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.Line != 2 || r.ScenarioSet != nil || r.SessionID != nil || r.SDKLatencyMs != nil || *r.LatencyMsAgent != 1500 {
		t.Fatalf("nullable fields: %+v", r)
	}
	if r.Error == nil || r.Error.Type != ErrorRunner || r.Error.Message != "Timed out \"waiting\"\n\u00e9 \U0001F600" {
		t.Fatalf("error = %+v", r.Error)
	}
	vs := r.Violations()
	if len(vs) != 0+1 || vs[0].Field != "error" {
		t.Fatalf("violations = %v", vs)
	}
}

func TestViolations(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  Row
		want []string
	}{
		{"pass", Row{Success: true, OutputValid: true}, nil},
		{"assertion", Row{Success: false, OutputValid: true, Error: &RowError{Type: ErrorAssertionFailed, Message: "Expected at least 1 tool call(s), got 0"}},
			[]string{"success: expected true, got false", "error: expected null, got assertion_failed: Expected at least 1 tool call(s), got 0"}},
		{"runner", Row{Error: &RowError{Type: "runner_timeout_stalled_session", Message: "stalled"}},
			[]string{"success: expected true, got false", "output_valid: expected true, got false", "error: expected null, got runner_timeout_stalled_session: stalled"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, v := range tc.row.Violations() {
				got = append(got, v.Rule())
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadBadRows(t *testing.T) {
	for _, tc := range []struct {
		name, content, want string
	}{
		{"wrong type", strings.Replace(goodRow, `"latency_ms_wall":1200`, `"latency_ms_wall":"1200"`, 1),
			":1: latency_ms_wall: expected number, got a string"},
		{"nested wrong type", strings.Replace(goodRow, `"cache_read":100`, `"cache_read":true`, 1),
			":1: tokens.cache_read: expected number, got a boolean"},
		{"unknown mode", strings.Replace(goodRow, `"mode":"ghx"`, `"mode":"cli"`, 1),
			`:1: mode: expected one of agent_direct, mcp, ghx, got "cli"`},
		{"missing key", strings.Replace(goodRow, `"success":true,`, ``, 1),
			":1: success: expected boolean, got missing key"},
		{"missing nested", strings.Replace(goodRow, `"total":116`, `"totl":116`, 1),
			":1: tokens.total: expected number, got missing key"},
		{"null not allowed", strings.Replace(goodRow, `"scenario_id":"pr-view-001"`, `"scenario_id":null`, 1),
			":1: scenario_id: expected string, got null"},
		{"fractional iteration", strings.Replace(goodRow, `"iteration":1`, `"iteration":1.5`, 1),
			":1: iteration: expected integer, got 1.5"},
		{"error without type", strings.Replace(goodRow, `"error":null`, `"error":{"message":"x"}`, 1),
			":1: error.type: expected string, got missing key"},
		{"error is a string", strings.Replace(goodRow, `"error":null`, `"error":"boom"`, 1),
			":1: error: expected object or null, got a string"},
		{"truncated last line", goodRow + "\n" + goodRow[:len(goodRow)/2],
			":2: tokens: expected ',' or '}', got end of line (truncated row)"},
		{"truncated in string", goodRow[:20],
			":1: timestamp: expected a complete JSON string, got end of line inside a string (truncated row)"},
		{"not an object", "[1,2]\n", ":1: row: expected a JSON object, got an array"},
		{"trailing garbage", goodRow + " x\n", `:1: row: expected end of line after the JSON object, got "x"`},
		// A bare word is no JSON: the message must not read as if the
		// quoted value had been given.
		{"bare word", strings.Replace(goodRow, `"mode":"ghx"`, `"mode":ghx`, 1),
			`:1: mode: expected one of agent_direct, mcp, ghx, got text outside quotes, not JSON: "ghx"`},
		{"broken literal", strings.Replace(goodRow, `"success":true`, `"success":tru`, 1),
			`:1: success: expected boolean, got text outside quotes, not JSON: "tru"`},
		{"broken null", strings.Replace(goodRow, `"error":null`, `"error":nul`, 1),
			`:1: error: expected object or null, got text outside quotes, not JSON: "nul"`},
		{"bad timing", strings.Replace(goodRow, `"error":null`, `"error":null,"timing_breakdown":{"assistant_total_ms":1}`, 1),
			":1: timing_breakdown.assistant_pre_reasoning_ms: expected number, got missing key"},
		{"null timing", strings.Replace(goodRow, `"error":null`, `"error":null,"timing_breakdown":null`, 1),
			":1: timing_breakdown: expected object or absent, got null"},
		{"scenario id with a path and a workflow command", strings.Replace(goodRow, `"scenario_id":"pr-view-001"`, `"scenario_id":"../../etc/passwd\n::warning::X"`, 1),
			`:1: scenario_id: expected lower-case words joined by '-' and ending in a three-digit number, such as pr-view-001, got "../../etc/passwd\n::warning::X"`},
		{"scenario id in upper case", strings.Replace(goodRow, `"scenario_id":"pr-view-001"`, `"scenario_id":"PR-view-001"`, 1),
			`:1: scenario_id: expected lower-case words joined by '-' and ending in a three-digit number, such as pr-view-001, got "PR-view-001"`},
		{"negative latency", strings.Replace(goodRow, `"latency_ms_wall":1200`, `"latency_ms_wall":-5`, 1),
			`:1: latency_ms_wall: expected a number of at least 0, got "-5"`},
		{"negative sdk latency", strings.Replace(goodRow, `"sdk_latency_ms":900`, `"sdk_latency_ms":-0.5`, 1),
			`:1: sdk_latency_ms: expected a number of at least 0 or null, got -0.5`},
		{"negative tokens", strings.Replace(goodRow, `"cache_read":100`, `"cache_read":-100`, 1),
			`:1: tokens.cache_read: expected a number of at least 0, got "-100"`},
		{"negative tool calls", strings.Replace(goodRow, `"tool_calls":2`, `"tool_calls":-2`, 1),
			`:1: tool_calls: expected a number of at least 0, got "-2"`},
		{"iteration zero", strings.Replace(goodRow, `"iteration":1`, `"iteration":0`, 1),
			":1: iteration: expected an integer of at least 1, got 0"},
		{"negative iteration", strings.Replace(goodRow, `"iteration":1`, `"iteration":-3`, 1),
			":1: iteration: expected an integer of at least 1, got -3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeSuite(t, tc.content)
			err := ReadFile(path, func(*Row) error { return nil })
			var pe *Diagnostic
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *Diagnostic", err)
			}
			if err.Error() != path+tc.want {
				t.Fatalf("err = %q\nwant %q", err.Error(), path+tc.want)
			}
		})
	}
}

func TestReadSkipBadRows(t *testing.T) {
	bad := strings.Replace(goodRow, `"success":true`, `"success":1`, 1)
	path := writeSuite(t, goodRow+"\n"+bad+"\n"+goodRow+"\n")
	var skipped []int
	var lines []int
	err := ReadFileWith(path, ReadOptions{OnBadRow: func(pe *Diagnostic) error {
		skipped = append(skipped, pe.Line)
		return nil
	}}, func(r *Row) error {
		lines = append(lines, r.Line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 1 || skipped[0] != 2 || len(lines) != 2 || lines[1] != 3 {
		t.Fatalf("skipped %v, read %v", skipped, lines)
	}
}

func TestReadMissingAndEmpty(t *testing.T) {
	if _, err := ReadAll(filepath.Join(t.TempDir(), "nope.jsonl")); err == nil || !strings.Contains(err.Error(), "nope.jsonl") {
		t.Fatalf("missing file: err = %v", err)
	}
	rows, err := ReadAll(writeSuite(t, ""))
	if err != nil || len(rows) != 0 {
		t.Fatalf("empty file: rows %d err %v", len(rows), err)
	}
}

func TestLongLine(t *testing.T) {
	row := strings.Replace(goodRow, `"error":null`, `"error":null,"pad":"`+strings.Repeat("x", 600<<10)+`"`, 1)
	rows, err := ReadAll(writeSuite(t, row+"\n"+goodRow))
	if err != nil || len(rows) != 2 || rows[1].Line != 2 {
		t.Fatalf("rows %d err %v", len(rows), err)
	}
}

// FuzzDecodeRow checks that any input either decodes or fails with a
// Diagnostic, never panics, and that what decodes agrees with
// encoding/json on the fields it knows.
func FuzzDecodeRow(f *testing.F) {
	f.Add([]byte(goodRow))
	f.Add([]byte(strings.Replace(goodRow, `"error":null`, `"error":{"type":"runner_error","message":"a\u0041"}`, 1)))
	f.Add([]byte(`{"a":[{"b":"\ud800"}]}`))
	f.Add([]byte(strings.Replace(goodRow, `"error":null`, `"error":null,"ns":1772039719058123456,"big":-1e400`, 1)))
	f.Add([]byte(strings.Replace(goodRow, `"latency_ms_wall":1200`, `"latency_ms_wall":-0.0`, 1)))
	f.Add([]byte(strings.Replace(goodRow, `"scenario_id":"pr-view-001"`, `"scenario_id":"a-001\n::warning::x"`, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		var got Row
		err := newDecoder().decodeRow(data, &got)
		if err != nil {
			if _, ok := err.(*Diagnostic); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		var want Row
		if jerr := json.Unmarshal(data, &want); jerr != nil {
			// encoding/json is stricter about some things (duplicate
			// handling is the same, invalid UTF-8 is replaced); only
			// syntax it rejects while we accept is a bug.
			var se *json.SyntaxError
			if errors.As(jerr, &se) {
				t.Fatalf("accepted input encoding/json rejects: %v", jerr)
			}
			return
		}
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if string(wj) != string(gj) {
			t.Fatalf("decoded differently:\n got %s\nwant %s", gj, wj)
		}
	})
}

// realRow is the first row of the real ghx suite, used by the decoder
// benchmarks.
func realRow(b *testing.B) []byte {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "suites", "2026-02-25-ghx-suite.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return []byte(line)
}

// BenchmarkDecodeRow measures the schema decoder on one real row.
func BenchmarkDecodeRow(b *testing.B) {
	line := realRow(b)
	d := newDecoder()
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var r Row
		if err := d.decodeRow(line, &r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodingJSONRow is the same row through encoding/json, the
// baseline the schema decoder was measured against.
func BenchmarkEncodingJSONRow(b *testing.B) {
	line := realRow(b)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var r Row
		if err := json.Unmarshal(line, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPlainASCII(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"", true}, {"abc", true}, {"issue-triage-comment-wf-001", true}, {"0123456789abcdef~ !", true},
		{"01234567\\", false}, {"\\01234567", false}, {"0123456\x1f89", false}, {"0123456789abc\x7f", true},
		{"01234567é", false}, {"é", false}, {"0123\t567", false}, {"abcdefgh\x00", false}, {"abcdefg\x80", false},
	} {
		if got := plainASCII([]byte(tc.in)); got != tc.want {
			t.Errorf("plainASCII(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	// Every single special byte at every position of a 16-byte string.
	for pos := 0; pos < 16; pos++ {
		for c := 0; c < 256; c++ {
			b := []byte("abcdefghijklmnop")
			b[pos] = byte(c)
			want := !(c < 0x20 || c == '\\' || c >= 0x80)
			if got := plainASCII(b); got != want {
				t.Fatalf("byte %#x at %d: got %v", c, pos, got)
			}
		}
	}
}

// TestOversizedLineAndOverflow: a line over MaxLineBytes is one bad row
// with its line number and the rest of the file is still read; a number
// near the float64 limit is refused with its line and field.
func TestOversizedLineAndOverflow(t *testing.T) {
	huge := `{"pad":"` + strings.Repeat("x", MaxLineBytes+10) + `"}`
	overflow := strings.Replace(goodRow, `"cost":0.5`, `"cost":1.7e308`, 1)
	if overflow == goodRow {
		t.Fatal("goodRow has no cost field to replace")
	}
	in := goodRow + "\n" + huge + "\n" + overflow + "\n" + goodRow + "\n"
	var bad []*Diagnostic
	var lines []int
	err := Read(strings.NewReader(in), "s.jsonl", ReadOptions{OnBadRow: func(pe *Diagnostic) error {
		bad = append(bad, pe)
		return nil
	}}, func(r *Row) error {
		lines = append(lines, r.Line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || lines[0] != 1 || lines[1] != 4 {
		t.Errorf("rows read at lines %v, want [1 4]", lines)
	}
	if len(bad) != 2 {
		t.Fatalf("bad rows %v, want 2", bad)
	}
	if got := bad[0].Error(); !strings.HasPrefix(got, "s.jsonl:2: row: expected a line of at most") || !strings.Contains(got, "got a line of ") {
		t.Errorf("oversized line: %s", got)
	}
	if got := bad[1].Error(); got != `s.jsonl:3: cost: expected a number of magnitude at most 1e+15, got "1.7e308"` {
		t.Errorf("overflow: %s", got)
	}
	// Strict reading stops at the oversized line, naming it.
	err = Read(strings.NewReader(in), "s.jsonl", ReadOptions{}, func(*Row) error { return nil })
	if pe, ok := err.(*Diagnostic); !ok || pe.Line != 2 {
		t.Errorf("strict: err = %v, want a Diagnostic at line 2", err)
	}
}

// TestReadsAsTheBenchmarkDoes pins the rows the benchmark's own reader
// (JSON.parse of each trimmed line) takes in a particular way.
func TestReadsAsTheBenchmarkDoes(t *testing.T) {
	withField := func(old, new string) string {
		if !strings.Contains(goodRow, old) {
			t.Fatalf("goodRow lacks %s", old)
		}
		return strings.Replace(goodRow, old, new, 1)
	}
	tests := []struct {
		name  string
		line  string
		check func(r *Row) string
	}{
		{"byte-order mark before the row", "\ufeff" + goodRow, func(r *Row) string {
			if r.ScenarioID != "pr-view-001" {
				return "row not read"
			}
			return ""
		}},
		{"a repeated key keeps its last value", withField(`"error":null`, `"error":{"type":"runner_error","message":"x"},"error":null`), func(r *Row) string {
			if r.Error != nil {
				return "error is not null"
			}
			return ""
		}},
		{"a lone high surrogate does not swallow the next escape", withField(`"session_id":"ses_1"`, `"session_id":"a\ud800\u0041b"`), func(r *Row) string {
			if r.SessionID == nil || *r.SessionID != "a\uFFFDAb" {
				return fmt.Sprintf("session_id %q", *r.SessionID)
			}
			return ""
		}},
		{"a surrogate pair is one character", withField(`"session_id":"ses_1"`, `"session_id":"\ud83d\ude00"`), func(r *Row) string {
			if r.SessionID == nil || *r.SessionID != "\U0001F600" {
				return fmt.Sprintf("session_id %q", *r.SessionID)
			}
			return ""
		}},
		{"an unknown key's 19-digit integer is skipped", withField(`"error":null`, `"error":null,"started_ns":1772039719058123456`), func(r *Row) string {
			return ""
		}},
		{"an unknown key's 1e400 is skipped", withField(`"error":null`, `"error":null,"x":{"y":[1e400,-1E-400]}`), func(r *Row) string {
			return ""
		}},
		{"U+0085 is not white space to JavaScript: a row ending in it is kept", withField(`"error":null`, `"error":null,"note":"\u0085"`), func(r *Row) string {
			return ""
		}},
		{"white space JavaScript trims", "\u2028\u00a0\t" + goodRow + "\u3000\r", func(r *Row) string {
			return ""
		}},
		{"negative zero is zero", withField(`"cost":0.5`, `"cost":-0`), func(r *Row) string {
			if r.Cost != 0 {
				return fmt.Sprint("cost ", r.Cost)
			}
			return ""
		}},
		{"empty model mode keeps its separator", withField(`"mode":null}`, `"mode":""}`), func(r *Row) string {
			if got := r.Model.Signature(); got != "openai/gpt-5.3-codex/" {
				return "signature " + got
			}
			return ""
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows := 0
			err := Read(strings.NewReader(tc.line+"\n"), "s.jsonl", ReadOptions{}, func(r *Row) error {
				rows++
				if msg := tc.check(r); msg != "" {
					t.Error(msg)
				}
				return nil
			})
			if err != nil || rows != 1 {
				t.Fatalf("err %v, %d rows", err, rows)
			}
		})
	}
}

// A raw U+0085 around a row is not trimmed by JavaScript, so JSON.parse
// meets it and refuses the line; Go's unicode.IsSpace would have trimmed
// it and read a row the benchmark does not read.
func TestNELIsNotTrimmed(t *testing.T) {
	err := Read(strings.NewReader(goodRow+"\u0085\n"), "s.jsonl", ReadOptions{}, func(*Row) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "s.jsonl:1: row: expected end of line after the JSON object") {
		t.Fatalf("err = %v, want the row refused at line 1", err)
	}
}

// TestSalvageNamesTheScenarioOfANaNRow: a row that is not JSON (a NaN
// written by JavaScript's JSON.stringify of a number gone wrong, or a cut
// line) still names the scenario and iteration its line writes.
func TestSalvageNamesTheScenarioOfANaNRow(t *testing.T) {
	for _, tc := range []struct {
		line, id string
		it       int
	}{
		{`{"mode":"ghx","scenario_id":"pr-view-001","iteration":2,"latency_ms_wall":NaN}`, "pr-view-001", 2},
		{`{"mode": "ghx", "scenario_id" : "pr-\"q\"-001", "iteration": 3, "tokens": {`, `pr-"q"-001`, 3},
		{`{"mode":"ghx","latency_ms_wall":NaN}`, "", 0},
	} {
		var got []Checked
		ReadChecked(strings.NewReader(tc.line+"\n"), "s.jsonl", func(c Checked) error { got = append(got, c); return nil })
		if len(got) != 1 || got[0].ScenarioID != tc.id || got[0].Iteration != tc.it || got[0].Mode != "ghx" {
			t.Errorf("%s: %+v, want scenario %q iteration %d", tc.line, got, tc.id, tc.it)
			continue
		}
		if tc.id != "" && !strings.Contains(got[0].Diagnostics[0].Error(), "ghx row: scenario "+ShowID(tc.id)) {
			t.Errorf("%s: diagnostic %q does not name the scenario", tc.line, got[0].Diagnostics[0].Error())
		}
	}
}

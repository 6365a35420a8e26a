package runrecord

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// row writes one suite line; fields override the defaults.
func row(mode, scenario string, iter int, runID string, ok bool, active, latency, tools float64) string {
	r := map[string]any{
		"timestamp": fmt.Sprintf("2026-03-01T10:00:%02d.000Z", iter), "run_id": runID, "mode": mode, "scenario_id": scenario,
		"scenario_set": "pr-exec", "iteration": iter, "session_id": nil, "success": ok, "output_valid": ok,
		"latency_ms_wall": latency, "sdk_latency_ms": nil,
		"tokens": map[string]any{"input": active, "output": 0, "reasoning": 0, "cache_read": 100, "cache_write": 0, "total": active + 100},
		"cost":   0, "tool_calls": tools, "api_calls": 0, "internal_retry_count": 0, "external_retry_count": 0,
		"model": map[string]any{"provider_id": "openai", "model_id": "m", "mode": nil},
		"git":   map[string]any{"repo": nil, "commit": nil},
		"error": nil,
	}
	if !ok {
		r["error"] = map[string]any{"type": "assertion_failed", "message": "checks failed"}
	}
	b, _ := json.Marshal(r)
	return string(b) + "\n"
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The real 2026-02-25 ghx suite: four scenarios of five repetitions, all
// passing; the medians below were computed from the file with Python's
// statistics.median over the same stable rows.
func TestReadSuiteRealData(t *testing.T) {
	p := filepath.Join(testenv.SharedData(t), "ghx", "a2095e5__reports__codex-5.3-benchmark__raw-data__2026-02-25-ghx-suite.jsonl")
	rec, err := ReadSuite(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Modes) != 1 || rec.Modes[0].Mode != "ghx" {
		t.Fatalf("modes = %+v, want one ghx", rec.Modes)
	}
	m := rec.Modes[0]
	if m.StartedAt != "2026-02-25T17:35:31.510Z" || len(m.RunIDs) != 1 || m.RunIDs[0] != "8c7c88a7-7298-4052-9d57-922eeffd0a2b" {
		t.Errorf("started_at %s run_ids %v", m.StartedAt, m.RunIDs)
	}
	want := []struct {
		id                     string
		active, latency, tools float64
	}{
		{"ci-diagnose-run-wf-001", 671, 27638, 4},
		{"issue-triage-comment-wf-001", 759, 16481, 2},
		{"pr-fix-mixed-threads-wf-001", 472, 25084, 3},
		{"pr-review-comment-wf-001", 1118, 32864, 4},
	}
	if len(m.Scenarios) != len(want) {
		t.Fatalf("scenarios = %d, want %d", len(m.Scenarios), len(want))
	}
	for i, w := range want {
		s := m.Scenarios[i]
		if s.ID != w.id || s.Rows != 5 || s.Passed != 5 || s.Stable != 5 || !s.Pass() {
			t.Errorf("scenario %d = %+v, want %s with 5 rows all passing", i, s, w.id)
			continue
		}
		if *s.MedianActiveTokens != w.active || *s.MedianLatencyMs != w.latency || *s.MedianToolCalls != w.tools {
			t.Errorf("%s medians = %v/%v/%v, want %v/%v/%v", w.id, *s.MedianActiveTokens, *s.MedianLatencyMs, *s.MedianToolCalls, w.active, w.latency, w.tools)
		}
	}
}

func TestBuilderCountsFailuresAndMalformedRows(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ghx-suite.jsonl")
	write(t, p, row("ghx", "a-001", 1, "r1", true, 10, 100, 1)+
		row("ghx", "a-001", 2, "r1", false, 99, 999, 9)+
		row("ghx", "a-001", 3, "r1", true, 30, 300, 3)+
		`{"mode":"ghx","scenario_id":"b-001","iteration":1,"success":"yes"}`+"\n"+
		"not json at all\n")
	rec, err := ReadSuite(p)
	if err != nil {
		t.Fatal(err)
	}
	m := rec.Mode("ghx")
	a, b := m.Scenario("a-001"), m.Scenario("b-001")
	if a == nil || a.Rows != 3 || a.Passed != 2 || a.Stable != 2 || *a.MedianActiveTokens != 20 || *a.MedianLatencyMs != 200 || a.Pass() {
		t.Errorf("a = %+v: want 3 rows, 2 passed, stable medians 20/200, not passing", a)
	}
	if b == nil || b.Rows != 1 || b.Passed != 0 || b.MedianActiveTokens != nil || b.Pass() {
		t.Errorf("b = %+v: want the malformed row counted as one failing row with no medians", b)
	}
	if m.Scenario("zzz") != nil {
		t.Error("unknown scenario found")
	}
}

func TestReadPath(t *testing.T) {
	suiteA := row("agent_direct", "s-001", 1, "ra", true, 10, 100, 1)
	suiteG1 := row("ghx", "s-001", 1, "rg1", true, 5, 50, 1)
	suiteG2 := row("ghx", "s-001", 1, "rg2", false, 5, 50, 1)
	recG1, _ := ReadSuite(writeTemp(t, suiteG1))
	recJSON, _ := json.Marshal(recG1)
	tests := []struct {
		name      string
		files     map[string]string
		link      bool
		wantRuns  []string // mode:runID, oldest first
		wantSums  int
		wantNotes int
		wantErr   string
	}{
		{name: "benchmark results folder", files: map[string]string{
			"results/2026-03-01-agent_direct-suite.jsonl": suiteA,
			"results/2026-03-01-ghx-suite.jsonl":          suiteG1,
			"results/2026-03-02-ghx-suite.jsonl":          strings.ReplaceAll(suiteG2, "10:00:01", "11:00:01"),
		}, wantRuns: []string{"agent_direct:ra", "ghx:rg1", "ghx:rg2"}},
		{name: "set folder skips per-attempt files", files: map[string]string{
			"pr-exec/ghx-suite.jsonl":                suiteG1,
			"pr-exec/_run/x/rerun-1/ghx-suite.jsonl": suiteG2,
			"pr-exec/.hidden/ghx-suite.jsonl":        suiteG2,
			"pr-exec/predictions.jsonl":              "not a suite\n",
			"pr-exec/tracking.json":                  "{}",
		}, wantRuns: []string{"ghx:rg1"}},
		{name: "record and its suite count once", files: map[string]string{
			"a/run-record.json": string(recJSON),
			"b/ghx-suite.jsonl": suiteG1,
		}, wantRuns: []string{"ghx:rg1"}, wantNotes: 1},
		{name: "the same run IDs at other times are other runs", files: map[string]string{
			"run1/ghx-suite.jsonl": suiteG1,
			"run2/ghx-suite.jsonl": strings.ReplaceAll(suiteG1, "10:00:01", "12:00:01"),
		}, wantRuns: []string{"ghx:rg1", "ghx:rg1"}},
		{name: "summary only", files: map[string]string{
			"latest-summary.json": `{"generatedAt":"x","modes":{"ghx":{"mode":"ghx","runs":4,"successRate":75,"medianTokensActive":10,"medianLatencyMs":5,"medianToolCalls":1}}}`,
		}, wantSums: 1},
		{name: "symbolic link left out", files: map[string]string{"x.txt": "x"}, link: true, wantErr: "no *suite.jsonl"},
		{name: "empty folder", files: map[string]string{}, wantErr: "no *suite.jsonl, run-record.json or latest-summary.json found"},
		{name: "bad record names its field", files: map[string]string{
			"run-record.json": `{"schema":"benchgate.run-record/v1","modes":[{"mode":"ghx","source":"","run_ids":[],"started_at":"","model_signatures":[],"scenarios":[{"id":"s-001","rows":2,"passed":3,"stable":0,"median_active_tokens":null,"median_latency_ms":null,"median_tool_calls":null}]}]}`,
		}, wantErr: "modes[0].scenarios[0].passed: expected 0 to rows (2), got 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for p, c := range tt.files {
				write(t, filepath.Join(dir, p), c)
			}
			if tt.link {
				outside := filepath.Join(t.TempDir(), "ghx-suite.jsonl")
				write(t, outside, suiteG1)
				if err := os.Symlink(outside, filepath.Join(dir, "ghx-suite.jsonl")); err != nil {
					t.Fatal(err)
				}
			}
			f, err := ReadPath(dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range f.Runs {
				got = append(got, m.Mode+":"+strings.Join(m.RunIDs, ","))
			}
			if strings.Join(got, " ") != strings.Join(tt.wantRuns, " ") {
				t.Errorf("runs = %v, want %v", got, tt.wantRuns)
			}
			if len(f.Summaries) != tt.wantSums || len(f.Notes) != tt.wantNotes {
				t.Errorf("summaries %d notes %v, want %d and %d notes", len(f.Summaries), f.Notes, tt.wantSums, tt.wantNotes)
			}
		})
	}
}

func writeTemp(t *testing.T, content string) string {
	p := filepath.Join(t.TempDir(), "ghx-suite.jsonl")
	write(t, p, content)
	return p
}

func TestDecodeRecordErrors(t *testing.T) {
	good := func(mut func(*Record)) string {
		v := 1.0
		r := Record{Schema: Schema, Modes: []Mode{{Mode: "ghx", Scenarios: []Scenario{
			{ID: "s-001", Rows: 1, Passed: 1, Stable: 1, MedianActiveTokens: &v, MedianLatencyMs: &v, MedianToolCalls: &v},
			{ID: "s-002", Rows: 2, Passed: 0, Stable: 0},
		}}}}
		mut(&r)
		b, _ := json.Marshal(r)
		return string(b)
	}
	tests := []struct {
		name, in, want string
	}{
		{"valid", good(func(*Record) {}), ""},
		{"schema", good(func(r *Record) { r.Schema = "v0" }), `schema: expected "benchgate.run-record/v1", got "v0"`},
		{"unknown key", `{"schema":"benchgate.run-record/v1","modes":[],"extra":1}`, `unknown field "extra"`},
		{"trailing data", `{"schema":"benchgate.run-record/v1","modes":[]} {}`, "data after the JSON object"},
		{"empty mode", good(func(r *Record) { r.Modes[0].Mode = "" }), `modes[0].mode: expected one of agent_direct, mcp, ghx, got ""`},
		{"unknown mode", good(func(r *Record) { r.Modes[0].Mode = "ghx\n::add-mask::x" }), `modes[0].mode: expected one of agent_direct, mcp, ghx, got "ghx\n::add-mask::x"`},
		{"foreign suites' IDs", good(func(r *Record) {
			r.Modes[0].Scenarios[0].ID, r.Modes[0].Scenarios[1].ID = "Repo_Issue_1", "swe/django-1234"
		}), ""},
		{"line separator in an ID", good(func(r *Record) { r.Modes[0].Scenarios[1].ID = "s-002\u2028::error::x" }), `modes[0].scenarios[1].id: expected a scenario ID`},
		{"ID with a space", good(func(r *Record) { r.Modes[0].Scenarios[1].ID = "s 002" }), `modes[0].scenarios[1].id: expected a scenario ID`},
		{"empty scenario ID", good(func(r *Record) { r.Modes[0].Scenarios[0].ID = "" }), `modes[0].scenarios[0].id: expected a scenario ID of at most 256 printable characters without spaces, got ""`},
		{"scenario ID with a workflow command", good(func(r *Record) { r.Modes[0].Scenarios[1].ID = "s-002\n::stop-commands::x-003" }), `modes[0].scenarios[1].id: expected a scenario ID of at most 256 printable characters without spaces, got "s-002\n::stop-commands::x-003"`},
		{"mode twice", good(func(r *Record) { r.Modes = append(r.Modes, r.Modes[0]) }), `modes[1].mode: expected each mode once, got "ghx" again`},
		{"unsorted", good(func(r *Record) { r.Modes[0].Scenarios[1].ID = "s-001" }), `modes[0].scenarios[1].id: expected IDs sorted and unique (after "s-001"), got "s-001"`},
		{"no rows", good(func(r *Record) { r.Modes[0].Scenarios[1].Rows = 0 }), "modes[0].scenarios[1].rows: expected at least 1, got 0"},
		{"stable over rows", good(func(r *Record) { r.Modes[0].Scenarios[1].Stable = 3 }), "modes[0].scenarios[1].stable: expected 0 to rows (2), got 3"},
		{"median without stable", good(func(r *Record) { r.Modes[0].Scenarios[1].MedianToolCalls = r.Modes[0].Scenarios[0].MedianToolCalls }), "modes[0].scenarios[1].median_tool_calls: expected null exactly when stable is 0, got 1"},
		{"median missing", good(func(r *Record) { r.Modes[0].Scenarios[0].MedianLatencyMs = nil }), "modes[0].scenarios[0].median_latency_ms: expected null exactly when stable is 0, got null"},
		{"huge median", strings.Replace(good(func(*Record) {}), `"median_tool_calls":1`, `"median_tool_calls":1e300`, 1), "median_tool_calls: expected a number of magnitude at most 1e+15"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeRecord("r.json", []byte(tt.in))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "r.json: ") {
				t.Fatalf("err = %v, want r.json: ... %q", err, tt.want)
			}
		})
	}
}

// A record written by Write reads back equal, through a folder.
func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	p := writeTemp(t, row("ghx", "a-001", 1, "r", true, 1, 2, 3)+row("agent_direct", "a-001", 1, "q", false, 1, 2, 3))
	rec, err := FromSuites([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, FileName), rec); err != nil {
		t.Fatal(err)
	}
	f, err := ReadPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Runs) != 2 {
		t.Fatalf("runs = %d, want 2", len(f.Runs))
	}
	for _, m := range f.Runs {
		want := rec.Mode(m.Mode)
		m.Source = want.Source
		a, _ := json.Marshal(m)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			t.Errorf("read back %s\nwant %s", a, b)
		}
	}
	if _, err := FromSuites([]string{writeTemp(t, "\n\n")}); err == nil || !strings.Contains(err.Error(), "no rows") {
		t.Errorf("empty suite: err = %v, want no rows", err)
	}
}

// A suite whose every row has its own run ID keeps the record small: the
// first MaxRunIDs IDs are listed and all are counted.
func TestRunIDsCapped(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 30; i++ {
		b.WriteString(row("ghx", "a-001", i+1, fmt.Sprintf("run-%02d", i), true, 1, 2, 3))
	}
	rec, err := ReadSuite(writeTemp(t, b.String()))
	if err != nil {
		t.Fatal(err)
	}
	m := rec.Modes[0]
	if len(m.RunIDs) != MaxRunIDs || m.RunIDCount != 30 || m.RunIDs[0] != "run-00" {
		t.Fatalf("run_ids %v count %d, want the first %d of 30", m.RunIDs, m.RunIDCount, MaxRunIDs)
	}
	enc, _ := json.Marshal(rec)
	if _, err := DecodeRecord("r.json", enc); err != nil {
		t.Fatal(err)
	}
	m.RunIDCount = 3
	enc, _ = json.Marshal(Record{Schema: Schema, Modes: []Mode{m}})
	if _, err := DecodeRecord("r.json", enc); err == nil || !strings.Contains(err.Error(), "modes[0].run_ids: expected at most 20 IDs and run_id_count at least their number, got 20 IDs, run_id_count 3") {
		t.Fatalf("err = %v", err)
	}
}

// FromSuites counts a malformed row as a failing row of its scenario (the
// strict reader hands the file over to the lenient one), and one mode
// spread over two files is one run with both files' rows.
func TestFromSuitesMalformedAndSplitMode(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a-suite.jsonl")
	b := filepath.Join(dir, "b-suite.jsonl")
	write(t, a, row("ghx", "s-001", 1, "r", true, 10, 100, 1)+`{"mode":"ghx","scenario_id":"s-001","iteration":2,"success":"yes"}`+"\n")
	write(t, b, row("ghx", "s-001", 3, "r", true, 30, 300, 3)+row("ghx", "s-002", 1, "r", true, 5, 50, 1))
	rec, err := FromSuites([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Modes) != 1 {
		t.Fatalf("modes = %d, want 1", len(rec.Modes))
	}
	m := rec.Modes[0]
	s1 := m.Scenario("s-001")
	if s1 == nil || s1.Rows != 3 || s1.Passed != 2 || s1.Pass() || *s1.MedianActiveTokens != 20 {
		t.Errorf("s1 = %+v, want 3 rows, 2 passing (the malformed one fails), median 20", s1)
	}
	if m.Source != a+", "+b || m.Scenario("s-002") == nil {
		t.Errorf("source %q scenarios %+v", m.Source, m.Scenarios)
	}
}

// A line that is not a valid row counts as a failing row of the scenario
// it names only when it names a mode and a scenario in the form valid
// rows have: an ID with a line break and a workflow command (a planted
// artifact) never becomes a scenario of the record.
func TestSalvagedLinesNeedWellFormedNames(t *testing.T) {
	in := strings.Join([]string{
		`{"mode":"ghx","scenario_id":"s-001","success":false}`,
		`{"mode":"ghx","scenario_id":"s-002\n::add-mask::x","success":false}`,
		`{"mode":"ghx\n::error::forged","scenario_id":"s-003","success":false}`,
		`{"mode":"other","scenario_id":"s-004","success":false}`,
	}, "\n")
	rec, err := readSuite(strings.NewReader(in), "ghx-suite.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range rec.Modes {
		for _, s := range m.Scenarios {
			got = append(got, m.Mode+"/"+s.ID)
		}
	}
	if strings.Join(got, " ") != "ghx/s-001" {
		t.Errorf("scenarios = %q, want only ghx/s-001", got)
	}
}

// TestRecordKeepsValues: a record keeps each scenario's stable rows'
// values (sorted), which survive writing and reading; a record whose
// values do not match its stable rows is refused naming the field.
func TestRecordKeepsValues(t *testing.T) {
	in := row("ghx", "a-001", 1, "r", true, 30, 300, 3) + row("ghx", "a-001", 2, "r", true, 10, 100, 1) + row("ghx", "a-001", 3, "r", false, 99, 99, 9)
	rec, err := readSuite(strings.NewReader(in), "f.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := rec.Modes[0].Scenarios[0]
	if !s.HasValues() || !slices.Equal(s.ActiveTokens, []float64{10, 30}) || !slices.Equal(s.LatencyMs, []float64{100, 300}) || !slices.Equal(s.ToolCalls, []float64{1, 3}) {
		t.Fatalf("expected the two stable rows' values, got %+v", s)
	}
	enc, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeRecord("r.json", enc)
	if err != nil || !slices.Equal(back.Modes[0].Scenarios[0].ToolCalls, []float64{1, 3}) {
		t.Fatalf("round trip: %v, %+v", err, back)
	}
	bad := strings.Replace(string(enc), `"tool_calls":[1,3]`, `"tool_calls":[1]`, 1)
	if _, err := DecodeRecord("r.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), "r.json: modes[0].scenarios[0].tool_calls: expected one value per stable row (2), got 1 values") {
		t.Errorf("a short tool_calls list: got %v", err)
	}
}

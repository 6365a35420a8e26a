package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestBenchmarkArgv(t *testing.T) {
	cfg := Default("/b")
	tests := []struct {
		name string
		spec RunSpec
		want string
	}{
		{"whole set", RunSpec{Mode: "agent_direct", Repetitions: 1, Provider: "openai", Model: "gpt-5.1-codex-mini", OutputJSONL: "/o/agent_direct-suite.jsonl", Set: "pr-exec"},
			"pnpm --filter @ghx-dev/benchmark run benchmark -- agent_direct 1 --provider openai --model gpt-5.1-codex-mini --output-jsonl /o/agent_direct-suite.jsonl --scenario-set pr-exec"},
		{"rerun by scenario", RunSpec{Mode: "ghx", Repetitions: 2, Provider: "openai", Model: "m", OutputJSONL: "/o/g.jsonl", Set: "pr-exec", ScenarioIDs: []string{"a-001", "b-002"}},
			"pnpm --filter @ghx-dev/benchmark run benchmark -- ghx 2 --provider openai --model m --output-jsonl /o/g.jsonl --scenario a-001 --scenario b-002"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(cfg.BenchmarkArgv(tc.spec), " "); got != tc.want {
				t.Errorf("argv\n got %s\nwant %s", got, tc.want)
			}
		})
	}
	env := strings.Join(cfg.BenchmarkEnv(RunSpec{Mode: "ghx", Manifest: "/m.json"}), " ")
	if env != "GHX_SKIP_GH_PREFLIGHT=1 BENCH_FIXTURE_MANIFEST=/m.json" {
		t.Errorf("ghx env %q", env)
	}
	if env := cfg.BenchmarkEnv(RunSpec{Mode: "agent_direct"}); len(env) != 0 {
		t.Errorf("agent_direct env %q", env)
	}
}

func TestFixturesArgv(t *testing.T) {
	cfg := Default("/b")
	tests := []struct{ action, out, seed, want string }{
		{"status", "fixtures/latest.json", "", "pnpm --filter @ghx-dev/benchmark run fixtures -- status --out fixtures/latest.json"},
		{"seed", "/r/fixtures/latest.json", "20260216T231045Z-pr-exec-seed", "pnpm --filter @ghx-dev/benchmark run fixtures -- seed --seed-id 20260216T231045Z-pr-exec-seed --out /r/fixtures/latest.json"},
		{"cleanup", "fixtures/latest.json", "ignored", "pnpm --filter @ghx-dev/benchmark run fixtures -- cleanup --out fixtures/latest.json"},
	}
	for _, tc := range tests {
		if got := strings.Join(cfg.FixturesArgv(tc.action, tc.out, tc.seed), " "); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.action, got, tc.want)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, body, wantErr string
		check               func(t *testing.T, c Config)
	}{
		{name: "overlay keeps defaults", body: `{"bench_dir":"pkg","benchmark_timeout":"90s"}`, check: func(t *testing.T, c Config) {
			if c.BenchDir != filepath.Join(dir, "pkg") || c.BenchmarkTimeout.String() != "1m30s" || c.Fixtures[0] != "pnpm" {
				t.Errorf("config %+v", c)
			}
		}},
		{name: "unknown key", body: "{\n  \"benchmarks\": []\n}", wantErr: `unknown field "benchmarks"`},
		{name: "syntax error has a line", body: "{\n\"bench_dir\": \"x\",\n}", wantErr: "line 3"},
		{name: "bad duration", body: `{"grace":"soon"}`, wantErr: `expected a positive duration such as "30m", got "soon"`},
		{name: "bad duration names its line and key", body: "{\n  \"bench_dir\": \".\",\n  \"benchmark_timeout\": \"two minutes\"\n}", wantErr: `line 3: benchmark_timeout: expected a positive duration`},
		{name: "unknown key names its line", body: "{\n  \"bench_dir\": \".\",\n  \"benchmarks\": []\n}", wantErr: `line 3: benchmarks: json: unknown field "benchmarks"`},
		{name: "wrong type names its line and key", body: "{\n  \"benchmark\": \"x\"\n}", wantErr: `line 2: benchmark: cannot unmarshal string`},
		{name: "truncated file names its last line", body: "{\n  \"benchmark\": [\n", wantErr: `line 3: expected more JSON, got the end of the file`},
		{name: "syntax error inside a value has its absolute line", body: "{\"grace\":\"1s\",\n\n \"benchmark\": [\n \"a\" \"b\"]}", wantErr: `line 4: invalid character`},
		{name: "not an object", body: `["x"]`, wantErr: `line 1: expected a JSON object`},
		{name: "trailing data", body: "{\"grace\":\"1s\"}\n x", wantErr: `line 2: invalid character 'x' after top-level value`},
		{name: "a second object", body: "{\"grace\":\"1s\"}\n{}", wantErr: `line 2: expected the end of the file after the object`},
		{name: "template without output", body: `{"benchmark":["x","{mode}","{selector}"]}`, wantErr: "benchmark: expected the placeholder {output_jsonl}"},
		{name: "bad env", body: `{"mode_env":{"ghx":["NOVALUE"]}}`, wantErr: `mode_env.ghx: expected KEY=VALUE, got "NOVALUE"`},
		{name: "unknown placeholder", body: `{"benchmark":["x","{mode}","--model","{modle}","--output-jsonl","{output_jsonl}","{selector}"]}`,
			wantErr: `benchmark[3] "{modle}": unknown placeholder {modle} (expected one of {mode} {repetitions} {provider} {model} {output_jsonl} {selector})`},
		{name: "unknown placeholder inside an argument", body: `{"benchmark":["x","{mode}","--out={output_jsonl}","--reps={repetition}","{selector}"]}`,
			wantErr: `benchmark[3] "--reps={repetition}": unknown placeholder {repetition}`},
		{name: "unknown fixtures placeholder", body: `{"fixtures":["f","{action}","--out","{output}"]}`,
			wantErr: `fixtures[3] "{output}": unknown placeholder {output} (expected one of {action} {out} {seed_id})`},
		{name: "selector inside an argument", body: `{"benchmark":["x","{mode}","{output_jsonl}","--sel={selector}"]}`,
			wantErr: `benchmark[3] "--sel={selector}": {selector} must be an argument of its own`},
		{name: "placeholders inside arguments are fine", body: `{"benchmark":["x","{mode}","--out={output_jsonl}","--model={provider}/{model}","{selector}"]}`,
			check: func(t *testing.T, c Config) {
				if c.Benchmark[3] != "--model={provider}/{model}" {
					t.Errorf("benchmark %q", c.Benchmark)
				}
			}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "c"+string(rune('a'+i))+".json")
			if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Load(p, Default("/cwd"))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), p) {
					t.Fatalf("error %v, want one naming %s and %q", err, p, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

func TestResolve(t *testing.T) {
	sets, err := LoadScenarioSets(filepath.Join("..", "..", "examples", "scenario-sets.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		set     string
		ids     []string
		want    string
		wantErr string
	}{
		{name: "whole set in order", set: "ci-diagnostics", want: "check-run-annotations-list-001,workflow-runs-list-001,workflow-run-jobs-list-001,workflow-job-logs-get-001"},
		{name: "ids normalised and de-duplicated", set: "pr-exec", ids: []string{"pr-branch-update-001", " PR-Branch-Update-001", "pr-merge-execute-001", "pr-branch-update-001"}, want: "pr-branch-update-001,pr-merge-execute-001"},
		{name: "unknown set", set: "nope", wantErr: `unknown scenario set "nope" in`},
		{name: "near miss of a set", set: "pr-exe", wantErr: `unknown scenario set "pr-exe" in ../../examples/scenario-sets.json; did you mean --set pr-exec? (known sets: all,`},
		{name: "near miss of an id in the set", set: "issues", ids: []string{"issue-clos-001"}, wantErr: `scenario id "issue-clos-001" is not in set "issues" of ../../examples/scenario-sets.json; did you mean --scenario-id issue-close-001?`},
		{name: "bad set name", set: "../x", wantErr: `set "../x": expected`},
		{name: "bad id", set: "pr-exec", ids: []string{"pr_exec;rm"}, wantErr: `scenario id "pr_exec;rm": expected`},
		{name: "id outside the set", set: "pr-exec", ids: []string{"issue-view-001"}, wantErr: `scenario id "issue-view-001" is not in set "pr-exec"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sets.Resolve(tc.set, tc.ids)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || strings.Join(got, ",") != tc.want {
				t.Errorf("got %v %v, want %s", got, err, tc.want)
			}
		})
	}
	for _, name := range OrderedSets {
		if _, ok := sets.Sets[name]; !ok {
			t.Errorf("ordered set %s missing from the example scenario sets", name)
		}
	}
}

func TestPolicyTable(t *testing.T) {
	want := map[string]SeedPolicy{"pr-exec": WithSeed, "pr-thread-mutations": WithSeed, "issues": WithSeed,
		"release-delivery": WithSeed, "workflows": WithSeed, "projects-v2": WithSeed, "pr-review-reads": WithSeed,
		"ci-diagnostics": ReadOnly, "ci-log-analysis": ReadOnly}
	if len(OrderedSets) != 9 {
		t.Fatalf("%d ordered sets", len(OrderedSets))
	}
	for _, s := range OrderedSets {
		if PolicyFor(s) != want[s] {
			t.Errorf("%s: %s, want %s", s, PolicyFor(s), want[s])
		}
	}
}

func TestParseScenarioSetsErrors(t *testing.T) {
	tests := []struct{ body, want string }{
		{`[]`, "expected a JSON object"},
		{"{\n\"a\": [\"x-001\"],\n", "line 3"},
		{`{"a": null}`, `set "a": expected an array of scenario IDs, got null`},
		{`{"a": ["ok-001", ""]}`, `set "a" item 2: scenario id "": expected`},
		{`{"a": ["ok-001", "bad id!"]}`, `set "a" item 2: scenario id "bad id!": expected`},
		{`{"a": [7]}`, `set "a": expected an array of scenario IDs, got [7]`},
		{`{"a": "x-001"}`, `set "a": expected an array`},
		{"{\n\"pr-exec\": [\"pr-view-001\"],\n\"issues\": [\"issue-view-001\"],\n\"pr-exec\": [\"pr-diff-list-files-001\"]\n}", `line 4: set "pr-exec" is defined twice`},
	}
	for _, tc := range tests {
		_, err := ParseScenarioSets("s.json", []byte(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "s.json") {
			t.Errorf("%s: error %v, want %q", tc.body, err, tc.want)
		}
	}
}

// TestEmptySetElsewhere: an empty set is refused only when it is run; the
// others are named in a warning.
func TestEmptySetElsewhere(t *testing.T) {
	sets, err := ParseScenarioSets("s.json", []byte(`{"a": ["a-001"], "b": [], "c": []}`))
	if err != nil {
		t.Fatal(err)
	}
	if ids, err := sets.Resolve("a", nil); err != nil || len(ids) != 1 {
		t.Errorf("resolve a: %v %v", ids, err)
	}
	if _, err := sets.Resolve("b", nil); err == nil || !strings.Contains(err.Error(), `scenario sets s.json: set "b": expected a non-empty array of scenario IDs, got []`) {
		t.Errorf("resolve b: %v", err)
	}
	for _, tc := range []struct {
		running []string
		want    string
	}{
		{[]string{"a"}, "warning: scenario sets s.json: these sets have no scenarios: b, c (a run of them would be refused)"},
		{[]string{"b"}, "warning: scenario sets s.json: this set has no scenarios: c (a run of it would be refused)"},
		{[]string{"b", "c"}, ""},
	} {
		if got := sets.EmptyWarning(tc.running...); got != tc.want {
			t.Errorf("running %v: %q, want %q", tc.running, got, tc.want)
		}
	}
}

// TestScenarioSetsNormaliseIDs checks that set-file IDs follow the same
// rule as --scenario-id and rows: trimmed and lower-cased, so an ID
// written PR-View-001 or " pr-view-001 " in the set file is pr-view-001
// everywhere, while the benchmark is still given the set file's spelling.
func TestScenarioSetsNormaliseIDs(t *testing.T) {
	sets, err := ParseScenarioSets("s.json", []byte(`{"a": [" pr-view-001 ", "PR-Diff-001", "pr-diff-001"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sets.Sets["a"], ","); got != "pr-view-001,pr-diff-001" {
		t.Errorf("set a = %s, want pr-view-001,pr-diff-001", got)
	}
	for _, tc := range []struct {
		ids  []string
		want string
	}{
		{nil, "pr-view-001,pr-diff-001"},
		{[]string{"pr-diff-001"}, "pr-diff-001"},
		{[]string{"PR-DIFF-001", " pr-view-001"}, "pr-diff-001,pr-view-001"},
	} {
		got, err := sets.Resolve("a", tc.ids)
		if err != nil || strings.Join(got, ",") != tc.want {
			t.Errorf("Resolve(a, %q) = %v %v, want %s", tc.ids, got, err, tc.want)
		}
	}
	if sp := sets.Spelling("pr-view-001"); sp != "pr-view-001" {
		t.Errorf("spelling of pr-view-001 = %q (trimmed, as written)", sp)
	}
	if sp := sets.Spelling("pr-diff-001"); sp != "PR-Diff-001" {
		// The first of two spellings of one ID is kept.
		t.Errorf("spelling of pr-diff-001 = %q", sp)
	}
	if sp := sets.Spelling("other-001"); sp != "other-001" {
		t.Errorf("unknown id spelled %q", sp)
	}
}

func TestCheckManifest(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ body, want string }{
		{`{"version":1,"repo":{"full_name":"o/r"}}`, ""},
		{`{"version":2,"repo":{"full_name":"o/r"}}`, "field version: expected 1"},
		{`{"version":1}`, "field repo.full_name"},
		{`nope`, "expected a JSON object"},
	}
	for i, tc := range tests {
		p := filepath.Join(dir, string(rune('a'+i))+".json")
		os.WriteFile(p, []byte(tc.body), 0o644)
		err := CheckManifest(p)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.body, err, tc.want)
		}
	}
	if err := CheckManifest(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing manifest accepted")
	}
}

// FuzzParseScenarioSets checks that every accepted manifest resolves
// each of its sets to valid, unique IDs.
func FuzzParseScenarioSets(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "scenario-sets.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"a":["x-001","x-001"]}`))
	f.Add([]byte(`{"a":["X-001"]}`))
	f.Add([]byte(`{"a":[" x-001 ","X-001","x-002"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sets, err := ParseScenarioSets("fuzz.json", data)
		if err != nil {
			return
		}
		for name := range sets.Sets {
			ids, err := sets.Resolve(name, nil)
			if err != nil {
				if CheckSetName(name) == nil {
					t.Fatalf("valid set %q does not resolve: %v", name, err)
				}
				continue
			}
			seen := map[string]bool{}
			for _, id := range ids {
				if n, err := NormalizeScenarioID(id); err != nil || n != id || seen[id] {
					t.Fatalf("set %q resolves to bad, unnormalised or duplicate id %q", name, id)
				}
				if n, err := NormalizeScenarioID(sets.Spelling(id)); err != nil || n != id {
					t.Fatalf("set %q: spelling %q of %q does not normalise back", name, sets.Spelling(id), id)
				}
				seen[id] = true
			}
		}
	})
}

// TestNormalizeScenarioIDRawBytes: the ID rule sees the bytes as written.
// Only ASCII is trimmed and lower-cased; a look-alike whose Unicode
// lower case is ASCII (the Kelvin sign, U+212A, lower-cases to k) is
// refused like any other non-ASCII ID, decomposed accents included.
func TestNormalizeScenarioIDRawBytes(t *testing.T) {
	for _, tc := range []struct {
		id, want string // want "" means refused
	}{
		{"pr-view-001", "pr-view-001"},
		{" PR-View-001\t", "pr-view-001"},
		{"\r\npr-view-001\r\n", "pr-view-001"},
		{"\u212Aelvin-001", ""},            // Kelvin sign: strings.ToLower gives "kelvin-001"
		{"kelvin-001", "kelvin-001"},       // the ASCII spelling
		{"cafe\u0301-001", ""},             // NFD é
		{"caf\u00e9-001", ""},              // NFC é
		{"\u0130ssue-001", ""},             // dotted capital I lower-cases to i + U+0307
		{"pr-view-001\u00a0", ""},          // a no-break space is not trimmed
		{"\u00a0pr-view-001", ""},          //
		{"pr-view-\uff10\uff10\uff11", ""}, // full-width digits
		{"pr-vi\u0435w-001", ""},           // a Cyrillic е
		{"pr-view-001\u200b", ""},          // a zero-width space
	} {
		got, err := NormalizeScenarioID(tc.id)
		if tc.want == "" {
			if err == nil {
				t.Errorf("NormalizeScenarioID(%q) = %q, want it refused", tc.id, got)
			} else if !strings.Contains(err.Error(), strconv.QuoteToASCII(tc.id)) {
				t.Errorf("NormalizeScenarioID(%q): error %q does not quote the ID as written, in ASCII", tc.id, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NormalizeScenarioID(%q) = %q, %v; want %q", tc.id, got, err, tc.want)
		}
	}
}

// A set name typed in capitals is refused with the lower-case name meant;
// a name no case change repairs gets no suggestion.
func TestCheckSetNameSuggestsLowerCase(t *testing.T) {
	for _, c := range []struct{ in, hint string }{
		{"PR-EXEC", "did you mean pr-exec?"},
		{"Issues-CRUD", "did you mean issues-crud?"},
		{"pr exec", ""},
		{"../pr-exec", ""},
	} {
		err := CheckSetName(c.in)
		if err == nil {
			t.Fatalf("CheckSetName(%q) = nil, want an error", c.in)
		}
		has := strings.Contains(err.Error(), "did you mean")
		if c.hint == "" && has || c.hint != "" && !strings.Contains(err.Error(), c.hint) {
			t.Errorf("CheckSetName(%q) = %q, want hint %q", c.in, err, c.hint)
		}
	}
	if err := CheckSetName("pr-exec"); err != nil {
		t.Errorf("CheckSetName(pr-exec) = %v", err)
	}
}

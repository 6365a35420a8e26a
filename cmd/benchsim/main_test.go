package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func examples(t *testing.T) string {
	t.Helper()
	return filepath.Join("..", "..", "examples")
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestBenchmarkRows(t *testing.T) {
	root := examples(t)
	none := filepath.Join("..", "..", "testdata", "bench", "failures", "none.json")
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		wantCode  int
		wantRows  int
		wantFail  int
		wantSet   any
		wantError string
	}{
		{name: "whole set", args: []string{"--", "benchmark", "ghx", "2", "--provider", "openai", "--model", "m", "--scenario-set", "ci-diagnostics"},
			env: map[string]string{"GHX_SKIP_GH_PREFLIGHT": "1", "BENCHSIM_FAILURES": none}, wantRows: 8, wantSet: "ci-diagnostics"},
		{name: "separator after the command, as pnpm run forwards it", args: []string{"benchmark", "--", "agent_direct", "1", "--scenario", "pr-view-001"},
			env: map[string]string{"BENCHSIM_FAILURES": none}, wantRows: 1, wantSet: nil},
		{name: "by scenario", args: []string{"benchmark", "agent_direct", "1", "--scenario", "pr-view-001", "--scenario", "repo-view-001"},
			env: map[string]string{"BENCHSIM_FAILURES": none}, wantRows: 2, wantSet: nil},
		{name: "ghx without the preflight skip", args: []string{"benchmark", "ghx", "1", "--scenario", "pr-view-001"},
			env: map[string]string{"BENCHSIM_FAILURES": none}, wantCode: 1, wantError: "GHX_SKIP_GH_PREFLIGHT=1"},
		{name: "missing manifest", args: []string{"benchmark", "agent_direct", "1", "--scenario", "pr-view-001"},
			env: map[string]string{"BENCHSIM_FAILURES": none, "BENCH_FIXTURE_MANIFEST": "/nonexistent/latest.json"}, wantCode: 1, wantError: "Fixture manifest not found"},
		{name: "unknown set", args: []string{"benchmark", "agent_direct", "1", "--scenario-set", "nope"},
			env: map[string]string{"BENCHSIM_FAILURES": none}, wantCode: 1, wantError: "Unknown scenario set: nope"},
		{name: "selectors are exclusive", args: []string{"benchmark", "agent_direct", "1", "--scenario-set", "issues", "--scenario", "pr-view-001"},
			env: map[string]string{"BENCHSIM_FAILURES": none}, wantCode: 1, wantError: "mutually exclusive"},
		{name: "flaky fails on the set run", args: []string{"benchmark", "agent_direct", "1", "--scenario-set", "pr-exec"},
			env:      map[string]string{"BENCHSIM_FAILURES": filepath.Join("..", "..", "testdata", "bench", "failures", "flaky.json")},
			wantRows: 9, wantFail: 1, wantSet: "pr-exec"},
		{name: "flaky passes by scenario", args: []string{"benchmark", "agent_direct", "1", "--scenario", "pr-branch-update-001"},
			env:      map[string]string{"BENCHSIM_FAILURES": filepath.Join("..", "..", "testdata", "bench", "failures", "flaky.json")},
			wantRows: 1, wantSet: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "rows.jsonl")
			tc.env["BENCHSIM_ROOT"] = root
			var stdout, stderr bytes.Buffer
			code := run(append(tc.args, "--output-jsonl", out), &stdout, &stderr, envOf(tc.env))
			if code != tc.wantCode || !strings.Contains(stderr.String(), tc.wantError) {
				t.Fatalf("exit %d stderr %q, want %d and %q", code, stderr.String(), tc.wantCode, tc.wantError)
			}
			if tc.wantCode != 0 {
				return
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if len(lines) != tc.wantRows {
				t.Fatalf("%d rows, want %d", len(lines), tc.wantRows)
			}
			fails := 0
			for _, l := range lines {
				var r map[string]any
				if err := json.Unmarshal([]byte(l), &r); err != nil {
					t.Fatal(err)
				}
				if r["success"] != true {
					fails++
				}
				if r["scenario_set"] != tc.wantSet {
					t.Errorf("scenario_set %v, want %v", r["scenario_set"], tc.wantSet)
				}
				tok := r["tokens"].(map[string]any)
				if tok["total"].(float64) != tok["input"].(float64)+tok["output"].(float64)+tok["reasoning"].(float64)+tok["cache_read"].(float64)+tok["cache_write"].(float64) {
					t.Errorf("tokens.total is not the sum: %v", tok)
				}
			}
			if fails != tc.wantFail {
				t.Errorf("%d failing rows, want %d", fails, tc.wantFail)
			}
		})
	}
}

func TestFixturesLifecycle(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fx", "latest.json")
	steps := []struct {
		args     []string
		wantCode int
		want     string
	}{
		{[]string{"fixtures", "status", "--out", out}, 1, "Fixture manifest not found"},
		{[]string{"fixtures", "seed", "--seed-id", "bad id", "--out", out}, 1, "--seed-id"},
		{[]string{"fixtures", "seed", "--seed-id", "20260216T231045Z-pr-exec-seed", "--out", out}, 0, "Seeded fixtures"},
		{[]string{"fixtures", "status", "--out", out}, 0, "Fixture manifest OK: repo=benchsim/fixtures version=1"},
		{[]string{"fixtures", "cleanup", "--out", out}, 0, "Removed fixture manifest"},
		{[]string{"fixtures", "status", "--out", out}, 1, "not found"},
		{[]string{"fixtures", "prune", "--out", out}, 1, "unknown action"},
	}
	for _, s := range steps {
		var stdout, stderr bytes.Buffer
		code := run(s.args, &stdout, &stderr, envOf(nil))
		if code != s.wantCode || !strings.Contains(stdout.String()+stderr.String(), s.want) {
			t.Errorf("%v: exit %d output %q, want %d and %q", s.args, code, stdout.String()+stderr.String(), s.wantCode, s.want)
		}
	}
}

func TestFailuresFileErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	os.WriteFile(p, []byte(`{"rules":[{"behavior":"explode"}]}`), 0o644)
	_, err := loadFailures(dir, envOf(map[string]string{"BENCHSIM_FAILURES": p}))
	if err == nil || !strings.Contains(err.Error(), "rules[0].behavior") {
		t.Errorf("error %v", err)
	}
	os.WriteFile(p, []byte(`{"rule":[]}`), 0o644)
	if _, err := loadFailures(dir, envOf(map[string]string{"BENCHSIM_FAILURES": p})); err == nil {
		t.Error("unknown key accepted")
	}
}

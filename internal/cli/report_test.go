package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func reportEnv(t *testing.T, dir string) (*Env, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errb bytes.Buffer
	return &Env{
		Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""),
		Getenv: func(string) string { return "" },
		Dir:    dir,
		Now:    func() time.Time { return time.Date(2026, 2, 25, 17, 55, 48, 189e6, time.UTC) },
	}, &out, &errb
}

func suiteFile(t *testing.T, parts ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(append([]string{"..", "..", "testdata", "suites"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReportCommand drives `benchgate report` through cli.Main with the
// real suites and the hand-built failure cases.
func TestReportCommand(t *testing.T) {
	ad := suiteFile(t, "2026-02-25-agent_direct-suite.jsonl")
	ghx := suiteFile(t, "2026-02-25-ghx-suite.jsonl")
	exp := suiteFile(t, "expectations.json")
	for _, tc := range []struct {
		name      string
		args      []string
		code      int
		stdout    []string
		stderr    []string
		summaries bool
	}{
		{"failing gate without --gate exits 0", []string{"--suite-jsonl", ad, "--suite-jsonl", ghx}, ExitOK,
			[]string{"Wrote "}, nil, true},
		{"failing gate with --gate exits 1", []string{"--suite-jsonl", ad, "--suite-jsonl", ghx, "--gate"}, ExitFailed,
			[]string{"Benchmark verify result: FAIL", " - [FAIL] efficiency_tool_call_reduction: value=16.67 >= threshold=20.00"},
			[]string{"Benchmark gate failed for profile verify_pr"}, true},
		{"equals form and mini expectations pass", []string{"--suite-jsonl=" + ad, "--suite-jsonl=" + ghx, "--gate", "--gate-profile=pr_fast",
			"--expectations-config=" + exp, "--expectations-model=openai/gpt-5.1-codex-mini"}, ExitOK,
			[]string{"Benchmark verify profile: verify_pr", "Benchmark expectations model: openai/gpt-5.1-codex-mini", "Benchmark verify result: PASS"}, nil, true},
		{"release profile", []string{"--suite-jsonl", ad, "--suite-jsonl", ghx, "--gate", "--gate-profile", "verify_release"}, ExitFailed,
			[]string{"Benchmark verify profile: verify_release", "threshold=30.00"}, nil, true},
		{"unknown profile", []string{"--suite-jsonl", ad, "--gate-profile", "nightly_full"}, ExitUsage,
			nil, []string{`unknown gate profile "nightly_full"`}, false},
		{"missing value", []string{"--suite-jsonl", ad, "--summary-json="}, ExitUsage,
			nil, []string{"Missing value for --summary-json"}, false},
		{"flag followed by a flag", []string{"--suite-jsonl", ad, "--summary-md", "--gate"}, ExitUsage,
			nil, []string{"Missing value for --summary-md"}, false},
		{"flag without value", []string{"--suite-jsonl"}, ExitUsage, nil, []string{"flag needs an argument"}, false},
		{"unknown flag", []string{"--gates"}, ExitUsage, nil, []string{"unknown flag: --gates"}, false},
		{"stray argument", []string{"verify_pr"}, ExitUsage, nil, []string{`unexpected argument "verify_pr"`}, false},
		{"missing file", []string{"--suite-jsonl", "nope-suite.jsonl"}, ExitUsage, nil, []string{"nope-suite.jsonl: no such file or directory"}, false},
		{"empty files", []string{"--suite-jsonl", suiteFile(t, "cases", "zero-rows", "agent_direct-suite.jsonl")}, ExitUsage,
			nil, []string{"no rows (the file is empty)"}, false},
		{"mismatched cohorts", []string{"--suite-jsonl", suiteFile(t, "cases", "mismatched-cohorts", "agent_direct-suite.jsonl"),
			"--suite-jsonl", suiteFile(t, "cases", "mismatched-cohorts", "ghx-suite.jsonl")}, ExitUsage,
			nil, []string{"Latest benchmark files are not comparable across modes: scenario_set: agent_direct=ci-verify-pr ghx=ci-verify-release"}, false},
		{"unknown expectations model", []string{"--suite-jsonl", ad, "--suite-jsonl", ghx, "--expectations-config", exp, "--expectations-model", "x/y"}, ExitUsage,
			nil, []string{"No expectations configured for model 'x/y'. Known models: openai/gpt-5.1-codex-mini, openai/gpt-5.3-codex"}, false},
		{"runner failures with --gate", []string{"--suite-jsonl", suiteFile(t, "cases", "runner-errors", "agent_direct-suite.jsonl"),
			"--suite-jsonl", suiteFile(t, "cases", "runner-errors", "ghx-suite.jsonl"), "--gate"}, ExitFailed,
			[]string{" - [FAIL] reliability_runner_failure_rate: value=10.00 <= threshold=5.00", " - [FAIL] reliability_timeout_stall_rate: value=5.00 <= threshold=2.00"}, nil, true},
		{"help", []string{"--help"}, ExitOK, []string{"--suite-jsonl", "--gate-profile", "Examples:"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			env, out, errb := reportEnv(t, dir)
			args := append([]string{"report"}, tc.args...)
			args = append(args, "--summary-json", "out/a/summary.json")
			if tc.name == "missing value" || tc.name == "flag without value" {
				args = append([]string{"report"}, tc.args...)
			}
			code := Main(context.Background(), env, args)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errb)
			}
			for _, w := range tc.stdout {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.stderr {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errb)
				}
			}
			_, jerr := os.Stat(filepath.Join(dir, "out", "a", "summary.json"))
			_, merr := os.Stat(filepath.Join(dir, "reports", "latest-summary.md"))
			if written := jerr == nil && merr == nil; written != tc.summaries {
				t.Errorf("summaries written = %v, want %v (%v, %v)", written, tc.summaries, jerr, merr)
			}
		})
	}
}

// TestReportKeepsOldSummaryOnBadInput checks that a run with bad input
// leaves the previous summaries exactly as they were.
func TestReportKeepsOldSummaryOnBadInput(t *testing.T) {
	dir := t.TempDir()
	env, _, _ := reportEnv(t, dir)
	ad := suiteFile(t, "2026-02-25-agent_direct-suite.jsonl")
	ghx := suiteFile(t, "2026-02-25-ghx-suite.jsonl")
	if code := Main(context.Background(), env, []string{"report", "--suite-jsonl", ad, "--suite-jsonl", ghx}); code != ExitOK {
		t.Fatalf("first run exit %d", code)
	}
	before, err := os.ReadFile(filepath.Join(dir, "reports", "latest-summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(ghx)
	trunc := filepath.Join(dir, "trunc-ghx-suite.jsonl")
	if err := os.WriteFile(trunc, data[:len(data)-200], 0o644); err != nil {
		t.Fatal(err)
	}
	env, _, errb := reportEnv(t, dir)
	if code := Main(context.Background(), env, []string{"report", "--suite-jsonl", ad, "--suite-jsonl", trunc}); code != ExitUsage {
		t.Fatalf("truncated run exit %d", code)
	}
	if !strings.Contains(errb.String(), "trunc-ghx-suite.jsonl:20: ") || !strings.Contains(errb.String(), "truncated row") {
		t.Fatalf("stderr: %s", errb)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "reports", "latest-summary.json"))
	if !bytes.Equal(before, after) {
		t.Fatal("summary changed on bad input")
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "reports"))
	if len(entries) != 2 {
		t.Fatalf("reports/ holds %d entries (temporary files left?)", len(entries))
	}
	// With --skip-bad-rows the truncated row is skipped and counted.
	env, _, errb = reportEnv(t, dir)
	if code := Main(context.Background(), env, []string{"report", "--suite-jsonl", ad, "--suite-jsonl", trunc, "--skip-bad-rows"}); code != ExitOK {
		t.Fatalf("skip run exit %d: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "skipped 1 malformed row(s)") {
		t.Fatalf("stderr: %s", errb)
	}
}

// TestReportDiscovery runs without --suite-jsonl from a directory with
// results/*-suite.jsonl, as the benchmark's own report does.
func TestReportDiscovery(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	for src, dst := range map[string]string{
		"2026-02-25-agent_direct-suite.jsonl": "2026-02-25T17-18-19-058Z-agent_direct-suite.jsonl",
		"2026-02-25-ghx-suite.jsonl":          "2026-02-25T17-35-31-510Z-ghx-suite.jsonl",
	} {
		data, err := os.ReadFile(suiteFile(t, src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "results", dst), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env, out, errb := reportEnv(t, dir)
	if code := Main(context.Background(), env, []string{"report"}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	md, err := os.ReadFile(filepath.Join(dir, "reports", "latest-summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| efficiency_tokens_active_reduction | 27.55 | >= 15.00 | Y |") {
		t.Fatalf("markdown:\n%s", md)
	}
	if !strings.Contains(out.String(), "Wrote "+filepath.Join(dir, "reports", "latest-summary.json")) {
		t.Fatalf("stdout: %s", out)
	}
}

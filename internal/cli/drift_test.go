package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/drift"
	"github.com/benchgate/benchgate/internal/testsupport/drifttest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// driftHistory writes 40 runs of the real suites (each run: every real
// row of both modes drawn again at its scenario's real spread, one folder
// per run as artifacts download) with ghx's latency 15% higher from run
// 25 on.
func driftHistory(t *testing.T) string {
	t.Helper()
	n, err := drifttest.Real(suiteFile(t, "2026-02-25-agent_direct-suite.jsonl"), suiteFile(t, "2026-02-25-ghx-suite.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "history")
	if err := n.WriteHistory(dir, 3, 40, drifttest.Change{Metric: drifttest.Latency, Mode: "ghx", From: 25, Factor: 1.15}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runDriftBinary(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(testenv.Benchgate(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GITHUB_REPOSITORY=", "GITHUB_SERVER_URL=")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run()
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// TestDriftNamesTheCommitWhereARealSuiteShifted runs the built binary as
// a user types it over a history made of the real suites with a 15%
// latency shift at run 25, and checks that drift.json names the runs and
// commits on either side of it, the shift and its interval, and that
// drift.md links the commits between them.
func TestDriftNamesTheCommitWhereARealSuiteShifted(t *testing.T) {
	hist := driftHistory(t)
	work := filepath.Dir(hist)
	stdout, stderr, code := runDriftBinary(t, work, "drift", "--history", "history", "--out-dir", "out", "--repo", "octo/bench")
	if code != ExitOK {
		t.Fatalf("exit %d, want 0 (change points are information)\n%s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(work, "out", DriftJSONName))
	if err != nil {
		t.Fatal(err)
	}
	var rep drift.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Schema != drift.Schema || rep.Runs != 40 {
		t.Fatalf("schema %q, %d runs; want %q and 40", rep.Schema, rep.Runs, drift.Schema)
	}
	var found *drift.ChangePoint
	for i, c := range rep.ChangePoints {
		if c.Metric == drift.MetricLatency && c.Mode == "ghx" && c.Scenario == "" {
			found = &rep.ChangePoints[i]
		}
	}
	if found == nil {
		t.Fatalf("no change point of ghx's suite latency in %s", b)
	}
	c := *found
	if c.After.Index < 24 || c.After.Index > 26 || c.Before.Index != c.After.Index-1 {
		t.Errorf("change point between runs %d and %d, want between 24 and 25 (give or take one)", c.Before.Index, c.After.Index)
	}
	if c.After.Commit != drifttest.Commit(c.After.Index) || c.Before.Commit != drifttest.Commit(c.Before.Index) {
		t.Errorf("commits %s..%s, want those of runs %d and %d", c.Before.Commit, c.After.Commit, c.Before.Index, c.After.Index)
	}
	if c.ShiftPct == nil || *c.ShiftPct < 8 || *c.ShiftPct > 25 || *c.LowPct > *c.ShiftPct || *c.HighPct < *c.ShiftPct || *c.LowPct <= 0 {
		t.Errorf("shift %v [%v, %v], want about +15%% with an interval above 0 around it", deref(c.ShiftPct), deref(c.LowPct), deref(c.HighPct))
	}
	if !c.Worse || !c.Open || c.PValue > 0.01 {
		t.Errorf("worse %v open %v p %g, want a significant open change for the worse", c.Worse, c.Open, c.PValue)
	}
	wantURL := "https://github.com/octo/bench/compare/" + c.Before.Commit + "..." + c.After.Commit
	if c.CompareURL != wantURL {
		t.Errorf("compare_url %q, want %q", c.CompareURL, wantURL)
	}
	md, err := os.ReadFile(filepath.Join(work, "out", DriftMDName))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "("+wantURL+")") || !strings.Contains(string(md), "xychart-beta") {
		t.Errorf("drift.md has no link to the commits or no chart:\n%s", md)
	}
	if !strings.Contains(stdout, "Benchmark change point: latency_ms ghx suite worse from run") {
		t.Errorf("stdout does not name the change point:\n%s", stdout)
	}
	// Levels as drift.md writes them (whole milliseconds, a ratio to
	// three digits), not to 17 digits.
	if !regexp.MustCompile(`(?m)^Benchmark change point: latency_ms ghx suite worse from run \d+ \([0-9a-f]{40}\): \d+ -> \d+ \(\+\d+\.\d%\)$`).MatchString(stdout) ||
		regexp.MustCompile(`(?m)^Benchmark change point: .*\d\.\d{4}`).MatchString(stdout) {
		t.Errorf("stdout does not give the levels as drift.md does:\n%s", stdout)
	}
	// Asked to, the same history fails the step.
	if _, _, code := runDriftBinary(t, work, "drift", "--history", "history", "--out-dir", "out2", "--fail-on", "worse"); code != ExitFailed {
		t.Errorf("--fail-on worse: exit %d, want 1", code)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestDriftBadInputNamesFileLineAndField: a history with a row or a record
// that is not valid is refused with exit 2 and the place to fix.
func TestDriftBadInputNamesFileLineAndField(t *testing.T) {
	real, err := os.ReadFile(suiteFile(t, "2026-02-25-ghx-suite.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(real), "\n")
	bad := strings.Join(lines[:2], "") + strings.Replace(lines[2], `"latency_ms_wall":`, `"latency_ms_wall":"slow","x":`, 1) + strings.Join(lines[3:], "")
	for _, tc := range []struct {
		name, file, content string
		want                []string
	}{
		{"suite row", "run-1/ghx-suite.jsonl", bad, []string{"run-1/ghx-suite.jsonl:3", "latency_ms_wall", "expected"}},
		{"record type", "run-2/run-record.json", "{\n  \"schema\": \"benchgate.run-record/v1\",\n  \"modes\": [\n    {\"mode\": \"ghx\", \"source\": \"x\", \"run_ids\": [], \"run_id_count\": \"one\"}\n  ]\n}\n",
			[]string{"run-2/run-record.json:4", "run_id_count", "expected int"}},
		{"record field", "run-3/run-record.json", `{"schema":"benchgate.run-record/v1","modes":[{"mode":"ghx","source":"x","run_ids":[],"run_id_count":0,"started_at":"","model_signatures":[],"scenarios":[{"id":"s1","rows":0,"passed":0,"stable":0,"median_active_tokens":null,"median_latency_ms":null,"median_tool_calls":null}]}]}`,
			[]string{"run-3/run-record.json", "modes[0].scenarios[0].rows", "expected at least 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "history", tc.file)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := runDriftBinary(t, dir, "drift", "--history", "history")
			if code != ExitUsage {
				t.Errorf("exit %d, want 2\n%s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "drift")); err == nil {
				t.Errorf("bad input wrote drift/")
			}
		})
	}
	for _, args := range [][]string{{"drift"}, {"drift", "--history", "h", "--fail-on", "sometimes"}, {"drift", "--history", "h", "--alpha", "2"}} {
		if _, stderr, code := runDriftBinary(t, t.TempDir(), args...); code != ExitUsage || !strings.Contains(stderr, "benchgate drift: ") {
			t.Errorf("%v: exit %d, want 2 with a message\n%s", args, code, stderr)
		}
	}
}

// TestDriftDocExamplesRun runs every command of docs/drift.md's bash
// blocks as written, in a folder whose results/ holds a history of the
// real suites with a latency shift: each writes its files and exits 0,
// or 1 where --fail-on asks and a change for the worse is there.
func TestDriftDocExamplesRun(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "docs", "drift.md"))
	if err != nil {
		t.Fatal(err)
	}
	hist := driftHistory(t)
	work := filepath.Dir(hist)
	if err := os.Rename(hist, filepath.Join(work, "results")); err != nil {
		t.Fatal(err)
	}
	var cmds []string
	inBash := false
	for _, l := range strings.Split(string(doc), "\n") {
		switch {
		case strings.HasPrefix(l, "```bash"):
			inBash = true
		case strings.HasPrefix(l, "```"):
			inBash = false
		case inBash && strings.HasPrefix(l, "benchgate drift"):
			cmds = append(cmds, l)
		}
	}
	if len(cmds) < 2 {
		t.Fatalf("found %d examples in docs/drift.md", len(cmds))
	}
	for _, c := range cmds {
		args := strings.Fields(strings.TrimPrefix(c, "benchgate "))
		out, stderr, code := runDriftBinary(t, work, args...)
		want := ExitOK
		if strings.Contains(c, "--fail-on worse") {
			want = ExitFailed
		}
		if code != want {
			t.Errorf("%s: exit %d, want %d\n%s%s", c, code, want, out, stderr)
		}
		if !strings.Contains(out, "drift.json") {
			t.Errorf("%s: wrote no drift.json:\n%s", c, out)
		}
	}
}

// TestDriftSaysWhenTheHistoryIsTooShort: a history of fewer runs than a
// change point needs (5 at each level) has no change point, and drift
// says why on stderr, in drift.json's notes and in drift.md, so that "0
// change points" is not read as "nothing changed"; from 10 runs on it
// says nothing of the kind.
func TestDriftSaysWhenTheHistoryIsTooShort(t *testing.T) {
	n, err := drifttest.Real(suiteFile(t, "2026-02-25-agent_direct-suite.jsonl"), suiteFile(t, "2026-02-25-ghx-suite.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		runs int
		say  bool
	}{{1, true}, {3, true}, {9, true}, {10, false}} {
		dir := t.TempDir()
		if err := n.WriteHistory(filepath.Join(dir, "history"), 5, tc.runs); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := runDriftBinary(t, dir, "drift", "--history", "history")
		if code != ExitOK {
			t.Fatalf("%d runs: exit %d\n%s", tc.runs, code, stderr)
		}
		md, err := os.ReadFile(filepath.Join(dir, "drift", "drift.md"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "drift", "drift.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep drift.Report
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		note := drift.TooFewRuns(tc.runs, 5)
		if got := strings.Contains(stderr, note) && strings.Contains(string(md), note) && strings.Join(rep.Notes, "\n") == note; got != tc.say {
			t.Errorf("%d runs: says it is too short %v, want %v\nstderr: %s\nnotes: %v", tc.runs, got, tc.say, stderr, rep.Notes)
		}
		if tc.say && len(rep.ChangePoints) != 0 {
			t.Errorf("%d runs: %d change points", tc.runs, len(rep.ChangePoints))
		}
	}
}

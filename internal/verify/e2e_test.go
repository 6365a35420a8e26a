package verify_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
	"github.com/benchgate/benchgate/internal/verify"
)

// bins are the benchgate and benchsim binaries the end-to-end tests run
// as real processes, by name, built once per content of their sources
// (testenv.CommandBinaries).
var bins map[string]string

func TestMain(m *testing.M) {
	var err error
	if bins, err = testenv.CommandBinaries(repoRoot()); err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// binPath is PATH with the folders of benchgate and benchsim first.
func binPath() string {
	return "PATH=" + filepath.Dir(bins["benchgate"]) + string(os.PathListSeparator) + filepath.Dir(bins["benchsim"]) +
		string(os.PathListSeparator) + os.Getenv("PATH")
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// fixture is one end-to-end test's world: a bench config pointing at the
// real example scenario data, a seeded shared manifest and an out dir.
type fixture struct {
	t        *testing.T
	dir      string
	config   string
	manifest string
	failures string
}

func newFixture(t *testing.T, failures string, overrides map[string]any) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir()}
	data, err := os.ReadFile(filepath.Join(repoRoot(), "examples", "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["bench_dir"] = filepath.Join(repoRoot(), "examples")
	for k, v := range overrides {
		cfg[k] = v
	}
	f.config = filepath.Join(f.dir, "bench.json")
	writeJSON(t, f.config, cfg)
	f.failures = filepath.Join(repoRoot(), "testdata", "bench", "failures", failures)
	f.manifest = filepath.Join(f.dir, "shared", "latest.json")
	if out, err := exec.Command(bins["benchsim"], "fixtures", "seed", "--seed-id", "shared", "--out", f.manifest).CombinedOutput(); err != nil {
		t.Fatalf("seed shared manifest: %v\n%s", err, out)
	}
	return f
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, _ := json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) command(args ...string) *exec.Cmd {
	cmd := exec.Command(bins["benchgate"], args...)
	cmd.Dir = f.dir
	cmd.Env = append(os.Environ(), binPath(), "BENCHSIM_FAILURES="+f.failures)
	return cmd
}

// run runs benchgate and returns its exit code, stdout and stderr.
func (f *fixture) run(args ...string) (int, string, string) {
	f.t.Helper()
	cmd := f.command(args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		f.t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

func (f *fixture) setArgs(set string, extra ...string) []string {
	return append([]string{"set", "--config", f.config, "--set", set, "--provider", "openai",
		"--fixture-manifest", f.manifest, "--out-dir", filepath.Join(f.dir, "out", set)}, extra...)
}

func readTracking(t *testing.T, path string) verify.Tracking {
	t.Helper()
	tr, err := verify.ReadTracking(path)
	if err != nil {
		t.Fatalf("tracking.json: %v", err)
	}
	return *tr
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte("\n"))
}

func TestSetEndToEnd(t *testing.T) {
	tests := []struct {
		name        string
		failures    string
		set         string
		extra       []string
		overrides   map[string]any
		wantCode    int
		wantStatus  string
		wantReruns  []verify.Rerun
		wantRows    map[string]int
		wantFailing []string
		wantStderr  []string
		wantSeeded  bool
		wantSummary bool
		wantGateOK  *bool
	}{
		{
			name: "healthy", failures: "none.json", set: "pr-exec", wantCode: 0, wantStatus: "pass",
			wantReruns: []verify.Rerun{}, wantRows: map[string]int{"agent_direct": 9, "ghx": 9},
			wantFailing: []string{}, wantSeeded: true, wantSummary: true,
		},
		{
			name: "flaky scenario passes on its rerun", failures: "flaky.json", set: "pr-exec", wantCode: 0, wantStatus: "pass",
			wantReruns:  []verify.Rerun{{Attempt: 1, ScenarioIDs: []string{"pr-branch-update-001"}, Result: "pass"}},
			wantRows:    map[string]int{"agent_direct": 9, "ghx": 9},
			wantFailing: []string{}, wantSeeded: true, wantSummary: true,
		},
		{
			name: "always failing scenario is terminal after two reruns", failures: "always-fail.json", set: "pr-exec",
			wantCode: 1, wantStatus: "terminal_fail",
			wantReruns: []verify.Rerun{
				{Attempt: 1, ScenarioIDs: []string{"pr-assignees-update-001", "pr-merge-execute-001"}, Result: "fail"},
				{Attempt: 2, ScenarioIDs: []string{"pr-merge-execute-001"}, Result: "fail"},
			},
			wantRows:    map[string]int{"agent_direct": 9, "ghx": 9},
			wantFailing: []string{"pr-merge-execute-001"},
			// Diagnostics point into the attempt that judged the row: its
			// file is kept as the benchmark wrote it.
			wantStderr: []string{"set pr-exec:", "/attempt-2/agent_direct-suite.jsonl:1: agent_direct row: scenario pr-merge-execute-001 (iteration 1): output_valid: expected true, got false"},
			wantSeeded: true, wantSummary: true,
		},
		{
			name: "a mode with zero rows is terminal at once", failures: "zero-rows.json", set: "pr-exec",
			wantCode: 1, wantStatus: "terminal_fail", wantReruns: []verify.Rerun{},
			wantRows:   map[string]int{"agent_direct": 9, "ghx": 0},
			wantStderr: []string{"ghx wrote zero rows"}, wantSeeded: true,
		},
		{
			name: "malformed row is located and terminal", failures: "malformed.json", set: "pr-exec",
			wantCode: 1, wantStatus: "terminal_fail",
			wantReruns: []verify.Rerun{
				{Attempt: 1, ScenarioIDs: []string{"pr-review-submit-comment-001"}, Result: "fail"},
				{Attempt: 2, ScenarioIDs: []string{"pr-review-submit-comment-001"}, Result: "fail"},
			},
			wantStderr: []string{"/attempt-2/agent_direct-suite.jsonl:1: agent_direct row: scenario (no scenario_id): row: expected an object key, got null",
				"scenario pr-review-submit-comment-001 (iteration 1): row: expected one row for this scenario and iteration, got none",
				// The report refuses modes that cover different scenarios;
				// that is recorded, and no stale summary is left behind.
				"report: Latest benchmark files are not comparable"},
			wantSeeded: true, wantSummary: false,
		},
		{
			// The crash leaves a truncated line in attempt 0; the rerun
			// supplies every row the crash left out, so the fragment is
			// superseded and the set passes. attempt-0's file still holds it.
			name: "crash: missing scenarios rerun, the truncated line does not outlive the rerun", failures: "crash.json", set: "pr-exec",
			wantCode: 0, wantStatus: "pass",
			wantReruns: []verify.Rerun{{Attempt: 1, ScenarioIDs: []string{"pr-checks-rerun-all-001", "pr-reviewers-request-001",
				"pr-assignees-update-001", "pr-branch-update-001", "pr-merge-execute-001"}, Result: "pass"}},
			wantRows:    map[string]int{"agent_direct": 9, "ghx": 9},
			wantFailing: []string{},
			wantStderr:  []string{"benchmark agent_direct exited 3", "benchsim: simulated crash"},
			wantSeeded:  true, wantSummary: true,
		},
		{
			// verify_release on gpt-5.3-codex needs two samples per
			// scenario; one repetition fails the gate while every row
			// passes. The gate is recorded and does not decide the set.
			name: "failing gate with passing rows still passes", failures: "none.json", set: "ci-log-analysis",
			extra:    []string{"--model", "gpt-5.3-codex", "--gate-profile", "verify_release"},
			wantCode: 0, wantStatus: "pass", wantReruns: []verify.Rerun{}, wantFailing: []string{},
			wantStderr: []string{"gate verify_release FAIL (recorded; row validation decides the set)"}, wantSummary: true,
			wantGateOK: new(bool),
		},
		{
			name: "read-only set uses the shared manifest and is not seeded", failures: "none.json", set: "ci-diagnostics",
			wantCode: 0, wantStatus: "pass", wantReruns: []verify.Rerun{},
			wantRows: map[string]int{"agent_direct": 4, "ghx": 4}, wantFailing: []string{}, wantSummary: true,
		},
		{
			name: "duplicate scenario ids are de-duplicated after normalisation", failures: "none.json", set: "pr-exec",
			extra:    []string{"--scenario-id", "pr-view-001"},
			wantCode: 2, wantStatus: "fail", wantStderr: []string{`scenario id "pr-view-001" is not in set "pr-exec"`},
		},
		{
			name: "rerun by scenario id", failures: "none.json", set: "pr-exec",
			extra:    []string{"--scenario-id", "pr-branch-update-001", "--scenario-id", " PR-BRANCH-UPDATE-001 ", "--scenario-id", "pr-merge-execute-001", "--repetitions", "2"},
			wantCode: 0, wantStatus: "pass", wantReruns: []verify.Rerun{},
			wantRows: map[string]int{"agent_direct": 4, "ghx": 4}, wantFailing: []string{}, wantSeeded: true, wantSummary: true,
		},
		{
			name: "unknown set", failures: "none.json", set: "no-such-set",
			wantCode: 2, wantStatus: "fail", wantStderr: []string{`unknown scenario set "no-such-set"`},
		},
		{
			name: "bad scenario id characters", failures: "none.json", set: "pr-exec", extra: []string{"--scenario-id", "../etc/passwd"},
			wantCode: 2, wantStatus: "fail", wantStderr: []string{`scenario id "../etc/passwd": expected lower-case words`},
		},
		{
			name: "missing scenario-sets.json", failures: "none.json", set: "pr-exec",
			overrides: map[string]any{"scenario_sets": "no-such-file.json"},
			wantCode:  2, wantStatus: "fail", wantStderr: []string{"scenario sets: open", "no-such-file.json: no such file or directory"},
		},
		{
			// A run that cannot start is bad setup: exit 2 before anything
			// is written, never a tracking.json with a "fail" no row caused.
			name: "benchmark command not found", failures: "none.json", set: "ci-log-analysis",
			overrides: map[string]any{"benchmark": []string{"no-such-benchmark-cli", "{mode}", "{output_jsonl}", "{selector}"}},
			wantCode:  2, wantStderr: []string{`the benchmark command cannot start: exec: "no-such-benchmark-cli": executable file not found in $PATH; install it or put it on PATH`},
		},
		{
			name: "fixtures command not found", failures: "none.json", set: "pr-exec",
			overrides: map[string]any{"fixtures": []string{"./no-such-fixtures-cli", "{action}", "{seed_id}", "--out", "{out}"}},
			wantCode:  2, wantStderr: []string{`the fixtures command cannot start: exec: "`, `no-such-fixtures-cli": stat `},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, tc.failures, tc.overrides)
			code, stdout, stderr := f.run(f.setArgs(tc.set, tc.extra...)...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, tc.wantCode, stderr)
			}
			for _, s := range tc.wantStderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			out := filepath.Join(f.dir, "out", tc.set)
			if tc.wantCode == 2 {
				// Broken setup is refused before anything is written.
				if _, err := os.Stat(out); err == nil {
					t.Errorf("exit 2 left the set folder %s behind", out)
				}
				return
			}
			tr := readTracking(t, filepath.Join(out, "tracking.json"))
			// Every list of tracking.json is a JSON array, also when the
			// set stopped before anything ran.
			var raw map[string]json.RawMessage
			if data, err := os.ReadFile(filepath.Join(out, "tracking.json")); err != nil || json.Unmarshal(data, &raw) != nil {
				t.Fatalf("tracking.json: %v", err)
			}
			for _, k := range []string{"resolved_scenarios", "failing_scenarios", "failures", "reruns", "commands"} {
				if v := strings.TrimSpace(string(raw[k])); !strings.HasPrefix(v, "[") {
					t.Errorf("tracking.json %s = %s, want an array", k, v)
				}
			}
			if strings.TrimSpace(stdout) != filepath.Join(out, "tracking.json") {
				t.Errorf("stdout %q, want the tracking path", stdout)
			}
			if tr.FinalStatus != tc.wantStatus || tr.State != "done" {
				t.Errorf("final_status %q state %q, want %q done (error %q)", tr.FinalStatus, tr.State, tc.wantStatus, tr.Error)
			}
			if tc.wantReruns != nil {
				if len(tr.Reruns) != len(tc.wantReruns) {
					t.Fatalf("reruns %+v, want %+v", tr.Reruns, tc.wantReruns)
				}
				for i, r := range tc.wantReruns {
					got := tr.Reruns[i]
					if got.Attempt != r.Attempt || got.Result != r.Result || (r.ScenarioIDs != nil && strings.Join(got.ScenarioIDs, ",") != strings.Join(r.ScenarioIDs, ",")) {
						t.Errorf("rerun %d = %+v, want %+v", i, got, r)
					}
				}
			}
			for mode, n := range tc.wantRows {
				if tr.RowsActual[mode] != n {
					t.Errorf("rows_actual[%s] = %d, want %d", mode, tr.RowsActual[mode], n)
				}
				if n > 0 {
					if got := countLines(t, filepath.Join(out, mode+"-suite.jsonl")); got != n {
						t.Errorf("%s-suite.jsonl holds %d rows, want %d", mode, got, n)
					}
				}
			}
			if tc.wantFailing != nil && strings.Join(tr.FailingScenarios, ",") != strings.Join(tc.wantFailing, ",") {
				t.Errorf("failing_scenarios %q, want %q", tr.FailingScenarios, tc.wantFailing)
			}
			seeded := false
			for _, c := range tr.Commands {
				if c.Step == "seed" {
					seeded = true
				}
			}
			if tc.wantCode != 2 && seeded != tc.wantSeeded {
				t.Errorf("seeded = %v, want %v (commands %+v)", seeded, tc.wantSeeded, tr.Commands)
			}
			if tc.wantCode != 2 && !tc.wantSeeded && tr.FixtureManifest != "" && tr.FixtureManifest != f.manifest {
				t.Errorf("read-only set used manifest %s, want the shared %s", tr.FixtureManifest, f.manifest)
			}
			_, err := os.Stat(filepath.Join(out, "latest-summary.json"))
			if hasSummary := err == nil; hasSummary != tc.wantSummary {
				t.Errorf("latest-summary.json present = %v, want %v (gate %+v)", hasSummary, tc.wantSummary, tr.Gate)
			}
			if tc.wantGateOK != nil && tr.Gate.Passed != *tc.wantGateOK {
				t.Errorf("gate passed = %v, want %v", tr.Gate.Passed, *tc.wantGateOK)
			}
			if tc.wantSummary && (!tr.Gate.Ran || tr.Gate.SummaryMD == "") {
				t.Errorf("gate not recorded: %+v", tr.Gate)
			}
		})
	}
}

// TestSetRowsExpectedCountsUniqueIDs checks the seed's rule for reruns:
// rows_expected is the number of unique IDs after normalisation times
// the repetitions, and resolved_scenarios is persisted in order.
func TestSetRowsExpectedCountsUniqueIDs(t *testing.T) {
	f := newFixture(t, "none.json", nil)
	code, _, stderr := f.run(f.setArgs("pr-exec", "--scenario-id", "pr-branch-update-001", "--scenario-id", "PR-BRANCH-UPDATE-001",
		"--scenario-id", "pr-merge-execute-001", "--repetitions", "3")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	tr := readTracking(t, filepath.Join(f.dir, "out", "pr-exec", "tracking.json"))
	if got := strings.Join(tr.ResolvedScenarios, ","); got != "pr-branch-update-001,pr-merge-execute-001" {
		t.Errorf("resolved_scenarios = %s", got)
	}
	if tr.RowsExpected["agent_direct"] != 6 || tr.RowsExpected["ghx"] != 6 || tr.RowsActual["ghx"] != 6 {
		t.Errorf("rows_expected %v rows_actual %v, want 6 each", tr.RowsExpected, tr.RowsActual)
	}
	if tr.Checks.Success.Pass != 12 || tr.Checks.Success.Fail != 0 || tr.Checks.ErrorNull.Pass != 12 {
		t.Errorf("checks %v", tr.Checks)
	}
}

// TestSetRerunRegeneratesSummaries checks that after reruns the summary
// describes the merged final rows (all 9 scenarios), not the rerun's
// subset.
func TestSetRerunRegeneratesSummaries(t *testing.T) {
	f := newFixture(t, "flaky.json", nil)
	if code, _, stderr := f.run(f.setArgs("pr-exec")...); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(f.dir, "out", "pr-exec", "latest-summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Modes map[string]struct {
			Runs int `json:"runs"`
		} `json:"modes"`
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"agent_direct", "ghx"} {
		if sum.Modes[mode].Runs != 9 {
			t.Errorf("summary %s runs = %d, want 9 (the merged rows, not the rerun's subset)", mode, sum.Modes[mode].Runs)
		}
	}
	var rows int
	for _, mode := range []string{"agent_direct", "ghx"} {
		rows += countLines(t, filepath.Join(f.dir, "out", "pr-exec", mode+"-suite.jsonl"))
	}
	if rows != 18 {
		t.Errorf("merged suites hold %d rows, want 18", rows)
	}
}

// TestSetTimeoutKillsHungBenchmark runs a benchmark that never ends with
// a 1 s timeout: the child is killed as a group and the set ends with
// tracking.json.
func TestSetTimeoutKillsHungBenchmark(t *testing.T) {
	f := newFixture(t, "hang.json", map[string]any{"grace": "500ms"})
	start := time.Now()
	code, _, stderr := f.run(f.setArgs("pr-exec", "--benchmark-timeout", "1s")...)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v", d)
	}
	tr := readTracking(t, filepath.Join(f.dir, "out", "pr-exec", "tracking.json"))
	if tr.FinalStatus != verify.StatusTerminalFail {
		t.Errorf("final_status %s, want terminal_fail", tr.FinalStatus)
	}
	timedOut := false
	for _, c := range tr.Commands {
		if c.Step == "attempt-0-ghx" && c.TimedOut {
			timedOut = true
		}
	}
	if !timedOut {
		t.Errorf("ghx command not recorded as timed out: %+v", tr.Commands)
	}
	assertHungChildGone(t, filepath.Join(f.dir, "out", "pr-exec"))
}

var hangPID = regexp.MustCompile(`hanging pid=(\d+)`)

// assertHungChildGone finds the pid the hanging simulator logged and
// checks that no such process is left.
func assertHungChildGone(t *testing.T, out string) {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(out, "_run", "*", "logs", "attempt-0-ghx.log"))
	if len(logs) != 1 {
		t.Fatalf("ghx log: %v", logs)
	}
	data, _ := os.ReadFile(logs[0])
	m := hangPID.FindSubmatch(data)
	if m == nil {
		t.Fatalf("no pid in %s:\n%s", logs[0], data)
	}
	pid, _ := strconv.Atoi(string(m[1]))
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("hung benchmark pid %d is still alive", pid)
	}
}

// TestSetSIGTERM stops benchgate while the benchmark hangs: the children
// are killed and tracking.json still says fail.
func TestSetSIGTERM(t *testing.T) {
	f := newFixture(t, "hang.json", map[string]any{"benchmark_timeout": "10m", "grace": "1s"})
	cmd := f.command(f.setArgs("pr-exec")...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(f.dir, "out", "pr-exec")
	deadline := time.Now().Add(30 * time.Second)
	for {
		// The modes run side by side: wait until ghx hangs and agent_direct
		// has written all its rows, whatever the machine's load.
		logs, _ := filepath.Glob(filepath.Join(out, "_run", "*", "logs", "attempt-0-ghx.log"))
		files, _ := filepath.Glob(filepath.Join(out, "_run", "*", "attempt-0", "agent_direct-suite.jsonl"))
		var rows []byte
		if len(files) == 1 {
			rows, _ = os.ReadFile(files[0])
		}
		if len(logs) == 1 && strings.Count(string(rows), "\n") == 9 {
			if data, _ := os.ReadFile(logs[0]); hangPID.Match(data) {
				break
			}
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("benchmark never started hanging\n%s", errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("benchgate did not exit after SIGTERM")
	}
	if cmd.ProcessState.ExitCode() != 1 {
		t.Errorf("exit %d, want 1\n%s", cmd.ProcessState.ExitCode(), errb.String())
	}
	tr := readTracking(t, filepath.Join(out, "tracking.json"))
	if tr.FinalStatus != verify.StatusFail || tr.State != "done" || !strings.Contains(tr.Error, "stopped") {
		t.Errorf("tracking: status %s state %s error %q, want fail/done/stopped", tr.FinalStatus, tr.State, tr.Error)
	}
	if tr.RowsActual["agent_direct"] != 9 {
		t.Errorf("rows_actual %v: the finished mode's rows must still be counted", tr.RowsActual)
	}
	assertHungChildGone(t, out)
}

// TestSetUsage covers flag errors that stop before any set folder exists.
func TestSetUsage(t *testing.T) {
	f := newFixture(t, "none.json", nil)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"set", "--provider", "openai"}, "--set is required"},
		{[]string{"set", "--set", "pr-exec", "--config", f.config}, "--provider is required"},
		{[]string{"set", "--set", "../x", "--provider", "openai"}, `set "../x": expected lower-case`},
		{[]string{"set", "--set", "pr-exec", "--provider", "openai", "--repetitions", "0", "--config", f.config}, "--repetitions: expected an integer >= 1"},
		{[]string{"set", "--set", "pr-exec", "--provider", "openai", "--config", filepath.Join(f.dir, "missing.json")}, "bench config"},
		{[]string{"set", "--set", "--provider", "openai", "--config", f.config}, "Missing value for --set"},
		{[]string{"set", "--set", "pr-exec", "--provider", "openai", "--config", f.config, "--out-dir", "--model", "m"}, "Missing value for --out-dir"},
		{[]string{"set", "--set", "pr-exec", "--provider", "openai", "--config", f.config, "--scenario-id="}, "Missing value for --scenario-id"},
		{[]string{"ordered", "--provider", "--model", "m", "--config", f.config}, "Missing value for --provider"},
	}
	for _, tc := range tests {
		code, _, stderr := f.run(tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d stderr %q, want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestSetParallelSetsDoNotCollide runs two sets at once under one
// run-level folder: each has its own run ID in every intermediate path
// and both pass.
func TestSetParallelSetsDoNotCollide(t *testing.T) {
	f := newFixture(t, "flaky.json", nil)
	base := filepath.Join(f.dir, "run")
	sets := []string{"pr-exec", "issues"}
	errs := make(chan string, len(sets))
	for _, s := range sets {
		go func() {
			cmd := f.command("set", "--config", f.config, "--set", s, "--provider", "openai",
				"--fixture-manifest", f.manifest, "--out-dir", filepath.Join(base, s))
			out, err := cmd.CombinedOutput()
			if err != nil {
				errs <- fmt.Sprintf("%s: %v\n%s", s, err, out)
				return
			}
			errs <- ""
		}()
	}
	for range sets {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
	a := readTracking(t, filepath.Join(base, "pr-exec", "tracking.json"))
	b := readTracking(t, filepath.Join(base, "issues", "tracking.json"))
	if a.RunID == b.RunID || a.SeedID == b.SeedID || a.FixtureManifest == b.FixtureManifest {
		t.Errorf("shared identity: %s/%s, %s/%s", a.RunID, b.RunID, a.FixtureManifest, b.FixtureManifest)
	}
	for _, tr := range []verify.Tracking{a, b} {
		if tr.FinalStatus != verify.StatusPass {
			t.Errorf("%s: %s", tr.Set, tr.FinalStatus)
		}
		for _, c := range tr.Commands {
			if !strings.Contains(c.Log, tr.RunID) {
				t.Errorf("%s: log path %s lacks the run ID %s", tr.Set, c.Log, tr.RunID)
			}
		}
	}
}

// TestTrackingHasSeedFields checks that tracking.json carries every field
// of the seed's example, with the same JSON types, in a real run.
func TestTrackingHasSeedFields(t *testing.T) {
	f := newFixture(t, "none.json", nil)
	if code, _, stderr := f.run(f.setArgs("ci-log-analysis")...); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var want, got any
	for path, v := range map[string]*any{
		filepath.Join(repoRoot(), "testdata", "bench", "tracking-example.json"): &want,
		filepath.Join(f.dir, "out", "ci-log-analysis", "tracking.json"):         &got,
	} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	var walk func(path string, w, g any)
	walk = func(path string, w, g any) {
		switch wv := w.(type) {
		case map[string]any:
			gv, ok := g.(map[string]any)
			if !ok {
				t.Errorf("%s: got %T, want an object", path, g)
				return
			}
			for k, sub := range wv {
				if _, ok := gv[k]; !ok {
					t.Errorf("%s.%s: missing", path, k)
					continue
				}
				walk(path+"."+k, sub, gv[k])
			}
		case []any:
			if _, ok := g.([]any); !ok {
				t.Errorf("%s: got %T, want an array", path, g)
			}
		default:
			if fmt.Sprintf("%T", w) != fmt.Sprintf("%T", g) {
				t.Errorf("%s: got %T, want %T", path, g, w)
			}
		}
	}
	walk("tracking", want, got)
}

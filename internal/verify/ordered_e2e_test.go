package verify_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/bench"
	"github.com/benchgate/benchgate/internal/verify"
)

func readConsolidated(t *testing.T, path string) verify.Consolidated {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("consolidated summary: %v", err)
	}
	var c verify.Consolidated
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOrderedEndToEnd(t *testing.T) {
	tests := []struct {
		name          string
		failures      string
		extra         []string
		noManifest    bool
		wantCode      int
		wantStatus    string
		wantStatuses  []string // per ordered set
		wantCleanup   bool
		wantConfirmed bool
		wantStdout    []string
		wantStderr    []string
	}{
		{
			name: "all sets pass, cleanup, confirmation printed", failures: "flaky.json",
			wantCode: 0, wantStatus: "pass",
			wantStatuses: []string{"pass", "pass", "pass", "pass", "pass", "pass", "pass", "pass", "pass"},
			wantCleanup:  true,
			wantStdout:   []string{"consolidated-summary.json", "Ready to run:\n  cd " + filepath.Join(repoRoot(), "examples") + " && BENCH_PROVIDER_ID=openai BENCH_MODEL_ID=gpt-5.3-codex /", "/benchsim confirm verify_pr\n", "/benchsim confirm verify_release\n"},
		},
		{
			name: "confirmation run when asked", failures: "none.json", extra: []string{"--confirm"},
			wantCode: 0, wantStatus: "pass",
			wantStatuses: []string{"pass", "pass", "pass", "pass", "pass", "pass", "pass", "pass", "pass"},
			wantCleanup:  true, wantConfirmed: true,
			wantStdout: []string{"against the same reference:\n  verify_pr: ok (exit 0, log: ", "/logs/confirm-0.log)\n  verify_release: ok (exit 0, log: ", "/logs/confirm-1.log)\n"},
		},
		{
			name: "stops at the first failing set, no cleanup", failures: "issues-fail.json",
			wantCode: 1, wantStatus: "terminal_fail",
			wantStatuses: []string{"pass", "pass", "terminal_fail", "not_run", "not_run", "not_run", "not_run", "not_run", "not_run"},
		},
		{
			name: "cleanup after a terminal stop when asked", failures: "issues-fail.json", extra: []string{"--cleanup-on-failure"},
			wantCode: 1, wantStatus: "terminal_fail",
			wantStatuses: []string{"pass", "pass", "terminal_fail", "not_run", "not_run", "not_run", "not_run", "not_run", "not_run"},
			wantCleanup:  true,
		},
		{
			name: "preflight failure runs no set", failures: "none.json", noManifest: true,
			wantCode: 1, wantStatus: "fail", wantStderr: []string{"fixtures status exited 1", "benchsim: Fixture manifest not found"},
			wantStatuses: []string{"not_run", "not_run", "not_run", "not_run", "not_run", "not_run", "not_run", "not_run", "not_run"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, tc.failures, nil)
			if tc.noManifest {
				os.Remove(f.manifest)
			}
			base := filepath.Join(f.dir, "run")
			args := append([]string{"ordered", "--config", f.config, "--provider", "openai", "--fixture-manifest", f.manifest, "--out-dir", base}, tc.extra...)
			code, stdout, stderr := f.run(args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tc.wantCode, stderr)
			}
			for _, s := range tc.wantStderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			for _, s := range tc.wantStdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			c := readConsolidated(t, filepath.Join(base, "consolidated-summary.json"))
			if c.Status != tc.wantStatus {
				t.Errorf("status %s, want %s (error %q)", c.Status, tc.wantStatus, c.Error)
			}
			if len(c.Sets) != len(bench.OrderedSets) {
				t.Fatalf("%d sets in the summary", len(c.Sets))
			}
			for i, s := range c.Sets {
				if s.Set != bench.OrderedSets[i] || s.Status != tc.wantStatuses[i] {
					t.Errorf("set %d = %s %s, want %s %s", i+1, s.Set, s.Status, bench.OrderedSets[i], tc.wantStatuses[i])
				}
				_, err := os.Stat(filepath.Join(base, s.Set, "tracking.json"))
				if (err == nil) != (s.Status != "not_run") {
					t.Errorf("set %s: tracking.json present = %v with status %s", s.Set, err == nil, s.Status)
				}
			}
			// The preflight ran exactly once, before set 1, and no set
			// repeated it.
			preflights := 0
			for _, cmd := range c.Commands {
				if cmd.Step == "preflight" {
					preflights++
				}
			}
			for _, s := range c.Sets {
				if s.Status == "not_run" {
					continue
				}
				tr := readTracking(t, s.Tracking)
				for _, cmd := range tr.Commands {
					if cmd.Step == "preflight" {
						preflights++
					}
				}
				if (tr.SeedID != "") != (bench.PolicyFor(s.Set) == bench.WithSeed) {
					t.Errorf("set %s: seed_id %q does not follow the seed policy", s.Set, tr.SeedID)
				}
			}
			if preflights != 1 {
				t.Errorf("preflight ran %d times, want 1", preflights)
			}
			if (c.Cleanup != nil) != tc.wantCleanup {
				t.Errorf("cleanup ran = %v, want %v", c.Cleanup != nil, tc.wantCleanup)
			}
			if tc.wantCleanup {
				if _, err := os.Stat(f.manifest); !os.IsNotExist(err) {
					t.Errorf("shared manifest still present after cleanup: %v", err)
				}
			}
			// The ready-to-run lines run as printed, pasted into a shell
			// whose PATH lacks the simulator.
			if _, ready, ok := strings.Cut(stdout, "Ready to run:\n"); ok {
				for _, line := range strings.Split(strings.TrimSpace(ready), "\n") {
					paste := exec.Command("bash", "-c", strings.TrimSpace(line))
					paste.Env = []string{"PATH=/usr/bin:/bin"}
					out, err := paste.CombinedOutput()
					if err != nil || !strings.Contains(string(out), "on openai/gpt-5.3-codex: ok") {
						t.Errorf("pasted %q: %v\n%s", line, err, out)
					}
				}
			} else if !tc.wantConfirmed && tc.wantStatus == "pass" {
				t.Errorf("no ready-to-run lines:\n%s", stdout)
			}
			confirmed := 0
			for _, conf := range c.Confirmation {
				if conf.Ran && conf.ExitCode != nil && *conf.ExitCode == 0 {
					confirmed++
				}
			}
			if tc.wantConfirmed && confirmed != 2 {
				t.Errorf("confirmation: %+v, want both run", c.Confirmation)
			}
			if !tc.wantConfirmed && confirmed != 0 {
				t.Errorf("confirmation ran without --confirm: %+v", c.Confirmation)
			}
			md, err := os.ReadFile(filepath.Join(base, "consolidated-summary.md"))
			if err != nil || !strings.Contains(string(md), "| 1 | `pr-exec` |") {
				t.Errorf("consolidated-summary.md: %v\n%s", err, md)
			}
		})
	}
}

// TestOrderedIgnoresEarlierRunsSetFolders reruns ordered into the folder
// of an earlier, all-green run: the new run stops at issues, so the later
// sets' folders are the earlier run's and must not count as passing now.
func TestOrderedIgnoresEarlierRunsSetFolders(t *testing.T) {
	green := newFixture(t, "none.json", nil)
	base := filepath.Join(green.dir, "run")
	if code, _, stderr := green.run("ordered", "--config", green.config, "--provider", "openai", "--fixture-manifest", green.manifest, "--out-dir", base); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	red := newFixture(t, "issues-fail.json", nil)
	if code, _, stderr := red.run("ordered", "--config", red.config, "--provider", "openai", "--fixture-manifest", red.manifest, "--out-dir", base); code != 1 {
		t.Fatalf("second run: exit %d\n%s", code, stderr)
	}
	c := readConsolidated(t, filepath.Join(base, "consolidated-summary.json"))
	want := []string{"pass", "pass", "terminal_fail", "not_run", "not_run", "not_run", "not_run", "not_run", "not_run"}
	for i, s := range c.Sets {
		if s.Status != want[i] {
			t.Errorf("set %s = %s, want %s", s.Set, s.Status, want[i])
		}
	}
	if c.Totals["sets_pass"] != 2 || c.Totals["rows_ghx"] != 9+4+15 {
		t.Errorf("totals %v count an earlier run's sets", c.Totals)
	}
	md, _ := os.ReadFile(filepath.Join(base, "consolidated-summary.md"))
	if !strings.Contains(string(md), "| 4 | `release-delivery` | with_seed | not_run |") {
		t.Errorf("consolidated-summary.md shows an earlier run's set:\n%s", md)
	}
}

func TestOrderedMissingSet(t *testing.T) {
	f := newFixture(t, "none.json", nil)
	sets := filepath.Join(f.dir, "sets.json")
	if err := os.WriteFile(sets, []byte(`{"pr-exec":["pr-view-001"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f2 := newFixture(t, "none.json", map[string]any{"scenario_sets": sets})
	code, _, stderr := f2.run("ordered", "--config", f2.config, "--provider", "openai", "--fixture-manifest", f2.manifest, "--out-dir", filepath.Join(f2.dir, "run"))
	if code != 2 || !strings.Contains(stderr, "missing ordered set(s) pr-thread-mutations, issues") {
		t.Errorf("exit %d stderr %q", code, stderr)
	}
}

// TestOrderedSIGTERM stops ordered while the first set's benchmark hangs:
// the set's tracking.json says fail, the consolidated summary is written
// and no later set runs.
func TestOrderedSIGTERM(t *testing.T) {
	f := newFixture(t, "hang.json", map[string]any{"benchmark_timeout": "10m", "grace": "1s"})
	base := filepath.Join(f.dir, "run")
	cmd := f.command("ordered", "--config", f.config, "--provider", "openai", "--fixture-manifest", f.manifest, "--out-dir", base)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		logs, _ := filepath.Glob(filepath.Join(base, "pr-exec", "_run", "*", "logs", "attempt-0-ghx.log"))
		if len(logs) == 1 {
			if data, _ := os.ReadFile(logs[0]); hangPID.Match(data) {
				break
			}
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("benchmark never started hanging")
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("benchgate did not exit after SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	c := readConsolidated(t, filepath.Join(base, "consolidated-summary.json"))
	if c.Status != "fail" || c.StoppedAt != "pr-exec" || c.Sets[0].Status != "fail" || c.Sets[1].Status != "not_run" {
		t.Errorf("consolidated: status %s stopped at %s sets %+v", c.Status, c.StoppedAt, c.Sets[:2])
	}
	assertHungChildGone(t, filepath.Join(base, "pr-exec"))
}

// TestOrderedNamesEveryFailingConfirmation runs two confirmation
// commands that both fail: the error names each of them, not the last.
func TestOrderedNamesEveryFailingConfirmation(t *testing.T) {
	f := newFixture(t, "none.json", map[string]any{"confirm": []map[string]any{
		{"name": "verify_pr", "argv": []string{"benchsim", "confirm", "no-such-profile"}},
		{"name": "verify_release", "argv": []string{"benchsim", "confirm", "verify_release"}, "env": []string{"BENCH_MODEL_ID=m"}},
		{"name": "verify_extra", "argv": []string{"sh", "-c", "exit 3"}},
	}})
	base := filepath.Join(f.dir, "run")
	code, _, stderr := f.run("ordered", "--config", f.config, "--provider", "openai", "--fixture-manifest", f.manifest, "--out-dir", base, "--confirm")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	c := readConsolidated(t, filepath.Join(base, "consolidated-summary.json"))
	for _, want := range []string{"verify_pr (exited 1", "verify_extra (exited 3"} {
		if !strings.Contains(c.Error, want) || !strings.Contains(stderr, want) {
			t.Errorf("error %q / stderr lacks %q", c.Error, want)
		}
	}
	if strings.Contains(c.Error, "verify_release") {
		t.Errorf("error %q names the confirmation that succeeded", c.Error)
	}
}

// TestOrderedCleanupFailure runs ordered with a fixture cleanup that
// fails after every set passed: the run does not pass, and says why.
func TestOrderedCleanupFailure(t *testing.T) {
	f := newFixture(t, "none.json", nil)
	f.chaos(rule{"behavior": "fixtures_fail", "action": "cleanup"})
	base := filepath.Join(f.dir, "run")
	code, stdout, stderr := f.run("ordered", "--config", f.config, "--provider", "openai", "--fixture-manifest", f.manifest, "--out-dir", base)
	if code != 1 || !strings.Contains(stderr, "fixture cleanup exited 1") {
		t.Fatalf("exit %d, want 1 and the cleanup named\n%s", code, stderr)
	}
	c := readConsolidated(t, filepath.Join(base, "consolidated-summary.json"))
	if c.Status != verify.StatusFail || !strings.Contains(c.Error, "fixture cleanup exited 1") || c.Cleanup == nil || c.Cleanup.ExitCode != 1 {
		t.Errorf("status %s error %q cleanup %+v", c.Status, c.Error, c.Cleanup)
	}
	for _, s := range c.Sets {
		if s.Status != verify.StatusPass {
			t.Errorf("set %s: %s", s.Set, s.Status)
		}
	}
	if strings.Contains(strings.ToLower(stdout), "ready to run") {
		t.Errorf("confirmation offered after a failed cleanup:\n%s", stdout)
	}
}

package verify_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/bench"
	"github.com/benchgate/benchgate/internal/verify"
)

// gatedBenchmark is a benchmark command that, for one set's whole-set
// run, waits until the file named by $BENCHSIM_GATE exists: the test holds a
// run inside that set for as long as it needs, whatever the machine's
// load, instead of guessing how long the run takes.
func gatedBenchmark(set string) []string {
	script := `case " $* " in *" --scenario-set ` + set + ` "*) while [ ! -e "$BENCHSIM_GATE" ]; do sleep 0.05; done;; esac; exec benchsim benchmark "$@"`
	return []string{"sh", "-c", script, "sh", "{mode}", "{repetitions}", "--provider", "{provider}", "--model", "{model}",
		"--output-jsonl", "{output_jsonl}", "{selector}"}
}

// waitLong waits for cond with a guard generous enough for a loaded
// machine.
func waitLong(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// holds reports whether the lock file of dir names pid as its holder.
func holds(dir string, pid int) bool {
	data, err := os.ReadFile(filepath.Join(dir, verify.LockFile))
	var h verify.Holder
	return err == nil && json.Unmarshal(data, &h) == nil && h.PID == pid
}

// setDone reports whether dir/<set>/tracking.json says the set ended.
func setDone(base, set string) bool {
	tr, err := verify.ReadTracking(filepath.Join(base, set, "tracking.json"))
	return err == nil && tr.State == "done"
}

// snapshot reads every file under dir, by path.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && info.Name() != verify.LockFile {
			files[p], _ = os.ReadFile(p)
		}
		return nil
	})
	return files
}

// TestOrderedRunFolderOwnership starts a second ordered run into the
// folder a first run owns: right after the first took it (the runs 0.4 s
// apart), after the first finished two sets (2.5 s apart), and in the
// default folder, which every run of a day and model shares. The second
// exits 2 at once, naming the first run and --out-dir, and touches
// nothing; the first run passes every set and writes its consolidated
// summary intact.
func TestOrderedRunFolderOwnership(t *testing.T) {
	tests := []struct {
		name string
		// defaultDir runs both without --out-dir, from a copy of the
		// benchmark directory.
		defaultDir bool
		// afterSets is how many sets the first run finishes before the
		// second starts; then the test also waits until the first run is
		// held inside set issues and checks that no file changed.
		afterSets int
		// alsoSet starts a set run into the first run's folder as well.
		alsoSet bool
	}{
		{name: "second starts as soon as the first owns the folder", alsoSet: true},
		{name: "second starts after the first finished two sets", afterSets: 2},
		{name: "both in the default folder", defaultDir: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			overrides := map[string]any{"benchmark": gatedBenchmark("issues")}
			var benchDir string
			if tc.defaultDir {
				benchDir = copyExamples(t)
				overrides["bench_dir"] = benchDir
			}
			f := newFixture(t, "none.json", overrides)
			gate := filepath.Join(f.dir, "gate")
			args := []string{"ordered", "--config", f.config, "--provider", "openai", "--fixture-manifest", f.manifest}
			base := filepath.Join(f.dir, "run")
			if !tc.defaultDir {
				args = append(args, "--out-dir", base)
			}
			first := f.command(args...)
			first.Env = append(first.Env, "BENCHSIM_GATE="+gate)
			var firstOut, firstErr bytes.Buffer
			first.Stdout, first.Stderr = &firstOut, &firstErr
			if err := first.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- first.Wait() }()
			defer func() {
				os.WriteFile(gate, nil, 0o644)
				select {
				case <-done:
				case <-time.After(3 * time.Minute):
					first.Process.Kill()
				}
			}()
			if tc.defaultDir {
				waitLong(t, "the first run to create the default folder", func() bool {
					m, _ := filepath.Glob(filepath.Join(benchDir, "reports", "verification-*-by-set"))
					if len(m) == 1 {
						base = m[0]
					}
					return len(m) == 1
				})
			}
			waitLong(t, "the first run to own its folder", func() bool { return holds(base, first.Process.Pid) })
			var before map[string][]byte
			if tc.afterSets > 0 {
				for _, set := range bench.OrderedSets[:tc.afterSets] {
					waitLong(t, "the first run to finish set "+set, func() bool { return setDone(base, set) })
				}
				// Both modes of issues started and wait for the gate: the
				// first run writes nothing until the test opens it.
				waitLong(t, "the first run to wait inside set issues", func() bool {
					logs, _ := filepath.Glob(filepath.Join(base, "issues", "_run", "*", "logs", "attempt-0-*.log"))
					return len(logs) == 2
				})
				before = snapshot(t, base)
				// While a set runs, tracking.json has no final status.
				var raw map[string]any
				if err := json.Unmarshal(before[filepath.Join(base, "issues", "tracking.json")], &raw); err != nil {
					t.Fatal(err)
				}
				if _, ok := raw["final_status"]; ok || raw["state"] != "running" {
					t.Errorf("running set: final_status %v state %v, want no final_status and running", raw["final_status"], raw["state"])
				}
			}

			second := f.command(args...)
			second.Env = append(second.Env, "BENCHSIM_GATE="+gate)
			var out, errb bytes.Buffer
			second.Stdout, second.Stderr = &out, &errb
			if err := second.Start(); err != nil {
				t.Fatal(err)
			}
			// A second run that waited for the folder would wait for the
			// gate: the guard stops it so the test fails instead of hanging.
			guard := time.AfterFunc(3*time.Minute, func() { second.Process.Kill() })
			second.Wait()
			guard.Stop()
			code := second.ProcessState.ExitCode()
			// The first run is still held inside set issues: the second
			// did not wait for it.
			if _, err := os.Stat(gate); err == nil {
				t.Fatal("gate opened early")
			}
			want := fmt.Sprintf("%s is in use by benchgate ordered (pid %d, started ", base, first.Process.Pid)
			if code != 2 || !strings.Contains(errb.String(), want) || !strings.Contains(errb.String(), "run beside it with --out-dir") {
				t.Errorf("second run: exit %d, stderr %q; want 2, %q and --out-dir", code, errb.String(), want)
			}
			if out.Len() != 0 {
				t.Errorf("second run printed %q", out.String())
			}
			if tc.alsoSet {
				code, _, stderr := f.run("set", "--config", f.config, "--set", "pr-exec", "--provider", "openai",
					"--fixture-manifest", f.manifest, "--out-dir", filepath.Join(base, "pr-exec"))
				if code != 2 || !strings.Contains(stderr, want) {
					t.Errorf("set into the owned folder: exit %d, stderr %q; want 2 and %q", code, stderr, want)
				}
			}
			if before != nil {
				after := snapshot(t, base)
				for p, data := range before {
					if !bytes.Equal(after[p], data) {
						t.Errorf("the refused runs changed %s", p)
					}
				}
				for p := range after {
					if _, ok := before[p]; !ok {
						t.Errorf("the refused runs wrote %s", p)
					}
				}
			}

			os.WriteFile(gate, nil, 0o644)
			if err := <-done; err != nil {
				t.Fatalf("first run: %v\n%s", err, firstErr.String())
			}
			done <- nil
			c := readConsolidated(t, filepath.Join(base, "consolidated-summary.json"))
			if c.Status != verify.StatusPass || !strings.Contains(errb.String(), "run "+c.RunID+")") {
				t.Errorf("consolidated status %s run %s; the refusal %q must name that run", c.Status, c.RunID, errb.String())
			}
			for _, s := range c.Sets {
				if s.Status != verify.StatusPass {
					t.Errorf("set %s: %s", s.Set, s.Status)
				}
				tr := readTracking(t, filepath.Join(base, s.Set, "tracking.json"))
				if runs, _ := os.ReadDir(filepath.Join(base, s.Set, "_run")); len(runs) != 1 || runs[0].Name() != tr.RunID {
					t.Errorf("set %s holds runs %v, want only %s", s.Set, runs, tr.RunID)
				}
				for _, mode := range []string{"agent_direct", "ghx"} {
					if n := countLines(t, filepath.Join(base, s.Set, mode+"-suite.jsonl")); n != tr.RowsExpected[mode] {
						t.Errorf("set %s %s: %d rows, want %d", s.Set, mode, n, tr.RowsExpected[mode])
					}
				}
			}
			runs, _ := os.ReadDir(filepath.Join(base, "_run"))
			if len(runs) != 1 || runs[0].Name() != c.RunID {
				t.Errorf("run folder holds runs %v, want only %s", runs, c.RunID)
			}
		})
	}
}

// TestOrderedRefusedWhileSetRuns starts ordered into a run folder in
// which a set of its own is running: ordered exits 2 naming the set run.
func TestOrderedRefusedWhileSetRuns(t *testing.T) {
	f := newFixture(t, "none.json", map[string]any{"benchmark": gatedBenchmark("issues")})
	gate := filepath.Join(f.dir, "gate")
	base := filepath.Join(f.dir, "run")
	set := f.command("set", "--config", f.config, "--set", "issues", "--provider", "openai",
		"--fixture-manifest", f.manifest, "--out-dir", filepath.Join(base, "issues"))
	set.Env = append(set.Env, "BENCHSIM_GATE="+gate)
	if err := set.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		os.WriteFile(gate, nil, 0o644)
		set.Wait()
	}()
	waitLong(t, "the set run to hold its folder", func() bool { return holds(filepath.Join(base, "issues"), set.Process.Pid) })
	code, _, stderr := f.run("ordered", "--config", f.config, "--provider", "openai", "--fixture-manifest", f.manifest, "--out-dir", base)
	want := fmt.Sprintf("%s is in use by benchgate set of set issues (pid %d, started ", base, set.Process.Pid)
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("ordered: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(base, "consolidated-summary.json")); err == nil {
		t.Error("the refused ordered run wrote a consolidated summary")
	}
}

// copyExamples copies the example benchmark directory's scenario data
// and config, so that a run's default folder (under the benchmark
// directory) is the test's own.
func copyExamples(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "bench")
	if out, err := exec.Command("cp", "-r", filepath.Join(repoRoot(), "examples"), dst).CombinedOutput(); err != nil {
		t.Fatalf("copy examples: %v\n%s", err, out)
	}
	os.RemoveAll(filepath.Join(dst, "reports"))
	return dst
}

// TestOrderedRunsStartedTogether starts two ordered runs into one folder
// at the same moment: whichever takes the folder first runs, the other
// exits 2 naming it, while the first is still held inside set issues.
func TestOrderedRunsStartedTogether(t *testing.T) {
	f := newFixture(t, "none.json", map[string]any{"benchmark": gatedBenchmark("issues")})
	gate := filepath.Join(f.dir, "gate")
	base := filepath.Join(f.dir, "run")
	type result struct {
		cmd    *exec.Cmd
		stderr *bytes.Buffer
		err    error
	}
	results := make(chan result, 2)
	var cmds []*exec.Cmd
	for range 2 {
		cmd := f.command("ordered", "--config", f.config, "--provider", "openai", "--fixture-manifest", f.manifest, "--out-dir", base)
		cmd.Env = append(cmd.Env, "BENCHSIM_GATE="+gate)
		errb := &bytes.Buffer{}
		cmd.Stderr = errb
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range cmds {
		go func() { results <- result{cmd, cmd.Stderr.(*bytes.Buffer), cmd.Wait()} }()
	}
	defer func() {
		os.WriteFile(gate, nil, 0o644)
		for _, cmd := range cmds {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
			}
		}
	}()
	var loser result
	select {
	case loser = <-results:
	case <-time.After(3 * time.Minute):
		t.Fatal("neither run ended while the gate was closed: one of them must have been refused")
	}
	winner := cmds[0]
	if loser.cmd == cmds[0] {
		winner = cmds[1]
	}
	want := fmt.Sprintf("%s is in use by benchgate ordered (pid %d, started ", base, winner.Process.Pid)
	if loser.cmd.ProcessState.ExitCode() != 2 || !strings.Contains(loser.stderr.String(), want) {
		t.Errorf("refused run: exit %d, stderr %q; want 2 and %q", loser.cmd.ProcessState.ExitCode(), loser.stderr.String(), want)
	}
	os.WriteFile(gate, nil, 0o644)
	w := <-results
	if w.err != nil {
		t.Fatalf("winning run: %v\n%s", w.err, w.stderr.String())
	}
	c := readConsolidated(t, filepath.Join(base, "consolidated-summary.json"))
	if c.Status != verify.StatusPass || !strings.Contains(loser.stderr.String(), "run "+c.RunID+")") {
		t.Errorf("consolidated status %s run %s; refusal %q", c.Status, c.RunID, loser.stderr.String())
	}
}

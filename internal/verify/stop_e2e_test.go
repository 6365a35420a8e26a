package verify_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/benchgate/benchgate/internal/verify"
)

// misbehaving is a world whose benchmark and fixtures commands are
// testdata/misbehave.sh with the given behaviours, at benchgate's default
// grace (5s, longer than the stop budget).
type misbehaving struct {
	*fixture
	work string // the script's folder: pids, go, detached.pid
}

func newMisbehaving(t *testing.T, how string, overrides map[string]any) *misbehaving {
	t.Helper()
	work := t.TempDir()
	if err := os.Symlink(bins["benchsim"], filepath.Join(work, "benchsim")); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(repoRoot(), "internal", "verify", "testdata", "misbehave.sh")
	cfg := map[string]any{
		"benchmark": []string{"sh", script, work, how, "benchmark", "{mode}", "{repetitions}", "--provider", "{provider}",
			"--model", "{model}", "--output-jsonl", "{output_jsonl}", "{selector}"},
		"fixtures":          []string{"sh", script, work, how, "fixtures", "{action}", "{seed_id}", "--out", "{out}"},
		"benchmark_timeout": "10m",
		"fixtures_timeout":  "10m",
		"grace":             "5s", // benchgate's default
	}
	for k, v := range overrides {
		cfg[k] = v
	}
	m := &misbehaving{fixture: newFixture(t, "none.json", cfg), work: work}
	t.Cleanup(func() {
		for _, pid := range m.pids() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return m
}

// pids are the processes the script and its children started so far.
func (m *misbehaving) pids() []int {
	data, _ := os.ReadFile(filepath.Join(m.work, "pids"))
	var out []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// assertNothingLeft checks that no process the misbehaving commands
// started is still running.
func (m *misbehaving) assertNothingLeft(t *testing.T) {
	t.Helper()
	for _, pid := range m.pids() {
		if alive(pid) {
			t.Errorf("process %d started by the benchmark or fixtures is still running after benchgate exited", pid)
		}
	}
}

// start starts benchgate with args and returns a function that waits for
// its exit and returns the code.
func (m *misbehaving) start(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, func() int) {
	t.Helper()
	cmd := m.command(args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	return cmd, &errb, func() int {
		waitFor(t, "benchgate to exit", func() bool {
			select {
			case <-done:
				return true
			default:
				return false
			}
		})
		return cmd.ProcessState.ExitCode()
	}
}

// startLingering starts benchgate with args and waits until the
// benchmark of the set folder out wrote both modes' rows and lingers.
func (m *misbehaving) startLingering(t *testing.T, out string, args ...string) (*exec.Cmd, *bytes.Buffer, func() int) {
	t.Helper()
	cmd, errb, wait := m.start(t, args...)
	waitFor(t, "the benchmark to write both modes' rows and linger", func() bool {
		return rowsWritten(out, "agent_direct") == 9 && rowsWritten(out, "ghx") == 9 && len(m.pids()) >= 6
	})
	return cmd, errb, wait
}

// signalTwice sends first to benchgate, waits until its stderr holds
// received, and sends second, while benchgate waits for the grace.
func signalTwice(t *testing.T, cmd *exec.Cmd, errb *bytes.Buffer, first, second os.Signal, received string) {
	t.Helper()
	cmd.Process.Signal(first)
	waitFor(t, "benchgate to take the first signal", func() bool {
		return strings.Contains(errb.String(), received)
	})
	cmd.Process.Signal(second)
}

// rowsWritten counts the lines of an attempt's suite file of mode under
// a set folder.
func rowsWritten(out, mode string) int {
	files, _ := filepath.Glob(filepath.Join(out, "_run", "*", "attempt-0", mode+"-suite.jsonl"))
	if len(files) != 1 {
		return 0
	}
	data, _ := os.ReadFile(files[0])
	return bytes.Count(data, []byte("\n"))
}

// assertStoppedWithin checks what a SIGTERM within the stop budget must
// leave: benchgate exited by itself (1, not the 143 of the hard exit),
// named the signal, and every process the commands started is gone.
func (m *misbehaving) assertStoppedWithin(t *testing.T, code int, stderr string) {
	t.Helper()
	if code != 1 || strings.Contains(stderr, "still running") {
		t.Errorf("exit %d, want 1 without the hard exit\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "benchgate received SIGTERM") || strings.Contains(stderr, "context canceled") {
		t.Errorf("stderr does not name the signal in words:\n%s", stderr)
	}
	m.assertNothingLeft(t)
}

// TestSetStopBudgetBenchmarkIgnoresSIGTERM: the benchmark writes its rows
// and stays, deaf to SIGTERM, with the default grace (5s) longer than
// benchgate's stop budget. SIGTERM to benchgate: it kills the group itself
// within the budget, counts the rows written, writes tracking.json with a
// final status and exits on its own.
func TestSetStopBudgetBenchmarkIgnoresSIGTERM(t *testing.T) {
	m := newMisbehaving(t, "linger", nil)
	out := filepath.Join(m.dir, "out", "pr-exec")
	cmd, errb, wait := m.startLingering(t, out, m.setArgs("pr-exec")...)
	cmd.Process.Signal(syscall.SIGTERM)
	code := wait()
	m.assertStoppedWithin(t, code, errb.String())
	tr := readTracking(t, filepath.Join(out, "tracking.json"))
	// The rows are read within the stop budget, a fixed time a runner
	// gives: on a machine too busy to read 18 rows in it they may not
	// count, and then tracking.json must say that the budget cut the read.
	budgetCut := strings.Contains(tr.Error, "-suite.jsonl: reading stopped: the stop budget after SIGTERM ran out")
	if tr.State != "done" || tr.FinalStatus != verify.StatusFail || !budgetCut && !strings.Contains(tr.Error, "stopped during attempt 0: benchgate received SIGTERM") {
		t.Errorf("tracking: state %s final_status %q error %q", tr.State, tr.FinalStatus, tr.Error)
	}
	if budgetCut {
		t.Logf("the stop budget ran out before the rows were read (a busy machine): %s", tr.Error)
	} else if tr.RowsActual["agent_direct"] != 9 || tr.RowsActual["ghx"] != 9 {
		t.Errorf("rows_actual %v: the rows written before the signal must count", tr.RowsActual)
	}
	for _, c := range tr.Commands {
		if strings.HasPrefix(c.Step, "attempt-0") && (!c.Cancelled || c.Signal != "SIGKILL" || c.StopCause != "benchgate received SIGTERM") {
			t.Errorf("command %s: cancelled %v signal %q stop_cause %q, want killed with SIGKILL after SIGTERM", c.Step, c.Cancelled, c.Signal, c.StopCause)
		}
	}
}

// TestSetStopBudgetSeedIgnoresSIGTERM: the fixture seed never ends and
// ignores SIGTERM.
func TestSetStopBudgetSeedIgnoresSIGTERM(t *testing.T) {
	m := newMisbehaving(t, "seed-hang", nil)
	out := filepath.Join(m.dir, "out", "pr-exec")
	cmd, errb, wait := m.start(t, m.setArgs("pr-exec", "--skip-preflight")...)
	waitFor(t, "the seed to hang", func() bool { return len(m.pids()) >= 2 })
	cmd.Process.Signal(syscall.SIGTERM)
	code := wait()
	m.assertStoppedWithin(t, code, errb.String())
	tr := readTracking(t, filepath.Join(out, "tracking.json"))
	if tr.State != "done" || tr.FinalStatus != verify.StatusFail || !strings.Contains(tr.Error, "fixture seed was stopped when benchgate received SIGTERM") {
		t.Errorf("tracking: state %s final_status %q error %q", tr.State, tr.FinalStatus, tr.Error)
	}
}

// TestOrderedStopBudgetWithCleanup: ordered with --cleanup-on-failure;
// the first set's benchmark and the fixture cleanup both ignore SIGTERM.
// The set is stopped, the cleanup runs and is cut within the budget and
// says how to run it again, and the consolidated summary is written.
func TestOrderedStopBudgetWithCleanup(t *testing.T) {
	m := newMisbehaving(t, "linger,cleanup-hang", nil)
	base := filepath.Join(m.dir, "run")
	out := filepath.Join(base, "pr-exec")
	cmd, errb, wait := m.startLingering(t, out, "ordered", "--config", m.config, "--provider", "openai", "--fixture-manifest", m.manifest,
		"--out-dir", base, "--cleanup-on-failure")
	cmd.Process.Signal(syscall.SIGTERM)
	code := wait()
	stderr := errb.String()
	m.assertStoppedWithin(t, code, stderr)
	c := readConsolidated(t, filepath.Join(base, "consolidated-summary.json"))
	if c.Status != verify.StatusFail || c.StoppedAt != "pr-exec" || c.Sets[0].Status != verify.StatusFail {
		t.Errorf("consolidated: status %s stopped at %q first set %+v", c.Status, c.StoppedAt, c.Sets[0])
	}
	if c.Cleanup == nil || !c.Cleanup.Cancelled {
		t.Errorf("cleanup %+v, want it run and stopped by the budget", c.Cleanup)
	}
	if !strings.Contains(stderr, "fixture cleanup was stopped when") || !strings.Contains(stderr, "run it again yourself: cd ") || !strings.Contains(stderr, "/sh ") {
		t.Errorf("stderr does not say the cleanup was cut and how to run it:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(base, "consolidated-summary.md")); err != nil {
		t.Error(err)
	}
}

// TestSetEndsDetachedWriter: the ghx benchmark leaves a process in a
// session of its own that appends a failing row to the attempt's file
// once it is told to. It is ended before the rows are judged, said so on
// stderr and in tracking.json, and the file still holds the bytes that
// were judged.
func TestSetEndsDetachedWriter(t *testing.T) {
	m := newMisbehaving(t, "detach", nil)
	out := filepath.Join(m.dir, "out", "pr-exec")
	code, _, stderr := m.run(m.setArgs("pr-exec")...)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(m.work, "detached.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if alive(pid) {
		t.Errorf("the detached writer %d outlived the set", pid)
	}
	// Were it alive, this is when it would write.
	if err := os.WriteFile(filepath.Join(m.work, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The writer may be caught forking its sleep: that child is ended
	// too.
	for _, want := range []string{"set pr-exec: attempt 0: ended ", " the benchmark left running after it exited, before reading its rows: ",
		strconv.Itoa(pid) + " (sh, in a session of its own)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	tr := readTracking(t, filepath.Join(out, "tracking.json"))
	a := tr.Attempts[0]
	if !slices.Contains(a.EndedProcesses, strconv.Itoa(pid)+" (sh, in a session of its own)") {
		t.Errorf("ended_processes %q lacks the writer", a.EndedProcesses)
	}
	m.assertNothingLeft(t)
	for mode, path := range a.SuiteFiles {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if ev := a.Evidence[mode]; ev.SHA256 != hex.EncodeToString(sum[:]) || ev.Bytes != int64(len(data)) {
			t.Errorf("%s: evidence %+v, the file now holds %d bytes %x", mode, ev, len(data), sum)
		}
		if bytes.Contains(data, []byte(`"late":"row"`)) {
			t.Errorf("%s: a row was appended after the judgement", mode)
		}
	}
}

// TestSetRefusesIrregularSuiteFiles: the benchmark leaves a FIFO, or a
// link to /dev/zero, where its rows belong. The set neither hangs nor
// reads for ever: it stops with fail and names the file and what it is.
func TestSetRefusesIrregularSuiteFiles(t *testing.T) {
	for _, tc := range []struct{ how, want string }{
		{"fifo-ghx", "ghx suite file %s: expected a regular file, found a named pipe (FIFO)"},
		{"zero-ghx", "ghx suite file %s is a symbolic link; refused; expected a regular file"},
	} {
		t.Run(tc.how, func(t *testing.T) {
			m := newMisbehaving(t, tc.how, nil)
			out := filepath.Join(m.dir, "out", "pr-exec")
			code, _, stderr := m.run(m.setArgs("pr-exec")...)
			tr := readTracking(t, filepath.Join(out, "tracking.json"))
			want := strings.ReplaceAll(tc.want, "%s", tr.Attempts[0].SuiteFiles["ghx"])
			if code != 1 || tr.FinalStatus != verify.StatusFail || !strings.Contains(tr.Error, want) || !strings.Contains(stderr, want) {
				t.Errorf("exit %d final_status %q error %q, want 1, fail and %q\n%s", code, tr.FinalStatus, tr.Error, want, stderr)
			}
			if tr.RowsActual["agent_direct"] != 9 {
				t.Errorf("rows_actual %v: the other mode's rows must still count", tr.RowsActual)
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer a test may read while a process writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// peakRSS is a running process's VmHWM in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// TestSetProgressBoundsAFlood: the ghx benchmark writes 600 MiB without
// a newline (a sparse file) before its rows, and waits. The progress
// lines count the flood as one failing row and the rows after it, and
// benchgate's peak resident memory stays far below the flood's size.
func TestSetProgressBoundsAFlood(t *testing.T) {
	m := newMisbehaving(t, "flood", nil)
	cmd := m.command(m.setArgs("ci-log-analysis")...)
	var errb lockedBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	// ci-log-analysis holds 1 scenario: the flood and 1 row.
	waitFor(t, "the progress line after the flood", func() bool {
		return strings.Contains(errb.String(), "ghx: 2/1 rows, 1 failing")
	})
	if rss := peakRSS(t, cmd.Process.Pid); rss > 200<<20 {
		t.Errorf("peak resident memory %d MiB while following a 600 MiB line, want at most 200 MiB", rss>>20)
	}
	os.WriteFile(filepath.Join(m.work, "go"), nil, 0o644)
	waitFor(t, "benchgate to exit", func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit %d, want 1 (the flood is a failing row)\n%s", code, errb.String())
	}
}

// TestSetTrackingNotWritable: tracking.json cannot be written (here a
// folder stands in its place, as a full disk would refuse it). benchgate
// says it could not write tracking.json, and never prints the path as if
// it had.
func TestSetTrackingNotWritable(t *testing.T) {
	f := newFixture(t, "none.json", nil)
	out := filepath.Join(f.dir, "out", "pr-exec")
	if err := os.MkdirAll(filepath.Join(out, "tracking.json", "occupied"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := f.run(f.setArgs("pr-exec")...)
	if code == 0 || !strings.Contains(stderr, "set pr-exec: could not write tracking.json: ") {
		t.Errorf("exit %d, want a failure saying tracking.json could not be written\n%s", code, stderr)
	}
	if strings.Contains(stdout, "tracking.json") || strings.Contains(stderr, "(tracking: ") {
		t.Errorf("the tracking path is printed as if written:\nstdout %q\nstderr %s", stdout, stderr)
	}
}

// TestSetNaNRowNamesItsScenario: the first ghx row of every run holds a
// NaN, so it is not JSON; its line still names the scenario, which the
// messages show and the reruns ask for.
func TestSetNaNRowNamesItsScenario(t *testing.T) {
	m := newMisbehaving(t, "nan-ghx", nil)
	code, _, stderr := m.run(m.setArgs("pr-exec")...)
	tr := readTracking(t, filepath.Join(m.dir, "out", "pr-exec", "tracking.json"))
	first := tr.ResolvedScenarios[0]
	if code != 1 || tr.FinalStatus != verify.StatusTerminalFail || len(tr.Reruns) != 2 || !slices.Equal(tr.Reruns[1].ScenarioIDs, []string{first}) {
		t.Errorf("exit %d status %s reruns %+v; want terminal_fail after rerunning %s twice\n%s", code, tr.FinalStatus, tr.Reruns, first, stderr)
	}
	want := "/attempt-2/ghx-suite.jsonl:1: ghx row: scenario " + first + " (iteration 1): latency_ms_wall: expected number"
	if !strings.Contains(stderr, want) || strings.Contains(stderr, "no scenario_id") {
		t.Errorf("stderr does not name the NaN row's scenario (want %q)\n%s", want, stderr)
	}
}

// TestSetFixtureTimeoutInWords: a seed that never ends is stopped at
// its timeout, and the message says so by the limit, not by an exit code
// of -1.
func TestSetFixtureTimeoutInWords(t *testing.T) {
	m := newMisbehaving(t, "seed-hang", map[string]any{"fixtures_timeout": "1s", "grace": "100ms"})
	code, _, stderr := m.run(m.setArgs("pr-exec", "--skip-preflight")...)
	want := "set pr-exec: fixture seed was stopped after its timeout of 1s (log: "
	if code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "exited -1") {
		t.Errorf("exit %d, want 1 and %q\n%s", code, want, stderr)
	}
	tr := readTracking(t, filepath.Join(m.dir, "out", "pr-exec", "tracking.json"))
	if len(tr.Commands) == 0 || !tr.Commands[0].TimedOut || tr.Commands[0].Timeout != "1s" || tr.Commands[0].Signal != "SIGKILL" {
		t.Errorf("commands %+v, want the seed timed out at 1s and killed", tr.Commands)
	}
	m.assertNothingLeft(t)
}

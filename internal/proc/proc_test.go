package proc

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestRunExitCodes(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		want int
		out  string
	}{
		{"zero", []string{"sh", "-c", "echo hi"}, 0, "hi\n"},
		{"nonzero is not an error", []string{"sh", "-c", "exit 3"}, 3, ""},
		{"killed by signal", []string{"sh", "-c", "kill -9 $$"}, -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			res, err := Run(context.Background(), Cmd{Argv: tt.argv, Stdout: &out})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != tt.want {
				t.Errorf("exit code = %d, want %d", res.ExitCode, tt.want)
			}
			if out.String() != tt.out {
				t.Errorf("stdout = %q, want %q", out.String(), tt.out)
			}
		})
	}
}

func TestRunMissingProgramIsNotStarted(t *testing.T) {
	_, err := Run(context.Background(), Cmd{Argv: []string{"benchgate-no-such-program"}})
	if !errors.Is(err, ErrNotStarted) || !strings.Contains(err.Error(), "benchgate-no-such-program") {
		t.Fatalf("err = %v, want ErrNotStarted naming the program", err)
	}
}

// TestTimeoutKillsTheWholeGroup starts a shell that leaves a grandchild
// sleeping in the background and checks that the timeout kills both.
func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	script := "sleep 60 & echo $! > " + pidFile + "; wait"
	res, err := Run(context.Background(), Cmd{
		Argv:    []string{"sh", "-c", script},
		Timeout: 300 * time.Millisecond,
		Grace:   200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.ExitCode != -1 {
		t.Fatalf("result = %+v, want timed out and signalled", res)
	}
	assertDead(t, pidFile)
}

// TestGraceThenKill checks that a child ignoring SIGTERM is killed after
// the grace period instead of hanging the caller.
func TestGraceThenKill(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	res, err := Run(ctx, Cmd{
		Argv:  []string{"sh", "-c", "trap '' TERM; sleep 30"},
		Grace: 300 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || res.TimedOut {
		t.Fatalf("result = %+v, want cancelled", res)
	}
	if res.Duration > 10*time.Second {
		t.Fatalf("took %v: the SIGKILL after grace did not happen", res.Duration)
	}
}

func assertDead(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		// A zombie still answers kill 0 until reaped by init; check its state.
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("grandchild %d is still alive", pid)
}

func TestEnvWithReplaces(t *testing.T) {
	got := EnvWith([]string{"A=1", "B=2"}, "B=3", "C=4")
	want := []string{"A=1", "B=3", "C=4"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestString(t *testing.T) {
	got := String([]string{"pnpm", "run", "a b", "it's"})
	want := `pnpm run 'a b' 'it'\''s'`
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestSignalGrace sends this process SIGTERM while the "work" ignores
// its context (as a read from a FIFO does): the process is made to exit
// with 143 once the grace period is over, also after a second signal
// (which counts the grace from itself); a caller that finishes in time
// is never exited, and after a second signal it is told the exit code
// to end with (ForcedExitCode).
func TestSignalGrace(t *testing.T) {
	for _, tc := range []struct {
		name     string
		first    syscall.Signal
		signals  int
		finish   bool
		wantCode int
	}{
		{name: "work that ignores its context", first: syscall.SIGTERM, signals: 1, wantCode: 143},
		{name: "second signal", first: syscall.SIGTERM, signals: 2, wantCode: 143},
		{name: "work that stops in time", first: syscall.SIGTERM, signals: 1, finish: true},
		{name: "SIGINT then SIGTERM", first: syscall.SIGINT, signals: 2, wantCode: 143},
		{name: "SIGINT alone waits for the work", first: syscall.SIGINT, signals: 1, finish: true},
		{name: "SIGINT twice, the work stops in time", first: syscall.SIGINT, signals: 2, finish: true, wantCode: 130},
		{name: "SIGTERM twice, the work stops in time", first: syscall.SIGTERM, signals: 2, finish: true, wantCode: 143},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exited := make(chan int, 1)
			grace := time.Hour
			if (!tc.finish || tc.first == syscall.SIGINT) && !(tc.finish && tc.signals == 2) {
				grace = 200 * time.Millisecond
			}
			var stderr syncBuffer
			ctx, stop := notifyContext(context.Background(), grace, &stderr, func(code int) { exited <- code })
			defer stop()
			if err := syscall.Kill(os.Getpid(), tc.first); err != nil {
				t.Fatal(err)
			}
			<-ctx.Done()
			if tc.finish && tc.signals == 2 {
				// The caller writes its status files and exits with the
				// code the second signal asks for.
				if err := syscall.Kill(os.Getpid(), tc.first); err != nil {
					t.Fatal(err)
				}
				deadline := time.Now().Add(time.Minute)
				for ForcedExitCode(ctx) == 0 && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
				if got := ForcedExitCode(ctx); got != tc.wantCode {
					t.Errorf("ForcedExitCode %d, want %d", got, tc.wantCode)
				}
				stop()
				select {
				case code := <-exited:
					t.Fatalf("exited with %d after the caller stopped in time", code)
				case <-time.After(300 * time.Millisecond):
				}
				if !strings.Contains(stderr.String(), "stopping every command now, then exiting with ") {
					t.Errorf("stderr %q does not say what the second signal does", stderr.String())
				}
				return
			}
			if tc.finish {
				if tc.first == syscall.SIGINT {
					// Longer than the SIGTERM grace of this test: SIGINT
					// has none.
					time.Sleep(300 * time.Millisecond)
				}
				stop()
				select {
				case code := <-exited:
					t.Fatalf("exited with %d after the caller stopped in time", code)
				case <-time.After(300 * time.Millisecond):
				}
				return
			}
			if tc.signals == 2 {
				if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case code := <-exited:
				if code != tc.wantCode {
					t.Errorf("exit code %d, want %d", code, tc.wantCode)
				}
			case <-time.After(time.Minute): // a last-resort guard
				t.Fatal("not exited a minute after SIGTERM")
			}
			if !strings.Contains(stderr.String(), "SIGTERM") {
				t.Errorf("stderr %q does not name the signal", stderr.String())
			}
		})
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestStopBudgetEndsChildren: after a SIGTERM, a child that ignores
// SIGTERM and has an hour of grace is killed by the stop budget, and a
// command started afterwards under AfterStop (a cleanup) is cut too; the
// process never reaches its hard exit.
func TestStopBudgetEndsChildren(t *testing.T) {
	exited := make(chan int, 1)
	var stderr syncBuffer
	ctx, stop := notifyContext(context.Background(), 2*time.Second, &stderr, func(code int) { exited <- code })
	defer stop()
	started := make(chan struct{})
	go func() {
		<-started
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}()
	res, err := Run(ctx, Cmd{Argv: []string{"sh", "-c", "trap '' TERM; echo started; while :; do sleep 1; done"},
		Grace: time.Hour, Stdout: startedWriter(started)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || res.Signal != "SIGKILL" {
		t.Errorf("child: %+v, want cancelled and killed with SIGKILL", res)
	}
	var se *SignalError
	if !errors.As(context.Cause(ctx), &se) || se.Error() != "benchgate received SIGTERM" {
		t.Errorf("cause %v, want the signal named", context.Cause(ctx))
	}
	cctx, cancel := AfterStop(ctx)
	defer cancel()
	res, err = Run(cctx, Cmd{Argv: []string{"sh", "-c", "trap '' TERM; while :; do sleep 1; done"}, Grace: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || res.Signal == "" {
		t.Errorf("cleanup: %+v, want cut by the budget", res)
	}
	select {
	case code := <-exited:
		t.Errorf("hard exit %d before the work ended", code)
	default:
	}
}

// startedWriter closes started at the child's first output.
func startedWriter(started chan struct{}) *onceWriter { return &onceWriter{c: started} }

type onceWriter struct {
	c    chan struct{}
	once sync.Once
}

func (w *onceWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.c) })
	return len(p), nil
}

// TestSubreaperLeavesNoZombies runs, in a child test process that is a
// subreaper, commands whose grandchildren are killed with their group
// when a timeout ends them: none of them stays a zombie of the process.
func TestSubreaperLeavesNoZombies(t *testing.T) {
	if os.Getenv("PROC_TEST_SUBREAPER") == "1" {
		if err := BecomeSubreaper(); err != nil {
			t.Skip(err)
		}
		for range 5 {
			Run(context.Background(), Cmd{Argv: []string{"sh", "-c", "sleep 100 & sleep 100 & wait"}, Timeout: 100 * time.Millisecond, Grace: 50 * time.Millisecond})
		}
		// Wait for what the reaper waits for: no child of this process
		// left, zombie or not.
		for {
			procs, err := processTable()
			if err != nil {
				t.Fatal(err)
			}
			if len(descendantsOf(os.Getpid(), procs)) == 0 {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSubreaperLeavesNoZombies$", "-test.timeout=60s")
	cmd.Env = append(os.Environ(), "PROC_TEST_SUBREAPER=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

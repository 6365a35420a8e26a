// Package proc runs child commands the way every benchgate mode needs
// them: argv lists (never a shell), a wall-clock timeout, a process group
// of their own so that a timeout or a cancel kills grandchildren too, and
// output captured to writers the caller owns.
package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// DefaultGrace is how long a child gets between SIGTERM and SIGKILL.
const DefaultGrace = 5 * time.Second

// Cmd describes one child process.
type Cmd struct {
	Argv    []string      // program and arguments; Argv[0] is looked up in PATH
	Dir     string        // working directory; empty means the current one
	Env     []string      // full environment; nil means os.Environ()
	Stdin   io.Reader     // nil means no input
	Stdout  io.Writer     // nil discards
	Stderr  io.Writer     // nil discards
	Timeout time.Duration // zero means no timeout of its own
	Grace   time.Duration // SIGTERM→SIGKILL delay; zero means DefaultGrace
	// ExtraFiles are open in the child as descriptors 3, 4, ...: a
	// channel of the caller's own that the child's output cannot fake.
	ExtraFiles []*os.File
	// Isolate runs the child in a user namespace of its own (mapping
	// only its own uid and gid) and a network namespace of its own: it
	// has no network, and no capability outside its namespace, so it
	// cannot read /proc/<pid>/environ of a process that called
	// HideEnvironment, even as root. Where the kernel refuses the
	// namespaces the child runs without them and Result.IsolationError
	// says why.
	Isolate bool
	// IsolateFS adds, with Isolate, a mount namespace and a PID namespace
	// of its own, in which the child can hide the file system and see
	// only its own processes. Where the kernel refuses them the child
	// runs with Isolate's namespaces alone (or none), and
	// Result.IsolationError says so.
	IsolateFS bool
}

// Result tells how a child ended.
type Result struct {
	ExitCode  int           // -1 when the child did not exit normally
	Signal    string        // the signal that ended the child ("SIGKILL"), if one did
	TimedOut  bool          // killed because Timeout passed
	Cancelled bool          // killed because the context was cancelled
	Duration  time.Duration // wall time from start to reap
	// IsolationError is set when Cmd.Isolate was asked for and the
	// kernel refused the namespaces; the child then ran without them.
	IsolationError string
	// FSIsolationError is set when Cmd.IsolateFS was asked for and the
	// kernel refused the mount and PID namespaces (or, as root, the
	// mapping of nobody); the child ran with fewer namespaces.
	FSIsolationError string
}

// ErrNotStarted wraps failures to start a child (missing program, bad
// working directory), which callers report as infrastructure errors.
var ErrNotStarted = errors.New("command did not start")

// Run starts c and waits for it. A non-zero exit is not an error: it is
// reported in Result.ExitCode. Run returns an error only when the child
// could not be started; the error wraps ErrNotStarted and names argv[0].
func Run(ctx context.Context, c Cmd) (Result, error) {
	if len(c.Argv) == 0 {
		return Result{ExitCode: -1}, fmt.Errorf("%w: empty command", ErrNotStarted)
	}
	grace := c.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = withOwner(c.Env)
	cmd.Stdin = c.Stdin
	cmd.Stdout = orDiscard(c.Stdout)
	cmd.Stderr = orDiscard(c.Stderr)
	cmd.ExtraFiles = c.ExtraFiles
	// Pdeathsig: if benchgate dies without a chance to stop its children
	// (SIGKILL, a crash), the kernel kills the child it started; the
	// grandchildren a child leaves carry OwnerEnv and are stopped by
	// ReapOrphans on the next run.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// Pipes held open by grandchildren must not block Wait forever.
	cmd.WaitDelay = grace + time.Second

	res := Result{}
	// The namespaces asked for, most isolated first; where the kernel
	// refuses one set, the next is tried.
	type attempt struct {
		level string // "nobody", "fs", "net" or "" (none)
		apply func(*syscall.SysProcAttr)
	}
	withFS := func(a *syscall.SysProcAttr) {
		isolate(a)
		a.Cloneflags |= syscall.CLONE_NEWNS | syscall.CLONE_NEWPID
		// Root inside (the caller's uid outside), so that the child keeps
		// the capabilities it needs to build its file system across
		// execve; it gives them up before running anything else.
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	}
	var attempts []attempt
	if c.Isolate && c.IsolateFS && os.Getuid() == 0 {
		// As root, the namespace also maps its uid and gid 1 to nobody
		// (65534), so that the child can give up root: RLIMIT_NPROC does
		// not hold for the host's root.
		attempts = append(attempts, attempt{"nobody", func(a *syscall.SysProcAttr) { withFS(a); mapNobody(a) }})
	}
	if c.Isolate && c.IsolateFS {
		attempts = append(attempts, attempt{"fs", withFS})
	}
	if c.Isolate {
		attempts = append(attempts, attempt{"net", isolate})
	}
	attempts = append(attempts, attempt{"", nil})
	start := time.Now()
	var err error
	for i, at := range attempts {
		if i > 0 {
			again := exec.Command(c.Argv[0], c.Argv[1:]...)
			again.Dir, again.Env, again.Stdin, again.Stdout, again.Stderr, again.WaitDelay = cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.WaitDelay
			again.ExtraFiles = cmd.ExtraFiles
			cmd = again
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if at.apply != nil {
			at.apply(cmd.SysProcAttr)
		}
		start = time.Now()
		err = cmd.Start()
		if err == nil || at.apply == nil || !isolationRefused(err) {
			break
		}
		switch at.level {
		case "fs":
			res.FSIsolationError = "mount and PID namespaces: " + err.Error()
		case "net":
			res.IsolationError = err.Error()
		}
	}
	if err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("%w: %s: %v", ErrNotStarted, c.Argv[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// After a SIGTERM to benchgate a command is stopped within the stop
	// budget: through its cancelled context, or, for one that outlives
	// the cancel (a cleanup run under context.WithoutCancel), at its cut.
	b := budgetOf(ctx)
	quit := make(chan struct{})
	defer close(quit)
	cut := b.cut(grace, quit)

	var timeout <-chan time.Time
	if c.Timeout > 0 {
		t := time.NewTimer(c.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var waitErr error
	select {
	case waitErr = <-done:
	case <-timeout:
		res.TimedOut = true
		waitErr = killGroup(cmd.Process.Pid, done, grace, b.hurryChan())
	case <-ctx.Done():
		res.Cancelled = true
		waitErr = killGroup(cmd.Process.Pid, done, b.childGrace(grace), b.hurryChan())
	case <-cut:
		res.Cancelled = true
		waitErr = killGroup(cmd.Process.Pid, done, b.cleanupGrace(grace), b.hurryChan())
	}
	res.Duration = time.Since(start)
	res.ExitCode = exitCode(cmd, waitErr)
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.Signal = SignalName(ws.Signal())
	}
	// Whatever the leader did, leave no member of its group behind.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	reapGroup(cmd.Process.Pid)
	return res, nil
}

// killGroup sends SIGTERM to the process group, waits up to grace for the
// leader to exit (or until hurry closes: a second signal to benchgate),
// then sends SIGKILL and waits for the reap.
func killGroup(pid int, done <-chan error, grace time.Duration, hurry <-chan struct{}) error {
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
	case <-hurry:
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	return <-done
}

// SignalName names a signal as people write it: "SIGKILL", "SIGTERM".
func SignalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	}
	return fmt.Sprintf("signal %d (%s)", int(sig), sig)
}

func exitCode(cmd *exec.Cmd, waitErr error) int {
	if cmd.ProcessState == nil {
		return -1
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1
	}
	return cmd.ProcessState.ExitCode()
}

// withOwner returns env (os.Environ() when nil) with OwnerEnv set to this
// process.
func withOwner(env []string) []string {
	owner := selfOwner()
	if owner == "" {
		return env
	}
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, OwnerEnv+"=") {
			out = append(out, kv)
		}
	}
	return append(out, OwnerEnv+"="+owner)
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// String renders argv for logs, quoting arguments that contain spaces so
// that a user can copy the line into a shell.
func String(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"$`\\*?") {
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			parts[i] = a
		}
	}
	return strings.Join(parts, " ")
}

// EnvWith returns base (os.Environ() when nil) with the given KEY=VALUE
// pairs set, replacing earlier values of the same keys.
func EnvWith(base []string, add ...string) []string {
	if base == nil {
		base = os.Environ()
	}
	keys := make(map[string]bool, len(add))
	for _, kv := range add {
		k, _, _ := strings.Cut(kv, "=")
		keys[k] = true
	}
	out := make([]string, 0, len(base)+len(add))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !keys[k] {
			out = append(out, kv)
		}
	}
	return append(out, add...)
}

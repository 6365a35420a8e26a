package verify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/benchgate/benchgate/internal/bench"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/proc"
)

// newRunID returns a timestamp-based ID with a random suffix, so that two
// runs started in the same millisecond (parallel sets) still differ.
func newRunID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	u := now.UTC()
	return fmt.Sprintf("%s%03dZ-%s", u.Format("20060102T150405"), u.Nanosecond()/1e6, hex.EncodeToString(b[:]))
}

// commands runs child commands for one set and records each of them.
type commands struct {
	mu      sync.Mutex
	records []CommandRecord
	grace   time.Duration
	// base is every child's environment before its own additions: the
	// allow-listed part of benchgate's (bench.Config.ChildEnv).
	base []string
}

// newCommands runs children with cfg's grace and allow-listed
// environment, read from benchgate's environment now.
func newCommands(cfg bench.Config) *commands {
	return &commands{grace: time.Duration(cfg.Grace), base: cfg.ChildEnv(os.Environ())}
}

// run executes argv with its output captured to logPath. err is non-nil
// only when the command could not start or its log could not be created.
func (c *commands) run(ctx context.Context, step, dir string, argv, env []string, timeout time.Duration, logPath string) (CommandRecord, error) {
	rec := CommandRecord{Step: step, Argv: argv, ExitCode: -1, Log: logPath}
	if err := fsutil.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		rec.Error = err.Error()
		c.add(rec)
		return rec, fmt.Errorf("%s: create log: %w", step, err)
	}
	logf, err := os.Create(logPath)
	if err != nil {
		rec.Error = err.Error()
		c.add(rec)
		return rec, fmt.Errorf("%s: create log: %w", step, err)
	}
	defer logf.Close()
	fmt.Fprintf(logf, "$ %s\n", proc.String(argv))
	res, err := proc.Run(ctx, proc.Cmd{
		Argv: argv, Dir: dir, Env: proc.EnvWith(append([]string{}, c.base...), env...),
		Stdout: logf, Stderr: logf, Timeout: timeout, Grace: c.grace,
	})
	rec.ExitCode = res.ExitCode
	rec.Signal = res.Signal
	rec.TimedOut = res.TimedOut
	if timeout > 0 {
		rec.Timeout = timeout.String()
	}
	rec.Cancelled = res.Cancelled
	if res.Cancelled {
		rec.StopCause = stopCause(ctx)
	}
	rec.DurationMS = res.Duration.Milliseconds()
	if err != nil {
		rec.Error = err.Error()
		c.add(rec)
		return rec, fmt.Errorf("%s: %w (command: %s)", step, err, shownCommand(argv))
	}
	c.add(rec)
	return rec, nil
}

// shownCommand is argv for a message: whole when short, otherwise its
// first arguments and how many more (a rerun of 50,000 scenarios has a
// command line of megabytes; the log and tracking.json hold it whole).
func shownCommand(argv []string) string {
	const keep = 12
	if line := proc.String(argv); len(line) <= 1000 || len(argv) <= keep {
		return line
	}
	return fmt.Sprintf("%s ... and %d more arguments", proc.String(argv[:keep]), len(argv)-keep)
}

// stopCause says why ctx was stopped, in words: "benchgate received
// SIGTERM" rather than "context canceled". A command started after the
// stop (ordered's cleanup) runs under a context that is not cancelled and
// is cut by the stop budget.
func stopCause(ctx context.Context) string {
	var se *proc.SignalError
	if errors.As(context.Cause(ctx), &se) {
		return se.Error()
	}
	if ctx.Err() == nil {
		return "the stop budget after a signal ran out"
	}
	return context.Cause(ctx).Error()
}

// ended says how a command ended, for messages: "exited 3", "was stopped
// after its timeout of 10m0s", "was stopped when benchgate received
// SIGTERM", "was killed by SIGKILL".
func ended(r CommandRecord) string {
	switch {
	case r.TimedOut:
		return "was stopped after its timeout of " + r.Timeout
	case r.Cancelled:
		return "was stopped when " + r.StopCause
	case r.Signal != "":
		return "was killed by " + r.Signal
	}
	return fmt.Sprintf("exited %d", r.ExitCode)
}

func (c *commands) add(r CommandRecord) {
	c.mu.Lock()
	c.records = append(c.records, r)
	c.mu.Unlock()
}

func (c *commands) snapshot() []CommandRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]CommandRecord{}, c.records...)
}

// logTail returns the last n non-empty lines of a child's log, indented,
// so that a failing command's own message reaches the user without a
// trip to the log file.
func logTail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "$ ") {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 0 {
		return ""
	}
	return "\n    " + strings.Join(lines, "\n    ")
}

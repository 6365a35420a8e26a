package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// The stop budget: what benchgate does, and by when, after a SIGTERM. A
// runner or an engine that sends SIGTERM kills a few seconds later, and
// what benchgate must leave behind (tracking.json with a final status,
// the consolidated summary) is written only after its children are gone,
// so each step has a deadline of its own, counted from the signal:
const (
	// ChildStopBy: a child running when the signal arrives gets SIGTERM
	// at once and SIGKILL at its grace or at this point, whichever comes
	// first.
	ChildStopBy = 2 * time.Second
	// CleanupStopBy: a command started after the signal (ordered's
	// fixture cleanup) runs until this point, then gets SIGTERM and
	// SIGKILL half a second later at most.
	CleanupStopBy = 3 * time.Second
	// StopGrace: past it the process exits anyway, with 128+15: a read
	// that cannot be cancelled (a hung file system) must never keep it
	// alive. The time from CleanupStopBy to StopGrace is for writing the
	// status files.
	StopGrace = 4 * time.Second
)

// cleanupKillWindow is the longest a command started after the signal
// gets between SIGTERM and SIGKILL.
const cleanupKillWindow = 500 * time.Millisecond

// SignalError is the cause of a context NotifyContext cancelled: it names
// the signal, so that a stopped run says "benchgate received SIGTERM"
// rather than "context canceled".
type SignalError struct{ Signal string }

func (e *SignalError) Error() string { return "benchgate received " + e.Signal }

// budget is the stop budget of one NotifyContext: unset until a SIGTERM
// arrives. Commands run under contexts derived from it (even through
// context.WithoutCancel, which keeps values) read their deadlines from it.
type budget struct {
	mu        sync.Mutex
	at        time.Time // when the SIGTERM arrived
	signalled chan struct{}
	offsets   budgetOffsets
	// hurried is closed on a second signal: every child still running
	// gets SIGKILL at once; forced is then the process's exit code.
	hurried chan struct{}
	forced  int
}

type budgetOffsets struct{ child, cleanup time.Duration }

type budgetKey struct{}

func budgetOf(ctx context.Context) *budget {
	b, _ := ctx.Value(budgetKey{}).(*budget)
	return b
}

func (b *budget) start(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.at.IsZero() {
		b.at = now
		close(b.signalled)
	}
}

// hurry ends the wait of every child being stopped (SIGKILL now) and
// records the exit code the process must end with.
func (b *budget) hurry(code int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.forced == 0 {
		b.forced = code
		close(b.hurried)
	}
}

// hurryChan is closed on a second signal; nil (never ready) without a
// budget.
func (b *budget) hurryChan() <-chan struct{} {
	if b == nil {
		return nil
	}
	return b.hurried
}

// ForcedExitCode is the exit code a second signal asks for (130 after a
// second SIGINT, 143 after a second SIGTERM), or 0. The run stopped by
// it still writes its status files; the caller then exits with this
// code instead of its own.
func ForcedExitCode(ctx context.Context) int {
	b := budgetOf(ctx)
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.forced
}

// since returns when the signal arrived, or the zero time.
func (b *budget) since() time.Time {
	if b == nil {
		return time.Time{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.at
}

// childGrace bounds the SIGTERM→SIGKILL delay of a child stopped by the
// signal so that its SIGKILL lands by ChildStopBy; cleanupGrace, that of a
// command started after it, by CleanupStopBy. Without a SIGTERM both are
// grace.
func (b *budget) childGrace(grace time.Duration) time.Duration {
	if b == nil {
		return grace
	}
	return b.clip(grace, b.offsets.child)
}

func (b *budget) cleanupGrace(grace time.Duration) time.Duration {
	if b == nil {
		return grace
	}
	return b.clip(grace, b.offsets.cleanup)
}

func (b *budget) clip(grace, by time.Duration) time.Duration {
	at := b.since()
	if at.IsZero() {
		return grace
	}
	return max(0, min(grace, time.Until(at.Add(by))))
}

// cut returns a channel closed when a command that is not cancelled with
// its context (it runs under context.WithoutCancel) must be sent SIGTERM
// to be gone by CleanupStopBy; it never closes without a SIGTERM. Closing
// quit releases it.
func (b *budget) cut(grace time.Duration, quit <-chan struct{}) <-chan struct{} {
	if b == nil {
		return nil
	}
	ch := make(chan struct{})
	go func() {
		select {
		case <-b.signalled:
		case <-quit:
			return
		}
		window := min(grace, cleanupKillWindow)
		t := time.NewTimer(time.Until(b.since().Add(b.offsets.cleanup - window)))
		defer t.Stop()
		select {
		case <-t.C:
			close(ch)
		case <-quit:
		}
	}()
	return ch
}

// NotifyContext returns a context cancelled on the first SIGTERM or
// SIGINT, with a *SignalError as its cause. Children started with Run
// under that context are then stopped as a group within the stop budget
// (ChildStopBy), and the caller still gets to write its status files
// before it exits. The process exits with 128+signal when it is still
// running StopGrace after a SIGTERM. A second signal of either kind
// sends SIGKILL to every child at once and starts the stop budget (if a
// SIGTERM has not): the caller writes its status files as after a
// SIGTERM and exits with ForcedExitCode; the process exits by itself
// when it is still running StopGrace after the second signal, and at
// once on a third. Before any of these exits it ends every process it
// started that is still running (EndDescendants). stop ends this (call
// it once the caller is done).
func NotifyContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	return notifyContext(parent, StopGrace, os.Stderr, func(code int) {
		_, _ = EndDescendants()
		os.Exit(code)
	})
}

func notifyContext(parent context.Context, grace time.Duration, stderr io.Writer, exit func(int)) (context.Context, context.CancelFunc) {
	b := &budget{signalled: make(chan struct{}), hurried: make(chan struct{}), offsets: budgetOffsets{child: ChildStopBy, cleanup: CleanupStopBy}}
	if grace < StopGrace {
		// A shorter total (tests) shortens each step in proportion.
		b.offsets = budgetOffsets{child: grace * ChildStopBy / StopGrace, cleanup: grace * CleanupStopBy / StopGrace}
	}
	ctx, cancel := context.WithCancelCause(context.WithValue(parent, budgetKey{}, b))
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var first os.Signal
		select {
		case first = <-sigs:
		case <-done:
			return
		}
		// SIGINT is the polite stop (a terminal's Ctrl-C, a runner's
		// cancel, which sends SIGTERM itself 7.5 s later): the next
		// signal ends the process. SIGTERM starts the stop budget.
		var deadline <-chan time.Time
		if first == syscall.SIGTERM {
			fmt.Fprintf(stderr, "benchgate: received SIGTERM; stopping the run, within %s\n", grace)
		} else {
			fmt.Fprintf(stderr, "benchgate: received %s; stopping the run (a second signal stops every command at once)\n", name(first))
		}
		if first == syscall.SIGTERM {
			b.start(time.Now())
			timer := time.NewTimer(grace)
			defer timer.Stop()
			deadline = timer.C
		}
		cancel(&SignalError{Signal: name(first)})
		var second os.Signal
		select {
		case <-done:
			return
		case second = <-sigs:
		case <-deadline:
			fmt.Fprintf(stderr, "benchgate: still running %s after %s; exiting\n", grace, name(first))
			exit(128 + signum(first))
			return
		}
		// The second signal: no child gets its grace any more, and what
		// must be written is written within the stop budget, counted
		// from here unless a SIGTERM started it.
		code := 128 + signum(second)
		fmt.Fprintf(stderr, "benchgate: a second %s; stopping every command now, then exiting with %d\n", name(second), code)
		b.start(time.Now())
		b.hurry(code)
		hard := time.NewTimer(grace)
		defer hard.Stop()
		select {
		case <-done:
		case <-deadline:
			fmt.Fprintf(stderr, "benchgate: still running %s after %s; exiting\n", grace, name(first))
			exit(code)
		case <-hard.C:
			fmt.Fprintf(stderr, "benchgate: still running %s after the second %s; exiting\n", grace, name(second))
			exit(code)
		case s := <-sigs:
			fmt.Fprintf(stderr, "benchgate: a third signal (%s); exiting now\n", name(s))
			exit(code)
		}
	}()
	var once bool
	return ctx, func() {
		if once {
			return
		}
		once = true
		signal.Stop(sigs)
		close(done)
		cancel(context.Canceled)
	}
}

func name(s os.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case os.Interrupt:
		return "SIGINT"
	}
	return s.String()
}

func signum(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return int(n)
	}
	return 1
}

// AfterStop returns a context for the work that must still be done once
// ctx is stopped (counting the rows written so far, a fixture cleanup):
// it keeps ctx's values but is not cancelled with it. After a SIGTERM it
// is cancelled at CleanupStopBy, so that this work too ends within the
// stop budget.
func AfterStop(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	b := budgetOf(ctx)
	if b == nil {
		return c, func() { cancel(context.Canceled) }
	}
	go func() {
		select {
		case <-b.signalled:
		case <-c.Done():
			return
		}
		t := time.NewTimer(time.Until(b.since().Add(b.offsets.cleanup)))
		defer t.Stop()
		select {
		case <-t.C:
			cancel(errors.New("the stop budget after SIGTERM ran out"))
		case <-c.Done():
		}
	}()
	return c, func() { cancel(context.Canceled) }
}

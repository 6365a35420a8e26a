package proc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// StopGrace is how long benchgate has, after a SIGTERM, to stop its children and write its status files. Past it the process
// exits anyway: a read that cannot be cancelled (a FIFO, a hung file
// system) must never keep it alive, and a runner that sends SIGTERM
// waits only a few seconds before it kills.
const StopGrace = 4 * time.Second

// NotifyContext returns a context cancelled on the first SIGTERM or
// SIGINT. Children started with Run under that context are then stopped
// as a group, and the caller still gets to write its status files before
// it exits. The process exits with 128+signal when it is still running
// StopGrace after a SIGTERM, and at once on a second signal of either
// kind; stop ends this (call it once the caller is done).
func NotifyContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	return notifyContext(parent, StopGrace, os.Stderr, os.Exit)
}

func notifyContext(parent context.Context, grace time.Duration, stderr io.Writer, exit func(int)) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
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
		cancel()
		// SIGINT is the polite stop (a terminal's Ctrl-C, a runner's
		// cancel, which sends SIGTERM itself 7.5 s later): the next
		// signal ends the process. SIGTERM gives StopGrace.
		var deadline <-chan time.Time
		if first == syscall.SIGTERM {
			timer := time.NewTimer(grace)
			defer timer.Stop()
			deadline = timer.C
		}
		select {
		case <-done:
			return
		case s := <-sigs:
			fmt.Fprintf(stderr, "benchgate: a second %s; exiting now\n", name(s))
			exit(128 + signum(s))
		case <-deadline:
			fmt.Fprintf(stderr, "benchgate: still running %s after %s; exiting\n", grace, name(first))
			exit(128 + signum(first))
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
		cancel()
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

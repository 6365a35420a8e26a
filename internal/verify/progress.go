package verify

import (
	"fmt"
	"io"
	"sync"

	"github.com/benchgate/benchgate/internal/bench"
	"github.com/benchgate/benchgate/internal/progress"
)

// follow starts printing progress lines for attempt a of the paired
// benchmark runs and returns the function that stops it. Without
// SetOptions.Progress it does nothing.
func (s *set) follow(a *attempt) func() {
	if !s.opts.Progress {
		return func() {}
	}
	var files []progress.File
	for _, m := range bench.Modes {
		files = append(files, progress.File{Mode: m, Path: a.files[m], Expected: len(a.ids) * s.opts.Repetitions})
	}
	f := progress.Start(progress.Options{Label: s.stepLabel(a.n), Files: files, Out: s.log})
	return f.Stop
}

// stepLabel names the set, its place in an ordered run and the attempt:
// "set pr-exec (set 3 of 9), first run" or "set pr-exec, rerun 1 of 2".
func (s *set) stepLabel(n int) string {
	label := "set " + s.opts.Set
	if s.opts.Position != "" {
		label += " (" + s.opts.Position + ")"
	}
	if n > 0 {
		return fmt.Sprintf("%s, rerun %d of %d", label, n, MaxReruns)
	}
	return label + ", first run"
}

// lockedWriter serialises whole writes of the set's log: the progress
// follower and the benchmark goroutines write to it at once.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// attemptDone hands the tracking to SetOptions.OnAttempt.
func (s *set) attemptDone() {
	if s.opts.OnAttempt != nil {
		s.opts.OnAttempt(s.t)
	}
}

package verify

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/benchgate/benchgate/internal/fsutil"
)

// holderTime is how a holder's start time is written: UTC, to the
// millisecond.
const holderTime = "2006-01-02T15:04:05.000Z"

// Holder says which run holds a folder: it is written into the folder's
// lock file by the run that holds it exclusively, so that a second run
// refused the folder can name the first instead of guessing.
type Holder struct {
	Command   string `json:"command"`
	PID       int    `json:"pid"`
	StartedAt string `json:"started_at"`
	RunID     string `json:"run_id"`
	Set       string `json:"set,omitempty"`
}

func (h Holder) String() string {
	what := "benchgate " + h.Command
	if h.Set != "" {
		what += " of set " + h.Set
	}
	return fmt.Sprintf("%s (pid %d, started %s, run %s)", what, h.PID, h.StartedAt, h.RunID)
}

// lockExclusive takes dir's lock file for the whole run and records h in
// it. A refused lock is bad input (exit 2): the message names the holder
// and how to run beside it, and nothing in dir has been touched.
func lockExclusive(dir string, h Holder, flag string) (*fsutil.Lock, error) {
	path := filepath.Join(dir, LockFile)
	l, err := fsutil.TryLockFile(path)
	if errors.Is(err, fsutil.ErrLocked) {
		return nil, fmt.Errorf("%w: %s", ErrBadInput, inUse(dir, flag))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	data, _ := json.Marshal(h)
	if err := l.SetInfo(append(data, '\n')); err != nil {
		l.Unlock()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return l, nil
}

// lockShared takes dir's lock file shared: a set run holds its run folder
// shared so that an ordered run cannot take the folder over while the set
// writes into it, while sets of different names still run side by side.
// A folder that cannot hold a lock file (not writable) is left alone: the
// set folder's own lock still keeps runs of one set apart.
func lockShared(dir, flag string) (*fsutil.Lock, error) {
	l, err := fsutil.TryLockFileShared(filepath.Join(dir, LockFile))
	if errors.Is(err, fsutil.ErrLocked) {
		return nil, fmt.Errorf("%w: %s", ErrBadInput, inUse(dir, flag))
	}
	if err != nil {
		return nil, nil
	}
	return l, nil
}

// inUse describes who holds dir: the holder its lock file names, or, for
// a run folder held shared by set runs, the holders of its set folders.
// A holder that just took the lock may not have written its name yet, so
// the name is waited for briefly.
func inUse(dir, flag string) string {
	var holders []string
	deadline := time.Now().Add(5 * time.Second)
	for {
		if h, ok := readHolder(filepath.Join(dir, LockFile)); ok {
			holders = []string{h.String()}
		} else {
			subs, _ := filepath.Glob(filepath.Join(dir, "*", LockFile))
			for _, p := range subs {
				if h, ok := readHolder(p); ok {
					holders = append(holders, h.String())
				}
			}
		}
		if len(holders) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	who := "another benchgate run"
	if len(holders) > 0 {
		who = strings.Join(holders, ", ")
	}
	return fmt.Sprintf("%s is in use by %s; wait for it to finish, or run beside it with %s <another folder>", dir, who, flag)
}

// readHolder reads a lock file's holder, if that process is alive.
func readHolder(path string) (Holder, bool) {
	var h Holder
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &h) != nil || h.PID <= 0 {
		return h, false
	}
	if err := syscall.Kill(h.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return h, false
	}
	return h, true
}

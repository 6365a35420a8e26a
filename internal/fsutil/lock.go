package fsutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Lock is an exclusive advisory lock held on a lock file. Locks are
// per open file description (flock), so two goroutines of one process
// that lock the same path also exclude each other.
type Lock struct {
	f *os.File
}

// LockFile blocks until it holds an exclusive lock on path (created if
// missing, with its parent directories). The lock file itself is never
// removed: removing it would let a waiter lock an unlinked inode while a
// newcomer locks a fresh one.
func LockFile(path string) (*Lock, error) {
	if err := MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := openLockFile(path)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

// openLockFile opens (or creates) a lock file, never through a link and
// never waiting: the lock may lie in a folder an agent can write (the
// manifest of a single-instance run sits in its output folder), where a
// FIFO or a device could stand in for it.
func openLockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := regular(f, path); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %w", err)
	}
	return f, nil
}

// ErrLocked is returned by TryLockFile when another process holds the lock.
var ErrLocked = errors.New("held by another process")

// TryLockFile is LockFile without the wait: when another process holds
// the lock it returns an error wrapping ErrLocked at once.
func TryLockFile(path string) (*Lock, error) { return tryLock(path, syscall.LOCK_EX) }

// TryLockFileShared is TryLockFile for a shared lock: any number of
// holders of the shared lock exclude an exclusive holder, and the other
// way round.
func TryLockFileShared(path string) (*Lock, error) { return tryLock(path, syscall.LOCK_SH) }

func tryLock(path string, how int) (*Lock, error) {
	if err := MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := openLockFile(path)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	if err == syscall.EWOULDBLOCK {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, ErrLocked)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

// SetInfo replaces the lock file's content with info, so that a process
// refused the lock can say who holds it. Only an exclusive holder should
// call it.
func (l *Lock) SetInfo(info []byte) error {
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err := l.f.WriteAt(info, 0)
	return err
}

// Unlock releases the lock. It is safe to call on a nil Lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// UpdateLocked runs update while holding the lock path+".lock". Use it for
// read-modify-write cycles on files shared between processes, together
// with WriteFileAtomic for the write itself.
func UpdateLocked(path string, update func() error) error {
	l, err := LockFile(path + ".lock")
	if err != nil {
		return err
	}
	defer l.Unlock()
	return update()
}

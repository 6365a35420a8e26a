package fsutil

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// OpenRegular opens path for reading only if it is a regular file. It
// opens with O_NONBLOCK, so that a FIFO at path (or a link to one) cannot
// block the open, and checks the type of what it opened, so that a
// device (a link to /dev/zero), a FIFO, a socket or a directory is
// refused at once with an error naming path and what it is, instead of
// being read for ever. With followLinks false a symbolic link at path is
// refused too (O_NOFOLLOW): for files another process writes into a
// folder benchgate reads. A missing file gives an error wrapping
// fs.ErrNotExist.
func OpenRegular(path string, followLinks bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if !followLinks {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) && !followLinks {
			return nil, fmt.Errorf("%s %w; expected a regular file", path, ErrSymlink)
		}
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := regular(f, path); err != nil {
		f.Close()
		return nil, err
	}
	// Reads of a regular file never block; the flag only mattered for
	// the open.
	return f, nil
}

package fsutil

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrSymlink is wrapped by every error of the In functions that refuse
// to go through a symbolic link.
var ErrSymlink = errors.New("is a symbolic link; refused")

// ErrTooLarge is wrapped by ReadFileIn when a file is over its limit.
var ErrTooLarge = errors.New("is larger than allowed")

// The In functions below write and read files inside a folder that
// something untrusted can also write: the output folder bind-mounted into
// an agent's container, a sandbox's working folder. That writer can plant
// a symbolic link (logs/x.jsonl -> /etc/passwd, <id>.patch ->
// /root/.ssh/id_rsa) or turn a subfolder into a link out of the folder;
// plain os.Create and os.ReadFile, run by benchgate on the host, would
// follow it. Here every path is resolved through an os.Root opened at
// root, which refuses to leave it, and the last component is opened with
// O_NOFOLLOW, which refuses a link even inside it.

// rel returns path relative to root; path must lie below root.
func rel(root, path string) (string, error) {
	r, err := filepath.Rel(root, path)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", fmt.Errorf("%s: not inside %s", path, root)
	}
	return r, nil
}

func openRoot(root string) (*os.Root, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open folder %s: %w", root, err)
	}
	return r, nil
}

// openIn opens root and returns path's name relative to it; path must
// lie below root. The caller closes the root.
func openIn(root, path string) (*os.Root, string, error) {
	r, err := openRoot(root)
	if err != nil {
		return nil, "", err
	}
	name, err := rel(root, path)
	if err != nil {
		r.Close()
		return nil, "", err
	}
	return r, name, nil
}

// named turns the errors of a refused link into ErrSymlink, naming path.
func named(path string, err error) error {
	if errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "path escapes from parent") {
		return fmt.Errorf("%s %w", path, ErrSymlink)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// CreateIn creates or truncates path, which must lie below root, for
// writing, with its parent folders, never through a symbolic link.
func CreateIn(root, path string) (*os.File, error) {
	r, name, err := openIn(root, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if dir := filepath.Dir(name); dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return nil, named(path, err)
		}
	}
	// O_NONBLOCK: opening a FIFO planted at path must not wait for a
	// reader; it is then refused below, as writes into it would block
	// once its buffer is full.
	f, err := r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, named(path, err)
	}
	if err := regular(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// regular refuses an open file that is not a regular file (a FIFO, a
// socket, a device, a directory), naming path and what it is.
func regular(f *os.File, path string) error {
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s: expected a regular file, found %s", path, describe(info.Mode()))
	}
	return nil
}

// Kind names the type of a file for messages: "regular file",
// "directory", "symbolic link", "named pipe (FIFO)", "socket", "device"
// or "irregular file".
func Kind(m os.FileMode) string {
	switch t := m.Type(); {
	case t == 0:
		return "regular file"
	case t&os.ModeDir != 0:
		return "directory"
	case t&os.ModeSymlink != 0:
		return "symbolic link"
	case t&os.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case t&os.ModeSocket != 0:
		return "socket"
	case t&os.ModeDevice != 0:
		return "device"
	}
	return "irregular file"
}

// describe is Kind with its article.
func describe(m os.FileMode) string {
	k := Kind(m)
	if k == "irregular file" {
		return "an " + k
	}
	return "a " + k
}

// LstatIn describes path below root without following a link in its last
// component, and without leaving root on the way: a folder that is a
// link out of root is an error wrapping ErrSymlink, so that asking about
// a path the agent controls says nothing about host paths.
func LstatIn(root, path string) (os.FileInfo, error) {
	r, name, err := openIn(root, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	info, err := r.Lstat(name)
	if err != nil {
		return nil, named(path, err)
	}
	return info, nil
}

// MkdirAllIn creates path and its parents below root, refusing links.
func MkdirAllIn(root, path string) error {
	r, name, err := openIn(root, path)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.MkdirAll(name, 0o755); err != nil {
		return named(path, err)
	}
	return nil
}

// WriteFileAtomicIn is WriteFileAtomic for a path below root: the
// temporary file is created and renamed inside root, so neither a planted
// link at path nor a linked parent folder can redirect the write.
func WriteFileAtomicIn(root, path string, data []byte, perm os.FileMode) error {
	r, name, err := openIn(root, path)
	if err != nil {
		return err
	}
	defer r.Close()
	if dir := filepath.Dir(name); dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return named(path, err)
		}
	}
	suffix := make([]byte, 8)
	if _, err := rand.Read(suffix); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmpName := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".tmp-"+hex.EncodeToString(suffix))
	tmp, err := r.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
	if err != nil {
		return named(path, err)
	}
	cleanup := func() { _ = r.Remove(tmpName) }
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		cleanup()
		return fmt.Errorf("write %s: %w", path, err)
	}
	// rename replaces a link at name; it never writes through it.
	if err := r.Rename(tmpName, name); err != nil {
		cleanup()
		return named(path, err)
	}
	return nil
}

// WriteJSONAtomicIn is WriteJSONAtomic for a path below root.
func WriteJSONAtomicIn(root, path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return WriteFileAtomicIn(root, path, append(data, '\n'), 0o644)
}

// ReadFileIn reads path below root, refusing a link and a file of more
// than max bytes (a planted /dev/zero or a huge file must not exhaust
// memory). A missing file gives an error wrapping fs.ErrNotExist.
func ReadFileIn(root, path string, max int64) ([]byte, error) {
	r, name, err := openIn(root, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, named(path, err)
	}
	defer f.Close()
	if err := regular(f, path); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s %w (%d bytes)", path, ErrTooLarge, max)
	}
	return b, nil
}

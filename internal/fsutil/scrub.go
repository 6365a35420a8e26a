package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Finding is one thing Scrub changed in a folder an untrusted process
// wrote: a setuid or setgid bit or file capabilities cleared, or a FIFO,
// socket or device node removed.
type Finding struct {
	// Path is the file's path (root joined with its place below root).
	Path string
	// What the file was: "setuid file", "setgid file", "setuid and setgid
	// file", or the Kind of a file removed ("named pipe (FIFO)", "socket",
	// "device").
	What string
	// Action is what Scrub did: "cleared the setuid and setgid bits" or
	// "removed".
	Action string
}

// String is the finding as one log line: a newline in the path (any
// byte is allowed in a file name) is written as \n.
func (f Finding) String() string {
	return fmt.Sprintf("%s is a %s: %s", strings.ReplaceAll(f.Path, "\n", `\n`), f.What, f.Action)
}

// Scrub walks root, never following a symbolic link, and makes what an
// agent left there harmless for whoever gets it next: the setuid and
// setgid bits and the file capabilities of regular files are cleared (a
// setuid-root binary, or one with cap_setuid, left in a bind-mounted
// folder runs as root for any local user), and FIFOs,
// sockets and device nodes are removed (a device node gives whoever owns
// it the device; reading a FIFO blocks forever). It returns one Finding
// per change, for warnings, and goes on past errors, returning the
// first.
//
// Scrub must run when nothing can write root any more (after the
// container that mounted it is removed): otherwise a loop in the
// container plants the file again behind it.
func Scrub(root string) ([]Finding, error) { return scrub(root, false) }

// ScrubForUpload is Scrub that also removes every symbolic link: for a
// folder that is uploaded or archived, whose reader follows links (an
// upload of a link to /etc/shadow or a checkout's .git/config would
// publish the host's file).
func ScrubForUpload(root string) ([]Finding, error) { return scrub(root, true) }

func scrub(root string, links bool) ([]Finding, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("scrub %s: %w", root, err)
	}
	defer r.Close()
	s := scrubber{root: root, links: links}
	s.dir(r, ".")
	return s.found, s.err
}

type scrubber struct {
	root  string
	links bool // remove symbolic links too
	found []Finding
	err   error
}

func (s *scrubber) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// capabilityXattr holds a file's capabilities: an executable with
// cap_setuid (set by root inside a container on a file in a mounted
// folder) gives whoever runs it root as a setuid bit does, and chmod does
// not clear it.
const capabilityXattr = "security.capability"

// dropCapabilities removes the file capabilities of the regular file at
// path, if it has any. The path is not followed if it is a link (Scrub
// runs when nothing writes the folder any more).
func (s *scrubber) dropCapabilities(path string) {
	n, err := unix.Lgetxattr(path, capabilityXattr, nil)
	if err != nil || n <= 0 {
		// ENODATA: none; ENOTSUP: a file system without them.
		return
	}
	if err := unix.Lremovexattr(path, capabilityXattr); err != nil {
		s.fail(fmt.Errorf("scrub %s: remove its file capabilities (%s): %w", path, capabilityXattr, err))
		return
	}
	s.found = append(s.found, Finding{Path: path, What: "file with capabilities", Action: "removed its file capabilities (" + capabilityXattr + ")"})
}

// dir scrubs the folder rel below s.root, open as r.
func (s *scrubber) dir(r *os.Root, rel string) {
	d, err := r.Open(".")
	if err != nil {
		s.fail(fmt.Errorf("scrub %s: %w", filepath.Join(s.root, rel), err))
		return
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		s.fail(fmt.Errorf("scrub %s: %w", filepath.Join(s.root, rel), err))
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(s.root, rel, name)
		// Lstat again: the entry's type from ReadDir is not enough for
		// the mode bits.
		info, err := r.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			s.fail(fmt.Errorf("scrub %s: %w", path, err))
			continue
		}
		m := info.Mode()
		switch {
		case m&fs.ModeSymlink != 0 && !s.links:
			// Never followed; a link is harmless by itself, and the
			// readers of these folders refuse links.
		case m&fs.ModeSymlink != 0:
			if err := r.Remove(name); err != nil {
				s.fail(fmt.Errorf("scrub %s: remove symbolic link: %w", path, err))
				continue
			}
			s.found = append(s.found, Finding{Path: path, What: "symbolic link", Action: "removed"})
		case m.IsDir():
			sub, err := r.OpenRoot(name)
			if err != nil {
				s.fail(fmt.Errorf("scrub %s: %w", path, err))
				continue
			}
			s.dir(sub, filepath.Join(rel, name))
			sub.Close()
		case m.IsRegular():
			s.dropCapabilities(path)
			if m&(fs.ModeSetuid|fs.ModeSetgid) == 0 {
				continue
			}
			what := "setuid file"
			switch {
			case m&fs.ModeSetuid != 0 && m&fs.ModeSetgid != 0:
				what = "setuid and setgid file"
			case m&fs.ModeSetgid != 0:
				what = "setgid file"
			}
			// os.Root.Chmod takes the permission bits only: setuid and
			// setgid are dropped.
			if err := r.Chmod(name, m.Perm()); err != nil {
				s.fail(fmt.Errorf("scrub %s: clear setuid/setgid: %w", path, err))
				continue
			}
			s.found = append(s.found, Finding{Path: path, What: what, Action: "cleared the setuid and setgid bits"})
		default:
			what := Kind(m)
			if err := r.Remove(name); err != nil {
				s.fail(fmt.Errorf("scrub %s: remove %s: %w", path, what, err))
				continue
			}
			s.found = append(s.found, Finding{Path: path, What: what, Action: "removed"})
		}
	}
}

package verify

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/benchgate/benchgate/internal/bench"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/suite"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// Evidence identifies the bytes an attempt's rows were judged from: a
// reader of tracking.json can check that the file still holds them.
// Before the set's verdict every judged file is hashed again; the fields
// after Missing say what was found when it no longer held them.
type Evidence struct {
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256,omitempty"`
	// Missing is set when the benchmark never created the file: there
	// were no bytes to judge (and no hash of them).
	Missing bool `json:"missing,omitempty"`
	// Changed says how the file differed from what was judged when it
	// was checked again before the verdict: "appended 120 bytes",
	// "truncated from 9912 to 0 bytes", "deleted", "rewritten ...".
	Changed string `json:"changed,omitempty"`
	// Found is what the file held then.
	Found *FileState `json:"found,omitempty"`
	// ChangedFile is where what was found was moved, once the judged
	// bytes were put back in the file's place from benchgate's private
	// copy (Restored).
	ChangedFile string `json:"changed_file,omitempty"`
	Restored    bool   `json:"restored,omitempty"`
}

// FileState is what a judged file held when it was checked again.
type FileState struct {
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256,omitempty"`
	// Missing: the file was gone; Kind: it was there, but not a regular
	// file ("symbolic link").
	Missing bool   `json:"missing,omitempty"`
	Kind    string `json:"kind,omitempty"`
	// Folder: the attempt's folder itself was replaced, by what it
	// names ("symbolic link"); what the file held behind it is not read.
	Folder string `json:"folder,omitempty"`
}

// readEvidence reads an attempt's suite file as ReadRows does, and says
// which bytes it judged. The file is the benchmark's: it is opened only
// if it is a regular file and not a link (a FIFO or a link to /dev/zero
// is an error naming it, not a read that never ends), read up to
// suite.MaxFileBytes, and the read stops with ctx. The bytes read are
// also written to keep when it is not nil (benchgate's private copy);
// a copy that cannot be written is given up, never the read.
func readEvidence(ctx context.Context, path, mode string, keep *keeper) ([]Row, Evidence, error) {
	src, err := suite.Open(ctx, path, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil, Evidence{Missing: true}, nil
	}
	if err != nil {
		return nil, Evidence{}, fmt.Errorf("%s suite file %w", mode, err)
	}
	defer src.Close()
	h := sha256.New()
	var w io.Writer = h
	if keep != nil {
		w = io.MultiWriter(h, keep)
	}
	cr := &countingReader{r: io.TeeReader(src, w)}
	rows, err := parseRows(cr, path, mode)
	return rows, Evidence{Bytes: cr.n, SHA256: hex.EncodeToString(h.Sum(nil))}, err
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// keeper writes benchgate's private copy of a judged file. A write error
// (a full disk) ends the copy, not the read: the copy only serves to say
// precisely what changed and to put the judged bytes back.
type keeper struct {
	f   *os.File
	w   *bufio.Writer
	err error
}

func newKeeper(path string) *keeper {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_EXCL, 0o600)
	if err != nil {
		return &keeper{err: err}
	}
	return &keeper{f: f, w: bufio.NewWriterSize(f, 1<<16)}
}

func (k *keeper) Write(p []byte) (int, error) {
	if k.err == nil {
		_, k.err = k.w.Write(p)
	}
	return len(p), nil
}

// close finishes the copy and reports whether it holds every byte.
func (k *keeper) close() bool {
	if k.f == nil {
		return false
	}
	if k.err == nil {
		k.err = k.w.Flush()
	}
	if err := k.f.Close(); k.err == nil {
		k.err = err
	}
	return k.err == nil
}

// privateDir makes the folder that holds benchgate's copies of the
// files it judged. It lies outside the set folder (in TMPDIR), readable
// by benchgate's user only: a benchmark that rewrites the files of an
// earlier attempt where it wrote them does not find the copies there. One
// that looks for them (it runs as the same user, or as root, and gets
// TMPDIR) can change them too; the change is still found by the hashes
// held in memory, only the judged bytes cannot be put back. Without the
// folder (TMPDIR not writable) the judged files are still checked by
// their hashes.
func (s *set) privateDir() string {
	if s.private == "" && s.privateErr == nil {
		s.private, s.privateErr = os.MkdirTemp("", "benchgate-judged-"+s.t.RunID+"-")
		if s.privateErr != nil {
			fmt.Fprintf(s.log, "set %s: warning: no private copy of the judged files (%v); they are still checked by their SHA-256\n", s.opts.Set, s.privateErr)
		}
	}
	return s.private
}

// protect makes an attempt's judged files and their folder read-only
// before the next attempt starts, so that a benchmark that writes where
// it wrote before (or deletes it) is refused by the file system. It does
// not hold against root, or a benchmark that changes the modes back:
// recheck finds those changes.
func protect(a *attempt) {
	for _, m := range bench.Modes {
		if f, err := fsutil.OpenRegular(a.files[m], false); err == nil {
			_ = f.Chmod(0o444)
			f.Close()
		}
	}
	chmodFolder(a.dir, 0o555)
}

// chmodFolder changes the mode of the folder at path itself: a link the
// benchmark put in its place is not followed, and what it points to (a
// folder of anyone's, /dev) is left alone. The attempt's files are
// changed the same way, through a descriptor of the regular file itself:
// os.Chmod follows links, and benchgate running as root once made
// /dev/zero read-only for everyone through a suite file linked to it.
func chmodFolder(path string, mode os.FileMode) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return
	}
	_ = f.Chmod(mode)
	f.Close()
}

// unprotect makes an attempt's folder writable again once the set's
// verdict is final, so that people and tools can delete the run folder
// (the files stay read-only).
func unprotect(a *attempt) { chmodFolder(a.dir, 0o755) }

// recheck hashes every judged file again, before the set's verdict, and
// returns one message per file that no longer holds the bytes judged.
// Each change is recorded in the attempt's evidence and, where
// benchgate's private copy is intact, undone: what was found is moved
// beside the file (<file>.changed) and the judged bytes are put back, so
// that tracking.json's hashes and diagnostics hold again.
//
// The check ends with ctx (the stop budget after a SIGTERM): a file it
// did not get to hash again, or was hashing then, is not a changed file,
// so nothing is recorded for it; stopped says that the check did not
// finish, and the verdict cannot be a pass.
func (s *set) recheck(ctx context.Context) (msgs []string, stopped error) {
	for _, a := range s.attempts {
		// Every file of the attempt is looked at before any is put back:
		// putting one back can replace the folder both were found in.
		founds := map[string]FileState{}
		errs := map[string]error{}
		for _, mode := range bench.Modes {
			if ev, ok := a.evidence[mode]; !ok || ev.Changed != "" {
				continue
			}
			path := a.files[mode]
			found, err := stateOf(ctx, path)
			if err != nil && ctx.Err() != nil {
				return msgs, fmt.Errorf("set %s: the judged suite files were not all hashed again before the verdict (stopped at %s): %w",
					s.opts.Set, path, context.Cause(ctx))
			}
			founds[mode], errs[mode] = found, err
		}
		for _, mode := range bench.Modes {
			ev, ok := a.evidence[mode]
			if !ok || ev.Changed != "" {
				continue
			}
			path := a.files[mode]
			found, err := founds[mode], errs[mode]
			if err != nil {
				ev.Changed = "could not be read again: " + err.Error()
				a.evidence[mode] = ev
				msgs = append(msgs, fmt.Sprintf("%s (%s, %s): %s", path, a.name(), mode, ev.Changed))
				continue
			}
			if found.same(ev) {
				continue
			}
			ev.Found = &found
			ev.Changed = describeChange(ctx, path, ev, found, a.copies[mode])
			msg := fmt.Sprintf("%s (%s, %s): judged %s, then %s", path, a.name(), mode, ev.judged(), ev.Changed)
			if kept, err := restore(path, ev, found, a.copies[mode]); err == nil {
				ev.Restored, ev.ChangedFile = true, kept
				switch {
				case ev.Missing:
					msg += "; it is moved to " + kept
				case kept != "":
					msg += "; the judged bytes are back in place, what was found is in " + kept
				default:
					msg += "; the judged bytes are back in place"
				}
			} else {
				msg += "; the judged bytes could not be put back: " + err.Error()
			}
			a.evidence[mode] = ev
			msgs = append(msgs, msg)
		}
	}
	return msgs, nil
}

// judged describes the judged bytes for a message.
func (e Evidence) judged() string {
	if e.Missing {
		return "missing (the benchmark never created it)"
	}
	return fmt.Sprintf("%s, sha256 %s", textfmt.Count(int(e.Bytes), "byte", "bytes"), e.SHA256)
}

// same reports whether the file still holds what was judged.
func (f FileState) same(e Evidence) bool {
	if f.Folder != "" {
		return false
	}
	if e.Missing || f.Missing {
		return e.Missing == f.Missing
	}
	return f.Kind == "" && f.Bytes == e.Bytes && f.SHA256 == e.SHA256
}

// stateOf hashes what path holds now, without following a link (its
// folder's included) or opening anything but a regular file.
func stateOf(ctx context.Context, path string) (FileState, error) {
	if info, err := os.Lstat(filepath.Dir(path)); err == nil && !info.IsDir() {
		return FileState{Folder: fsutil.Kind(info.Mode())}, nil
	}
	info, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return FileState{Missing: true}, nil
	}
	if err != nil {
		return FileState{}, err
	}
	if !info.Mode().IsRegular() {
		return FileState{Kind: fsutil.Kind(info.Mode())}, nil
	}
	sum, n, err := hashFile(ctx, path)
	if errors.Is(err, os.ErrNotExist) {
		return FileState{Missing: true}, nil
	}
	return FileState{Bytes: n, SHA256: sum}, err
}

func hashFile(ctx context.Context, path string) (string, int64, error) {
	src, err := suite.Open(ctx, path, false)
	if err != nil {
		return "", 0, err
	}
	defer src.Close()
	h := sha256.New()
	n, err := io.Copy(h, src)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// describeChange says how the file at path differs from the judged
// bytes: against benchgate's private copy where it is intact (copy, ""
// when there is none), else by the hashes alone.
func describeChange(ctx context.Context, path string, ev Evidence, found FileState, copy string) string {
	switch {
	case found.Folder != "":
		return "its folder replaced by a " + found.Folder
	case ev.Missing:
		if found.Kind != "" {
			return "created as a " + found.Kind + " after it was judged missing"
		}
		return fmt.Sprintf("created after it was judged missing (%s now)", textfmt.Count(int(found.Bytes), "byte", "bytes"))
	case found.Missing:
		return "deleted"
	case found.Kind != "":
		return "replaced by a " + found.Kind
	}
	if copy != "" {
		if sum, _, err := hashFile(ctx, copy); err != nil || sum != ev.SHA256 {
			copy = ""
		}
	}
	if copy == "" {
		// Without the judged bytes, only an append can be told apart.
		if found.Bytes > ev.Bytes {
			if sum, err := prefixHash(path, ev.Bytes); err == nil && sum == ev.SHA256 {
				return fmt.Sprintf("appended %s", textfmt.Count(int(found.Bytes-ev.Bytes), "byte", "bytes"))
			}
		}
		return fmt.Sprintf("changed (%s now, sha256 %s)", textfmt.Count(int(found.Bytes), "byte", "bytes"), found.SHA256)
	}
	at, err := firstDifference(path, copy)
	if err != nil {
		return fmt.Sprintf("changed (%s now, sha256 %s)", textfmt.Count(int(found.Bytes), "byte", "bytes"), found.SHA256)
	}
	common := min(found.Bytes, ev.Bytes)
	switch {
	case at >= common && found.Bytes > ev.Bytes:
		return fmt.Sprintf("appended %s", textfmt.Count(int(found.Bytes-ev.Bytes), "byte", "bytes"))
	case at >= common && found.Bytes < ev.Bytes:
		return fmt.Sprintf("truncated from %d to %s", ev.Bytes, textfmt.Count(int(found.Bytes), "byte", "bytes"))
	}
	return fmt.Sprintf("rewritten (%s now, sha256 %s; the first byte that differs is byte %d, line %d)",
		textfmt.Count(int(found.Bytes), "byte", "bytes"), found.SHA256, at+1, lineAt(copy, at))
}

// prefixHash is the SHA-256 of the first n bytes of path.
func prefixHash(path string, n int64) (string, error) {
	f, err := fsutil.OpenRegular(path, false)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyN(h, f, n); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// firstDifference returns the offset of the first byte at which the two
// files differ, or the length of the shorter when one is a prefix of the
// other (the length of both when they are equal).
func firstDifference(a, b string) (int64, error) {
	fa, err := fsutil.OpenRegular(a, false)
	if err != nil {
		return 0, err
	}
	defer fa.Close()
	fb, err := fsutil.OpenRegular(b, false)
	if err != nil {
		return 0, err
	}
	defer fb.Close()
	ra, rb := bufio.NewReaderSize(fa, 1<<16), bufio.NewReaderSize(fb, 1<<16)
	var off int64
	for {
		ca, ea := ra.ReadByte()
		cb, eb := rb.ReadByte()
		if ea != nil || eb != nil {
			if (ea != nil && ea != io.EOF) || (eb != nil && eb != io.EOF) {
				return 0, errors.Join(ea, eb)
			}
			return off, nil
		}
		if ca != cb {
			return off, nil
		}
		off++
	}
}

// lineAt is the 1-based line of the file at path that holds byte off.
func lineAt(path string, off int64) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	line := 1
	r := bufio.NewReader(io.LimitReader(f, off))
	for {
		b, err := r.ReadByte()
		if err != nil {
			return line
		}
		if b == '\n' {
			line++
		}
	}
}

// restore puts the judged bytes back at path from benchgate's private
// copy, after moving what was found there to <path>.changed (returned).
// A file judged missing is moved aside and nothing is put back. A folder
// found replaced (a link to another folder) is moved aside as a whole to
// <folder>.changed, never written through, and made again.
func restore(path string, ev Evidence, found FileState, copy string) (kept string, err error) {
	if !ev.Missing {
		if copy == "" {
			return "", errors.New("there is no intact private copy")
		}
		if sum, _, err := hashFile(context.Background(), copy); err != nil || sum != ev.SHA256 {
			return "", errors.New("the private copy no longer holds them either")
		}
	}
	dir := filepath.Dir(path)
	if info, err := os.Lstat(dir); err == nil && !info.IsDir() {
		if err := os.Rename(dir, dir+".changed"); err != nil {
			return "", err
		}
	}
	if found.Folder != "" {
		kept = filepath.Join(dir+".changed", filepath.Base(path))
	}
	chmodFolder(dir, 0o755)
	if err := fsutil.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if _, err := os.Lstat(path); err == nil {
		kept = path + ".changed"
		if err := os.Rename(path, kept); err != nil {
			return "", err
		}
	}
	if ev.Missing {
		return kept, nil
	}
	data, err := os.Open(copy)
	if err != nil {
		return kept, err
	}
	defer data.Close()
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return kept, err
	}
	if _, err := io.Copy(tmp, data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return kept, err
	}
	if err := errors.Join(tmp.Chmod(0o444), tmp.Sync(), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return kept, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return kept, err
	}
	return kept, nil
}

// evidenceError is the set's error when judged files changed: the pass is
// refused, and each file is named with what changed.
func evidenceError(set string, msgs []string) error {
	return fmt.Errorf("set %s: %s changed after %s judged, so the verdict cannot stand on them:\n    %s",
		set, textfmt.Count(len(msgs), "judged suite file", "judged suite files"), pronoun(len(msgs)), strings.Join(msgs, "\n    "))
}

func pronounObj(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func pronoun(n int) string {
	if n == 1 {
		return "it was"
	}
	return "they were"
}

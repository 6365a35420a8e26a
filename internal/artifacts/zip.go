package artifacts

import (
	"archive/zip"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/benchgate/benchgate/internal/fsutil"
)

// ErrNoFiles is returned when there is nothing to upload. upload-artifact
// treats this as a warning by default, so callers can test for it with
// errors.Is and decide.
var ErrNoFiles = errors.New("no files to upload")

// entry is one member of the archive: a file whose content is read from
// rel below the collection's root, or an empty directory.
type entry struct {
	rel  string // slash-separated path below the root; "" for directories
	name string // slash-separated path inside the zip
	dir  bool
}

// collection is what an upload sends: the entries, the folder they are
// read from, and the files left out.
type collection struct {
	root    string
	entries []entry
	// skipped lists the symbolic links found and not followed, and the
	// FIFOs, sockets and devices found and not read, so the caller can
	// warn about each. writeZip adds the files that became one of these
	// after they were listed.
	skipped []Skipped
}

// Skipped is a file left out of an upload: a symbolic link, which is
// never followed, or a file that is not a regular file. Reading a FIFO
// blocks until some process writes to it, a socket cannot be read, and a
// device can be endless (/dev/zero) or secret (a disk): an agent or a
// test that leaves one in a results folder must not stall or abort the
// whole upload, nor have it read.
type Skipped struct {
	// Path is relative to the uploaded folder, slash-separated.
	Path string
	// Kind says what the file is: "symbolic link", "named pipe (FIFO)",
	// "socket", "device" or "irregular file".
	Kind string
}

func sortSkipped(s []Skipped) {
	sort.Slice(s, func(i, j int) bool { return s[i].Path < s[j].Path })
}

// collectDir lists every regular file under root and the directories that
// end up empty (the toolkit keeps them as zip entries). Symbolic links are
// never followed: a link planted by an agent or a test (to /proc/self/environ,
// to a host secret) would otherwise upload whatever it points at, tokens
// included. They are listed in skipped instead, as are FIFOs, sockets and
// devices (see Skipped). Entries are sorted so the
// archive is reproducible. Paths in exclude (slash-separated, relative to
// root; a folder excludes what is below it) are left out.
func collectDir(root string, exclude map[string]bool) (collection, error) {
	info, err := os.Lstat(root)
	if err != nil {
		return collection{}, fmt.Errorf("folder %s: %w", root, err)
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return collection{}, fmt.Errorf("folder %s: is a symbolic link; upload the folder it points to instead", root)
	}
	if !info.IsDir() {
		return collection{}, fmt.Errorf("folder %s: not a directory", root)
	}
	c := collection{root: root}
	var walk func(dir, prefix string) error
	walk = func(dir, prefix string) error {
		des, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("folder %s: %w", dir, err)
		}
		if len(des) == 0 && prefix != "" {
			c.entries = append(c.entries, entry{name: prefix + "/", dir: true})
			return nil
		}
		for _, de := range des {
			p := filepath.Join(dir, de.Name())
			name := path.Join(prefix, de.Name())
			if exclude[name] {
				continue
			}
			switch t := de.Type(); {
			case t.IsDir():
				if err := walk(p, name); err != nil {
					return err
				}
			case t.IsRegular():
				c.entries = append(c.entries, entry{rel: name, name: name})
			default:
				c.skipped = append(c.skipped, Skipped{Path: name, Kind: fsutil.Kind(t)})
			}
		}
		return nil
	}
	if err := walk(root, ""); err != nil {
		return collection{}, err
	}
	if !hasFile(c.entries) {
		return collection{}, fmt.Errorf("folder %s: %w", root, ErrNoFiles)
	}
	sort.Slice(c.entries, func(i, j int) bool { return c.entries[i].name < c.entries[j].name })
	sortSkipped(c.skipped)
	return c, nil
}

// collectFiles turns an explicit file list into archive entries named
// relative to root. Relative paths are taken relative to root; every file
// must lie inside root, as upload-artifact requires. A listed file that is
// a symbolic link, a FIFO, a socket or a device is skipped like one found
// in a folder; a listed directory is an error.
func collectFiles(root string, files []string) (collection, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return collection{}, fmt.Errorf("root %s: %w", root, err)
	}
	if info, err := os.Stat(absRoot); err != nil {
		return collection{}, fmt.Errorf("root %s: %w", root, err)
	} else if !info.IsDir() {
		return collection{}, fmt.Errorf("root %s: not a directory", root)
	}
	c := collection{root: absRoot}
	seen := map[string]bool{}
	for _, f := range files {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(absRoot, p)
		}
		p = filepath.Clean(p)
		rel, err := filepath.Rel(absRoot, p)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return collection{}, fmt.Errorf("file %s: not inside the root folder %s", f, root)
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return collection{}, fmt.Errorf("file %s: %w", f, err)
		}
		name := filepath.ToSlash(rel)
		if fi.IsDir() {
			return collection{}, fmt.Errorf("file %s: expected a regular file, found %s", f, describeMode(fi.Mode()))
		}
		if !fi.Mode().IsRegular() {
			c.skipped = append(c.skipped, Skipped{Path: name, Kind: fsutil.Kind(fi.Mode())})
			continue
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		c.entries = append(c.entries, entry{rel: name, name: name})
	}
	if len(c.entries) == 0 {
		return collection{}, fmt.Errorf("root %s: %w", root, ErrNoFiles)
	}
	sort.Slice(c.entries, func(i, j int) bool { return c.entries[i].name < c.entries[j].name })
	sortSkipped(c.skipped)
	return c, nil
}

func describeMode(m fs.FileMode) string {
	if m.IsDir() {
		return "a directory"
	}
	return m.Type().String()
}

func hasFile(es []entry) bool {
	for _, e := range es {
		if !e.dir {
			return true
		}
	}
	return false
}

// pooledFlate returns its flate.Writer to the pool when the zip writer
// closes it: a flate.Writer costs about 1 MiB, too much to allocate per file
// in folders of many small files.
type pooledFlate struct {
	*flate.Writer
	pool *sync.Pool
}

func (p *pooledFlate) Close() error {
	err := p.Writer.Close()
	p.pool.Put(p.Writer)
	return err
}

// writeZip streams the entries as a zip into w, one file open at a time, so
// memory use does not depend on the size of the folder. level 0 stores the
// files; 1-9 or flate.DefaultCompression deflate them.
//
// Files are opened through an os.Root at the collection's root with
// O_NOFOLLOW, so a file swapped for a symbolic link (or a directory for a
// link out of the folder) after listing is refused, not followed; and
// with O_NONBLOCK, so that one swapped for a FIFO cannot block the
// upload. Either is left out and added to c.skipped.
func writeZip(ctx context.Context, w io.Writer, c *collection, level int) error {
	root, err := os.OpenRoot(c.root)
	if err != nil {
		return fmt.Errorf("zip: %w", err)
	}
	defer root.Close()
	zw := zip.NewWriter(w)
	method := zip.Store
	if level != flate.NoCompression {
		method = zip.Deflate
		pool := &sync.Pool{}
		zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
			if fw, ok := pool.Get().(*flate.Writer); ok {
				fw.Reset(out)
				return &pooledFlate{fw, pool}, nil
			}
			fw, err := flate.NewWriter(out, level)
			if err != nil {
				return nil, err
			}
			return &pooledFlate{fw, pool}, nil
		})
	}
	for _, e := range c.entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.dir {
			if _, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Store}); err != nil {
				return fmt.Errorf("zip %s: %w", e.name, err)
			}
			continue
		}
		skip, err := addFile(zw, root, c.root, e, method)
		if err != nil {
			return err
		}
		if skip != "" {
			c.skipped = append(c.skipped, Skipped{Path: e.name, Kind: skip})
			sortSkipped(c.skipped)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("zip: %w", err)
	}
	return nil
}

// addFile adds one listed file to the archive. A file that is no longer
// a regular file (a link, a FIFO, a socket, a device) is not added; its
// kind is returned so that the caller reports it.
func addFile(zw *zip.Writer, root *os.Root, rootDir string, e entry, method uint16) (string, error) {
	source := filepath.Join(rootDir, filepath.FromSlash(e.rel))
	f, err := root.OpenFile(filepath.FromSlash(e.rel), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	// A link in the last component gives ELOOP; a link on the way that
	// leaves the folder, os.Root's "path escapes from parent".
	if err != nil && (errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "path escapes from parent")) {
		return fsutil.Kind(fs.ModeSymlink), nil
	}
	if err != nil {
		return "", fmt.Errorf("zip %s: %w", source, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("zip %s: %w", source, err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("zip %s: expected a regular file, found %s", source, describeMode(fi.Mode()))
	}
	if !fi.Mode().IsRegular() {
		return fsutil.Kind(fi.Mode()), nil
	}
	hdr, err := zip.FileInfoHeader(fi)
	if err != nil {
		return "", fmt.Errorf("zip %s: %w", source, err)
	}
	hdr.Name = e.name
	hdr.Method = method
	zf, err := zw.CreateHeader(hdr)
	if err != nil {
		return "", fmt.Errorf("zip %s: %w", source, err)
	}
	if _, err := io.Copy(zf, f); err != nil {
		return "", fmt.Errorf("zip %s: %w", source, err)
	}
	return "", nil
}

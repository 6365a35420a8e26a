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
)

// ErrNoFiles is returned when there is nothing to upload. upload-artifact
// treats this as a warning by default, so callers can test for it with
// errors.Is and decide.
var ErrNoFiles = errors.New("no files to upload")

// entry is one member of the archive: a file whose content is read from
// source, or an empty directory.
type entry struct {
	source string // path on disk (after symlinks); "" for directories
	name   string // slash-separated path inside the zip
	dir    bool
}

// collectDir lists every file under root, following symbolic links the way
// upload-artifact's glob does, and the directories that end up empty (the
// toolkit keeps them as zip entries). Entries are sorted so the archive is
// reproducible.
func collectDir(root string) ([]entry, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("folder %s: %w", root, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("folder %s: not a directory", root)
	}
	var out []entry
	visited := map[string]bool{}
	var walk func(dir, prefix string) error
	walk = func(dir, prefix string) error {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return fmt.Errorf("folder %s: %w", dir, err)
		}
		if visited[real] {
			return fmt.Errorf("folder %s: symbolic link loop back to %s", dir, real)
		}
		visited[real] = true
		defer delete(visited, real)
		des, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("folder %s: %w", dir, err)
		}
		if len(des) == 0 && prefix != "" {
			out = append(out, entry{name: prefix + "/", dir: true})
			return nil
		}
		for _, de := range des {
			p := filepath.Join(dir, de.Name())
			name := path.Join(prefix, de.Name())
			fi, err := os.Stat(p) // follows symbolic links
			if err != nil {
				return fmt.Errorf("file %s: %w", p, err)
			}
			switch {
			case fi.IsDir():
				if err := walk(p, name); err != nil {
					return err
				}
			case fi.Mode().IsRegular():
				out = append(out, entry{source: p, name: name})
			default:
				return fmt.Errorf("file %s: %s is neither a regular file nor a directory", p, fi.Mode().Type())
			}
		}
		return nil
	}
	if err := walk(root, ""); err != nil {
		return nil, err
	}
	if !hasFile(out) {
		return nil, fmt.Errorf("folder %s: %w", root, ErrNoFiles)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// collectFiles turns an explicit file list into archive entries named
// relative to root. Relative paths are taken relative to root; every file
// must lie inside root, as upload-artifact requires.
func collectFiles(root string, files []string) ([]entry, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("root %s: %w", root, err)
	}
	if info, err := os.Stat(absRoot); err != nil {
		return nil, fmt.Errorf("root %s: %w", root, err)
	} else if !info.IsDir() {
		return nil, fmt.Errorf("root %s: not a directory", root)
	}
	seen := map[string]bool{}
	var out []entry
	for _, f := range files {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(absRoot, p)
		}
		p = filepath.Clean(p)
		rel, err := filepath.Rel(absRoot, p)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("file %s: not inside the root folder %s", f, root)
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("file %s: %w", f, err)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("file %s: expected a regular file, found %s", f, describeMode(fi.Mode()))
		}
		name := filepath.ToSlash(rel)
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, entry{source: p, name: name})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("root %s: %w", root, ErrNoFiles)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
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
func writeZip(ctx context.Context, w io.Writer, entries []entry, level int) error {
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
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.dir {
			if _, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Store}); err != nil {
				return fmt.Errorf("zip %s: %w", e.name, err)
			}
			continue
		}
		if err := addFile(zw, e, method); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("zip: %w", err)
	}
	return nil
}

func addFile(zw *zip.Writer, e entry, method uint16) error {
	f, err := os.Open(e.source)
	if err != nil {
		return fmt.Errorf("zip %s: %w", e.source, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("zip %s: %w", e.source, err)
	}
	hdr, err := zip.FileInfoHeader(fi)
	if err != nil {
		return fmt.Errorf("zip %s: %w", e.source, err)
	}
	hdr.Name = e.name
	hdr.Method = method
	zf, err := zw.CreateHeader(hdr)
	if err != nil {
		return fmt.Errorf("zip %s: %w", e.source, err)
	}
	if _, err := io.Copy(zf, f); err != nil {
		return fmt.Errorf("zip %s: %w", e.source, err)
	}
	return nil
}

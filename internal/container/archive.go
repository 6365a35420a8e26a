package container

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"sort"
)

// File is one file to place in a container.
type File struct {
	// Path is absolute inside the container.
	Path string
	Mode int64
	Data []byte
	// Source, when set, is streamed instead of Data (with Size bytes).
	Source io.Reader
	Size   int64
}

// CopyIn writes files into container id with one PUT archive call, at
// the root so that each file keeps its absolute path. Parent folders are
// created.
func (c *Client) CopyIn(ctx context.Context, id string, files []File) error {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(WriteTar(pw, files)) }()
	q := url.Values{"path": {"/"}}
	resp, err := c.do(ctx, http.MethodPut, "/containers/"+id+"/archive", q, pr, "application/x-tar")
	if err != nil {
		pr.CloseWithError(err)
		return fmt.Errorf("copy files into %s: %w", id, err)
	}
	resp.Body.Close()
	return nil
}

// WriteTar writes files as a tar stream with their parent folders.
func WriteTar(w io.Writer, files []File) error {
	tw := tar.NewWriter(w)
	dirs := map[string]bool{}
	for _, f := range files {
		for d := path.Dir(path.Clean(f.Path)); d != "/" && d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	var ds []string
	for d := range dirs {
		ds = append(ds, d)
	}
	sort.Strings(ds) // parents sort before their children
	for _, d := range ds {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d[1:] + "/", Mode: 0o755}); err != nil {
			return err
		}
	}
	for _, f := range files {
		size := int64(len(f.Data))
		src := io.Reader(bytes.NewReader(f.Data))
		if f.Source != nil {
			size, src = f.Size, f.Source
		}
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		name := path.Clean(f.Path)[1:]
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: size}); err != nil {
			return err
		}
		if _, err := io.CopyN(tw, src, size); err != nil {
			return fmt.Errorf("tar %s: %w", f.Path, err)
		}
	}
	return tw.Close()
}

// ReadFile copies one regular file out of container id (GET archive) and
// returns its content, at most limit bytes.
func (c *Client) ReadFile(ctx context.Context, id, p string, limit int64) ([]byte, error) {
	resp, err := c.do(ctx, http.MethodGet, "/containers/"+id+"/archive", url.Values{"path": {p}}, nil, "")
	if err != nil {
		return nil, fmt.Errorf("copy %s out of %s: %w", p, id, err)
	}
	defer resp.Body.Close()
	tr := tar.NewReader(resp.Body)
	for {
		h, err := tr.Next()
		if err != nil {
			return nil, fmt.Errorf("copy %s out of %s: %w", p, id, err)
		}
		if h.Typeflag == tar.TypeReg {
			if h.Size > limit {
				return nil, fmt.Errorf("copy %s out of %s: %d bytes is more than %d", p, id, h.Size, limit)
			}
			return io.ReadAll(tr)
		}
	}
}

func jsonEncode(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }

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
	"os"
	"strings"
)

// BuildFile is one file of a build context: from a host file (Path) or
// from Data.
type BuildFile struct {
	Name string
	Mode int64
	Path string
	Data []byte
}

// Build builds the image ref from a Dockerfile and files with the
// engine's classic builder (POST /build), streaming the context so a
// large file is never held in memory. labels are set on the new image.
// Unlike a commit, a build keeps the base image's config as it is
// (entrypoint, command or none, environment, working folder).
func (c *Client) Build(ctx context.Context, ref, dockerfile string, files []BuildFile, labels map[string]string) error {
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(writeContext(pw, dockerfile, files))
	}()
	lb, err := json.Marshal(labels)
	if err != nil {
		return err
	}
	q := url.Values{"t": {ref}, "version": {"1"}, "rm": {"1"}, "forcerm": {"1"}, "pull": {"0"}, "labels": {string(lb)}}
	resp, err := c.do(ctx, http.MethodPost, "/build", q, pr, "application/x-tar")
	pr.Close()
	if err != nil {
		return fmt.Errorf("build image %s: %w", ref, err)
	}
	defer resp.Body.Close()
	return streamError(resp.Body, "build image "+ref)
}

func writeContext(w io.Writer, dockerfile string, files []BuildFile) error {
	tw := tar.NewWriter(w)
	add := func(name string, mode int64, size int64, r io.Reader) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: size, Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err := io.Copy(tw, r)
		return err
	}
	if err := add("Dockerfile", 0o644, int64(len(dockerfile)), strings.NewReader(dockerfile)); err != nil {
		return err
	}
	for _, f := range files {
		if f.Path == "" {
			if err := add(f.Name, f.Mode, int64(len(f.Data)), bytes.NewReader(f.Data)); err != nil {
				return err
			}
			continue
		}
		in, err := os.Open(f.Path)
		if err != nil {
			return err
		}
		info, err := in.Stat()
		if err == nil {
			err = add(f.Name, f.Mode, info.Size(), in)
		}
		in.Close()
		if err != nil {
			return err
		}
	}
	return tw.Close()
}

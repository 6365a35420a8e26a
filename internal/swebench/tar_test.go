package swebench

import (
	"archive/tar"
	"bytes"
	"io"
)

// writeTarWithLinks copies the tar in base and adds /bin/<applet> symlinks
// to busybox.
func writeTarWithLinks(w io.Writer, base []byte, applets []string) error {
	tr := tar.NewReader(bytes.NewReader(base))
	tw := tar.NewWriter(w)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return err
		}
	}
	for _, a := range applets {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + a, Linkname: "busybox", Mode: 0o777}); err != nil {
			return err
		}
	}
	return tw.Close()
}

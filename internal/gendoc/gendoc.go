// Package gendoc writes the generated parts of files otherwise written by
// hand (action.yml, docs tables): each part sits between two marker
// lines, so a declaration in Go is the one place its words are kept and a
// test can tell when a file has drifted from it.
package gendoc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/internal/fsutil"
)

// Replace puts body between the lines begin and end of text, which must
// each occur once, begin first; file names the file in the error.
func Replace(text, begin, end, body, file string) (string, error) {
	i := strings.Index(text, begin)
	j := strings.Index(text, end)
	if i < 0 || j < i || strings.Count(text, begin) != 1 || strings.Count(text, end) != 1 {
		return "", fmt.Errorf("%s: expected one line %q and after it one line %q around the generated part", file, strings.TrimSpace(begin), strings.TrimSpace(end))
	}
	return text[:i+len(begin)] + body + text[j:], nil
}

// Write writes files (contents by path relative to root), each
// atomically; a file already up to date is left untouched.
func Write(root string, files map[string][]byte) error {
	for rel, b := range files {
		p := filepath.Join(root, rel)
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, b) {
			continue
		}
		if err := fsutil.WriteFileAtomic(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

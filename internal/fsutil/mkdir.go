package fsutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// MkdirAll is os.MkdirAll with an error that names the real cause. The
// kernel reports a dangling symbolic link where a folder belongs as
// "mkdir <path>: file exists", and a file in the way as "not a
// directory"; MkdirAll names the component that is in the way and what
// it is: "<path> is a symbolic link to <target>, which does not exist".
func MkdirAll(path string, perm os.FileMode) error {
	err := os.MkdirAll(path, perm)
	if err == nil {
		return nil
	}
	if why := inTheWay(path); why != "" {
		return fmt.Errorf("create folder %s: %s", path, why)
	}
	return err
}

// inTheWay finds the first component of path, from the root down, that
// exists and cannot hold a folder, and says what it is.
func inTheWay(path string) string {
	path = filepath.Clean(path)
	var parts []string
	for p := path; ; p = filepath.Dir(p) {
		parts = append(parts, p)
		if d := filepath.Dir(p); d == p {
			break
		}
	}
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		li, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			return ""
		}
		if err != nil {
			return ""
		}
		if li.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			fi, err := os.Stat(p)
			switch {
			case errors.Is(err, os.ErrNotExist):
				return fmt.Sprintf("%s is a symbolic link to %s, which does not exist (create that folder, or give a folder that exists)", p, target)
			case err != nil:
				return fmt.Sprintf("%s is a symbolic link to %s, which cannot be followed: %v", p, target, err)
			case !fi.IsDir():
				return fmt.Sprintf("%s is a symbolic link to %s, which is %s, not a folder", p, target, describe(fi.Mode()))
			}
			continue
		}
		if !li.IsDir() {
			return fmt.Sprintf("%s is %s, not a folder", p, describe(li.Mode()))
		}
	}
	return ""
}

package fsutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMkdirAllNamesWhatIsInTheWay: where a folder cannot be made, the
// error names the component in the way and what it is, not the kernel's
// "file exists".
func TestMkdirAllNamesWhatIsInTheWay(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(dir, "gone")
	for _, l := range []struct{ name, target string }{{"dangling", gone}, {"tofile", file}, {"todir", dir}} {
		if err := os.Symlink(l.target, filepath.Join(dir, l.name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		path string
		want string // "" means it succeeds
	}{
		{filepath.Join(dir, "dangling"), filepath.Join(dir, "dangling") + " is a symbolic link to " + gone + ", which does not exist"},
		{filepath.Join(dir, "dangling", "set"), filepath.Join(dir, "dangling") + " is a symbolic link to " + gone + ", which does not exist"},
		{filepath.Join(dir, "tofile", "set"), filepath.Join(dir, "tofile") + " is a symbolic link to " + file + ", which is a regular file, not a folder"},
		{filepath.Join(dir, "file", "set"), file + " is a regular file, not a folder"},
		{filepath.Join(dir, "todir", "new", "set"), ""},
	} {
		err := MkdirAll(tc.path, 0o755)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("MkdirAll(%s): %v", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "file exists")):
			t.Errorf("MkdirAll(%s) = %v, want an error saying %q", tc.path, err, tc.want)
		}
	}
}

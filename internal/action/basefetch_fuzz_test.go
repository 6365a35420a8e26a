package action

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Whatever an artifact archive holds, unpacking it never panics and
// never writes outside its folder or anything but regular files.
func FuzzUnzipArchive(f *testing.F) {
	f.Add(hostileZip(f))
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Add([]byte("not a zip"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "run")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		unzipArchive(bytes.NewReader(b), int64(len(b)), dir, 1<<20)
		filepath.WalkDir(parent, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if p != parent && p != dir && !strings.HasPrefix(p, dir+string(filepath.Separator)) {
				t.Fatalf("%s written outside %s", p, dir)
			}
			if !d.IsDir() && !d.Type().IsRegular() {
				t.Fatalf("%s is not a regular file (%v)", p, d.Type())
			}
			return nil
		})
	})
}

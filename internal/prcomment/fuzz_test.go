package prcomment

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead: a comment file comes from a run of someone else's code.
// Whatever it holds, Read never panics, and a file it accepts is a valid
// comment that writes and reads back the same.
func FuzzRead(f *testing.F) {
	m := Marker("bench", "bench", "report")
	f.Add([]byte(`{"repository":"o/r","pull_request":7,"head_sha":"` + "1111111111111111111111111111111111111111" + `","marker":"` + m + `","body":"` + m + `\nok"}`))
	f.Add([]byte(`{"repository":"o/r/x","pull_request":-1}`))
	f.Add([]byte(`{"repository":"o/r","pull_request":7,"marker":"<!-- benchgate-comment workflow=a --> job=b mode=c -->","body":"x"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, FileName)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Read(p)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Read accepted an invalid comment: %v", err)
		}
		if err := c.Write(p); err != nil {
			t.Fatal(err)
		}
		again, err := Read(p)
		if err != nil || *again != *c {
			t.Fatalf("write and read back: %+v, %v; want %+v", again, err, c)
		}
	})
}

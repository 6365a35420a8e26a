package prcomment

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadFile: a comment file comes from a run of someone else's code.
// Whatever it holds, ReadFile never panics, and a file it accepts is
// valid, writes and reads back the same, and renders into a valid
// comment.
func FuzzReadFile(f *testing.F) {
	good, _ := json.Marshal(testFile())
	f.Add(good)
	f.Add(bytes.Replace(good, []byte(`"fail"`), []byte(`"[x](https://evil) @team"`), 1))
	f.Add([]byte(`{"schema":"benchgate.pr-comment/v2","repository":"o/r/x","pull_request":-1}`))
	f.Add([]byte(`{"repository":"o/r","pull_request":7,"marker":"<!-- benchgate-comment workflow=a --> job=b mode=c -->","body":"x"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, FileName)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := ReadFile(p)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("ReadFile accepted an invalid file: %v", err)
		}
		if err := c.Write(p); err != nil {
			t.Fatal(err)
		}
		again, err := ReadFile(p)
		x, _ := json.Marshal(c)
		y, _ := json.Marshal(again)
		if err != nil || !bytes.Equal(x, y) {
			t.Fatalf("write and read back: %s, %v; want %s", y, err, x)
		}
		if _, err := c.Comment(Binding{Workflow: "bench", HeadSHA: c.HeadSHA, LinkPrefix: "https://github.com/" + c.Repository + "/"}); err != nil {
			t.Fatalf("an accepted file renders no valid comment: %v", err)
		}
	})
}

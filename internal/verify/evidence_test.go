package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDescribeChange: how a judged file that no longer holds its bytes
// is described, against benchgate's private copy and, without one, by
// the hashes alone. Each want was worked out by hand from the bytes.
func TestDescribeChange(t *testing.T) {
	judged := "{\"a\":1}\n{\"b\":2}\n" // 16 bytes, 2 lines
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	for _, tc := range []struct {
		name    string
		now     *string // nil: deleted
		link    bool    // a symbolic link stands in the file's place
		noCopy  bool
		missing bool // judged missing
		want    string
	}{
		{name: "same bytes", now: ptr(judged), want: ""},
		{name: "appended", now: ptr(judged + "{\"c\":3}\n"), want: "appended 8 bytes"},
		{name: "appended, no copy", now: ptr(judged + "{\"c\":3}\n"), noCopy: true, want: "appended 8 bytes"},
		{name: "truncated to a prefix", now: ptr("{\"a\":1}\n"), want: "truncated from 16 to 8 bytes"},
		{name: "truncated to nothing", now: ptr(""), want: "truncated from 16 to 0 bytes"},
		{name: "truncated, no copy", now: ptr(""), noCopy: true, want: "changed (0 bytes now, sha256 " + sum("") + ")"},
		{name: "rewritten, same size", now: ptr("{\"a\":1}\n{\"b\":3}\n"), want: "rewritten (16 bytes now, sha256 " + sum("{\"a\":1}\n{\"b\":3}\n") + "; the first byte that differs is byte 14, line 2)"},
		{name: "rewritten, longer", now: ptr("{\"a\":10}\n{\"b\":2}\n"), want: "rewritten (17 bytes now, sha256 " + sum("{\"a\":10}\n{\"b\":2}\n") + "; the first byte that differs is byte 7, line 1)"},
		{name: "rewritten, no copy", now: ptr("{\"a\":1}\n{\"b\":3}\n"), noCopy: true, want: "changed (16 bytes now, sha256 " + sum("{\"a\":1}\n{\"b\":3}\n") + ")"},
		{name: "deleted", now: nil, want: "deleted"},
		{name: "replaced by a link", link: true, want: "replaced by a symbolic link"},
		{name: "created after judged missing", missing: true, now: ptr(judged), want: "created after it was judged missing (16 bytes now)"},
		{name: "still missing", missing: true, now: nil, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "ghx-suite.jsonl")
			copy := filepath.Join(dir, "copy")
			if err := os.WriteFile(copy, []byte(judged), 0o600); err != nil {
				t.Fatal(err)
			}
			ev := Evidence{Bytes: int64(len(judged)), SHA256: sum(judged)}
			if tc.missing {
				ev = Evidence{Missing: true}
			}
			switch {
			case tc.link:
				if err := os.Symlink(copy, path); err != nil {
					t.Fatal(err)
				}
			case tc.now != nil:
				if err := os.WriteFile(path, []byte(*tc.now), 0o444); err != nil {
					t.Fatal(err)
				}
			}
			found, err := stateOf(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			if found.same(ev) != (tc.want == "") {
				t.Fatalf("same = %v, found %+v", found.same(ev), found)
			}
			if tc.want == "" {
				return
			}
			c := copy
			if tc.noCopy {
				c = ""
			}
			if got := describeChange(context.Background(), path, ev, found, c); got != tc.want {
				t.Errorf("describeChange = %q\nwant             %q", got, tc.want)
			}
			// Putting the judged bytes back leaves them at path and what
			// was found beside it.
			kept, err := restore(path, ev, found, copy)
			if err != nil {
				t.Fatal(err)
			}
			if tc.missing {
				if _, err := os.Lstat(path); err == nil || kept != path+".changed" {
					t.Errorf("a file judged missing: kept %q, and path still there (%v)", kept, err)
				}
				return
			}
			if data, err := os.ReadFile(path); err != nil || string(data) != judged {
				t.Errorf("after restore %q %v, want the judged bytes", data, err)
			}
			if (tc.now != nil || tc.link) != (kept != "") || (kept != "" && !strings.HasSuffix(kept, ".changed")) {
				t.Errorf("kept %q", kept)
			}
		})
	}
}

func ptr(s string) *string { return &s }

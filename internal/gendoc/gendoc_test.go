package gendoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReplace(t *testing.T) {
	const begin, end = "<!-- begin -->\n", "<!-- end -->\n"
	tests := []struct {
		name, text, want, wantErr string
	}{
		{name: "part replaced, the rest kept", text: "intro\n" + begin + "old\n" + end + "outro\n", want: "intro\n" + begin + "new\n" + end + "outro\n"},
		{name: "empty part", text: begin + end, want: begin + "new\n" + end},
		{name: "no begin", text: "old\n" + end, wantErr: `f.md: expected one line "<!-- begin -->" and after it one line "<!-- end -->"`},
		{name: "end first", text: end + begin, wantErr: "f.md: expected one line"},
		{name: "two begins", text: begin + begin + end, wantErr: "f.md: expected one line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Replace(tt.text, begin, end, "new\n", "f.md")
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one starting %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Replace = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestWriteLeavesAnUpToDateFileAlone: an unchanged file keeps its
// modification time (make and editors see no change); a changed one is
// rewritten.
func TestWriteLeavesAnUpToDateFileAlone(t *testing.T) {
	root := t.TempDir()
	same, changed := filepath.Join(root, "same.md"), filepath.Join(root, "changed.md")
	for _, p := range []string{same, changed} {
		if err := os.WriteFile(p, []byte("a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, time0, time0); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(root, map[string][]byte{"same.md": []byte("a\n"), "changed.md": []byte("b\n")}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(same); err != nil || !fi.ModTime().Equal(time0) {
		t.Errorf("same.md was rewritten: %v %v", fi.ModTime(), err)
	}
	if b, err := os.ReadFile(changed); err != nil || string(b) != "b\n" {
		t.Errorf("changed.md = %q, %v", b, err)
	}
}

var time0 = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)

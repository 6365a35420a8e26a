package swebench

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseLsFiles reads `git ls-files -s -z` records, names with tabs,
// spaces and newlines included (-z leaves them unquoted).
func TestParseLsFiles(t *testing.T) {
	out := "100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 0\ta b\x00" +
		"120000 1c2a5b6c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a 0\tlink\x00" +
		"160000 a7152c22b39e390808df7ccff77b4ee0971952fc 0\tdep\x00" +
		"100755 3b18e512dba79e4c8300dd08aeb37f8e728b8dad 0\tx\ty\nz\x00"
	got, err := parseLsFiles([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := treeEntries{
		"a b":     "100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
		"link":    "120000 1c2a5b6c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a",
		"dep":     "160000 a7152c22b39e390808df7ccff77b4ee0971952fc",
		"x\ty\nz": "100755 3b18e512dba79e4c8300dd08aeb37f8e728b8dad",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := parseLsFiles([]byte("garbage\x00")); err == nil || !strings.Contains(err.Error(), `unexpected record "garbage"`) {
		t.Errorf("a record that is not ls-files -s: %v", err)
	}
}

// TestTreeDifferences names the paths where the tree after the apply is
// not the agent's: a lost exec bit, a missing file, an extra one.
func TestTreeDifferences(t *testing.T) {
	agent := treeEntries{"f": "100755 1111111111111111", "g": "100644 2222222222222222", "same": "100644 3333333333333333"}
	after := treeEntries{"f": "100644 1111111111111111", "h": "100644 4444444444444444", "same": "100644 3333333333333333"}
	n, named := treeDifferences(agent, after, 2)
	want := []string{
		"f (agent's tree: 100755 111111111111; after applying: 100644 111111111111)",
		"g (agent's tree: 100644 222222222222; after applying: absent)",
	}
	if n != 3 || !reflect.DeepEqual(named, want) {
		t.Errorf("%d differences %q, want 3 and %q", n, named, want)
	}
	if n, named := treeDifferences(agent, agent, 5); n != 0 || named != nil {
		t.Errorf("a tree differs from itself: %d %q", n, named)
	}
}

// TestCapWriter keeps the first max bytes, drains the rest and says so.
func TestCapWriter(t *testing.T) {
	w := &capWriter{max: 5}
	for _, s := range []string{"abc", "def", "gh"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if w.buf.String() != "abcde" || !w.over {
		t.Errorf("kept %q over=%v, want abcde and over", w.buf.String(), w.over)
	}
}

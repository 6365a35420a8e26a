package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinaryBuildsOncePerContent: the same sources give the same binary,
// reused; a changed source gives a new one; nothing is built under the
// temporary folder.
func TestBinaryBuildsOncePerContent(t *testing.T) {
	t.Setenv("BENCHGATE_TEST_STATE", t.TempDir())
	src := t.TempDir()
	write := func(msg string) {
		if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module example.com/hello\n\ngo 1.22\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		prog := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Print(" + `"` + msg + `"` + ") }\n"
		if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(prog), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(bin string) string {
		out, err := exec.Command(bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	write("one")
	first := Binary(t, Build{Dir: src, Name: "hello"})
	state, _ := StateDir()
	if !strings.HasPrefix(first, state) || run(first) != "one" {
		t.Fatalf("binary %s (state %s) says %q", first, state, run(first))
	}
	// A second Build value of the same sources in a fresh process state
	// (the memo is per key) finds the stored binary.
	again, err := Build{Dir: src, Name: "hello", Env: []string{"X_UNUSED=1"}}.Path()
	if err != nil {
		t.Fatal(err)
	}
	if again == first {
		t.Errorf("a different environment reused the binary %s", again)
	}
	write("two")
	builds.Range(func(k, _ any) bool { builds.Delete(k); return true })
	second := Binary(t, Build{Dir: src, Name: "hello"})
	if second == first || run(second) != "two" {
		t.Errorf("changed source: binary %s says %q", second, run(second))
	}
	if run(first) != "one" {
		t.Errorf("the earlier build was overwritten")
	}
}

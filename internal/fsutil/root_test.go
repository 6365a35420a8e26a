package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInFunctionsRefuseLinks plants the links an agent could leave in its
// output folder and checks that no write or read goes through them.
func TestInFunctionsRefuseLinks(t *testing.T) {
	host := t.TempDir()
	victim := filepath.Join(host, "victim.txt")
	if err := os.WriteFile(victim, []byte("host secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "logs"), 0o755)
	os.Symlink(victim, filepath.Join(root, "logs", "codex_execute_1.jsonl"))
	os.Symlink(victim, filepath.Join(root, "x.patch"))
	os.Symlink(host, filepath.Join(root, "plans"))
	os.WriteFile(filepath.Join(root, "ok.txt"), []byte("fine"), 0o644)

	if f, err := CreateIn(root, filepath.Join(root, "logs", "codex_execute_1.jsonl")); err == nil {
		f.Close()
		t.Error("CreateIn wrote through a link")
	} else if !errors.Is(err, ErrSymlink) {
		t.Errorf("CreateIn: %v, want ErrSymlink", err)
	}
	if err := WriteFileAtomicIn(root, filepath.Join(root, "plans", "SPEC.md"), []byte("x"), 0o644); err == nil {
		t.Error("WriteFileAtomicIn wrote through a linked folder")
	}
	if _, err := ReadFileIn(root, filepath.Join(root, "x.patch"), 1<<20); !errors.Is(err, ErrSymlink) {
		t.Errorf("ReadFileIn of a link: %v, want ErrSymlink", err)
	}
	if _, err := ReadFileIn(root, filepath.Join(root, "plans", "victim.txt"), 1<<20); err == nil {
		t.Error("ReadFileIn read through a linked folder")
	}
	if b, _ := os.ReadFile(victim); string(b) != "host secret" {
		t.Fatalf("the host file changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(host, "SPEC.md")); err == nil {
		t.Error("a file was created in the host folder")
	}

	// The ordinary cases still work, and a link at the target of an
	// atomic write is replaced, not followed.
	if err := WriteFileAtomicIn(root, filepath.Join(root, "x.patch"), []byte("diff"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFileIn(root, filepath.Join(root, "x.patch"), 10); err != nil || string(b) != "diff" {
		t.Errorf("read back %q, %v", b, err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "host secret" {
		t.Fatalf("the host file changed: %q", b)
	}
	if _, err := ReadFileIn(root, filepath.Join(root, "ok.txt"), 2); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := ReadFileIn(root, filepath.Join(root, "missing"), 2); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	f, err := CreateIn(root, filepath.Join(root, "logs", "new", "runner.log"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("log")
	f.Close()
	if _, err := CreateIn(root, filepath.Join(host, "outside")); err == nil || !strings.Contains(err.Error(), "not inside") {
		t.Errorf("a path outside root: %v", err)
	}
}

package fsutil

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

func TestWriteFileAtomicCreatesParentsAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "out.json")
	if err := WriteFileAtomic(path, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "two" {
		t.Fatalf("content = %q, %v", got, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only out.json", len(entries))
	}
}

func TestWriteFileAtomicKeepsOldContentOnFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory cannot be renamed over by a file: the write must fail
	// and leave the sibling file untouched.
	target := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(target, []byte("new"), 0o644); err == nil {
		t.Fatal("expected an error writing over a non-empty directory")
	}
	got, _ := os.ReadFile(path)
	if string(got) != "old" {
		t.Fatalf("content = %q, want old", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("temp file left behind: %v", entries)
	}
}

// TestUpdateLockedSerialises runs many read-modify-write cycles on one
// counter file at once; without the lock, increments get lost.
func TestUpdateLockedSerialises(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counter")
	const n = 50
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := UpdateLocked(path, func() error {
				data, _ := os.ReadFile(path)
				v, _ := strconv.Atoi(string(data))
				return WriteFileAtomic(path, []byte(strconv.Itoa(v+1)), 0o644)
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	data, _ := os.ReadFile(path)
	if string(data) != strconv.Itoa(n) {
		t.Fatalf("counter = %s, want %d", data, n)
	}
}

package swebench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestUpdateManifestConcurrent checks that runs sharing a manifest dir
// never lose each other's entries.
func TestUpdateManifestConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := fmt.Sprintf("acme__w-%d", i)
			status := []string{"success", "failed", "incomplete", "running"}[i%4]
			if err := UpdateManifest(dir, time.Now(), func(m *Manifest) {
				m.Instances[id] = InstanceEntry{InstanceID: id, Status: status}
			}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	m, err := ReadManifest(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Instances) != 20 || m.Counts != (Counts{Total: 20, Success: 5, Failed: 5, Incomplete: 5}) {
		t.Fatalf("%d entries, counts %+v", len(m.Instances), m.Counts)
	}
	if m.Codex.Profile != "local" || !m.Codex.Unattended || m.Dataset.Name != DefaultDataset || m.CreatedAt.IsZero() {
		t.Errorf("header %+v %+v %v", m.Codex, m.Dataset, m.CreatedAt)
	}
}

func TestUpdateManifestKeepsACorruptFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ManifestFile)
	if err := os.WriteFile(p, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := UpdateManifest(dir, time.Now(), func(m *Manifest) {})
	if err == nil || !strings.Contains(err.Error(), "not a valid run manifest") {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{not json" {
		t.Errorf("the corrupt manifest was overwritten: %q", b)
	}
}

func TestCountsExitCode(t *testing.T) {
	tests := []struct {
		c    Counts
		want int
	}{
		{Counts{Total: 2, Success: 2}, 0},
		{Counts{Total: 2, Success: 1, Incomplete: 1}, 20},
		{Counts{Total: 3, Success: 1, Incomplete: 1, Failed: 1}, 1},
	}
	for _, tc := range tests {
		if got := tc.c.ExitCode(); got != tc.want {
			t.Errorf("%+v: exit %d, want %d", tc.c, got, tc.want)
		}
	}
}

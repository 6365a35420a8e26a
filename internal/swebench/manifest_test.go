package swebench

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/container"
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

// TestRunWithCorruptManifestKeepsEarlierOutput: when the manifest cannot
// be updated, the run stops before touching the instance's earlier files.
func TestRunWithCorruptManifestKeepsEarlierOutput(t *testing.T) {
	dir := t.TempDir()
	id := "acme__w-1"
	out := filepath.Join(dir, id)
	p := PathsFor(out, id)
	if err := os.MkdirAll(p.Plans, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{p.Status: `{"status":"success"}`, p.Pred: `{}`, filepath.Join(p.Plans, "SPECIFICATION.md"): "spec", filepath.Join(dir, ManifestFile): "{broken"}
	for f, c := range files {
		if err := os.WriteFile(f, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dc, err := container.New("unix:///nonexistent.sock")
	if err != nil {
		t.Fatal(err)
	}
	o := baseOptions(t, dc, datasetFile(t, dir, id), DefaultImageTemplate, "success")
	o.InstanceID, o.OutputDir, o.ManifestDir = id, out, dir
	if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "not a valid run manifest") {
		t.Fatalf("err %v", err)
	}
	for f, c := range files {
		if b, err := os.ReadFile(f); err != nil || string(b) != c {
			t.Errorf("%s changed: %q %v", f, b, err)
		}
	}
}

// TestReadManifestRefuses plants at run_manifest.json (and its lock)
// what an agent can leave in the output folder: each read and each
// update returns at once with an error naming the file and what it is,
// the host file a link points at is neither read nor changed, and no
// read goes past the size cap.
func TestReadManifestRefuses(t *testing.T) {
	host := filepath.Join(t.TempDir(), "host.json")
	hostJSON := `{"instances":{"host__secret-1":{"instance_id":"host__secret-1","status":"success"}}}`
	if err := os.WriteFile(host, []byte(hostJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		plant func(p string) error
		want  string
	}{
		{"link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "run_manifest.json is a symbolic link; refused"},
		{"link to a host JSON file", func(p string) error { return os.Symlink(host, p) }, "run_manifest.json is a symbolic link; refused"},
		{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "run_manifest.json: expected a regular file, found a named pipe (FIFO)"},
		{"folder", func(p string) error { return os.Mkdir(p, 0o755) }, "run_manifest.json: expected a regular file, found a directory"},
		{"larger than the cap", func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(MaxManifestBytes + 1)
		}, "run_manifest.json is larger than allowed"},
		{"lock file that is a FIFO", func(p string) error { return syscall.Mkfifo(p+".lock", 0o644) }, "run_manifest.json.lock: expected a regular file, found a named pipe (FIFO)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, ManifestFile)
			if err := tc.plant(p); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 2)
			go func() {
				_, err := ReadManifest(p)
				if errors.Is(err, fs.ErrNotExist) && strings.HasPrefix(tc.name, "lock") {
					err = errors.New(p + ".lock: expected a regular file, found a named pipe (FIFO)") // no manifest to read; the lock is UpdateManifest's
				}
				done <- err
				done <- UpdateManifest(dir, time.Now(), func(m *Manifest) { m.Instances["a__b-1"] = InstanceEntry{InstanceID: "a__b-1"} })
			}()
			for _, what := range []string{"ReadManifest", "UpdateManifest"} {
				select {
				case err := <-done:
					if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, tc.want)) {
						t.Errorf("%s: %v, want an error containing %q", what, err, filepath.Join(dir, tc.want))
					}
				case <-time.After(time.Minute): // a last-resort guard: a FIFO read blocks forever
					t.Fatalf("%s blocked", what)
				}
			}
			if b, _ := os.ReadFile(host); string(b) != hostJSON {
				t.Errorf("the host file changed: %q", b)
			}
		})
	}
}

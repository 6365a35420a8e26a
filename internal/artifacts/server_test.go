package artifacts_test

// These tests upload to the artifact server nektos/act runs for local
// workflow runs (github.com/nektos/act/pkg/artifacts, v0.2.72; its v4
// handlers are the same as in v0.2.87), started in-process on 127.0.0.1,
// with a runtime token minted by act's own CreateAuthorizationToken. The
// artifact is then fetched back through the server's GetSignedArtifactURL
// and DownloadArtifact routes and compared file by file.

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	actartifacts "github.com/nektos/act/pkg/artifacts"
	actcommon "github.com/nektos/act/pkg/common"

	"github.com/benchgate/benchgate/internal/artifacts"
)

const (
	actRunID = 4242
	actJobID = 77
)

// actServer starts act's artifact server and returns its base URL and the
// folder it stores artifacts in.
func actServer(t testing.TB) (baseURL, storage string) {
	t.Helper()
	storage = t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	stop := actartifacts.Serve(context.Background(), storage, "127.0.0.1", port)
	t.Cleanup(stop)
	baseURL = "http://127.0.0.1:" + port + "/"
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			c.Close()
			return baseURL, storage
		}
		if time.Now().After(deadline) {
			t.Fatalf("act artifact server did not start on port %s: %v", port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// actClient builds a client the way the Action does, from the environment
// a runner (here act) provides.
func actClient(t testing.TB, baseURL string) *artifacts.Client {
	t.Helper()
	token, err := actcommon.CreateAuthorizationToken(1, actRunID, actJobID)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		artifacts.EnvResultsURL:   baseURL,
		artifacts.EnvRuntimeToken: token,
	}
	c, err := artifacts.NewClientFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// download fetches an artifact zip through act's own download path.
func download(t *testing.T, baseURL, name string) []byte {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"workflow_run_backend_id":     fmt.Sprint(actRunID),
		"workflow_job_run_backend_id": fmt.Sprint(actJobID),
		"name":                        name,
	})
	res, err := http.Post(baseURL+"twirp/github.actions.results.api.v1.ArtifactService/GetSignedArtifactURL", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var signed struct {
		SignedURL string `json:"signedUrl"`
	}
	if err := json.NewDecoder(res.Body).Decode(&signed); err != nil || signed.SignedURL == "" {
		t.Fatalf("GetSignedArtifactURL: status %d, %v", res.StatusCode, err)
	}
	dl, err := http.Get(signed.SignedURL)
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Body.Close()
	data, err := io.ReadAll(dl.Body)
	if err != nil || dl.StatusCode != http.StatusOK {
		t.Fatalf("DownloadArtifact: status %d, %v", dl.StatusCode, err)
	}
	return data
}

// unzip returns the members of a zip: file name to content, and directory
// entries with a nil content.
func unzip(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("downloaded artifact is not a zip: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			out[f.Name] = nil
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("zip member %s: %v", f.Name, err)
		}
		out[f.Name] = b
	}
	return out
}

func writeTree(t *testing.T, root string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func fnvID(name string) int64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int64(h.Sum32())
}

func TestUploadDirActServer(t *testing.T) {
	tests := []struct {
		name      string
		artifact  string
		blockSize int
		level     int // -1 keeps the default
		retention int
		files     map[string][]byte // "dir/" entries are empty directories
	}{
		{
			name:     "nested run folder",
			artifact: "set-core-run-1",
			level:    -1,
			files: map[string][]byte{
				"tracking.jsonl":               []byte(`{"scenario_id":"s1","status":"pass"}` + "\n"),
				"summary.md":                   []byte("# Summary\n"),
				"rows/s1/agent_direct/out.txt": []byte("direct output\n"),
				"rows/s1/ghx/out.txt":          []byte("ghx output\n"),
				"rows/s2/empty.log":            {},
				"logs/empty-dir/":              nil,
				"unicode/résumé ✓.txt":         []byte("ü\n"),
			},
		},
		{
			name:      "many blocks",
			artifact:  "swebench-django__django-11099",
			blockSize: 64 << 10,
			level:     -1,
			retention: 7,
			files: map[string][]byte{
				"predictions.jsonl": bytes.Repeat([]byte(`{"instance_id":"django__django-11099","model_patch":"diff"}`+"\n"), 4000),
				"blob/random.bin":   randomBytes(1, 700<<10),
				"blob/second.bin":   randomBytes(2, 300<<10+17),
			},
		},
		{
			name:      "stored without compression",
			artifact:  "qa-audit-report",
			blockSize: 32 << 10,
			level:     0,
			files: map[string][]byte{
				"quality.json":   []byte(`{"rows":3}`),
				"raw/random.bin": randomBytes(3, 100<<10),
			},
		},
		{
			name:     "best compression",
			artifact: "run-9",
			level:    9,
			files:    map[string][]byte{"a/b/c/d.txt": bytes.Repeat([]byte("abc"), 10000)},
		},
	}
	baseURL, storage := actServer(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, tc.files)
			c := actClient(t, baseURL)
			c.BlockSize = tc.blockSize
			c.RetentionDays = tc.retention
			if tc.level >= 0 {
				if err := c.SetCompressionLevel(tc.level); err != nil {
					t.Fatal(err)
				}
			}
			up, err := c.UploadDir(context.Background(), tc.artifact, dir)
			if err != nil {
				t.Fatalf("UploadDir: %v", err)
			}
			if up.Name != tc.artifact || up.ID != fnvID(tc.artifact) {
				t.Errorf("Uploaded = %+v, want name %q and act's id %d", up, tc.artifact, fnvID(tc.artifact))
			}

			stored, err := os.ReadFile(filepath.Join(storage, fmt.Sprint(actRunID), tc.artifact, tc.artifact+".zip"))
			if err != nil {
				t.Fatalf("act stored nothing: %v", err)
			}
			sum := sha256.Sum256(stored)
			if up.Size != int64(len(stored)) || up.Digest != hex.EncodeToString(sum[:]) {
				t.Errorf("Uploaded size/digest = %d/%s, stored zip has %d/%x", up.Size, up.Digest, len(stored), sum)
			}

			zipData := download(t, baseURL, tc.artifact)
			if !bytes.Equal(zipData, stored) {
				t.Errorf("DownloadArtifact returned %d bytes, act stored %d", len(zipData), len(stored))
			}
			wantMethod := zip.Deflate
			if tc.level == 0 {
				wantMethod = zip.Store
			}
			zr, err := zip.NewReader(bytes.NewReader(zipData), int64(len(zipData)))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range zr.File {
				if !strings.HasSuffix(f.Name, "/") && f.Method != wantMethod {
					t.Errorf("%s: zip method %d, want %d", f.Name, f.Method, wantMethod)
				}
			}
			got := unzip(t, zipData)
			if strings.Join(slices.Sorted(maps.Keys(got)), "\n") != strings.Join(slices.Sorted(maps.Keys(tc.files)), "\n") {
				t.Fatalf("zip members:\n%s\nwant:\n%s", strings.Join(slices.Sorted(maps.Keys(got)), "\n"), strings.Join(slices.Sorted(maps.Keys(tc.files)), "\n"))
			}
			for name, want := range tc.files {
				if !bytes.Equal(got[name], want) {
					t.Errorf("%s: downloaded %d bytes differ from the %d bytes on disk", name, len(got[name]), len(want))
				}
			}
		})
	}
}

func TestUploadFilesActServer(t *testing.T) {
	baseURL, _ := actServer(t)
	root := t.TempDir()
	writeTree(t, root, map[string][]byte{
		"out/a.json":      []byte(`{"a":1}`),
		"out/deep/b.json": []byte(`{"b":2}`),
		"out/skip.txt":    []byte("not listed"),
	})
	c := actClient(t, baseURL)
	files := []string{"out/a.json", filepath.Join(root, "out", "deep", "b.json"), "out/a.json"}
	if _, err := c.UploadFiles(context.Background(), "selected-files", root, files); err != nil {
		t.Fatalf("UploadFiles: %v", err)
	}
	got := unzip(t, download(t, baseURL, "selected-files"))
	want := map[string][]byte{"out/a.json": []byte(`{"a":1}`), "out/deep/b.json": []byte(`{"b":2}`)}
	if len(got) != len(want) {
		t.Fatalf("zip members %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	for name, w := range want {
		if !bytes.Equal(got[name], w) {
			t.Errorf("%s = %q, want %q", name, got[name], w)
		}
	}
}

// TestUploadSkipsSpecialFilesActServer leaves in a results folder what an
// agent or a test can: a FIFO nobody writes to, a listening socket, a
// device node (/dev/zero's numbers), among regular files. The upload to
// act's server holds every regular file and nothing else, does not wait
// on the FIFO, and reports each special file by path and kind.
func TestUploadSkipsSpecialFilesActServer(t *testing.T) {
	baseURL, _ := actServer(t)
	dir := t.TempDir()
	files := map[string][]byte{"tracking.json": []byte(`{"ok":true}`), "logs/a.log": []byte("log\n"), "logs/deep/b.log": []byte("b\n")}
	writeTree(t, dir, files)
	if err := syscall.Mkfifo(filepath.Join(dir, "logs", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "logs", "deep", "agent.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	want := []artifacts.Skipped{{Path: "logs/deep/agent.sock", Kind: "socket"}, {Path: "logs/pipe", Kind: "named pipe (FIFO)"}}
	// A device node needs CAP_MKNOD; the kinds above are tested either way.
	if err := syscall.Mknod(filepath.Join(dir, "zero"), syscall.S_IFCHR|0o666, int(1<<8|5)); err == nil {
		want = append(want, artifacts.Skipped{Path: "zero", Kind: "device"})
	} else if os.Getuid() == 0 {
		t.Fatalf("mknod as root: %v", err)
	}
	c := actClient(t, baseURL)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a last-resort guard against a blocking read
	defer cancel()
	up, err := c.UploadDir(ctx, "special-files", dir)
	if err != nil {
		t.Fatalf("UploadDir: %v", err)
	}
	if fmt.Sprint(up.Skipped) != fmt.Sprint(want) {
		t.Errorf("Skipped = %v, want %v", up.Skipped, want)
	}
	got := unzip(t, download(t, baseURL, "special-files"))
	if strings.Join(slices.Sorted(maps.Keys(got)), ",") != strings.Join(slices.Sorted(maps.Keys(files)), ",") {
		t.Fatalf("zip members %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(files)))
	}
	for name, w := range files {
		if !bytes.Equal(got[name], w) {
			t.Errorf("%s = %q, want %q", name, got[name], w)
		}
	}

	// Listed one by one, the special files are skipped the same way.
	up, err = c.UploadFiles(ctx, "special-listed", dir, []string{"tracking.json", "logs/pipe", "logs/deep/agent.sock"})
	if err != nil {
		t.Fatalf("UploadFiles: %v", err)
	}
	if fmt.Sprint(up.Skipped) != fmt.Sprint(want[:2]) {
		t.Errorf("UploadFiles skipped %v, want %v", up.Skipped, want[:2])
	}
	if got := unzip(t, download(t, baseURL, "special-listed")); len(got) != 1 || string(got["tracking.json"]) != `{"ok":true}` {
		t.Errorf("listed upload holds %v, want only tracking.json", slices.Sorted(maps.Keys(got)))
	}
}

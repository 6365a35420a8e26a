package artifacts

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeToken builds an unsigned JWT with the given scp claim; the client
// never checks signatures.
func fakeToken(scp string) string {
	enc := base64.RawURLEncoding
	payload, _ := json.Marshal(map[string]any{"scp": scp, "exp": 4102444800})
	return enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc.EncodeToString(payload) + ".c2lnbmF0dXJl"
}

const testToken = "secret-runtime-token"

// fakeService is a stateful stand-in for the results service and the blob
// store: it keeps staged blocks by ID, commits them in block-list order like
// Azure, and checks FinalizeArtifact's size and hash against the committed
// blob. Hooks let a test inject failures per call.
type fakeService struct {
	t *testing.T

	mu        sync.Mutex
	calls     map[string]int // "CreateArtifact", "FinalizeArtifact", "block", "blocklist"
	blocks    map[string][]byte
	blob      []byte
	created   map[string]any
	finalized map[string]any
	idLen     int

	// onCreate, onBlock and onFinalize may write a response and return
	// true to replace the normal handling; n is the 1-based call count.
	onCreate   func(w http.ResponseWriter, n int) bool
	onBlock    func(w http.ResponseWriter, r *http.Request, n int) bool
	onFinalize func(w http.ResponseWriter, n int) bool
}

func newFake(t *testing.T) (*fakeService, *Client) {
	f := &fakeService{t: t, calls: map[string]int{}, blocks: map[string][]byte{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	env := map[string]string{
		EnvResultsURL:   srv.URL + "/ignored/path",
		EnvRuntimeToken: fakeToken("Actions.ExampleScope Actions.Results:run-7:job-9"),
	}
	c, err := NewClientFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	c.token = testToken
	c.Backoff = time.Millisecond
	c.BlockSize = 1024
	return f, c
}

func (f *fakeService) count(what string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[what]
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, twirpService):
		f.twirp(w, r, strings.TrimPrefix(r.URL.Path, twirpService))
	case r.Method == http.MethodPut && r.URL.Path == "/blob/artifact.zip":
		f.blobPut(w, r)
	default:
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
	}
}

func (f *fakeService) twirp(w http.ResponseWriter, r *http.Request, method string) {
	f.calls[method]++
	n := f.calls[method]
	if got := r.Header.Get("Authorization"); got != "Bearer "+testToken {
		f.t.Errorf("%s: Authorization = %q", method, got)
	}
	var req map[string]any
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		f.t.Errorf("%s: body is not JSON: %v", method, err)
	}
	if req["workflow_run_backend_id"] != "run-7" || req["workflow_job_run_backend_id"] != "job-9" {
		f.t.Errorf("%s: backend ids = %v / %v", method, req["workflow_run_backend_id"], req["workflow_job_run_backend_id"])
	}
	switch method {
	case "CreateArtifact":
		f.created = req
		if f.onCreate != nil && f.onCreate(w, n) {
			return
		}
		if req["version"] != float64(4) {
			f.t.Errorf("CreateArtifact version = %v, want 4", req["version"])
		}
		if _, ok := req["mime_type"]; ok {
			f.t.Error("CreateArtifact sent mime_type, which version-4 servers reject")
		}
		// A signature with base64 padding and a '+' checks that the
		// client appends parameters without re-encoding the URL.
		fmt.Fprintf(w, `{"ok":true,"signedUploadUrl":"http://%s/blob/artifact.zip?sv=2023-11-03&sig=ab%%2Bcd%%3D%%3D&se=x+y"}`, r.Host)
	case "FinalizeArtifact":
		if f.onFinalize != nil && f.onFinalize(w, n) {
			return
		}
		f.finalized = req
		sum := sha256.Sum256(f.blob)
		if req["size"] != fmt.Sprint(len(f.blob)) || req["hash"] != "sha256:"+hex.EncodeToString(sum[:]) {
			f.t.Errorf("FinalizeArtifact size/hash = %v/%v, committed blob has %d/%x", req["size"], req["hash"], len(f.blob), sum)
		}
		io.WriteString(w, `{"ok":true,"artifactId":"1234"}`)
	default:
		http.Error(w, "unknown method", http.StatusNotFound)
	}
}

func (f *fakeService) blobPut(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("sig") != "ab+cd==" || q.Get("se") != "x y" {
		f.t.Errorf("signed URL parameters were altered: %s", r.URL.RawQuery)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("read block: %v", err)
	}
	switch q.Get("comp") {
	case "block":
		f.calls["block"]++
		if f.onBlock != nil && f.onBlock(w, r, f.calls["block"]) {
			return
		}
		id := q.Get("blockid")
		raw, err := base64.StdEncoding.DecodeString(id)
		if err != nil {
			f.t.Errorf("blockid %q is not base64: %v", id, err)
		}
		if f.idLen == 0 {
			f.idLen = len(raw)
		} else if len(raw) != f.idLen {
			f.t.Errorf("blockid %q has length %d, earlier ones %d", id, len(raw), f.idLen)
		}
		f.blocks[id] = body
		w.WriteHeader(http.StatusCreated)
	case "blocklist":
		f.calls["blocklist"]++
		if ct := r.Header.Get("x-ms-blob-content-type"); ct != "application/zip" {
			f.t.Errorf("x-ms-blob-content-type = %q", ct)
		}
		var list struct {
			Latest []string `xml:"Latest"`
		}
		if err := xml.Unmarshal(body, &list); err != nil {
			f.t.Errorf("block list is not XML: %v", err)
		}
		f.blob = nil
		for _, id := range list.Latest {
			b, ok := f.blocks[id]
			if !ok {
				f.t.Errorf("block list names unknown block %q", id)
			}
			f.blob = append(f.blob, b...)
		}
		w.WriteHeader(http.StatusCreated)
	default:
		http.Error(w, "missing comp", http.StatusBadRequest)
	}
}

// sampleDir writes a folder big enough for several 1 KiB blocks.
func sampleDir(t *testing.T) string {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), 1024) // 16 KiB, compresses
	raw := make([]byte, 8<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	for name, data := range map[string][]byte{"a.txt": []byte("a\n"), "sub/big.txt": big, "sub/raw.bin": raw} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestUploadFake(t *testing.T) {
	twirpErr := func(status int, code, msg string) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"code":%q,"msg":%q}`, code, msg)
		}
	}
	tests := []struct {
		name       string
		setup      func(f *fakeService)
		wantErr    []string // substrings of the error; none means success
		wantCalls  map[string]int
		wantBlocks bool // blocks must have reached the blob
	}{
		{
			name:       "success",
			wantCalls:  map[string]int{"CreateArtifact": 1, "FinalizeArtifact": 1, "blocklist": 1},
			wantBlocks: true,
		},
		{
			name: "CreateArtifact 500 then success is retried",
			setup: func(f *fakeService) {
				f.onCreate = func(w http.ResponseWriter, n int) bool {
					if n == 1 {
						twirpErr(500, "internal", "try again")(w)
						return true
					}
					return false
				}
			},
			wantCalls:  map[string]int{"CreateArtifact": 2, "FinalizeArtifact": 1},
			wantBlocks: true,
		},
		{
			name: "CreateArtifact 401 is not retried",
			setup: func(f *fakeService) {
				f.onCreate = func(w http.ResponseWriter, n int) bool {
					twirpErr(401, "unauthenticated", "token expired")(w)
					return true
				}
			},
			wantErr:   []string{`artifact "run-results"`, "CreateArtifact", "HTTP 401", "unauthenticated", "token expired", "runtime token was refused"},
			wantCalls: map[string]int{"CreateArtifact": 1, "block": 0, "FinalizeArtifact": 0},
		},
		{
			name: "CreateArtifact ok false",
			setup: func(f *fakeService) {
				f.onCreate = func(w http.ResponseWriter, n int) bool {
					io.WriteString(w, `{"ok":false}`)
					return true
				}
			},
			wantErr:   []string{"CreateArtifact", "ok=false"},
			wantCalls: map[string]int{"CreateArtifact": 1, "block": 0},
		},
		{
			name: "CreateArtifact storage quota",
			setup: func(f *fakeService) {
				f.onCreate = func(w http.ResponseWriter, n int) bool {
					twirpErr(403, "permission_denied", "insufficient usage to create artifact")(w)
					return true
				}
			},
			wantErr:   []string{"insufficient usage", "storage quota"},
			wantCalls: map[string]int{"CreateArtifact": 1},
		},
		{
			name: "CreateArtifact 503 every time gives up",
			setup: func(f *fakeService) {
				f.onCreate = func(w http.ResponseWriter, n int) bool {
					twirpErr(503, "unavailable", "maintenance")(w)
					return true
				}
			},
			wantErr:   []string{"giving up after 3 attempts", "HTTP 503"},
			wantCalls: map[string]int{"CreateArtifact": 3},
		},
		{
			name: "block PUT 429 then success",
			setup: func(f *fakeService) {
				f.onBlock = func(w http.ResponseWriter, r *http.Request, n int) bool {
					if n == 2 {
						w.WriteHeader(http.StatusTooManyRequests)
						return true
					}
					return false
				}
			},
			wantCalls:  map[string]int{"FinalizeArtifact": 1, "blocklist": 1},
			wantBlocks: true,
		},
		{
			name: "block PUT failing permanently",
			setup: func(f *fakeService) {
				f.onBlock = func(w http.ResponseWriter, r *http.Request, n int) bool {
					if n >= 2 {
						w.WriteHeader(http.StatusInternalServerError)
						io.WriteString(w, "<Error><Code>InternalError</Code></Error>")
						return true
					}
					return false
				}
			},
			wantErr:   []string{`artifact "run-results"`, "block 1 (id ", "zip bytes 1024-2047", "giving up after 3 attempts", "HTTP 500", "InternalError"},
			wantCalls: map[string]int{"block": 4, "blocklist": 0, "FinalizeArtifact": 0},
		},
		{
			name: "block PUT 403 is not retried",
			setup: func(f *fakeService) {
				f.onBlock = func(w http.ResponseWriter, r *http.Request, n int) bool {
					w.WriteHeader(http.StatusForbidden)
					io.WriteString(w, "<Error><Code>AuthenticationFailed</Code></Error>")
					return true
				}
			},
			wantErr:   []string{"block 0", "HTTP 403", "AuthenticationFailed"},
			wantCalls: map[string]int{"block": 1, "FinalizeArtifact": 0},
		},
		{
			name: "FinalizeArtifact ok false",
			setup: func(f *fakeService) {
				f.onFinalize = func(w http.ResponseWriter, n int) bool {
					io.WriteString(w, `{"ok":false}`)
					return true
				}
			},
			wantErr:    []string{`artifact "run-results"`, "FinalizeArtifact", "ok=false"},
			wantCalls:  map[string]int{"FinalizeArtifact": 1, "blocklist": 1},
			wantBlocks: true,
		},
		{
			name: "FinalizeArtifact garbage answer",
			setup: func(f *fakeService) {
				f.onFinalize = func(w http.ResponseWriter, n int) bool {
					io.WriteString(w, `<html>proxy error</html>`)
					return true
				}
			},
			wantErr:   []string{"FinalizeArtifact", "not the expected JSON"},
			wantCalls: map[string]int{"FinalizeArtifact": 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, c := newFake(t)
			c.MaxAttempts = 3
			if tc.setup != nil {
				tc.setup(f)
			}
			up, err := c.UploadDir(context.Background(), "run-results", sampleDir(t))
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("UploadDir: %v", err)
				}
				if up.ID != 1234 || up.Name != "run-results" || up.Size != int64(len(f.blob)) {
					t.Errorf("Uploaded = %+v, blob has %d bytes", up, len(f.blob))
				}
				checkZip(t, f.blob)
			} else {
				if err == nil {
					t.Fatal("UploadDir succeeded, want an error")
				}
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				for _, secret := range []string{testToken, "ab+cd", "ab%2Bcd"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("error %q leaks %q", err, secret)
					}
				}
			}
			for what, n := range tc.wantCalls {
				if got := f.count(what); got != n {
					t.Errorf("%s calls = %d, want %d", what, got, n)
				}
			}
			if tc.wantBlocks && f.count("block") < 3 {
				t.Errorf("only %d blocks uploaded; the sample needs several", f.count("block"))
			}
		})
	}
}

// checkZip asserts the committed blob is the zip of sampleDir.
func checkZip(t *testing.T, blob []byte) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(blob), int64(len(blob)))
	if err != nil {
		t.Fatalf("committed blob is not a zip: %v", err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "a.txt,sub/big.txt,sub/raw.bin" {
		t.Errorf("zip members = %s", got)
	}
}

func TestUploadStalledBlockIsRetried(t *testing.T) {
	f, c := newFake(t)
	c.HTTP = &http.Client{Timeout: 200 * time.Millisecond}
	f.onBlock = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n != 2 {
			return false
		}
		f.mu.Unlock()
		<-r.Context().Done() // the client gives up on this request
		f.mu.Lock()
		return true
	}
	if _, err := c.UploadDir(context.Background(), "run-results", sampleDir(t)); err != nil {
		t.Fatalf("UploadDir after a stalled block: %v", err)
	}
	checkZip(t, f.blob)
	if f.count("FinalizeArtifact") != 1 {
		t.Errorf("FinalizeArtifact calls = %d, want 1", f.count("FinalizeArtifact"))
	}
}

// TestUploadFileVanishes covers a file removed between listing and zipping:
// the upload fails naming the file and the artifact is never finalized.
func TestUploadFileVanishes(t *testing.T) {
	f, c := newFake(t)
	dir := sampleDir(t)
	entries, err := collectDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(dir, "sub", "raw.bin")
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	_, err = c.upload(context.Background(), "run-results", entries)
	if err == nil || !strings.Contains(err.Error(), gone) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want a not-exist error naming %s", err, gone)
	}
	if n := f.count("FinalizeArtifact"); n != 0 {
		t.Errorf("FinalizeArtifact calls = %d, want 0", n)
	}
}

func TestUploadCancelMidUpload(t *testing.T) {
	f, c := newFake(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := make(chan struct{})
	defer close(release)
	f.onBlock = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n < 3 {
			return false
		}
		cancel()
		f.mu.Unlock()
		select {
		case <-r.Context().Done():
		case <-release:
		}
		f.mu.Lock()
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.UploadDir(ctx, "run-results", sampleDir(t))
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("UploadDir error = %v, want context.Canceled", err)
		}
		if !strings.Contains(err.Error(), `artifact "run-results"`) || !strings.Contains(err.Error(), "block 2") {
			t.Errorf("error %q should name the artifact and the block", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("UploadDir did not return after its context was cancelled")
	}
	if n := f.count("FinalizeArtifact"); n != 0 {
		t.Errorf("FinalizeArtifact called %d times after cancel", n)
	}
}

func TestUploadBadInput(t *testing.T) {
	emptyDir := t.TempDir()
	onlyEmptyDirs := t.TempDir()
	if err := os.MkdirAll(filepath.Join(onlyEmptyDirs, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	aFile := filepath.Join(t.TempDir(), "file.txt")
	if err := os.WriteFile(aFile, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		art     string
		run     func(c *Client, name string) error
		wantIs  error
		wantErr []string
	}{
		{"invalid name", "set/core", func(c *Client, n string) error { _, err := c.UploadDir(context.Background(), n, emptyDir); return err },
			nil, []string{`"set/core"`, "forward slash"}},
		{"empty name", " ", func(c *Client, n string) error { _, err := c.UploadDir(context.Background(), n, emptyDir); return err },
			nil, []string{"empty"}},
		{"empty folder", "ok", func(c *Client, n string) error { _, err := c.UploadDir(context.Background(), n, emptyDir); return err },
			ErrNoFiles, []string{`artifact "ok"`, emptyDir, "no files"}},
		{"only empty subfolders", "ok", func(c *Client, n string) error {
			_, err := c.UploadDir(context.Background(), n, onlyEmptyDirs)
			return err
		}, ErrNoFiles, []string{onlyEmptyDirs}},
		{"missing folder", "ok", func(c *Client, n string) error {
			_, err := c.UploadDir(context.Background(), n, filepath.Join(emptyDir, "nope"))
			return err
		}, fs.ErrNotExist, []string{`artifact "ok"`, filepath.Join(emptyDir, "nope")}},
		{"folder is a file", "ok", func(c *Client, n string) error { _, err := c.UploadDir(context.Background(), n, aFile); return err },
			nil, []string{aFile, "not a directory"}},
		{"file outside root", "ok", func(c *Client, n string) error {
			_, err := c.UploadFiles(context.Background(), n, emptyDir, []string{aFile})
			return err
		}, nil, []string{aFile, "not inside the root folder"}},
		{"file escapes root", "ok", func(c *Client, n string) error {
			_, err := c.UploadFiles(context.Background(), n, emptyDir, []string{"../x"})
			return err
		}, nil, []string{"../x", "not inside"}},
		{"listed file missing", "ok", func(c *Client, n string) error {
			_, err := c.UploadFiles(context.Background(), n, emptyDir, []string{"missing.json"})
			return err
		}, fs.ErrNotExist, []string{"missing.json"}},
		{"listed directory", "ok", func(c *Client, n string) error {
			_, err := c.UploadFiles(context.Background(), n, onlyEmptyDirs, []string{"a"})
			return err
		}, nil, []string{"a directory"}},
		{"no files listed", "ok", func(c *Client, n string) error {
			_, err := c.UploadFiles(context.Background(), n, emptyDir, nil)
			return err
		}, ErrNoFiles, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, c := newFake(t)
			err := tc.run(c, tc.art)
			if err == nil {
				t.Fatal("want an error")
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("error %v is not %v", err, tc.wantIs)
			}
			for _, s := range tc.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			if n := f.count("CreateArtifact"); n != 0 {
				t.Errorf("CreateArtifact called %d times for bad input", n)
			}
		})
	}
}

// TestUploadDirNeverFollowsSymlinks plants the links an agent or a test
// could leave in a results folder: one to /proc/self/environ (which holds
// the job's tokens), one to a file outside the folder, one to a folder
// outside it, and a loop. None may be followed: the archive holds only the
// real file, and the links are reported as skipped.
func TestUploadDirNeverFollowsSymlinks(t *testing.T) {
	t.Setenv("BENCHGATE_TEST_SECRET_SENTINEL", "ghs_sentinel_token_value")
	f, c := newFake(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "target.txt"), []byte("host secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "plans"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plans", "plan.md"), []byte("real plan"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"plans/leak.txt": "/proc/self/environ",
		"link.txt":       filepath.Join(outside, "target.txt"),
		"linkdir":        outside,
		"self":           dir,
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	up, err := c.UploadDir(context.Background(), "links", dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(f.blob), "ghs_sentinel_token_value") || strings.Contains(string(f.blob), "host secret") {
		t.Fatal("the archive holds content read through a symbolic link")
	}
	zr, err := zip.NewReader(bytes.NewReader(f.blob), int64(len(f.blob)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, zf := range zr.File {
		rc, _ := zf.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		got[zf.Name] = string(b)
	}
	if len(got) != 1 || got["plans/plan.md"] != "real plan" {
		t.Errorf("zip = %v, want only plans/plan.md", got)
	}
	want := []string{"link.txt", "linkdir", "plans/leak.txt", "self"}
	if strings.Join(skippedPaths(up.Skipped, "symbolic link"), ",") != strings.Join(want, ",") {
		t.Errorf("Skipped = %v, want %v", up.Skipped, want)
	}

	// A listed file that is a link is skipped the same way.
	f.blob = nil
	up, err = c.UploadFiles(context.Background(), "listed", dir, []string{"plans/plan.md", "plans/leak.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(f.blob), "ghs_sentinel_token_value") || len(up.Skipped) != 1 || up.Skipped[0] != (Skipped{"plans/leak.txt", "symbolic link"}) {
		t.Errorf("UploadFiles followed a link or did not report it: skipped %v", up.Skipped)
	}

	// A folder that is itself a link is refused.
	if _, err := c.UploadDir(context.Background(), "rootlink", filepath.Join(dir, "linkdir")); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("UploadDir of a link: err = %v, want a symbolic-link error", err)
	}
}

// TestZipRefusesFileSwappedForLink covers the race between listing and
// reading: a file replaced by a link after collectDir must not be read
// through the link.
func TestZipRefusesFileSwappedForLink(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	col, err := collectDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	if err := os.Symlink("/proc/self/environ", p); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeZip(context.Background(), &buf, &col, 6); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("PATH=")) || len(col.skipped) != 1 || col.skipped[0] != (Skipped{"a.txt", "symbolic link"}) {
		t.Fatalf("writeZip read a file that became a symbolic link, or did not report it: skipped %v", col.skipped)
	}
}

// TestZipSkipsFileSwappedForFIFO covers the same race with a FIFO: a
// file replaced by one after listing is left out and reported, and the
// archive is written without waiting for a writer that never comes.
func TestZipSkipsFileSwappedForFIFO(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	col, err := collectDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "a.txt")
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- writeZip(context.Background(), &buf, &col, 6) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute): // a last-resort guard: the open blocks without O_NONBLOCK
		t.Fatal("writeZip blocked on a FIFO")
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 1 || zr.File[0].Name != "b.txt" || len(col.skipped) != 1 || col.skipped[0] != (Skipped{"a.txt", "named pipe (FIFO)"}) {
		t.Fatalf("zip members %d, skipped %v; want only b.txt and a.txt skipped as a FIFO", len(zr.File), col.skipped)
	}
}

// skippedPaths lists the paths of the skipped files of one kind.
func skippedPaths(s []Skipped, kind string) []string {
	var out []string
	for _, sk := range s {
		if sk.Kind == kind {
			out = append(out, sk.Path)
		}
	}
	return out
}

func TestNewClientFromEnv(t *testing.T) {
	good := fakeToken("Actions.GenericRead:1 Actions.Results:123:456 Actions.UploadArtifacts:1")
	tests := []struct {
		name    string
		env     map[string]string
		wantErr []string
		wantRun string
		wantJob string
		wantURL string
	}{
		{"ok", map[string]string{EnvResultsURL: "https://results-receiver.actions.githubusercontent.com/", EnvRuntimeToken: good},
			nil, "123", "456", "https://results-receiver.actions.githubusercontent.com"},
		{"origin only", map[string]string{EnvResultsURL: "http://127.0.0.1:8080/some/path?x=1", EnvRuntimeToken: good},
			nil, "123", "456", "http://127.0.0.1:8080"},
		{"missing url", map[string]string{EnvRuntimeToken: good}, []string{EnvResultsURL, "not set"}, "", "", ""},
		{"missing token", map[string]string{EnvResultsURL: "https://x/"}, []string{EnvRuntimeToken, "not set"}, "", "", ""},
		{"bad url", map[string]string{EnvResultsURL: "results.example", EnvRuntimeToken: good}, []string{EnvResultsURL, "http(s) URL"}, "", "", ""},
		{"not a jwt", map[string]string{EnvResultsURL: "https://x/", EnvRuntimeToken: "opaque"}, []string{EnvRuntimeToken, "3 dot-separated parts"}, "", "", ""},
		{"bad payload", map[string]string{EnvResultsURL: "https://x/", EnvRuntimeToken: "a.!!!.c"}, []string{"base64url"}, "", "", ""},
		{"no results scope", map[string]string{EnvResultsURL: "https://x/", EnvRuntimeToken: fakeToken("Actions.Results:1:2:3 Actions.Results:9")},
			[]string{"no Actions.Results:<run>:<job> scope"}, "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewClientFromEnv(func(k string) string { return tc.env[k] })
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatal("want an error")
				}
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				if tok := tc.env[EnvRuntimeToken]; len(tok) > 10 && strings.Contains(err.Error(), tok) {
					t.Errorf("error leaks the token: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.runID != tc.wantRun || c.jobID != tc.wantJob || c.BaseURL.String() != tc.wantURL {
				t.Errorf("run/job/url = %s/%s/%s, want %s/%s/%s", c.runID, c.jobID, c.BaseURL, tc.wantRun, tc.wantJob, tc.wantURL)
			}
		})
	}
}

func TestValidateName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"set-core-run-1", true},
		{"swebench_django__django-11099.v2", true},
		{"with space (1)", true},
		{"", false},
		{"  ", false},
		{`a"b`, false}, {"a:b", false}, {"a<b", false}, {"a>b", false}, {"a|b", false},
		{"a*b", false}, {"a?b", false}, {"a\rb", false}, {"a\nb", false}, {`a\b`, false}, {"a/b", false},
	}
	for _, tc := range tests {
		err := ValidateName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("ValidateName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

func TestWithQuery(t *testing.T) {
	tests := []struct{ signed, extra, want string }{
		{"https://h/p?sig=a%2Bb%3D&se=1", "comp=block", "https://h/p?sig=a%2Bb%3D&se=1&comp=block"},
		{"https://h/p", "comp=blocklist", "https://h/p?comp=blocklist"},
	}
	for _, tc := range tests {
		if got := withQuery(tc.signed, tc.extra); got != tc.want {
			t.Errorf("withQuery(%q) = %q, want %q", tc.signed, got, tc.want)
		}
		if _, err := url.Parse(withQuery(tc.signed, tc.extra)); err != nil {
			t.Error(err)
		}
	}
}

func TestRetention(t *testing.T) {
	tests := []struct {
		name    string
		max     string // GITHUB_RETENTION_DAYS
		days    int
		want    int // days in expires_at; 0 means the field is absent
		wantErr string
	}{
		{name: "default omits expires_at"},
		{name: "requested", days: 5, want: 5},
		{name: "under the maximum", max: "30", days: 14, want: 14},
		{name: "capped at the maximum", max: "10", days: 90, want: 10},
		{name: "bad maximum", max: "ten", wantErr: "GITHUB_RETENTION_DAYS=\"ten\""},
		// As the toolkit's getRetentionDays reads it (act sets 0): no cap.
		{name: "zero maximum is none", max: "0", days: 30, want: 30},
		{name: "negative maximum", max: "-1", wantErr: "whole number of days"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeService{t: t, calls: map[string]int{}, blocks: map[string][]byte{}}
			srv := httptest.NewServer(f)
			defer srv.Close()
			env := map[string]string{
				EnvResultsURL:    srv.URL,
				EnvRuntimeToken:  fakeToken("Actions.Results:run-7:job-9"),
				EnvRetentionDays: tc.max,
			}
			c, err := NewClientFromEnv(func(k string) string { return env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.token = testToken
			c.RetentionDays = tc.days
			before := time.Now()
			if _, err := c.UploadDir(context.Background(), "kept", sampleDir(t)); err != nil {
				t.Fatal(err)
			}
			raw, present := f.created["expires_at"]
			if tc.want == 0 {
				if present {
					t.Errorf("expires_at = %v, want it absent", raw)
				}
				return
			}
			exp, err := time.Parse(time.RFC3339, fmt.Sprint(raw))
			if err != nil {
				t.Fatalf("expires_at %v is not RFC 3339: %v", raw, err)
			}
			want := before.AddDate(0, 0, tc.want)
			if d := exp.Sub(want); d < -2*time.Second || d > time.Minute {
				t.Errorf("expires_at = %v, want about %v", exp, want)
			}
		})
	}
}

func TestCompressionLevel(t *testing.T) {
	tests := []struct {
		level      int
		wantErr    bool
		wantMethod uint16
	}{
		{level: -1, wantErr: true},
		{level: 10, wantErr: true},
		{level: 0, wantMethod: zip.Store},
		{level: 1, wantMethod: zip.Deflate},
		{level: 9, wantMethod: zip.Deflate},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.level), func(t *testing.T) {
			f, c := newFake(t)
			err := c.SetCompressionLevel(tc.level)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "expected 0 to 9") {
					t.Fatalf("err = %v, want a range error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.UploadDir(context.Background(), "levels", sampleDir(t)); err != nil {
				t.Fatal(err)
			}
			checkZip(t, f.blob)
			zr, err := zip.NewReader(bytes.NewReader(f.blob), int64(len(f.blob)))
			if err != nil {
				t.Fatal(err)
			}
			for _, zf := range zr.File {
				if zf.Method != tc.wantMethod {
					t.Errorf("%s: method %d, want %d", zf.Name, zf.Method, tc.wantMethod)
				}
			}
		})
	}
}

func TestArtifactURL(t *testing.T) {
	got := ArtifactURL("https://github.com/", "octo/benchgate", "12345", 678)
	if want := "https://github.com/octo/benchgate/actions/runs/12345/artifacts/678"; got != want {
		t.Errorf("ArtifactURL = %q, want %q", got, want)
	}
}

// TestResponseSpellings covers servers that answer with proto field names
// or plain JSON numbers instead of protojson's lowerCamelCase strings.
func TestResponseSpellings(t *testing.T) {
	tests := []struct {
		name     string
		create   string // %s is replaced by the signed upload URL
		finalize string
		wantID   int64
		wantErr  string
	}{
		{"protojson", `{"ok":true,"signedUploadUrl":"%s"}`, `{"ok":true,"artifactId":"42"}`, 42, ""},
		{"proto names and numbers", `{"ok":true,"signed_upload_url":"%s"}`, `{"ok":true,"artifact_id":43}`, 43, ""},
		{"unknown fields ignored", `{"ok":true,"signedUploadUrl":"%s","extra":{"a":1}}`, `{"ok":true,"artifactId":"44","x":[]}`, 44, ""},
		{"no upload URL", `{"ok":true}`, `{"ok":true,"artifactId":"1"}`, 0, "no signed upload URL"},
		{"id not a number", `{"ok":true,"signedUploadUrl":"%s"}`, `{"ok":true,"artifactId":"forty"}`, 0, "expected an int64"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, c := newFake(t)
			f.onCreate = func(w http.ResponseWriter, n int) bool {
				body := tc.create
				if strings.Contains(body, "%s") {
					body = fmt.Sprintf(body, c.BaseURL.String()+"/blob/artifact.zip?sig=ab%2Bcd%3D%3D&se=x+y")
				}
				io.WriteString(w, body)
				return true
			}
			f.onFinalize = func(w http.ResponseWriter, n int) bool {
				io.WriteString(w, tc.finalize)
				return true
			}
			up, err := c.UploadDir(context.Background(), "spelling", sampleDir(t))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if up.ID != tc.wantID {
				t.Errorf("ID = %d, want %d", up.ID, tc.wantID)
			}
			checkZip(t, f.blob)
		})
	}
}

// TestCollectDirExcludes: excluded paths (a folder, a file, nested or
// not) are left out of the archive; the rest keeps its layout.
func TestCollectDirExcludes(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"summary.md", ".benchgate.lock", "pr-exec/tracking.json", "pr-exec/logs/a.log", "issues/tracking.json", "issues/.benchgate.lock"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := collectDir(dir, map[string]bool{"pr-exec": true, ".benchgate.lock": true, "issues/.benchgate.lock": true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range c.entries {
		names = append(names, e.name)
	}
	if got, want := strings.Join(names, " "), "issues/tracking.json summary.md"; got != want {
		t.Errorf("entries = %q, want %q", got, want)
	}
}

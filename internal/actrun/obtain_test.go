package actrun

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestObtainBenchgate runs the action's first step, scripts/obtain-
// benchgate.sh, for a release tag: the release binaries are built with
// scripts/release-binaries.sh (twice: the second build must match the
// sums of the first, as the release workflow checks), served by a release
// server, downloaded and checked against dist/SHA256SUMS of the action's
// source. A binary that differs from the sums is refused and not kept;
// a ref without sums and a runner without Go gets a message saying so.
func TestObtainBenchgate(t *testing.T) {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skipf("release binaries are linux/amd64 and linux/arm64, this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	const version = "v9.9.9"
	src := actionSource(t)
	run(t, src, nil, "bash", "scripts/release-binaries.sh", version)
	if out := run(t, src, nil, "bash", "scripts/release-binaries.sh", version, "--check"); !strings.Contains(out, "match dist/SHA256SUMS") {
		t.Fatalf("second build: %s", out)
	}
	asset := "benchgate-linux-" + runtime.GOARCH
	good, err := os.ReadFile(filepath.Join(src, "dist", asset))
	if err != nil {
		t.Fatal(err)
	}
	// What the action's source at the tag holds: the sums, not the binaries.
	for _, a := range []string{"amd64", "arm64"} {
		os.Remove(filepath.Join(src, "dist", "benchgate-linux-"+a))
	}

	serve := good
	var requested []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requested = append(requested, r.URL.Path)
		if r.URL.Path != "/benchgate/benchgate/releases/download/"+version+"/"+asset {
			http.NotFound(w, r)
			return
		}
		w.Write(serve)
	}))
	defer srv.Close()

	obtain := func(t *testing.T, ref, path string) (string, string, error) {
		cache := t.TempDir()
		outputs := filepath.Join(t.TempDir(), "output")
		cmd := exec.Command("bash", filepath.Join(src, "scripts", "obtain-benchgate.sh"))
		cmd.Env = []string{"PATH=" + path, "HOME=" + t.TempDir(), "BENCHGATE_ACTION_PATH=" + src, "BENCHGATE_ACTION_REF=" + ref,
			"BENCHGATE_ACTION_REPOSITORY=benchgate/benchgate", "GITHUB_SERVER_URL=" + srv.URL, "RUNNER_TOOL_CACHE=" + cache, "GITHUB_OUTPUT=" + outputs}
		out, err := cmd.CombinedOutput()
		b, _ := os.ReadFile(outputs)
		return string(out), strings.TrimPrefix(strings.TrimSpace(string(b)), "path="), err
	}
	systemPath := "/usr/local/bin:/usr/bin:/bin"

	t.Run("release asset checked against the sums", func(t *testing.T) {
		serve = good
		out, bin, err := obtain(t, version, systemPath)
		if err != nil {
			t.Fatalf("obtain: %v\n%s", err, out)
		}
		v, err := exec.Command(bin, "--version").Output()
		if err != nil || strings.TrimSpace(string(v)) != "benchgate "+version {
			t.Errorf("%s --version = %q (%v), want benchgate %s", bin, v, err, version)
		}
	})
	t.Run("a binary that differs from the sums is refused", func(t *testing.T) {
		serve = append(append([]byte{}, good...), 0)
		out, bin, err := obtain(t, version, systemPath)
		if err == nil || bin != "" || !strings.Contains(out, "refusing to run it") {
			t.Fatalf("obtain of a changed binary: err %v, path %q, output:\n%s", err, bin, out)
		}
	})
	t.Run("no sums and no Go", func(t *testing.T) {
		if err := os.Remove(filepath.Join(src, "dist", "SHA256SUMS")); err != nil {
			t.Fatal(err)
		}
		// The system's tools without go: every program of /usr/bin and
		// /bin, linked into one folder.
		dir := t.TempDir()
		for _, d := range []string{"/usr/bin", "/bin"} {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				if e.Name() == "go" || e.Name() == "gofmt" {
					continue
				}
				os.Symlink(filepath.Join(d, e.Name()), filepath.Join(dir, e.Name()))
			}
		}
		out, _, err := obtain(t, "main", dir)
		if err == nil || !strings.Contains(out, "needs Go on the runner") {
			t.Fatalf("obtain without sums and Go: err %v, output:\n%s", err, out)
		}
	})
}

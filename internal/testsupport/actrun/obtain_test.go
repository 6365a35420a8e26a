package actrun

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
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

	obtainIn := func(t *testing.T, cache, ref, path string) (string, string, error) {
		outputs := filepath.Join(t.TempDir(), "output")
		// A last-resort guard: a script that runs a planted FIFO blocks.
		// It ends with the test binary's own deadline, not a fixed time: a
		// build from source on a busy machine takes what it takes.
		ctx, cancel := context.WithCancel(context.Background())
		if d, ok := t.Deadline(); ok {
			ctx, cancel = context.WithDeadline(context.Background(), d.Add(-time.Minute))
		}
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", filepath.Join(src, "scripts", "obtain-benchgate.sh"))
		cmd.WaitDelay = time.Second
		cmd.Env = []string{"PATH=" + path, "HOME=" + t.TempDir(), "BENCHGATE_ACTION_PATH=" + src, "BENCHGATE_ACTION_REF=" + ref,
			"BENCHGATE_ACTION_REPOSITORY=benchgate/benchgate", "GITHUB_SERVER_URL=" + srv.URL, "RUNNER_TOOL_CACHE=" + cache, "GITHUB_OUTPUT=" + outputs}
		// The machine's module and build caches, as a runner with setup-go
		// has them: the build is still from source, and no module is
		// downloaded again.
		for _, v := range []string{"GOMODCACHE", "GOCACHE", "GOPROXY", "GOFLAGS"} {
			if val := goEnv(v); val != "" {
				cmd.Env = append(cmd.Env, v+"="+val)
			}
		}
		out, err := cmd.CombinedOutput()
		b, _ := os.ReadFile(outputs)
		return string(out), strings.TrimPrefix(strings.TrimSpace(string(b)), "path="), err
	}
	obtain := func(t *testing.T, ref, path string) (string, string, error) {
		return obtainIn(t, t.TempDir(), ref, path)
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
	// The examples pin @v1 (the major tag the release workflow moves to
	// the release commit) and GitHub's hardening advice pins a full
	// commit SHA: both name the release commit, whose dist/VERSION says
	// which release's asset to download.
	t.Run("a major tag and a full commit SHA get the release dist/VERSION names", func(t *testing.T) {
		for _, ref := range []string{"v9", "0123456789abcdef0123456789abcdef01234567"} {
			serve = good
			requested = nil
			out, bin, err := obtain(t, ref, systemPath)
			if err != nil {
				t.Fatalf("obtain at %s: %v\n%s", ref, err, out)
			}
			if v, err := exec.Command(bin, "--version").Output(); err != nil || strings.TrimSpace(string(v)) != "benchgate "+version {
				t.Errorf("at %s: %s --version = %q (%v)", ref, bin, v, err)
			}
			if len(requested) != 1 || !strings.Contains(requested[0], "/releases/download/"+version+"/") {
				t.Errorf("at %s: requested %v, want the asset of release %s", ref, requested, version)
			}
		}
	})
	t.Run("a binary that differs from the sums is refused", func(t *testing.T) {
		serve = append(append([]byte{}, good...), 0)
		out, bin, err := obtain(t, version, systemPath)
		if err == nil || bin != "" || !strings.Contains(out, "refusing to run it") {
			t.Fatalf("obtain of a changed binary: err %v, path %q, output:\n%s", err, bin, out)
		}
	})
	// Anything running as the runner's user can write the tool cache: a
	// file planted where the release binary is kept is never run, and
	// the release binary is downloaded again in its place.
	t.Run("a planted binary in the cache is replaced", func(t *testing.T) {
		serve = good
		sums, err := os.ReadFile(filepath.Join(src, "dist", "SHA256SUMS"))
		if err != nil {
			t.Fatal(err)
		}
		var want string
		for _, line := range strings.Split(string(sums), "\n") {
			if f := strings.Fields(line); len(f) == 2 && strings.TrimPrefix(f[1], "*") == asset {
				want = f[0]
			}
		}
		if want == "" {
			t.Fatalf("no sum for %s in:\n%s", asset, sums)
		}
		for _, plant := range []string{"script", "link", "fifo"} {
			t.Run(plant, func(t *testing.T) {
				cache := t.TempDir()
				marker := filepath.Join(t.TempDir(), "ran")
				planted := filepath.Join(cache, "benchgate", want, "benchgate")
				if err := os.MkdirAll(filepath.Dir(planted), 0o755); err != nil {
					t.Fatal(err)
				}
				poison := "#!/bin/sh\necho POISONED-CACHE\ntouch " + marker + "\n"
				switch plant {
				case "script":
					err = os.WriteFile(planted, []byte(poison), 0o755)
				case "link":
					target := filepath.Join(t.TempDir(), "poison")
					if err = os.WriteFile(target, []byte(poison), 0o755); err == nil {
						err = os.Symlink(target, planted)
					}
				case "fifo":
					err = syscall.Mkfifo(planted, 0o755)
				}
				if err != nil {
					t.Fatal(err)
				}
				out, bin, err := obtainIn(t, cache, version, systemPath)
				if err != nil {
					t.Fatalf("obtain: %v\n%s", err, out)
				}
				if strings.Contains(out, "POISONED-CACHE") || fileExists(marker) {
					t.Fatalf("the planted file was run:\n%s", out)
				}
				if !strings.Contains(out, "downloading it again") || !strings.Contains(out, "benchgate "+version) {
					t.Errorf("output does not say the cached file was replaced by %s:\n%s", version, out)
				}
				got, err := os.ReadFile(bin)
				if err != nil || !bytes.Equal(got, good) {
					t.Errorf("%s is not the release binary after obtain (%v)", bin, err)
				}
				// The replaced binary is reused as it is on the next run.
				out, _, err = obtainIn(t, cache, version, systemPath)
				if err != nil || strings.Contains(out, "downloading it again") {
					t.Errorf("second obtain: %v\n%s", err, out)
				}
			})
		}
	})
	t.Run("no sums and no Go", func(t *testing.T) {
		os.Remove(filepath.Join(src, "dist", "VERSION"))
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
	// A branch is built from source. Nothing in the tool cache is run
	// instead: a file planted where an earlier version kept its build
	// (and any file in the cache) is never used; each step builds into
	// a folder of its own.
	t.Run("a branch is built from source every time, never taken from the cache", func(t *testing.T) {
		goBin, err := exec.LookPath("go")
		if err != nil {
			t.Skip("no go")
		}
		cache := t.TempDir()
		marker := filepath.Join(t.TempDir(), "ran")
		matches, _ := filepath.Glob(filepath.Join(cache, "benchgate", "src-*"))
		for _, d := range append(matches, filepath.Join(cache, "benchgate", "src-planted-linux-"+runtime.GOARCH)) {
			os.MkdirAll(d, 0o755)
			os.WriteFile(filepath.Join(d, "benchgate"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
		}
		var bins []string
		for i := 0; i < 2; i++ {
			out, bin, err := obtainIn(t, cache, "main", filepath.Dir(goBin)+":"+systemPath)
			if err != nil {
				t.Fatalf("obtain at main: %v\n%s", err, out)
			}
			if !strings.Contains(out, "benchgate: building from") || strings.HasPrefix(bin, cache) {
				t.Errorf("run %d: not built from source, or kept in the shared cache (%s):\n%s", i, bin, out)
			}
			bins = append(bins, bin)
		}
		if bins[0] == bins[1] || fileExists(marker) {
			t.Errorf("builds %v; planted file ran: %v", bins, fileExists(marker))
		}
	})
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// goEnv is the value go env gives v on this machine, "" when go is absent.
func goEnv(v string) string {
	out, err := exec.Command("go", "env", v).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

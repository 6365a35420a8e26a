package testenv

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// StateDir is the folder where the test environment keeps what outlives
// one test process (built binaries; for scripts/test-env.sh also the
// Codex CLI and the Docker engine's data): $BENCHGATE_TEST_STATE, which
// scripts/test-env.sh exports, else benchgate-test in the user's cache
// folder. Two runs with different state folders share nothing. It is
// never the temporary folder: go test leaves nothing there.
func StateDir() (string, error) {
	if d := os.Getenv("BENCHGATE_TEST_STATE"); d != "" {
		return filepath.Abs(d)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no folder for test state: set BENCHGATE_TEST_STATE (%w)", err)
	}
	return filepath.Join(cache, "benchgate-test"), nil
}

// A Build says how to build one test binary.
type Build struct {
	// Dir is the folder of the main package, or with Package the folder
	// of the module whose go.mod pins it.
	Dir string
	// Package, when set, is the import path of a main package outside this
	// module that go.mod pins (a `tool` line, such as nektos/act): it is
	// built from the module cache, keyed by go.sum.
	Package string
	// Name is the file name of the binary ("codex" for the fake codex);
	// empty is the base name of Dir.
	Name string
	// Flags are extra go build flags; Env extra environment variables.
	Flags, Env []string
}

// The benchgate and benchsim binaries are built like the Dockerfile
// builds benchgate: static and without local paths, so that every test
// package shares one build, which also runs inside a busybox container.
var binaryFlags, binaryEnv = []string{"-trimpath"}, []string{"CGO_ENABLED=0"}

// Benchgate returns the benchgate binary built from this checkout.
func Benchgate(t testing.TB) string {
	t.Helper()
	return Binary(t, Build{Dir: filepath.Join(RepoRoot(t), "cmd", "benchgate"), Flags: binaryFlags, Env: binaryEnv})
}

// Benchsim returns the benchmark simulator binary built from this checkout.
func Benchsim(t testing.TB) string {
	t.Helper()
	return Binary(t, Build{Dir: filepath.Join(RepoRoot(t), "cmd", "benchsim"), Flags: binaryFlags, Env: binaryEnv})
}

// CommandBinaries builds benchgate and benchsim for a TestMain, which has
// no *testing.T, and returns the folder of each by name.
func CommandBinaries(root string) (map[string]string, error) {
	out := map[string]string{}
	for _, name := range []string{"benchgate", "benchsim"} {
		p, err := Build{Dir: filepath.Join(root, "cmd", name), Flags: binaryFlags, Env: binaryEnv}.Path()
		if err != nil {
			return nil, err
		}
		out[name] = p
	}
	return out, nil
}

// Binary returns the path of the binary b builds, failing the test when
// it cannot be built.
func Binary(t testing.TB, b Build) string {
	t.Helper()
	p, err := b.Path()
	if err != nil {
		t.Fatalf("build %s: %v", b.Dir, err)
	}
	return p
}

var builds sync.Map // key -> *buildOnce

type buildOnce struct {
	once sync.Once
	path string
	err  error
}

// Path builds the binary once per content of its sources: it is stored
// in StateDir under a name derived from every source file of the main
// module it is built from (embedded files included), go.mod, go.sum, the
// flags and the environment. The first test process to need it builds it;
// every later one, in this run or the next, reuses it, and a change to any
// of its sources builds a new one. Two processes building at once never
// run a half-written file.
func (b Build) Path() (string, error) {
	key := strings.Join(append(append([]string{b.Dir, b.Package, b.Name}, b.Flags...), b.Env...), "\x00")
	v, _ := builds.LoadOrStore(key, &buildOnce{})
	o := v.(*buildOnce)
	o.once.Do(func() { o.path, o.err = b.build() })
	return o.path, o.err
}

func (b Build) build() (string, error) {
	name := b.Name
	if name == "" {
		name = filepath.Base(b.Dir)
	}
	pkg := b.Package
	if pkg == "" {
		pkg = "."
	}
	sum, err := b.sourceHash(pkg)
	if err != nil {
		return "", err
	}
	state, err := StateDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(state, "bin", name+"-"+sum[:16])
	bin := filepath.Join(dir, name)
	if info, err := os.Stat(bin); err == nil && info.Mode().IsRegular() {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, name+".tmp-*")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.Command("go", append(append([]string{"build"}, b.Flags...), "-o", tmp.Name(), pkg)...)
	cmd.Dir = b.Dir
	cmd.Env = append(os.Environ(), b.Env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		return "", err
	}
	pruneBuilds(filepath.Dir(dir), name, dir)
	return bin, nil
}

// sourceHash hashes what the binary is built from. Packages outside the
// main module come from the module cache, which go.sum pins.
func (b Build) sourceHash(pkg string) (string, error) {
	const format = `{{if and .Module .Module.Main}}{{.Module.GoMod}}|{{.Dir}}|{{join .GoFiles "|"}}|{{join .EmbedFiles "|"}}{{end}}`
	cmd := exec.Command("go", "list", "-deps", "-f", format, pkg)
	cmd.Dir = b.Dir
	cmd.Env = append(os.Environ(), b.Env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	h := sha256.New()
	fmt.Fprintf(h, "%q %q %q\n", pkg, b.Flags, b.Env)
	if pkg != "." {
		// Nothing of it is in the main module: go.sum pins its version.
		if sum, err := os.ReadFile(filepath.Join(b.Dir, "go.sum")); err == nil {
			h.Write(sum)
		}
	}
	hashFile := func(path string) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		fmt.Fprintf(h, "%s\n", path)
		_, err = io.Copy(h, f)
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "|")
		if len(parts) < 2 {
			continue
		}
		gomod, dir := parts[0], parts[1]
		for _, f := range []string{gomod, filepath.Join(filepath.Dir(gomod), "go.sum")} {
			if err := hashFile(f); err != nil && !os.IsNotExist(err) {
				return "", err
			}
		}
		for _, f := range parts[2:] {
			if f == "" {
				continue
			}
			if err := hashFile(filepath.Join(dir, f)); err != nil {
				return "", err
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// pruneBuilds removes builds of name other than keep that were made more
// than a day ago, so that the cache does not grow with every edit.
func pruneBuilds(parent, name, keep string) {
	old, _ := filepath.Glob(filepath.Join(parent, name+"-*"))
	for _, d := range old {
		if d == keep {
			continue
		}
		if info, err := os.Stat(d); err == nil && time.Since(info.ModTime()) > 24*time.Hour {
			os.RemoveAll(d)
		}
	}
}

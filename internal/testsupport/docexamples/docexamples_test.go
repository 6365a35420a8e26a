package docexamples

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestDocExamples runs every command example of README.md and docs/*.md
// as a user types it, in a fresh folder laid out as its marker says, and
// checks its exit code and, for a transcript, the lines the doc shows.
// A block without a marker fails the test, so an example added later is
// either run or says why it is not.
func TestDocExamples(t *testing.T) {
	root := testenv.RepoRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	bins := builtBinaries(t)
	for _, path := range files {
		rel, _ := filepath.Rel(root, path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		examples, err := Parse(rel, string(data))
		if err != nil {
			t.Error(err)
			continue
		}
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			var prev *workspace
			fileT := t
			for _, ex := range examples {
				name := fmt.Sprintf("line %d", ex.Line)
				switch {
				case !ex.Marked:
					t.Errorf("%s:%d: a command block without a marker: put <!-- example: dir=repo --> (or \"not run: <why>\") on the line above its fence (internal/docexamples says how)", ex.File, ex.Line)
					continue
				case ex.NotRun != "":
					t.Logf("%s:%d: not run: %s", ex.File, ex.Line, ex.NotRun)
					continue
				}
				t.Run(name, func(t *testing.T) {
					if ex.Continues && prev == nil {
						t.Fatalf("%s:%d: continues, but no runnable block precedes it in the file", ex.File, ex.Line)
					}
					ws := prev
					if !ex.Continues {
						// The folder outlives this block: a later one may continue it.
						ws = newWorkspace(t, fileT.TempDir(), root, bins, ex.Dir)
					}
					prev = ws
					ws.run(t, ex, bins)
				})
			}
		})
	}
}

// binaries are the built programs and the folders that put them on PATH.
type binaries struct {
	benchgate, benchsim string
	// gateDir holds benchgate alone: the docs' "benchgate" is the
	// installed tool, while the simulator must be put on PATH as the
	// text says. simDir holds benchsim, for a benchmark package's scripts.
	gateDir, simDir string
}

func builtBinaries(t *testing.T) binaries {
	b := binaries{benchgate: testenv.Benchgate(t), benchsim: testenv.Benchsim(t)}
	dir := t.TempDir()
	b.gateDir, b.simDir = filepath.Join(dir, "gate"), filepath.Join(dir, "sim")
	for _, c := range []struct{ src, dir, name string }{{b.benchgate, b.gateDir, "benchgate"}, {b.benchsim, b.simDir, "benchsim"}} {
		if err := os.MkdirAll(c.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(c.src, filepath.Join(c.dir, c.name)); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// workspace is the folder one example (and the blocks that continue it)
// runs in, with its own stand-in for /tmp.
type workspace struct {
	root, tmp, cwd string
	path           []string
}

func newWorkspace(t *testing.T, root, repo string, bins binaries, dir string) *workspace {
	ws := &workspace{root: root, tmp: filepath.Join(root, "tmp"), cwd: filepath.Join(root, "work"), path: []string{bins.gateDir}}
	for _, d := range []string{ws.tmp, ws.cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	switch dir {
	case "repo":
		copyRepo(t, repo, ws.cwd)
		// The README's first step: the binaries built into bin/.
		for name, src := range map[string]string{"benchgate": bins.benchgate, "benchsim": bins.benchsim} {
			if err := copyFile(src, filepath.Join(ws.cwd, "bin", name), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	case "benchmark-package":
		ws.cwd = benchmarkPackage(t, repo, bins, ws.cwd)
		ws.path = append(ws.path, bins.simDir)
	}
	return ws
}

// run runs ex in the workspace and checks what the doc says of it.
func (ws *workspace) run(t *testing.T, ex Example, bins binaries) {
	for _, n := range ex.Needs {
		switch n {
		case "pnpm":
			ws.path = append(ws.path, filepath.Dir(testenv.Pnpm(t)))
		case "python":
			testenv.Python(t)
		}
	}
	// /tmp in an example is this example's own folder, so that examples
	// never meet each other or the machine's files there.
	script := strings.ReplaceAll(ex.Script(), "/tmp/", ws.tmp+"/")
	// A block that continues another starts in its working directory
	// with its exported variables (PATH="$PWD/bin:$PATH" of the README's
	// first step, say).
	cwdFile, envFile := filepath.Join(ws.root, ".cwd"), filepath.Join(ws.root, ".env")
	prelude := ""
	if ex.Continues {
		prelude = ". " + shellQuote(envFile) + "\n"
	}
	full := fmt.Sprintf("trap 'printf %%s \"$PWD\" > %s; export -p > %s' EXIT\n%s%s", shellQuote(cwdFile), shellQuote(envFile), prelude, script)
	cmd := exec.CommandContext(t.Context(), "bash", "-c", full)
	cmd.Dir = ws.cwd
	cmd.Env = append(cleanEnv(), "PATH="+strings.Join(append(append([]string(nil), ws.path...), os.Getenv("PATH")), ":"), "TMPDIR="+ws.tmp,
		// The compile cache is keyed by source paths unless they are
		// trimmed: without it a copy of the repository compiles afresh.
		"GOFLAGS=-trimpath")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s:%d: %v", ex.File, ex.Line, err)
	}
	if b, err := os.ReadFile(cwdFile); err == nil && len(b) > 0 {
		ws.cwd = string(b)
	}
	if code != ex.Exit {
		t.Errorf("%s:%d: exit %d, the doc says %d\nscript:\n%s\noutput:\n%s", ex.File, ex.Line, code, ex.Exit, script, tail(out.String()))
		return
	}
	if ex.Transcript() {
		var shown []string
		for _, s := range ex.Steps() {
			for _, l := range s.Output {
				shown = append(shown, strings.ReplaceAll(l, "/tmp/", ws.tmp+"/"))
			}
		}
		if line, ok := Missing(shown, out.String()); !ok {
			t.Errorf("%s:%d: the doc shows %q, which the output does not hold (in order)\nscript:\n%s\noutput:\n%s", ex.File, ex.Line, line, script, tail(out.String()))
		}
	}
	t.Logf("%s:%d: exit %d as shown", ex.File, ex.Line, code)
}

// cleanEnv is the test's environment without what would change a
// benchmark run or a workflow's view (the simulator's failure injection,
// the Actions variables of a CI run).
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" || k == "TMPDIR" || strings.HasPrefix(k, "BENCHSIM_") || strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "INPUT_") || strings.HasPrefix(k, "RUNNER_") || k == "CI" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func tail(s string) string {
	if len(s) > 6000 {
		return "..." + s[len(s)-6000:]
	}
	return s
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// copyRepo copies the repository's files, leaving out what git ignores
// there and what runs leave behind.
func copyRepo(t *testing.T, src, dst string) {
	skip := map[string]bool{".git": true, "bin": true, "reports": true, "node_modules": true}
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && skip[d.Name()] && rel != "." {
			return filepath.SkipDir
		}
		if rel == filepath.Join("examples", "fixtures", "latest.json") {
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if d.Type()&os.ModeSymlink != 0 {
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return copyFile(p, target, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(src, dst string, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// benchmarkPackage lays out what the docs call "the benchmark package":
// a pnpm workspace whose packages/benchmark is @ghx-dev/benchmark with
// the scenario data of examples/ and a seeded fixture manifest; its
// scripts call the simulator, so the default contract runs for real.
// It returns the package's folder.
func benchmarkPackage(t *testing.T, repo string, bins binaries, dir string) string {
	files := map[string]string{
		"package.json":        `{"name": "benchmark-repo", "private": true, "packageManager": "pnpm@9.15.9"}` + "\n",
		"pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
		"packages/benchmark/package.json": `{
  "name": "@ghx-dev/benchmark",
  "private": true,
  "scripts": {
    "benchmark": "benchsim benchmark",
    "fixtures": "benchsim fixtures",
    "benchmark:verify:pr": "benchsim confirm verify_pr",
    "benchmark:verify:release": "benchsim confirm verify_release"
  }
}
`,
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkg := filepath.Join(dir, "packages", "benchmark")
	for _, name := range []string{"scenario-sets.json", "scenarios", "config"} {
		src := filepath.Join(repo, "examples", name)
		if info, err := os.Stat(src); err == nil && info.IsDir() {
			copyRepo(t, src, filepath.Join(pkg, name))
		} else if err := copyFile(src, filepath.Join(pkg, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	seed := exec.CommandContext(t.Context(), bins.benchsim, "fixtures", "seed", "--out", filepath.Join(pkg, "fixtures", "latest.json"))
	seed.Dir = pkg
	if out, err := seed.CombinedOutput(); err != nil {
		t.Fatalf("seed the benchmark package's fixtures: %v\n%s", err, out)
	}
	return pkg
}

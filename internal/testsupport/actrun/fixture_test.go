package actrun

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// actionSource copies what `uses: benchgate/benchgate@<ref>` fetches,
// the repository's tracked source without its history and test data, to
// a folder act then serves as that action (--local-repository).
func actionSource(t testing.TB) string {
	t.Helper()
	root := testenv.RepoRoot(t)
	dst := t.TempDir()
	for _, top := range []string{"action.yml", "go.mod", "go.sum", "scripts", "cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			if strings.HasSuffix(path, "_test.go") || !d.Type().IsRegular() {
				return nil
			}
			return copyFile(path, filepath.Join(dst, rel))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, info.Mode().Perm())
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		return copyFile(path, filepath.Join(dst, rel))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs a command in dir and fails the test with its output when it
// fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// gitCommitAll makes dir a repository with one commit of everything in
// it, as the repository a workflow runs in.
func gitCommitAll(t *testing.T, dir string) {
	t.Helper()
	env := []string{"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com"}
	run(t, dir, env, "git", "init", "-q", "-b", "main")
	run(t, dir, env, "git", "add", "-A")
	run(t, dir, env, "git", "commit", "-q", "-m", "benchmark repository")
}

// benchmarkRepo builds the repository of a benchmark maintainer: a pnpm
// workspace whose packages/benchmark is @ghx-dev/benchmark, with the
// real scenario data of examples/, a fixture manifest, the failure
// injection file given (empty: none) and the example workflows under
// .github/workflows/. Its package.json scripts call the simulator, so
// `pnpm --filter @ghx-dev/benchmark run benchmark -- ...` runs for real.
func benchmarkRepo(t *testing.T, pnpm, benchsim, failures string) string {
	t.Helper()
	root := testenv.RepoRoot(t)
	repo := t.TempDir()
	copyTree(t, filepath.Join(root, ".github", "workflows", "examples"), filepath.Join(repo, ".github", "workflows"))
	writeFile(t, filepath.Join(repo, "package.json"), `{"name": "benchmark-repo", "private": true, "packageManager": "pnpm@9.15.9"}`+"\n")
	writeFile(t, filepath.Join(repo, "pnpm-workspace.yaml"), "packages:\n  - 'packages/*'\n")
	pkg := filepath.Join(repo, "packages", "benchmark")
	writeFile(t, filepath.Join(pkg, "package.json"), `{
  "name": "@ghx-dev/benchmark",
  "private": true,
  "scripts": {
    "benchmark": "benchsim benchmark",
    "fixtures": "benchsim fixtures",
    "benchmark:verify:pr": "benchsim confirm verify_pr",
    "benchmark:verify:release": "benchsim confirm verify_release"
  }
}
`)
	for _, f := range []string{"scenario-sets.json", "scenarios", "config"} {
		src := filepath.Join(root, "examples", f)
		if info, err := os.Stat(src); err == nil && info.IsDir() {
			copyTree(t, src, filepath.Join(pkg, f))
		} else if err := copyFile(src, filepath.Join(pkg, f)); err != nil {
			t.Fatal(err)
		}
	}
	if failures == "" {
		failures = `{"rules": []}`
	}
	writeFile(t, filepath.Join(pkg, "failures.json"), failures+"\n")
	run(t, pkg, nil, benchsim, "fixtures", "seed", "--out", filepath.Join(pkg, "fixtures", "latest.json"))
	// The lockfile a maintainer commits: `pnpm install --frozen-lockfile`
	// in the workflow then installs exactly it.
	run(t, repo, nil, pnpm, "install", "--lockfile-only")
	gitCommitAll(t, repo)
	return repo
}

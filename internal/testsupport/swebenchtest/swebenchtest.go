// Package swebenchtest builds what SWE-bench runner tests need on a real
// engine: the static fake codex, tiny busybox images named like the real
// instance images, dataset files and a leak check.
package swebenchtest

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// FakeCodex builds testdata/fakecodex statically, once per content of its
// sources, into the test state folder (testenv.Build): the next test and
// the next run reuse it, and nothing is left in the temporary folder.
func FakeCodex(t testing.TB) string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	return testenv.Binary(t, testenv.Build{Dir: filepath.Join(filepath.Dir(self), "testdata", "fakecodex"), Name: "codex",
		Env: []string{"CGO_ENABLED=0"}})
}

func Docker(t testing.TB) *container.Client {
	t.Helper()
	dc, err := container.New(testenv.DockerHost(t))
	if err != nil {
		t.Fatal(err)
	}
	return dc
}

// ImportImage builds a tiny instance image: static busybox, the host's
// real git and bash (see HostTools), /testbed as a git repository with one
// commit and, when withCodex, the fake codex at /usr/local/bin/codex. It is
// named like the real ones and removed when the test ends.
func ImportImage(t testing.TB, dc *container.Client, ref string, withCodex bool) {
	t.Helper()
	importImage(t, dc, ref, withCodex, baseFiles(t, true))
}

// ImportImageWithoutGit is ImportImage with the fake codex and without git
// (the /testbed repository is there): the runner cannot check a patch.
func ImportImageWithoutGit(t testing.TB, dc *container.Client, ref string) {
	t.Helper()
	importImage(t, dc, ref, true, baseFiles(t, false))
}

// ImportImageWithUntracked is ImportImage whose /testbed also holds
// untracked files, like the build output real instance images carry:
// files by path relative to /testbed.
func ImportImageWithUntracked(t testing.TB, dc *container.Client, ref string, withCodex bool, untracked map[string]string) {
	t.Helper()
	files := baseFiles(t, true)
	for name, data := range untracked {
		files = append(files, container.File{Path: "/testbed/" + name, Mode: 0o644, Data: []byte(data)})
	}
	importImage(t, dc, ref, withCodex, files)
}

// HarnessApply applies /tmp/patch.diff in /testbed the way the SWE-bench
// harness does (its three commands in its order, the first that exits 0
// wins), written from the harness's source rather than taken from the
// runner, for tests that check a prediction in a fresh container.
const HarnessApply = `cd /testbed && { git apply --verbose /tmp/patch.diff || git apply --verbose --reject /tmp/patch.diff || patch --batch --fuzz=5 -p1 -i /tmp/patch.diff; }`

// ApplyAsHarness applies patch in a fresh container of image as the
// harness does (HarnessApply), then runs check there; it returns the
// exit code and the output. A patch GNU patch applied only in reverse
// ("Assuming -R") exits 99.
func ApplyAsHarness(t testing.TB, dc *container.Client, image string, patch []byte, check string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	code := RunInImage(t, dc, image, &out, []container.File{{Path: "/tmp/patch.diff", Mode: 0o644, Data: patch}},
		"bash", "-c", HarnessApply+" > /tmp/apply.log 2>&1; r=$?; cat /tmp/apply.log; if grep -q 'Assuming -R' /tmp/apply.log; then exit 99; fi; [ $r = 0 ] || exit $r; "+check)
	return code, out.String()
}

func importImage(t testing.TB, dc *container.Client, ref string, withCodex bool, files []container.File) {
	t.Helper()
	if withCodex {
		cb, err := os.ReadFile(FakeCodex(t))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, container.File{Path: "/usr/local/bin/codex", Mode: 0o755, Data: cb})
	}
	importRootfs(t, dc, ref, files, `CMD ["/bin/sh"]`)
}

// Testbed is the code of every test image: the files committed in
// /testbed. A patch of them written by `git diff HEAD` applies there.
var Testbed = map[string]string{"README": "code\n", "f": "old\n"}

// applets are the busybox commands the runner, the fake agent and the
// real Codex CLI's shell commands use in test images.
var applets = []string{"sh", "sleep", "cat", "ls", "mv", "mkdir", "rm", "echo", "printf", "cp", "kill", "chmod", "chown",
	"test", "[", "env", "pwd", "uname", "id", "head", "tail", "grep", "sed", "tr", "wc", "which", "mktemp", "find", "ln", "md5sum", "sort", "readlink", "cut"}

// baseFiles are the files every test image has: busybox, Debian's git,
// bash and GNU patch with their shared libraries, a root user, /tmp and the /testbed
// repository.
func baseFiles(t testing.TB, withGit bool) []container.File {
	t.Helper()
	bb, err := os.ReadFile(testenv.Busybox(t))
	if err != nil {
		t.Fatal(err)
	}
	files := []container.File{{Path: "/bin/busybox", Mode: 0o755, Data: bb}}
	// GNU patch: the harness's last command when git apply fails.
	tools := []string{"bash", "patch"}
	if withGit {
		tools = append(tools, "git")
	}
	files = append(files, HostTools(t, tools...)...)
	return append(files, skeletonFiles(t)...)
}

// skeletonFiles are the files of every test image besides its programs,
// whatever its architecture: a root user, /tmp and the /testbed
// repository.
func skeletonFiles(t testing.TB) []container.File {
	t.Helper()
	files := []container.File{
		{Path: "/etc/passwd", Mode: 0o644, Data: []byte("root:x:0:0:root:/root:/bin/bash\n")},
		{Path: "/etc/group", Mode: 0o644, Data: []byte("root:x:0:\n")},
		{Path: "/root/.keep"},
		{Path: "/tmp/.keep"},
	}
	return append(files, GitRepo(t, "/testbed", Testbed)...)
}

// rootfsLayer is files plus the busybox applet links, as one tar.
func rootfsLayer(t testing.TB, files []container.File) []byte {
	t.Helper()
	var base bytes.Buffer
	if err := container.WriteTar(&base, files); err != nil {
		t.Fatal(err)
	}
	var layer bytes.Buffer
	if err := WriteTarWithLinks(&layer, base.Bytes(), applets); err != nil {
		t.Fatal(err)
	}
	return layer.Bytes()
}

// importRootfs imports files plus the busybox applet links as image ref,
// removed when the test ends.
func importRootfs(t testing.TB, dc *container.Client, ref string, files []container.File, changes ...string) {
	t.Helper()
	changes = append([]string{"ENV PATH=/usr/local/bin:/usr/bin:/bin", "WORKDIR /testbed"}, changes...)
	if err := dc.ImageImport(context.Background(), bytes.NewReader(rootfsLayer(t, files)), ref, changes...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.ImageRemove(context.Background(), ref) })
}

// HostTools returns the host's binaries named (looked up on PATH; Debian's
// on the test machines) with every shared library ldd lists for them, each
// at its host path, so that they run in a busybox image as they run on the
// host. Real instance images carry git and bash; a stand-in would agree
// with the runner by construction.
func HostTools(t testing.TB, names ...string) []container.File {
	t.Helper()
	seen := map[string]bool{}
	var files []container.File
	add := func(path string, mode int64) {
		if seen[path] {
			return
		}
		seen[path] = true
		b, err := os.ReadFile(path) // follows links: the image gets the file itself
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, container.File{Path: path, Mode: mode, Data: b})
	}
	for _, name := range names {
		bin, err := exec.LookPath(name)
		if err != nil {
			testenv.Missing(t, name, err.Error())
		}
		add(bin, 0o755)
		out, err := exec.Command("ldd", bin).CombinedOutput()
		if err != nil && !strings.Contains(string(out), "not a dynamic executable") {
			t.Fatalf("ldd %s: %v\n%s", bin, err, out)
		}
		if strings.Contains(string(out), "not found") {
			t.Fatalf("ldd %s: a library is missing on the host:\n%s", bin, out)
		}
		for _, lib := range ParseLdd(string(out)) {
			add(lib, 0o755)
		}
	}
	return files
}

// ParseLdd returns the absolute paths of the libraries in ldd's output
// ("libz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x...)" and the loader
// "/lib64/ld-linux-x86-64.so.2 (0x...)"); the vDSO has no file.
func ParseLdd(out string) []string {
	var libs []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[1] == "=>" && strings.HasPrefix(f[2], "/"):
			libs = append(libs, f[2])
		case len(f) >= 1 && strings.HasPrefix(f[0], "/"):
			libs = append(libs, f[0])
		}
	}
	return libs
}

// GitRepo makes a git repository of files with one commit, with the host's
// git, and returns it (work tree and .git) as files under dir.
func GitRepo(t testing.TB, dir string, content map[string]string) []container.File {
	t.Helper()
	src := t.TempDir()
	for name, data := range content {
		if err := os.WriteFile(filepath.Join(src, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+src, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			if errors.Is(err, exec.ErrNotFound) {
				testenv.Missing(t, "git", err.Error())
			}
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	var files []container.File
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.Name() == "hooks" {
				return filepath.SkipDir
			}
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		files = append(files, container.File{Path: filepath.Join(dir, rel), Mode: 0o644, Data: b})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// NoLeaks fails the test when a container matching the label filter
// ("key" or "key=value") still exists.
func NoLeaks(t testing.TB, dc *container.Client, label string) {
	t.Helper()
	cs, err := dc.List(context.Background(), label)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) > 0 {
		t.Errorf("%d runner container(s) leaked (%s): %v", len(cs), label, cs[0].Names)
	}
}

// DatasetFile writes a jsonl dataset with problem statements for ids, one
// record per distinct ID.
func DatasetFile(t testing.TB, dir string, ids ...string) string {
	t.Helper()
	var b strings.Builder
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue // a dataset has one record per instance
		}
		seen[id] = true
		row, _ := json.Marshal(map[string]string{"instance_id": id, "repo": "acme/widget", "problem_statement": "Fix the bug in " + id + "."})
		b.Write(row)
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, "dataset.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ReadJSON decodes the JSON file path into v.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// WriteTarWithLinks copies the tar in base and adds /bin/<applet> symlinks
// to busybox.
func WriteTarWithLinks(w io.Writer, base []byte, applets []string) error {
	tr := tar.NewReader(bytes.NewReader(base))
	tw := tar.NewWriter(w)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return err
		}
	}
	for _, a := range applets {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + a, Linkname: "busybox", Mode: 0o777}); err != nil {
			return err
		}
	}
	return tw.Close()
}

// ImportRealCodexImage imports ref as an instance image without codex
// and without CMD: the image of ImportImage otherwise. The runner must
// bootstrap the real Codex CLI into it, and a patch of the /testbed
// repository made with `git diff HEAD` applies there.
func ImportRealCodexImage(t testing.TB, dc *container.Client, ref string) {
	t.Helper()
	importRootfs(t, dc, ref, baseFiles(t, true))
}

// RunInImage runs cmd in a fresh container of image, in its working
// folder, after copying files in; it writes the command's output to out
// and returns its exit code. The container is removed.
func RunInImage(t testing.TB, dc *container.Client, image string, out io.Writer, files []container.File, cmd ...string) int {
	t.Helper()
	ctx := context.Background()
	id, err := dc.Create(ctx, container.Spec{Image: image, Entrypoint: []string{"/bin/sh", "-c", "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"}, NetworkMode: "none"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = dc.Remove(context.Background(), id) }()
	if err := dc.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	if len(files) > 0 {
		if err := dc.CopyIn(ctx, id, files); err != nil {
			t.Fatal(err)
		}
	}
	res, err := dc.Exec(ctx, id, container.ExecSpec{Cmd: cmd, Stdout: out, Stderr: out, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return res.ExitCode
}

// Package swebenchtest builds what SWE-bench runner tests need on a real
// engine: the static fake codex, tiny busybox images named like the real
// instance images, dataset files and a leak check.
package swebenchtest

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/testenv"
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

// ImportImage builds a tiny instance image: static busybox, /testbed and,
// when withCodex, the fake codex at /usr/local/bin/codex. It is named like
// the real ones and removed when the test ends.
func ImportImage(t testing.TB, dc *container.Client, ref string, withCodex bool) {
	t.Helper()
	bb, err := os.ReadFile(testenv.Busybox(t))
	if err != nil {
		t.Fatal(err)
	}
	files := []container.File{{Path: "/bin/busybox", Mode: 0o755, Data: bb}, {Path: "/testbed/README", Data: []byte("code\n")},
		{Path: "/testbed/f", Data: []byte("old\n")}, {Path: "/usr/bin/git", Mode: 0o755, Data: []byte(GitStandIn)}, {Path: "/tmp/.keep"}}
	if withCodex {
		cb, err := os.ReadFile(FakeCodex(t))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, container.File{Path: "/usr/local/bin/codex", Mode: 0o755, Data: cb})
	}
	var tarBuf bytes.Buffer
	if err := container.WriteTar(&tarBuf, files); err != nil {
		t.Fatal(err)
	}
	rootfs := appendApplets(t, tarBuf.Bytes())
	ctx := context.Background()
	if err := dc.ImageImport(ctx, bytes.NewReader(rootfs), ref, "ENV PATH=/usr/local/bin:/usr/bin:/bin", "WORKDIR /testbed", `CMD ["/bin/sh"]`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.ImageRemove(context.Background(), ref) })
}

// GitStandIn is the test images' `git`: real instance images carry git,
// and the runner's patch check runs `git -C <code dir> apply --check
// <patch>`. This stand-in does only that, with busybox: a file with no
// hunk is refused as git refuses it, and the hunks must apply (patch
// --dry-run).
const GitStandIn = `#!/bin/sh
if [ "$1" = "-C" ]; then cd "$2" || exit 128; shift 2; fi
if [ "$1" != apply ] || [ "$2" != --check ]; then echo "git (test stand-in): only 'apply --check' is supported" >&2; exit 129; fi
if ! grep -q '^@@ ' "$3" || ! grep -q '^+++ ' "$3"; then echo "error: No valid patches in input" >&2; exit 128; fi
patch -p1 --dry-run -i "$3" >/dev/null || { echo "error: patch does not apply" >&2; exit 1; }
`

// appendApplets rebuilds the tar with symlinks for the busybox applets the
// runner and tests use.
func appendApplets(t testing.TB, base []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteTarWithLinks(&buf, base, []string{"sh", "sleep", "cat", "ls", "mv", "mkdir", "rm", "echo", "kill", "chmod", "chown", "test", "grep", "patch", "["}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
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

// DatasetFile writes a jsonl dataset with problem statements for ids.
func DatasetFile(t testing.TB, dir string, ids ...string) string {
	t.Helper()
	var b strings.Builder
	for _, id := range ids {
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

// ImportRealCodexImage imports ref as an instance image without codex:
// busybox with a bash and the git stand-in, /testbed/README holding
// "code". The runner must bootstrap the real Codex CLI into it, and a
// patch of README applies there.
func ImportRealCodexImage(t testing.TB, dc *container.Client, ref string) {
	t.Helper()
	bb, err := os.ReadFile(testenv.Busybox(t))
	if err != nil {
		t.Fatal(err)
	}
	files := []container.File{
		{Path: "/bin/busybox", Mode: 0o755, Data: bb},
		{Path: "/bin/bash", Mode: 0o755, Data: []byte("#!/bin/sh\nexec /bin/sh \"$@\"\n")},
		{Path: "/etc/passwd", Mode: 0o644, Data: []byte("root:x:0:0:root:/root:/bin/bash\n")},
		{Path: "/etc/group", Mode: 0o644, Data: []byte("root:x:0:\n")},
		{Path: "/root/.keep"},
		{Path: "/testbed/README", Data: []byte("code\n")},
		{Path: "/usr/bin/git", Mode: 0o755, Data: []byte(GitStandIn)},
		{Path: "/tmp/.keep"},
	}
	var base bytes.Buffer
	if err := container.WriteTar(&base, files); err != nil {
		t.Fatal(err)
	}
	var rootfs bytes.Buffer
	applets := []string{"sh", "sleep", "cat", "ls", "mv", "mkdir", "rm", "echo", "printf", "cp", "kill", "chmod", "test", "env", "pwd", "uname", "id", "head", "tail", "grep", "sed", "tr", "wc", "which", "patch"}
	if err := WriteTarWithLinks(&rootfs, base.Bytes(), applets); err != nil {
		t.Fatal(err)
	}
	if err := dc.ImageImport(context.Background(), &rootfs, ref, "ENV PATH=/usr/local/bin:/usr/bin:/bin", "WORKDIR /testbed"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.ImageRemove(context.Background(), ref) })
}

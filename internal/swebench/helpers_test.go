package swebench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/ralph"
	"github.com/benchgate/benchgate/internal/testenv"
)

var (
	fakeOnce sync.Once
	fakePath string
	fakeErr  error
)

// fakeCodex builds testdata/fakecodex statically, once per test binary.
func fakeCodex(t testing.TB) string {
	t.Helper()
	fakeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "benchgate-fakecodex-")
		if err != nil {
			fakeErr = err
			return
		}
		fakePath = filepath.Join(dir, "codex")
		cmd := exec.Command("go", "build", "-o", fakePath, "./testdata/fakecodex")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			fakeErr = err
			fakePath = string(out)
		}
	})
	if fakeErr != nil {
		t.Fatalf("build fake codex: %v: %s", fakeErr, fakePath)
	}
	return fakePath
}

func dockerClient(t testing.TB) *container.Client {
	t.Helper()
	dc, err := container.New(testenv.DockerHost(t))
	if err != nil {
		t.Fatal(err)
	}
	return dc
}

// importImage builds a tiny instance image: static busybox, /testbed and,
// when withCodex, the fake codex at /usr/local/bin/codex. It is named like
// the real ones and removed when the test ends.
func importImage(t testing.TB, dc *container.Client, ref string, withCodex bool) {
	t.Helper()
	bb, err := os.ReadFile(testenv.Busybox(t))
	if err != nil {
		t.Fatal(err)
	}
	files := []container.File{{Path: "/bin/busybox", Mode: 0o755, Data: bb}, {Path: "/testbed/README", Data: []byte("code\n")}, {Path: "/tmp/.keep"}}
	if withCodex {
		cb, err := os.ReadFile(fakeCodex(t))
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
	if err := dc.ImageImport(ctx, bytes.NewReader(rootfs), ref, "ENV PATH=/usr/local/bin:/usr/bin:/bin", "WORKDIR /testbed"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.ImageRemove(context.Background(), ref) })
}

// appendApplets rebuilds the tar with symlinks for the busybox applets the
// runner and tests use.
func appendApplets(t testing.TB, base []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeTarWithLinks(&buf, base, []string{"sh", "sleep", "cat", "ls", "mv", "mkdir", "rm", "echo", "kill", "chmod", "test"}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// noLeaks fails the test when a runner container labelled with dir is
// still present.
func noLeaks(t testing.TB, dc *container.Client, dir string) {
	t.Helper()
	cs, err := dc.List(context.Background(), LabelOutputDir+"="+dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) > 0 {
		t.Errorf("%d runner container(s) leaked for %s: %v", len(cs), dir, cs[0].Names)
	}
}

// datasetFile writes a jsonl dataset with problem statements for ids.
func datasetFile(t testing.TB, dir string, ids ...string) string {
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

// baseOptions is a run with the fake codex scenario and the test image
// template for prefix.
func baseOptions(t testing.TB, dc *container.Client, dataset, tmpl, scenario string) Options {
	t.Helper()
	p, err := ralph.LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	return Options{MaxLoops: 3, PhaseTimeout: time.Minute, Prompts: p, DatasetFile: dataset, ImageTemplate: tmpl,
		Env: []string{"FAKE_CODEX_SCENARIO=" + scenario}, Network: "none", Docker: dc}
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

package container_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestHostPathFromAContainer runs, inside a container that has the
// engine's socket and the workspace mounted at /github/workspace (as the
// runner starts the Action's image), a program that starts a sibling
// container through the engine, as benchgate's SWE-bench runner does:
// the workspace path is translated to the host folder it comes from, so
// the sibling writes into the host's workspace; a path on the container's
// own layer is an error naming it; a missing folder is refused by the
// engine and not created on the host.
func TestHostPathFromAContainer(t *testing.T) {
	dc := swebenchtest.Docker(t)
	sock := strings.TrimPrefix(testenv.DockerHost(t), "unix://")
	_, self, _, _ := runtime.Caller(0)
	bin, err := os.ReadFile(testenv.Binary(t, testenv.Build{Dir: filepath.Join(filepath.Dir(self), "testdata", "hostpath"), Env: []string{"CGO_ENABLED=0"}}))
	if err != nil {
		t.Fatal(err)
	}
	const image = "benchgate-hostpath-test:latest"
	swebenchtest.ImportImage(t, dc, image, false)
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "out"), 0o777); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id, err := dc.Create(ctx, container.Spec{Image: image, Entrypoint: []string{"/bin/sh", "-c", "sleep 300"},
		Env:    []string{"DOCKER_HOST=unix:///var/run/docker.sock"},
		Labels: map[string]string{"io.benchgate.test": "hostpath"},
		Mounts: []container.Mount{{Source: ws, Target: "/github/workspace"}, {Source: sock, Target: "/var/run/docker.sock"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer dc.RemoveDetached(id, 30*time.Second)
	if err := dc.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := dc.CopyIn(ctx, id, []container.File{{Path: "/hostpath", Mode: 0o755, Data: bin}}); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		var out bytes.Buffer
		res, err := dc.Exec(ctx, id, container.ExecSpec{Cmd: append([]string{"/hostpath"}, args...), Stdout: &out, Stderr: &out})
		if err != nil {
			t.Fatalf("exec %v: %v", args, err)
		}
		_ = res
		return out.String()
	}

	got := strings.Split(strings.TrimSpace(run("/github/workspace/out", "/github/workspace", "/etc")), "\n")
	if len(got) != 3 || got[0] != filepath.Join(ws, "out") || got[1] != ws ||
		!strings.HasPrefix(got[2], "error: /etc is in this container's own file system") {
		t.Errorf("host paths = %q, want %s, %s and an error for /etc", got, filepath.Join(ws, "out"), ws)
	}
	if out := run("-sibling", "/github/workspace/out", image); !strings.Contains(out, "sibling wrote") {
		t.Fatalf("sibling: %s", out)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "out", "sibling.txt")); err != nil || string(b) != "from the sibling\n" {
		t.Errorf("the sibling's file on the host: %q, %v", b, err)
	}
	if out := run("-sibling", "/github/workspace/missing", image); !strings.Contains(out, "error:") {
		t.Errorf("a missing folder was mounted: %s", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "missing")); !os.IsNotExist(err) {
		t.Errorf("the engine created the missing folder on the host: %v", err)
	}
}

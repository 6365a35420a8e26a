package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/benchgate/benchgate/internal/container"
)

// containerDir is where a test's folder lives inside its container.
const containerDir = "/sandbox"

// runContainer runs pytest in a fresh container of r.Image with no
// network. The container idles until the files are copied in, pytest runs
// as an exec with the timeout, and the container is removed afterwards,
// which also kills a test that hung.
func runContainer(ctx context.Context, r *Runner, dir string, files map[string][]byte, testName string) (rawResult, error) {
	client, err := container.New(r.DockerHost)
	if err != nil {
		return rawResult{}, err
	}
	idle := int(r.timeout()/time.Second) + 120
	l := r.Limits.effective(r.timeout())
	// As hardened as SWE-bench's instance containers: every capability
	// dropped and no-new-privileges, besides the limits.
	id, err := client.Create(ctx, container.LeastPrivilege(container.Spec{
		// The same limits as a local test: CPU time, file size and
		// processes here, the address space (a MemoryError names it) by
		// the bootstrap, since runc itself would not start under it; the
		// cgroup's memory, twice the address space, is a backstop.
		Memory:      2 * l.MemoryBytes,
		PidsLimit:   l.Processes,
		Ulimits:     []container.Ulimit{{Name: "cpu", Soft: l.CPUSeconds, Hard: l.CPUSeconds}, {Name: "fsize", Soft: l.FileBytes, Hard: l.FileBytes}},
		Image:       r.Image,
		Entrypoint:  []string{"sleep"},
		Cmd:         []string{strconv.Itoa(idle)},
		WorkingDir:  containerDir,
		NetworkMode: "none",
		Labels:      map[string]string{"benchgate.qa-audit": "sandbox"},
	}))
	if err != nil {
		return rawResult{}, fmt.Errorf("sandbox image %s: %w", r.Image, err)
	}
	defer func() { _ = client.RemoveDetached(id, 30*time.Second) }()
	if err := client.Start(ctx, id); err != nil {
		return rawResult{}, fmt.Errorf("sandbox image %s: %w", r.Image, err)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	cfiles := []container.File{{Path: path.Join(containerDir, homeName, ".keep"), Mode: 0o644}}
	for _, name := range names {
		cfiles = append(cfiles, container.File{Path: path.Join(containerDir, name), Mode: 0o644, Data: files[name]})
	}
	if err := client.CopyIn(ctx, id, cfiles); err != nil {
		return rawResult{}, fmt.Errorf("copy the test into the sandbox container: %w", err)
	}
	reportPath := path.Join(containerDir, reportName)
	var out limitedBuffer
	out.limit = 4 * r.outputLimit()
	env := r.containerEnv()
	res, err := client.Exec(ctx, id, container.ExecSpec{
		Cmd:        r.bootstrapArgvFor(false, containerDir, -1, env, pytestArgs(reportPath, testName)),
		Env:        withoutPythonPath(env),
		WorkingDir: containerDir,
		Stdout:     &out,
		Stderr:     &out,
		Timeout:    r.timeout(),
	})
	if err != nil && !res.TimedOut {
		return rawResult{}, fmt.Errorf("run pytest in the sandbox container: %w", err)
	}
	raw := rawResult{exitCode: res.ExitCode, timedOut: res.TimedOut, duration: res.Duration, output: out.Bytes()}
	if raw.timedOut || ctx.Err() != nil {
		return raw, nil
	}
	data, err := client.ReadFile(ctx, id, reportPath, 16<<20)
	switch {
	case err == nil:
		raw.junit = data
		if werr := os.WriteFile(filepath.Join(dir, reportName), data, 0o644); werr != nil {
			return rawResult{}, fmt.Errorf("keep JUnit report: %w", werr)
		}
	case errors.Is(err, container.ErrNotFound):
		// pytest wrote no report (crash, usage error): classify says so.
	default:
		return rawResult{}, fmt.Errorf("read JUnit report from the sandbox container: %w", err)
	}
	return raw, nil
}

// containerEnv is the scrubbed environment inside the container: the
// image's own PATH is kept, HOME points into the test folder.
func (r *Runner) containerEnv() []string {
	env := r.environment(path.Join(containerDir, homeName))
	out := env[:0]
	for _, kv := range env {
		if len(kv) >= 5 && kv[:5] == "PATH=" {
			kv = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
		}
		out = append(out, kv)
	}
	return out
}

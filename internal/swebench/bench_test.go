package swebench

import (
	"context"
	"io"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/ralph"
)

// BenchmarkRunInstance measures the runner's own overhead per instance:
// the image already holds codex and the agent finishes at once (plan,
// then one execute pass that archives the plans and writes the patch).
// It covers the image check, container create/start/remove, the codex
// check, two codex execs and every artifact and manifest write.
func BenchmarkRunInstance(b *testing.B) {
	benchRunInstance(b, "acme__bench-1", true, func(*Options) {})
}

// BenchmarkRunInstanceHandOver is BenchmarkRunInstance for a runner
// that is not root: after the instance container is removed, a second
// container scrubs the output folder and gives it to the runner's user.
func BenchmarkRunInstanceHandOver(b *testing.B) {
	benchRunInstance(b, "acme__benchhand-1", true, func(o *Options) { o.Owner = "4321:4321" })
}

// BenchmarkRunInstanceBootstrap is BenchmarkRunInstance with an image
// that lacks codex: each instance mounts the binary read-only and checks
// it.
func BenchmarkRunInstanceBootstrap(b *testing.B) {
	benchRunInstance(b, "acme__benchboot-1", false, func(o *Options) { o.CodexBinary = fakeCodex(b) })
}

// benchRunInstance runs instance id whose agent finishes at once b.N
// times, each into a folder of its own; withCodex puts codex in the
// image, and adjust sets what the benchmark varies.
func benchRunInstance(b *testing.B, id string, withCodex bool, adjust func(*Options)) {
	dc := dockerClient(b)
	dir := b.TempDir()
	tmpl := "sweb.eval.arm64.{id}:latest"
	importImage(b, dc, ImageName(tmpl, id), withCodex)
	o := baseOptions(b, dc, datasetFile(b, dir, id), tmpl, "success")
	o.InstanceID = id
	adjust(&o)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o.OutputDir = filepath.Join(dir, "run", strconv.Itoa(i), id)
		o.ManifestDir = filepath.Join(dir, "run")
		st, err := Run(context.Background(), o)
		if err != nil || st.Status != ralph.StatusSuccess {
			b.Fatalf("%+v %v", st, err)
		}
	}
}

// BenchmarkBatch100 runs a batch of 100 instances whose agent finishes at
// once: the batch's own cost per instance at scale (manifest under its
// lock, predictions, the reaper's listing, progress lines).
func BenchmarkBatch100(b *testing.B) {
	dc := dockerClient(b)
	dir := b.TempDir()
	tmpl := "sweb.eval.arm64.{id}:latest"
	var ids []string
	for i := 0; i < 100; i++ {
		id := "acme__batch100-" + strconv.Itoa(i+1)
		importImage(b, dc, ImageName(tmpl, id), true)
		ids = append(ids, id)
	}
	o := baseOptions(b, dc, datasetFile(b, dir, ids...), tmpl, "success")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Batch(context.Background(), BatchOptions{IDs: ids, Instance: o, RunRoot: RunRootFor(filepath.Join(dir, strconv.Itoa(i)), time.Now()), Stdout: io.Discard})
		if err != nil || res.Counts.Success != 100 {
			b.Fatalf("%+v %v", res.Counts, err)
		}
	}
}

// BenchmarkPrediction measures what the prediction adds to one success:
// before the first phase, the base commit (git rev-parse) and the image's
// untracked and ignored files (a temporary index); after the loop, the
// prediction computed from the final tree (the agent's leftover processes
// stopped, git add -A into a temporary index, git diff against the base);
// then the check, in a fresh container of the image: the harness's
// commands apply the prediction to the image's working tree, the tree
// left is read and compared with the agent's, and after a reset the
// commands apply it to the base commit again. All with the real git.
func BenchmarkPrediction(b *testing.B) {
	dc := dockerClient(b)
	id := "acme__benchcheck-1"
	image := ImageName(DefaultImageTemplate, id)
	importImage(b, dc, image, false)
	ctx := context.Background()
	cid, err := dc.Create(ctx, container.Spec{Image: image, Entrypoint: sleeper, NetworkMode: "none"})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = dc.Remove(context.Background(), cid) }()
	if err := dc.Start(ctx, cid); err != nil {
		b.Fatal(err)
	}
	if err := dc.CopyIn(ctx, cid, []container.File{{Path: "/testbed/f", Mode: 0o644, Data: []byte("new\n")}}); err != nil {
		b.Fatal(err)
	}
	o := Options{Docker: dc, CodeDir: "/testbed", InstanceID: id}
	logf := func(string, ...any) {}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		base := o.baseCommit(ctx, cid)
		if err := o.snapshotBase(ctx, cid, &base); err != nil {
			b.Fatal(err)
		}
		ft, err := o.computeTree(ctx, cid, base)
		if err != nil || len(ft.patch) == 0 {
			b.Fatalf("%v, a patch of %d bytes", err, len(ft.patch))
		}
		if check, detail := o.checkPrediction(ctx, image, base, ft.patch, ft.entries, logf); check != PatchApplies {
			b.Fatalf("%s: %s", check, detail)
		}
	}
}

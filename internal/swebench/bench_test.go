package swebench

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/benchgate/benchgate/internal/ralph"
)

// BenchmarkRunInstance measures the runner's own overhead per instance:
// the image already holds codex and the agent finishes at once (plan,
// then one execute pass that archives the plans and writes the patch).
// It covers the image check, container create/start/remove, the codex
// check, two codex execs and every artifact and manifest write.
func BenchmarkRunInstance(b *testing.B) {
	dc := dockerClient(b)
	dir := b.TempDir()
	id := "acme__bench-1"
	tmpl := "sweb.eval.arm64.{id}:latest"
	importImage(b, dc, ImageName(tmpl, id), true)
	o := baseOptions(b, dc, datasetFile(b, dir, id), tmpl, "success")
	o.InstanceID = id
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

package swebench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrepareImages bakes the fake codex into a bare image, keeps the
// image's command, and then a run needs no bootstrap.
func TestPrepareImages(t *testing.T) {
	dc := dockerClient(t)
	dir := t.TempDir()
	id := "acme__prepare-3"
	tmpl := "sweb.eval.arm64.{id}:latest"
	ref := ImageName(tmpl, id)
	importImage(t, dc, ref, false)
	before, err := dc.ImageInspect(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "local.config.toml")
	if err := os.WriteFile(cfg, []byte("model = \"m\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	failed, err := PrepareImages(context.Background(), PrepareOptions{IDs: []string{id, "acme__absent-4"}, ImageTemplate: tmpl,
		CodexBinary: fakeCodex(t), CodexConfig: cfg, Docker: dc, Stdout: &out})
	if err != nil || failed != 1 {
		t.Fatalf("failed=%d err=%v\n%s", failed, err, out.String())
	}
	if !strings.Contains(out.String(), "prepared "+ref) || !strings.Contains(out.String(), "FAIL sweb.eval.arm64.acme__absent-4:latest") {
		t.Errorf("output:\n%s", out.String())
	}
	after, err := dc.ImageInspect(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if after.ID == before.ID {
		t.Error("the tag still points at the old image")
	}
	if strings.Join(after.Config.Cmd, " ") != "/bin/sh" || len(after.Config.Entrypoint) != 0 || after.Config.WorkingDir != before.Config.WorkingDir {
		t.Errorf("config changed: %+v -> %+v", before.Config, after.Config)
	}
	noLeaks(t, dc, LabelInstance+"="+id)

	// A run on the prepared image finds codex without --codex-binary.
	o := baseOptions(t, dc, datasetFile(t, dir, id), tmpl, "success")
	o.InstanceID, o.OutputDir = id, filepath.Join(dir, "run", id)
	st, err := Run(context.Background(), o)
	if err != nil || st.Status != "success" {
		t.Fatalf("run on the prepared image: %+v %v", st, err)
	}
}

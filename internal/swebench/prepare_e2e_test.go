package swebench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
)

// TestPrepareImages bakes the fake codex into two bare images, one with
// a command and one with none (as `run` takes them), keeps each image's
// config, labels the codex it holds, changes nothing when run again with
// the same binary, replaces it with a newer one, and then a run needs no
// bootstrap and records the image's codex version.
func TestPrepareImages(t *testing.T) {
	dc := dockerClient(t)
	dir := t.TempDir()
	tmpl := "sweb.eval.arm64.{id}:latest"
	withCmd, noCmd := "acme__prepare-3", "acme__prepare-5"
	importImage(t, dc, ImageName(tmpl, withCmd), false)
	swebenchtest.ImportRealCodexImage(t, dc, ImageName(tmpl, noCmd))
	ctx := context.Background()
	before := map[string]container.Image{}
	for _, id := range []string{withCmd, noCmd} {
		img, err := dc.ImageInspect(ctx, ImageName(tmpl, id))
		if err != nil {
			t.Fatal(err)
		}
		before[id] = img
	}
	cfg := filepath.Join(dir, "local.config.toml")
	if err := os.WriteFile(cfg, []byte("model = \"m\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prepare := func(bin string) string {
		t.Helper()
		var out bytes.Buffer
		failed, err := PrepareImages(ctx, PrepareOptions{IDs: []string{withCmd, noCmd, "acme__absent-4"}, ImageTemplate: tmpl,
			CodexBinary: bin, CodexConfig: cfg, Docker: dc, Stdout: &out})
		if err != nil || failed != 1 {
			t.Fatalf("failed=%d err=%v, want only the absent image to fail\n%s", failed, err, out.String())
		}
		if !strings.Contains(out.String(), "FAIL sweb.eval.arm64.acme__absent-4:latest") {
			t.Errorf("output:\n%s", out.String())
		}
		return out.String()
	}
	bin := fakeCodex(t)
	out := prepare(bin)
	first := map[string]container.Image{}
	for _, id := range []string{withCmd, noCmd} {
		ref := ImageName(tmpl, id)
		if !strings.Contains(out, "prepared "+ref+" with codex codex-cli 0.169.0 (fake)") {
			t.Errorf("output lacks the prepared %s:\n%s", ref, out)
		}
		img, err := dc.ImageInspect(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		first[id] = img
		b := before[id]
		if img.ID == b.ID {
			t.Errorf("%s: the tag still points at the old image", ref)
		}
		if strings.Join(img.Config.Cmd, " ") != strings.Join(b.Config.Cmd, " ") || strings.Join(img.Config.Entrypoint, " ") != strings.Join(b.Config.Entrypoint, " ") ||
			img.Config.WorkingDir != b.Config.WorkingDir || strings.Join(img.Config.Env, " ") != strings.Join(b.Config.Env, " ") {
			t.Errorf("%s: config changed: %+v -> %+v", ref, b.Config, img.Config)
		}
		if l := img.Config.Labels; l[LabelCodexVersion] != "codex-cli 0.169.0 (fake)" || len(l[LabelCodexSHA256]) != 64 || len(l[LabelCodexConfigSHA256]) != 64 {
			t.Errorf("%s: labels %v", ref, l)
		}
		noLeaks(t, dc, LabelInstance+"="+id)
	}
	if len(first[noCmd].Config.Cmd) != 0 {
		t.Errorf("the image without a command got one: %v", first[noCmd].Config.Cmd)
	}

	// The same binary again: nothing changes, not even a layer.
	out = prepare(bin)
	for _, id := range []string{withCmd, noCmd} {
		ref := ImageName(tmpl, id)
		img, _ := dc.ImageInspect(ctx, ref)
		if img.ID != first[id].ID || !strings.Contains(out, "unchanged "+ref+": it already holds this codex (codex-cli 0.169.0 (fake))") {
			t.Errorf("second prepare of %s: image %s (was %s); output:\n%s", ref, img.ID, first[id].ID, out)
		}
	}

	// A different binary replaces the one in the image.
	newer := filepath.Join(dir, "codex")
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(newer, append(b, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	prepare(newer)
	img, _ := dc.ImageInspect(ctx, ImageName(tmpl, noCmd))
	if img.ID == first[noCmd].ID || img.Config.Labels[LabelCodexSHA256] == first[noCmd].Config.Labels[LabelCodexSHA256] {
		t.Errorf("a different --codex-binary left the image as it was: %v", img.Config.Labels)
	}
	// It replaces the codex layer: built from the image prepared first,
	// not stacked on the prepared one (no second copy of codex).
	if len(img.RootFS.Layers) != len(first[noCmd].RootFS.Layers) || img.Config.Labels[LabelBaseImage] != before[noCmd].ID {
		t.Errorf("after a newer codex: %d layers (first prepare: %d), base %s (want %s)", len(img.RootFS.Layers), len(first[noCmd].RootFS.Layers),
			img.Config.Labels[LabelBaseImage], before[noCmd].ID)
	}
	if grew := img.Size - before[noCmd].Size; grew > int64(len(b))+64<<10 {
		t.Errorf("the image grew by %d bytes over the unprepared one; one codex is %d", grew, len(b)+1)
	}

	// A run on the prepared images finds codex without --codex-binary.
	for _, id := range []string{withCmd, noCmd} {
		o := baseOptions(t, dc, datasetFile(t, dir, id), tmpl, "success")
		o.InstanceID, o.OutputDir = id, filepath.Join(dir, "run", id)
		st, err := Run(ctx, o)
		if err != nil || st.Status != "success" || st.CodexVersion != "codex-cli 0.169.0 (fake)" {
			t.Fatalf("run on the prepared image %s: %+v %v", id, st, err)
		}
	}
}

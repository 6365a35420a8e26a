package swebench

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/benchgate/benchgate/internal/codex"
	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/proc"
)

// PrepareOptions configure prepare-images.
type PrepareOptions struct {
	IDs           []string
	ImageTemplate string
	CodexBinary   string
	CodexConfig   string
	DryRun        bool
	Docker        *container.Client
	Stdout        io.Writer
}

// PrepareImages copies the codex binary (and config) into each instance
// image and commits the result to the same tag, keeping the image's own
// entrypoint, command, env and workdir. It is manual and optional: the
// runner bootstraps a container on its own when codex is missing. It
// returns the number of images that failed.
func PrepareImages(ctx context.Context, o PrepareOptions) (failed int, err error) {
	if o.ImageTemplate == "" {
		o.ImageTemplate = DefaultImageTemplate
	}
	if o.CodexBinary == "" {
		return 0, exitcode.Optionf("codex_binary", " is required")
	}
	bin, err := os.ReadFile(o.CodexBinary)
	if err != nil {
		return 0, exitcode.Optionf("codex_binary", ": %w", err)
	}
	var cfg []byte
	if o.CodexConfig != "" {
		if cfg, err = os.ReadFile(o.CodexConfig); err != nil {
			return 0, exitcode.Optionf("codex_config", ": %w", err)
		}
	}
	for _, id := range SortUnique(o.IDs) {
		ref := ImageName(o.ImageTemplate, id)
		if o.DryRun {
			fmt.Fprintf(o.Stdout, "would prepare %s\n", ref)
			continue
		}
		if err := prepareOne(ctx, o.Docker, id, ref, bin, cfg); err != nil {
			failed++
			fmt.Fprintf(o.Stdout, "FAIL %s: %v\n", ref, err)
			continue
		}
		fmt.Fprintf(o.Stdout, "prepared %s\n", ref)
	}
	return failed, nil
}

func prepareOne(ctx context.Context, dc *container.Client, id, ref string, bin, cfg []byte) error {
	img, err := dc.ImageInspect(ctx, ref)
	if err != nil {
		return err
	}
	cid, err := dc.Create(ctx, container.Spec{
		Name:   ContainerName(id, newInvocation()) + "-prepare",
		Image:  ref,
		Labels: map[string]string{LabelRunner: "1", LabelInstance: id, LabelOwner: proc.SelfOwner(), LabelHost: hostname()},
	}) // never started: files can be copied into a created container, and its config stays the image's
	if err != nil {
		return err
	}
	defer dc.RemoveDetached(cid, 30*time.Second)
	files := []container.File{{Path: "/usr/local/bin/codex", Mode: 0o755, Data: bin}}
	if cfg != nil {
		files = append(files, container.File{Path: "/root/.codex/" + codex.ProfileFile, Mode: 0o600, Data: cfg})
	}
	if err := dc.CopyIn(ctx, cid, files); err != nil {
		return err
	}
	return dc.Commit(ctx, cid, ref, img.Config)
}

package swebench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/codex"
	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/exitcode"
)

// Image labels prepare-images sets: which codex (and profile) the image
// holds, so that a second run with the same files changes nothing.
const (
	LabelCodexVersion      = "io.benchgate.codex.version"
	LabelCodexSHA256       = "io.benchgate.codex.sha256"
	LabelCodexConfigSHA256 = "io.benchgate.codex.config-sha256"
	// LabelBaseImage is the ID of the image a prepared image was built
	// from: a newer codex is built from it again, replacing the codex
	// layer instead of stacking a second one on the first.
	LabelBaseImage          = "io.benchgate.base-image"
	preparedCodexPath       = "/usr/local/bin/codex"
	preparedCodexConfigPath = "/root/.codex/" + codex.ProfileFile
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

// PrepareImages puts the codex binary (and config) into each instance
// image: a build FROM the image that adds /usr/local/bin/codex and
// labels it with the binary's version and sha256 and the image it was
// built from, tagged as the same image. A newer codex is built from that
// base again, so an image never holds two codex layers. A build keeps the image's own entrypoint, command (or none),
// env and workdir. An image whose labels already name the same binary
// and config is left as it is, so running it twice adds no layer. It is
// manual and optional: the runner mounts the runner's codex into a
// container whose image lacks one. It returns the number of images that
// failed.
func PrepareImages(ctx context.Context, o PrepareOptions) (failed int, err error) {
	if o.ImageTemplate == "" {
		o.ImageTemplate = DefaultImageTemplate
	}
	if o.DryRun && o.CodexBinary == "" {
		// A list of the images is all a dry run without a binary gives.
		for _, id := range SortUnique(o.IDs) {
			fmt.Fprintf(o.Stdout, "would prepare %s\n", ImageName(o.ImageTemplate, id))
		}
		return 0, nil
	}
	if o.CodexBinary == "" {
		return 0, exitcode.Optionf("codex_binary", " is required")
	}
	binSum, err := fileSHA256(o.CodexBinary)
	if err != nil {
		return 0, exitcode.Optionf("codex_binary", ": %w", err)
	}
	cfgSum := ""
	if o.CodexConfig != "" {
		if cfgSum, err = fileSHA256(o.CodexConfig); err != nil {
			return 0, exitcode.Optionf("codex_config", ": %w", err)
		}
	}
	version := hostCodexVersion(ctx, o.CodexBinary)
	labels := map[string]string{LabelCodexVersion: version, LabelCodexSHA256: binSum, LabelCodexConfigSHA256: cfgSum}
	for _, id := range SortUnique(o.IDs) {
		ref := ImageName(o.ImageTemplate, id)
		if o.DryRun {
			fmt.Fprintf(o.Stdout, "would prepare %s\n", ref)
			continue
		}
		img, err := o.Docker.ImageInspect(ctx, ref)
		if err != nil {
			failed++
			fmt.Fprintf(o.Stdout, "FAIL %s: %v\n", ref, err)
			continue
		}
		if l := img.Config.Labels; l[LabelCodexSHA256] == binSum && l[LabelCodexConfigSHA256] == cfgSum {
			fmt.Fprintf(o.Stdout, "unchanged %s: it already holds this codex (%s)\n", ref, orUnknown(l[LabelCodexVersion]))
			continue
		}
		base := baseOf(ctx, o.Docker, img)
		imgLabels := map[string]string{LabelBaseImage: base}
		for k, v := range labels {
			imgLabels[k] = v
		}
		if err := prepareOne(ctx, o, base, ref, imgLabels); err != nil {
			failed++
			fmt.Fprintf(o.Stdout, "FAIL %s: %v\n", ref, err)
			continue
		}
		fmt.Fprintf(o.Stdout, "prepared %s with codex %s\n", ref, orUnknown(version))
	}
	return failed, nil
}

// baseOf is the image to build a prepared image from: for an image an
// earlier prepare-images made, the image that one was built from (still
// there: the prepared image is its child), else the image itself.
func baseOf(ctx context.Context, dc *container.Client, img container.Image) string {
	if b := img.Config.Labels[LabelBaseImage]; b != "" {
		if _, err := dc.ImageInspect(ctx, b); err == nil {
			return b
		}
	}
	return img.ID
}

func prepareOne(ctx context.Context, o PrepareOptions, base, ref string, labels map[string]string) error {
	df := "FROM " + base + "\nCOPY codex " + preparedCodexPath + "\n"
	files := []container.BuildFile{{Name: "codex", Mode: 0o755, Path: o.CodexBinary}}
	if o.CodexConfig != "" {
		df += "COPY local.config.toml " + preparedCodexConfigPath + "\n"
		files = append(files, container.BuildFile{Name: "local.config.toml", Mode: 0o600, Path: o.CodexConfig})
	}
	return o.Docker.Build(ctx, ref, df, files, labels)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hostCodexVersion is `codex --version` of the binary run on this host;
// empty when it does not run here (built for another architecture).
func hostCodexVersion(ctx context.Context, bin string) string {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return ""
	}
	return firstLine(strings.TrimSpace(string(out)))
}

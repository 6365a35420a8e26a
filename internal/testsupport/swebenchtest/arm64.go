package swebenchtest

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"testing"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// Arm64Root returns the folder of Debian's arm64 packages that
// scripts/test-env.sh unpacks (busybox-static, git, bash and their
// libraries): the files of arm64 instance images.
func Arm64Root(t testing.TB) string {
	t.Helper()
	root := os.Getenv("BENCHGATE_TEST_ARM64_ROOT")
	if root == "" {
		testenv.Missing(t, "Debian's arm64 packages", "BENCHGATE_TEST_ARM64_ROOT is not set; run . scripts/test-env.sh")
	}
	if _, err := os.Stat(filepath.Join(root, "usr", "bin", "git")); err != nil {
		testenv.Missing(t, "Debian's arm64 git", err.Error())
	}
	return root
}

// CodexArm64 returns the pinned Codex CLI built for arm64.
func CodexArm64(t testing.TB) string {
	t.Helper()
	p := os.Getenv("BENCHGATE_TEST_CODEX_ARM64")
	if p == "" {
		testenv.Missing(t, "the arm64 Codex CLI", "BENCHGATE_TEST_CODEX_ARM64 is not set; run . scripts/test-env.sh")
	}
	return p
}

// ImportArm64Image loads ref as an arm64 instance image: the image of
// ImportRealCodexImage (no codex, no CMD; /testbed a git repository),
// built from Debian's arm64 busybox, git and bash with every library
// their ELF headers need. Its config says linux/arm64, so the engine
// runs it as the users' runners do (here under qemu-user). It is removed
// when the test ends.
func ImportArm64Image(t testing.TB, dc *container.Client, ref string) {
	t.Helper()
	files := append(Arm64Tools(t, "/bin/busybox", "/bin/bash", "/usr/bin/git"), skeletonFiles(t)...)
	archive, err := SaveArchive(ref, "arm64", rootfsLayer(t, files), map[string]any{
		"Env": []string{"PATH=/usr/local/bin:/usr/bin:/bin"}, "WorkingDir": "/testbed",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := dc.ImageLoad(context.Background(), bytes.NewReader(archive)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.ImageRemove(context.Background(), ref) })
	img, err := dc.ImageInspect(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if img.Architecture != "arm64" {
		t.Fatalf("image %s: architecture %q, want arm64", ref, img.Architecture)
	}
}

// Arm64Tools returns the files at paths (absolute, in the arm64 root)
// with the program loader and every shared library they need, found by
// reading their ELF headers (DT_NEEDED, PT_INTERP) and looked up in the
// loader's default folders. Links are followed: the image gets the files.
func Arm64Tools(t testing.TB, paths ...string) []container.File {
	t.Helper()
	root := Arm64Root(t)
	libDirs := []string{"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib", "/usr/lib"}
	seen := map[string]bool{}
	var files []container.File
	var add func(p string)
	add = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		host := filepath.Join(root, p)
		b, err := os.ReadFile(host)
		if err != nil {
			t.Fatalf("arm64 root: %v", err)
		}
		files = append(files, container.File{Path: p, Mode: 0o755, Data: b})
		f, err := elf.NewFile(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		if f.Machine != elf.EM_AARCH64 {
			t.Fatalf("%s is for %s, not arm64", host, f.Machine)
		}
		for _, prog := range f.Progs {
			if prog.Type == elf.PT_INTERP {
				interp := make([]byte, prog.Filesz)
				if _, err := prog.ReadAt(interp, 0); err != nil {
					t.Fatalf("%s: interpreter: %v", host, err)
				}
				add(string(bytes.TrimRight(interp, "\x00")))
			}
		}
		libs, err := f.ImportedLibraries()
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		for _, lib := range libs {
			found := false
			for _, d := range libDirs {
				if _, err := os.Stat(filepath.Join(root, d, lib)); err == nil {
					add(path.Join(d, lib))
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("%s needs %s, which is not in the arm64 root %s", host, lib, root)
			}
		}
	}
	for _, p := range paths {
		add(p)
	}
	return files
}

// SaveArchive writes a one-layer image archive in `docker save` form
// (manifest.json, the config, the layer) whose config names the
// architecture arch and the given container config.
func SaveArchive(ref, arch string, layer []byte, config map[string]any) ([]byte, error) {
	layerSum := sha256.Sum256(layer)
	cfg, err := json.Marshal(map[string]any{
		"architecture": arch, "os": "linux", "config": config,
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{"sha256:" + hex.EncodeToString(layerSum[:])}},
	})
	if err != nil {
		return nil, err
	}
	cfgSum := sha256.Sum256(cfg)
	cfgName := hex.EncodeToString(cfgSum[:]) + ".json"
	manifest, err := json.Marshal([]map[string]any{{"Config": cfgName, "RepoTags": []string{ref}, "Layers": []string{"layer.tar"}}})
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	tw := tar.NewWriter(&out)
	for _, f := range []struct {
		name string
		data []byte
	}{{"manifest.json", manifest}, {cfgName, cfg}, {"layer.tar", layer}} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: 0o644, Size: int64(len(f.data))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

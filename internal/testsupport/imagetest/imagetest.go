// Package imagetest builds benchgate's image from the Dockerfile on the
// test engine, with the classic builder or BuildKit, as a user would with
// `docker build`. No registry is reachable where the tests run, so the two
// base images the Dockerfile names are made first from this machine's
// files and imported under their real tags:
//
//   - golang:1.26-bookworm: static busybox (sh and the tools a RUN line
//     uses), the CA certificates (the build downloads modules from the Go
//     proxy) and this machine's Go toolchain at /usr/local/go, with the
//     golang image's ENV (PATH, GOPATH, GOTOOLCHAIN=local);
//   - gcr.io/distroless/static-debian12:latest: what distroless static
//     holds: /etc/passwd and /etc/group with root and nonroot, the CA
//     certificates, the time zone data and /tmp.
//
// Both are honest stand-ins for what the Dockerfile needs of them, not
// copies of the published images; the benchgate binary the build stage
// makes is the same either way (static, -trimpath).
package imagetest

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// Base image tags, as the Dockerfile names them.
const (
	GolangImage     = "golang:1.26-bookworm"
	DistrolessImage = "gcr.io/distroless/static-debian12:latest"
)

// Docker is the Debian docker CLI (20.10, which has the classic builder
// and BuildKit built in) talking to the test engine.
func Docker(t testing.TB) (cli string, env []string) {
	t.Helper()
	host := testenv.DockerHost(t)
	cli = "/usr/bin/docker"
	if _, err := os.Stat(cli); err != nil {
		cli = "docker"
	}
	return cli, append(os.Environ(), "DOCKER_HOST="+host)
}

// Bases imports the two base images unless the engine has them.
func Bases(t testing.TB, dc *container.Client) {
	t.Helper()
	ctx := context.Background()
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	bases := []struct {
		ref     string
		files   func(tw *tar.Writer) error
		changes []string
	}{
		{GolangImage, func(tw *tar.Writer) error {
			if err := addBusybox(t, tw); err != nil {
				return err
			}
			if err := addTree(tw, strings.TrimSpace(string(goroot)), "usr/local/go", func(rel string) bool {
				return rel == "test" || rel == "doc" || rel == "api" || strings.HasPrefix(rel, "pkg/obj")
			}); err != nil {
				return err
			}
			return addCommon(tw)
		}, []string{"ENV PATH=/go/bin:/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin", "ENV GOPATH=/go", "ENV GOTOOLCHAIN=local", "WORKDIR /go"}},
		{DistrolessImage, addCommon, nil},
	}
	for _, b := range bases {
		if _, err := dc.ImageInspect(ctx, b.ref); err == nil {
			continue
		}
		pr, pw := io.Pipe()
		go func() {
			tw := tar.NewWriter(pw)
			err := b.files(tw)
			if err == nil {
				err = tw.Close()
			}
			pw.CloseWithError(err)
		}()
		ictx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		err := dc.ImageImport(ictx, pr, b.ref, b.changes...)
		cancel()
		if err != nil {
			t.Fatalf("import %s: %v", b.ref, err)
		}
	}
}

// addCommon adds what both bases carry: users, certificates, zone data.
func addCommon(tw *tar.Writer) error {
	files := map[string]string{
		"etc/passwd": "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n",
		"etc/group":  "root:x:0:\nnonroot:x:65532:\n",
	}
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		if _, err := io.WriteString(tw, body); err != nil {
			return err
		}
	}
	for _, d := range []string{"tmp", "root", "home/nonroot"} {
		if err := tw.WriteHeader(&tar.Header{Name: d + "/", Mode: 0o1777, Typeflag: tar.TypeDir}); err != nil {
			return err
		}
	}
	if err := addFile(tw, "/etc/ssl/certs/ca-certificates.crt", "etc/ssl/certs/ca-certificates.crt"); err != nil {
		return err
	}
	return addTree(tw, "/usr/share/zoneinfo", "usr/share/zoneinfo", func(string) bool { return false })
}

// addBusybox adds static busybox as /bin/busybox with the applets a RUN
// line needs linked to it.
func addBusybox(t testing.TB, tw *tar.Writer) error {
	if err := addFile(tw, testenv.Busybox(t), "bin/busybox"); err != nil {
		return err
	}
	for _, a := range []string{"sh", "ls", "cat", "cp", "mv", "mkdir", "rm", "env", "echo", "test", "[", "tar", "gzip", "id", "uname", "which", "grep", "sed", "wget", "true", "false"} {
		if err := tw.WriteHeader(&tar.Header{Name: "bin/" + a, Linkname: "/bin/busybox", Typeflag: tar.TypeSymlink, Mode: 0o777}); err != nil {
			return err
		}
	}
	return nil
}

func addFile(tw *tar.Writer, src, name string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: int64(info.Mode().Perm()), Size: info.Size(), Typeflag: tar.TypeReg, ModTime: info.ModTime()}); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

// addTree adds the files below src as name/..., following no links out
// of it and leaving out what skip says (paths relative to src).
func addTree(tw *tar.Writer, src, name string, skip func(rel string) bool) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if rel != "." && skip(filepath.ToSlash(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.ToSlash(filepath.Join(name, rel))
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return tw.WriteHeader(&tar.Header{Name: target + "/", Mode: int64(info.Mode().Perm()), Typeflag: tar.TypeDir})
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return tw.WriteHeader(&tar.Header{Name: target, Linkname: link, Typeflag: tar.TypeSymlink, Mode: 0o777})
		case d.Type().IsRegular():
			return addFile(tw, path, target)
		}
		return nil
	})
}

// Build builds the repository's Dockerfile as tag with the classic
// builder (buildkit false) or BuildKit, the way a user runs `docker
// build`, with host networking: the build stage downloads modules from
// the Go proxy and the test engine has no bridge network.
func Build(t testing.TB, tag string, buildkit bool) (log string, err error) {
	t.Helper()
	cli, env := Docker(t)
	flag := "0"
	if buildkit {
		flag = "1"
	}
	cmd := exec.Command(cli, "build", "--network", "host", "--build-arg", "VERSION=v0.0.0-test", "-t", tag, ".")
	cmd.Dir = testenv.RepoRoot(t)
	cmd.Env = append(env, "DOCKER_BUILDKIT="+flag)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("docker build (DOCKER_BUILDKIT=%s): %w", flag, err)
	}
	return string(out), nil
}

package container

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A Mount is a bind mount of a host path into a container. Unlike a
// "host:container" bind, the engine refuses one whose source does not
// exist instead of creating an empty folder there.
type Mount struct {
	Source, Target string
	ReadOnly       bool
}

// containerFile matches the root of the files the engine gives every
// container (/etc/hostname, /etc/hosts, /etc/resolv.conf), which come
// from its folder below the data root, named by the container's ID.
var containerFile = regexp.MustCompile(`/containers/([0-9a-f]{64})/(hostname|hosts|resolv\.conf)$`)

// selfID returns the ID of the container this process runs in, read from
// its mount table, or "" when it runs on a host. Only a mount on the
// process's own /etc/hostname, /etc/hosts or /etc/resolv.conf counts: on
// a host whose engine shares its mount namespace, the same files of a
// container being started show for a moment mounted below the engine's
// data root (…/overlay2/<layer>/merged/etc/resolv.conf), and that
// container is not this process's.
func selfID(mountinfo string) string {
	f, err := os.Open(mountinfo)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		// ID, parent ID, major:minor, root, mount point, ...
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		m := containerFile.FindStringSubmatch(fields[3])
		if m != nil && fields[4] == "/etc/"+m[2] {
			return m[1]
		}
	}
	return ""
}

// HostPath returns the path the engine must bind-mount to show another
// container the folder p of this process. On a host, or in a container
// the engine does not know (then the engine sees this process's files as
// it does, e.g. a private engine started beside it), that is p itself.
// In a container of this engine (the Action's image, a job container
// with the engine's socket), p is translated through the container's
// mounts to the host folder it comes from: the engine resolves a bind
// source on the host, where /github/workspace does not exist. A p on no
// mount (the container's own layer) cannot be shown to another
// container: that is an error naming it.
func (c *Client) HostPath(ctx context.Context, p string) (string, error) {
	return c.hostPath(ctx, p, "/proc/self/mountinfo")
}

func (c *Client) hostPath(ctx context.Context, p, mountinfo string) (string, error) {
	id := selfID(mountinfo)
	if id == "" {
		return p, nil
	}
	var info struct {
		Mounts []struct {
			Type        string `json:"Type"`
			Source      string `json:"Source"`
			Destination string `json:"Destination"`
		} `json:"Mounts"`
	}
	err := c.doJSON(ctx, http.MethodGet, "/containers/"+id+"/json", nil, nil, &info)
	if errors.Is(err, ErrNotFound) {
		return p, nil
	}
	if err != nil {
		return "", fmt.Errorf("host path of %s: inspect this container (%.12s): %w", p, id, err)
	}
	clean := filepath.Clean(p)
	best, bestLen := "", -1
	for _, m := range info.Mounts {
		if m.Type != "bind" || m.Source == "" {
			continue
		}
		dst := filepath.Clean(m.Destination)
		if clean != dst && !strings.HasPrefix(clean, strings.TrimSuffix(dst, "/")+"/") {
			continue
		}
		if len(dst) > bestLen {
			rel, _ := filepath.Rel(dst, clean)
			best, bestLen = filepath.Join(m.Source, rel), len(dst)
		}
	}
	if bestLen < 0 {
		return "", fmt.Errorf("%s is in this container's own file system (container %.12s), which the engine cannot mount into another container: use a folder on a bind mount, such as the workspace", p, id)
	}
	return best, nil
}

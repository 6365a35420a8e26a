package container

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestSelfID(t *testing.T) {
	id := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	tests := []struct {
		name, mountinfo, want string
	}{
		{name: "a host", mountinfo: "21 26 0:20 / /proc rw,relatime - proc proc rw\n", want: ""},
		{name: "a container", mountinfo: "21 26 0:20 / /proc rw - proc proc rw\n" +
			"650 640 254:1 /var/lib/docker/containers/" + id + "/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/vda1 rw\n", want: id},
		{name: "another data root", mountinfo: "651 640 254:1 /tmp/d/data/containers/" + id + "/hostname /etc/hostname rw - ext4 /dev/vda1 rw\n", want: id},
		{name: "a container being started on a host that shares the engine's mounts", mountinfo: "59 46 254:0 /tmp/d/data/containers/" + id + "/resolv.conf /tmp/d/data/overlay2/e7f8/merged/etc/resolv.conf rw,relatime - ext4 /dev/vda rw\n", want: ""},
		{name: "a file named like the engine's elsewhere", mountinfo: "59 46 254:0 /tmp/d/data/containers/" + id + "/hostname /srv/etc/hostname rw - ext4 /dev/vda rw\n", want: ""},
		{name: "a container's log file is no proof", mountinfo: "1 2 3:4 /var/lib/docker/containers/" + id + "/" + id + "-json.log /x rw - ext4 /dev/vda1 rw\n", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "mountinfo")
			if err := os.WriteFile(p, []byte(tt.mountinfo), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := selfID(p); got != tt.want {
				t.Errorf("selfID = %q, want %q", got, tt.want)
			}
		})
	}
}

// On a host, a path is its own host path, and no engine is asked.
func TestHostPathOnAHost(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mountinfo")
	os.WriteFile(p, []byte("21 26 0:20 / /proc rw - proc proc rw\n"), 0o644)
	c := &Client{}
	got, err := c.hostPath(context.Background(), "/work/out", p)
	if err != nil || got != "/work/out" {
		t.Errorf("hostPath = %q, %v", got, err)
	}
}

package fsutil

import (
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestScrub plants what an agent can leave in its output folder and
// checks that Scrub clears every setuid and setgid bit, removes every
// FIFO, socket and device node below the folder, names each, and never
// follows a link: the files links point at outside keep their bits.
func TestScrub(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	mk := func(p string, mode os.FileMode) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	suid := mk(filepath.Join(root, "logs", "sh"), 0o755|os.ModeSetuid)
	sgid := mk(filepath.Join(root, "plans", "deep", "er", "g"), 0o750|os.ModeSetgid)
	both := mk(filepath.Join(root, ".hidden"), 0o700|os.ModeSetuid|os.ModeSetgid)
	plain := mk(filepath.Join(root, "plain"), 0o644)
	outSuid := mk(filepath.Join(outside, "host-suid"), 0o755|os.ModeSetuid)
	if err := syscall.Mkfifo(filepath.Join(root, "logs", "pipe"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(outside, "host-pipe"), 0o666); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(root, "plans", "agent.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	want := []string{
		both + " is a setuid and setgid file: cleared the setuid and setgid bits",
		filepath.Join(root, "logs", "pipe") + " is a named pipe (FIFO): removed",
		suid + " is a setuid file: cleared the setuid and setgid bits",
		filepath.Join(root, "plans", "agent.sock") + " is a socket: removed",
		sgid + " is a setgid file: cleared the setuid and setgid bits",
	}
	if err := syscall.Mknod(filepath.Join(root, "null"), syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		want = append(want, filepath.Join(root, "null")+" is a device: removed")
	} else if os.Getuid() == 0 {
		t.Fatalf("mknod as root: %v", err)
	}
	for name, target := range map[string]string{"link-file": outSuid, "link-dir": outside, "plans/up": ".."} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	scrubWant(t, root, want)
	for p, mode := range map[string]os.FileMode{suid: 0o755, sgid: 0o750, both: 0o700, plain: 0o644, outSuid: 0o755 | os.ModeSetuid} {
		info, err := os.Lstat(p)
		if err != nil || info.Mode() != mode {
			t.Errorf("%s: mode %v (%v), want %v", p, info.Mode(), err, mode)
		}
	}
	if _, err := os.Lstat(filepath.Join(outside, "host-pipe")); err != nil {
		t.Errorf("the FIFO outside, reached through a link, was removed: %v", err)
	}
	for _, name := range []string{"link-file", "link-dir", "plans/up"} {
		if info, err := os.Lstat(filepath.Join(root, name)); err != nil || info.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: the link itself changed: %v", name, err)
		}
	}
	// A second walk finds nothing left.
	if found, err := Scrub(root); err != nil || len(found) != 0 {
		t.Errorf("second Scrub: %v %v", found, err)
	}
}

// TestScrubFileCapabilities: an executable with file capabilities
// (cap_setuid, as root in a container can set on a file of a mounted
// folder) loses them; one that is also setuid loses both; a file outside
// reached by a link keeps its own.
func TestScrubFileCapabilities(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("setting file capabilities needs root (CAP_SETFCAP)")
	}
	// struct vfs_cap_data, revision 2, effective: permitted cap_setuid (7).
	capSetuid := []byte{0x01, 0, 0, 0x02, 1 << 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	root, outside := t.TempDir(), t.TempDir()
	mk := func(p string, mode os.FileMode) string {
		t.Helper()
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := unix.Setxattr(p, capabilityXattr, capSetuid, 0); err != nil {
			t.Fatalf("set capabilities of %s: %v", p, err)
		}
		return p
	}
	capped := mk(filepath.Join(root, "python3"), 0o755)
	both := mk(filepath.Join(root, "sh"), 0o755|os.ModeSetuid)
	host := mk(filepath.Join(outside, "host"), 0o755)
	if err := os.Symlink(host, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	scrubWant(t, root, []string{
		capped + " is a file with capabilities: removed its file capabilities (security.capability)",
		both + " is a file with capabilities: removed its file capabilities (security.capability)",
		both + " is a setuid file: cleared the setuid and setgid bits",
	})
	for p, keep := range map[string]bool{capped: false, both: false, host: true} {
		_, err := unix.Getxattr(p, capabilityXattr, make([]byte, 64))
		if has := err == nil; has != keep {
			t.Errorf("%s has capabilities %v, want %v (%v)", p, has, keep, err)
		}
	}
}

// scrubWant scrubs root and checks its findings, in any order.
func scrubWant(t *testing.T, root string, want []string) {
	t.Helper()
	found, err := Scrub(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.String())
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestScrubForUpload: links are removed too (to a host file, to a host
// folder, to a parent, dangling), without following any of them; what
// they point at is left alone, and a second walk finds nothing.
func TestScrubForUpload(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	host := filepath.Join(outside, "shadow")
	if err := os.WriteFile(host, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "deep", "er"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "deep", "kept.txt"), []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"shadow": host, "deep/host": outside, "deep/er/up": "../..", "dangling": "/no/such/file"}
	var want []string
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
		want = append(want, filepath.Join(root, filepath.FromSlash(name))+" is a symbolic link: removed")
	}
	found, err := ScrubForUpload(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.String())
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if data, err := os.ReadFile(host); err != nil || string(data) != "secret" {
		t.Errorf("the file a link pointed at changed: %q %v", data, err)
	}
	if data, err := os.ReadFile(filepath.Join(root, "deep", "kept.txt")); err != nil || string(data) != "ok" {
		t.Errorf("a regular file was touched: %q %v", data, err)
	}
	if found, err := ScrubForUpload(root); err != nil || len(found) != 0 {
		t.Errorf("second walk: %v %v", found, err)
	}
}

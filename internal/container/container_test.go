package container

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

func frame(stream byte, s string) []byte {
	h := make([]byte, 8)
	h[0] = stream
	binary.BigEndian.PutUint32(h[4:], uint32(len(s)))
	return append(h, s...)
}

func TestDemux(t *testing.T) {
	tests := []struct {
		name           string
		in             []byte
		stdout, stderr string
		wantErr        string
	}{
		{name: "interleaved", in: bytes.Join([][]byte{frame(1, "out1 "), frame(2, "err1"), frame(1, "out2")}, nil), stdout: "out1 out2", stderr: "err1"},
		{name: "empty", in: nil},
		{name: "empty frame", in: frame(1, ""), stdout: ""},
		{name: "short header", in: []byte{1, 0, 0}, wantErr: "frame header"},
		{name: "short body", in: frame(1, "abc")[:10], wantErr: "frame of 3 bytes"},
		{name: "unknown stream", in: frame(7, "x"), wantErr: "unknown stream 7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var o, e bytes.Buffer
			err := Demux(bytes.NewReader(tc.in), &o, &e)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || o.String() != tc.stdout || e.String() != tc.stderr {
				t.Fatalf("stdout %q stderr %q err %v", o.String(), e.String(), err)
			}
		})
	}
}

func FuzzDemux(f *testing.F) {
	f.Add(frame(1, "hello"))
	f.Add(append(frame(2, "e"), frame(1, "o")...))
	f.Add([]byte{1, 0, 0, 0, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, in []byte) {
		var o, e bytes.Buffer
		if err := Demux(bytes.NewReader(in), &o, &e); err == nil && o.Len()+e.Len() > len(in) {
			t.Fatalf("demuxed %d bytes out of %d", o.Len()+e.Len(), len(in))
		}
	})
}

func TestNewRejectsNonUnixHosts(t *testing.T) {
	for _, h := range []string{"tcp://127.0.0.1:2375", "unix://", "::"} {
		if _, err := New(h); err == nil {
			t.Errorf("New(%q) accepted", h)
		}
	}
}

// TestEngine exercises the client against the real engine: import, create,
// start, exec with output and exit code, exec timeout, copy in and out,
// label listing and forced removal.
func TestEngine(t *testing.T) {
	dc, err := New(testenv.DockerHost(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := dc.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	bb, err := os.ReadFile(testenv.Busybox(t))
	if err != nil {
		t.Fatal(err)
	}
	ref := "benchgate-container-test:" + strings.ToLower(t.Name())
	var tarBuf bytes.Buffer
	if err := WriteTar(&tarBuf, []File{{Path: "/bin/sh", Mode: 0o755, Data: bb}, {Path: "/bin/busybox", Mode: 0o755, Data: bb}}); err != nil {
		t.Fatal(err)
	}
	if err := dc.ImageImport(ctx, &tarBuf, ref, `CMD ["/bin/sh"]`, "ENV PATH=/bin"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.ImageRemove(context.Background(), ref) })
	img, err := dc.ImageInspect(ctx, ref)
	if err != nil || len(img.Config.Cmd) != 1 || img.Config.Cmd[0] != "/bin/sh" {
		t.Fatalf("inspect %+v %v", img, err)
	}
	if _, err := dc.ImageInspect(ctx, "benchgate-absent:latest"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("absent image: %v", err)
	}

	label := "io.benchgate.test=" + t.Name()
	id, err := dc.Create(ctx, Spec{Name: "benchgate-container-test", Image: ref, NetworkMode: "none",
		Entrypoint: []string{"/bin/busybox", "sh", "-c", "while :; do /bin/busybox sleep 3600; done"},
		Labels:     map[string]string{"io.benchgate.test": t.Name()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.RemoveDetached(id, 10*time.Second) })
	if err := dc.Start(ctx, id); err != nil {
		t.Fatal(err)
	}

	var o, e bytes.Buffer
	res, err := dc.Exec(ctx, id, ExecSpec{Cmd: []string{"/bin/sh", "-c", "echo out; echo err >&2; echo $GREETING; exit 7"}, Env: []string{"GREETING=hi"}, Stdout: &o, Stderr: &e})
	if err != nil || res.ExitCode != 7 || o.String() != "out\nhi\n" || e.String() != "err\n" {
		t.Fatalf("exec %+v %v stdout %q stderr %q", res, err, o.String(), e.String())
	}
	res, err = dc.Exec(ctx, id, ExecSpec{Cmd: []string{"/bin/busybox", "sleep", "30"}, Timeout: 300 * time.Millisecond})
	if err != nil || !res.TimedOut || res.Duration > 10*time.Second {
		t.Fatalf("timed exec %+v %v", res, err)
	}

	if err := dc.CopyIn(ctx, id, []File{{Path: "/opt/x/y.txt", Mode: 0o600, Data: []byte("payload")}}); err != nil {
		t.Fatal(err)
	}
	got, err := dc.ReadFile(ctx, id, "/opt/x/y.txt", 1<<20)
	if err != nil || string(got) != "payload" {
		t.Fatalf("read back %q %v", got, err)
	}

	cs, err := dc.List(ctx, label)
	if err != nil || len(cs) != 1 || cs[0].ID != id {
		t.Fatalf("list %+v %v", cs, err)
	}
	// A second create with the same name replaces the leftover.
	id2, err := dc.Create(ctx, Spec{Name: "benchgate-container-test", Image: ref, Labels: map[string]string{"io.benchgate.test": t.Name()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := dc.Remove(ctx, id2); err != nil {
		t.Fatal(err)
	}
	if cs, err := dc.List(ctx, label); err != nil || len(cs) != 0 {
		t.Fatalf("after remove: %+v %v", cs, err)
	}
	if err := dc.Remove(ctx, id2); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second remove: %v", err)
	}
}

// TestLeastPrivilege starts a container the way instance containers are
// started on the real engine and checks from inside what root may do:
// no device node can be made, no_new_privs is set, and the effective
// capabilities are exactly the ones asked for.
func TestLeastPrivilege(t *testing.T) {
	dc, err := New(testenv.DockerHost(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	bb, err := os.ReadFile(testenv.Busybox(t))
	if err != nil {
		t.Fatal(err)
	}
	ref := "benchgate-container-test:leastprivilege"
	var tarBuf bytes.Buffer
	if err := WriteTar(&tarBuf, []File{{Path: "/bin/sh", Mode: 0o755, Data: bb}, {Path: "/bin/busybox", Mode: 0o755, Data: bb}, {Path: "/tmp/.keep"}}); err != nil {
		t.Fatal(err)
	}
	if err := dc.ImageImport(ctx, &tarBuf, ref, "ENV PATH=/bin"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.ImageRemove(context.Background(), ref) })
	id, err := dc.Create(ctx, LeastPrivilege(Spec{Name: "benchgate-leastprivilege-test", Image: ref, NetworkMode: "none",
		Entrypoint: []string{"/bin/busybox", "sh", "-c", "while :; do /bin/busybox sleep 3600; done"}}, AgentCapabilities...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.RemoveDetached(id, 10*time.Second) })
	if err := dc.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	run := func(cmd string) (string, int) {
		var o bytes.Buffer
		res, err := dc.Exec(ctx, id, ExecSpec{Cmd: []string{"/bin/sh", "-c", cmd}, Stdout: &o, Stderr: &o, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return o.String(), res.ExitCode
	}
	for _, dev := range []string{"c 1 3", "b 8 0"} {
		if out, code := run("busybox mknod /tmp/dev " + dev); code == 0 {
			t.Errorf("mknod %s succeeded as root in the container: %s", dev, out)
		}
	}
	status, _ := run("busybox cat /proc/self/status")
	if !strings.Contains(status, "NoNewPrivs:\t1") {
		t.Errorf("no_new_privs is not set:\n%s", status)
	}
	// CapEff as the kernel numbers them: CHOWN 0, DAC_OVERRIDE 1, FOWNER 3,
	// KILL 5, SETGID 6, SETUID 7, NET_BIND_SERVICE 10.
	var want uint64
	for _, bit := range []uint{0, 1, 3, 5, 6, 7, 10} {
		want |= 1 << bit
	}
	if !strings.Contains(status, fmt.Sprintf("CapEff:\t%016x\n", want)) {
		t.Errorf("effective capabilities are not %016x:\n%s", want, status)
	}
}

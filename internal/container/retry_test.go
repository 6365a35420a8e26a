package container

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// flakyProxy listens on a unix socket in front of the real engine. The
// n-th connection it accepts (1-based) is treated as behave(n) says:
// "drop" closes it at once (the client reads EOF, as on a reset), "hold"
// relays the request to the engine but never the answer, anything else
// relays both ways.
func flakyProxy(t *testing.T, engine string, behave func(n int32) string) (string, *atomic.Int32) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "flaky.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	var mu sync.Mutex
	var open []net.Conn
	track := func(c net.Conn) {
		mu.Lock()
		open = append(open, c)
		mu.Unlock()
	}
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
	})
	target := strings.TrimPrefix(engine, "unix://")
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			track(c)
			mode := behave(accepted.Add(1))
			if mode == "drop" {
				c.Close()
				continue
			}
			up, err := net.Dial("unix", target)
			if err != nil {
				c.Close()
				continue
			}
			track(up)
			go io.Copy(up, c)
			if mode != "hold" {
				go io.Copy(c, up)
			} else {
				go io.Copy(io.Discard, up)
			}
		}
	}()
	return "unix://" + sock, &accepted
}

// TestTransientEngineErrorsAreRetried sends requests through a socket
// that resets its first two connections: the client retries and the
// create, inspect and remove still succeed, with the container named
// once, not twice.
func TestTransientEngineErrorsAreRetried(t *testing.T) {
	engine := testenv.DockerHost(t)
	real, err := New(engine)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	bb, err := os.ReadFile(testenv.Busybox(t))
	if err != nil {
		t.Fatal(err)
	}
	ref := "benchgate-container-test:retry"
	var tarBuf bytes.Buffer
	if err := WriteTar(&tarBuf, []File{{Path: "/bin/sh", Mode: 0o755, Data: bb}}); err != nil {
		t.Fatal(err)
	}
	if err := real.ImageImport(ctx, &tarBuf, ref, `CMD ["/bin/sh"]`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = real.ImageRemove(context.Background(), ref) })

	host, accepted := flakyProxy(t, engine, func(n int32) string {
		if n <= 2 {
			return "drop"
		}
		return "relay"
	})
	dc, err := New(host)
	if err != nil {
		t.Fatal(err)
	}
	name := "benchgate-retry-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	id, err := dc.Create(ctx, Spec{Name: name, Image: ref, Labels: map[string]string{"io.benchgate.test": name}})
	if err != nil {
		t.Fatalf("create through a flaky socket: %v", err)
	}
	t.Cleanup(func() { _ = real.RemoveDetached(id, 30*time.Second) })
	if n := accepted.Load(); n < 3 {
		t.Fatalf("the proxy saw %d connections; the test needs the first two dropped", n)
	}
	if _, err := dc.ImageInspect(ctx, ref); err != nil {
		t.Fatal(err)
	}
	list, err := real.List(ctx, "io.benchgate.test="+name)
	if err != nil || len(list) != 1 || list[0].ID != id {
		t.Fatalf("containers named %s: %+v %v, want exactly the created one", name, list, err)
	}
	if err := dc.Remove(ctx, id); err != nil {
		t.Fatal(err)
	}
}

// TestCreateCancelledLeavesNoContainer gives up on a create whose answer
// never comes back (SIGTERM at that moment): the engine did create the
// container, and Create removes it by name before it returns.
func TestCreateCancelledLeavesNoContainer(t *testing.T) {
	engine := testenv.DockerHost(t)
	real, err := New(engine)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := os.ReadFile(testenv.Busybox(t))
	if err != nil {
		t.Fatal(err)
	}
	ref := "benchgate-container-test:cancelled"
	var tarBuf bytes.Buffer
	if err := WriteTar(&tarBuf, []File{{Path: "/bin/sh", Mode: 0o755, Data: bb}}); err != nil {
		t.Fatal(err)
	}
	if err := real.ImageImport(context.Background(), &tarBuf, ref, `CMD ["/bin/sh"]`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = real.ImageRemove(context.Background(), ref) })
	host, _ := flakyProxy(t, engine, func(n int32) string {
		if n == 1 {
			return "hold"
		}
		return "relay"
	})
	dc, err := New(host)
	if err != nil {
		t.Fatal(err)
	}
	name := "benchgate-cancelled-create"
	label := "io.benchgate.test=" + name
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := dc.Create(ctx, Spec{Name: name, Image: ref, Labels: map[string]string{"io.benchgate.test": name}}); err == nil {
		t.Fatal("create succeeded although its answer never came")
	}
	list, err := real.List(context.Background(), label)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list {
		_ = real.RemoveDetached(c.ID, 30*time.Second)
	}
	if len(list) != 0 {
		t.Errorf("%d container(s) named %s left after the cancelled create", len(list), name)
	}
}

package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testenv"
)

// TestSIGTERMEndsABlockedRead gives the built binary a suite file that
// is a FIFO whose writer never writes, so report blocks in a read that
// no context can cancel, and sends SIGTERM: the process still ends
// within 5 s, with 143 and a message saying why.
func TestSIGTERMEndsABlockedRead(t *testing.T) {
	bin := testenv.Benchgate(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "a-agent_direct-suite.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "report", "--suite-jsonl", fifo)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// A writer can open the FIFO without waiting only once a reader has
	// it open: then benchgate is reading, its signal handler installed.
	var w *os.File
	for w == nil {
		f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		switch {
		case err == nil:
			w = f
		case errors.Is(err, syscall.ENXIO):
			select {
			case err := <-exited:
				t.Fatalf("benchgate ended before reading the FIFO: %v\n%s", err, stderr.String())
			case <-time.After(10 * time.Millisecond):
			}
		default:
			t.Fatal(err)
		}
	}
	defer w.Close()
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-exited:
	case <-time.After(time.Minute): // a last-resort guard
		cmd.Process.Kill()
		t.Fatalf("benchgate still running a minute after SIGTERM\n%s", stderr.String())
	}
	took := time.Since(start)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 143 {
		t.Errorf("exit %v, want 143\n%s", err, stderr.String())
	}
	if took > 5*time.Second {
		t.Errorf("took %s after SIGTERM, want at most 5 s", took.Round(time.Millisecond))
	}
	if !strings.Contains(stderr.String(), "benchgate: still running 4s after SIGTERM; exiting") {
		t.Errorf("stderr does not say why it exited:\n%s", stderr.String())
	}
}

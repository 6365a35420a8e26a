package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestReportRefusesIrregularSuiteFiles gives the built binary suite
// files that are a FIFO whose writer never writes, a link to /dev/zero
// and a directory: each is refused at once with exit 2 and one message
// naming the file and what it is, instead of a read that never ends.
func TestReportRefusesIrregularSuiteFiles(t *testing.T) {
	bin := testenv.Benchgate(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "a-agent_direct-suite.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "b-agent_direct-suite.jsonl")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "c-agent_direct-suite.jsonl")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{fifo, "a named pipe (FIFO)"},
		{zero, "a device"},
		{folder, "a directory"},
	} {
		cmd := exec.Command(bin, "report", "--suite-jsonl", tc.path)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		want := "benchgate report: suite file " + tc.path + ": expected a regular file, found " + tc.want + "\n"
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || stderr.String() != want {
			t.Errorf("%s: %v, stderr %q; want exit 2 and %q", filepath.Base(tc.path), err, stderr.String(), want)
		}
	}
}

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/proc"
)

// runLocal runs pytest with an interpreter on this machine, in its own
// process group so that a hanging test and anything it spawned are killed.
func runLocal(ctx context.Context, r *Runner, dir string, _ map[string][]byte, testName string) (rawResult, error) {
	reportPath := filepath.Join(dir, reportName)
	var out limitedBuffer
	out.limit = 4 * r.outputLimit()
	res, err := proc.Run(ctx, proc.Cmd{
		Argv:    append(append([]string(nil), r.Wrapper...), r.bootstrapArgv(pytestArgs(reportPath, testName))...),
		Dir:     dir,
		Env:     r.environment(filepath.Join(dir, homeName)),
		Stdout:  &out,
		Stderr:  &out,
		Timeout: r.timeout(),
		Grace:   2 * time.Second,
		// No network, and no capability that could read benchgate's
		// own /proc/<pid>/environ (see proc.HideEnvironment).
		Isolate:   true,
		IsolateFS: true,
	})
	if err != nil {
		return rawResult{}, fmt.Errorf("run pytest with %s: %w", r.python(), err)
	}
	output := out.Bytes()
	if res.FSIsolationError != "" && res.IsolationError == "" {
		output = append([]byte("benchgate-sandbox: refused: "+res.FSIsolationError+"; the test can read this machine's files\n"), output...)
	}
	if res.IsolationError != "" {
		output = append([]byte("sandbox: ran without its own user and network namespaces (the kernel refused them: "+res.IsolationError+"); a container image isolates the tests instead\n"), output...)
	}
	raw := rawResult{exitCode: res.ExitCode, timedOut: res.TimedOut, duration: res.Duration, output: output}
	// The test wrote this folder: a junit.xml it replaced with a link (to
	// a host file) is refused, like one over 16 MiB; the run then has no
	// readable report, which is never evidence.
	if data, err := fsutil.ReadFileIn(dir, reportPath, 16<<20); err == nil {
		raw.junit = data
	} else if errors.Is(err, fsutil.ErrSymlink) || errors.Is(err, fsutil.ErrTooLarge) {
		raw.output = append(raw.output, []byte("\nsandbox: "+err.Error()+"\n")...)
	} else if !errors.Is(err, os.ErrNotExist) {
		return rawResult{}, fmt.Errorf("read JUnit report: %w", err)
	}
	return raw, nil
}

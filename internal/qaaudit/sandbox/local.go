package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/benchgate/benchgate/internal/proc"
)

// runLocal runs pytest with an interpreter on this machine, in its own
// process group so that a hanging test and anything it spawned are killed.
func runLocal(ctx context.Context, r *Runner, dir string, _ map[string][]byte, testName string) (rawResult, error) {
	reportPath := filepath.Join(dir, reportName)
	var out limitedBuffer
	out.limit = 4 * r.outputLimit()
	res, err := proc.Run(ctx, proc.Cmd{
		Argv:    append(append(append([]string(nil), r.Wrapper...), r.python()), pytestArgs(reportPath, testName)...),
		Dir:     dir,
		Env:     r.environment(filepath.Join(dir, homeName)),
		Stdout:  &out,
		Stderr:  &out,
		Timeout: r.timeout(),
		Grace:   2 * time.Second,
		// No network, and no capability that could read benchgate's
		// own /proc/<pid>/environ (see proc.HideEnvironment).
		Isolate: false,
	})
	if err != nil {
		return rawResult{}, fmt.Errorf("run pytest with %s: %w", r.python(), err)
	}
	output := out.Bytes()
	if res.IsolationError != "" {
		output = append([]byte("sandbox: ran without its own user and network namespaces (the kernel refused them: "+res.IsolationError+"); use --image for a container sandbox\n"), output...)
	}
	raw := rawResult{exitCode: res.ExitCode, timedOut: res.TimedOut, duration: res.Duration, output: output}
	if data, err := os.ReadFile(reportPath); err == nil {
		raw.junit = data
	} else if !errors.Is(err, os.ErrNotExist) {
		return rawResult{}, fmt.Errorf("read JUnit report: %w", err)
	}
	return raw, nil
}

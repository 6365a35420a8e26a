package pipeline

import (
	"context"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
)

// SandboxProver proves options with the pytest sandbox. Each test runs in a
// fresh folder under the option's work folder, which is kept so the report
// can point at the test file.
type SandboxProver struct {
	Runner sandbox.Runner
}

// Prove implements Prover.
func (p SandboxProver) Prove(ctx context.Context, dir, option, source string) (ProofResult, error) {
	r := p.Runner
	r.WorkDir, r.Keep = dir, true
	// The guard keeps a Python that lacks the benchmark's library from
	// proving every option false when a test imports it inside its body
	// (at the top of the file it is already a collection error).
	out, err := r.RunTest(ctx, sandbox.TestSpec{CaseID: filepath.Base(filepath.Dir(filepath.Dir(dir))), Option: option, Source: []byte(source),
		SupportFiles: map[string][]byte{"conftest.py": []byte(sandbox.MissingPackageGuard)}})
	if err != nil {
		return ProofResult{}, err
	}
	passed, evidence := out.Proven()
	if out.Limit != "" {
		// A test stopped by a limit (a MemoryError in its body) says
		// nothing about the option.
		passed, evidence = false, false
	}
	msg := out.Message
	if msg == "" && !evidence {
		msg = out.Output
	}
	return ProofResult{Outcome: string(out.Status), Evidence: evidence, Passed: passed, Message: msg, TestPath: out.TestPath, Duration: out.Duration, Limit: out.Limit}, nil
}

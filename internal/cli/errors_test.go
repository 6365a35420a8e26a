package cli

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/spf13/pflag"

	"github.com/benchgate/benchgate/internal/exitcode"
)

// TestExit: the one printer of a command's error says it under the
// command's name, a line per wrong value, nothing when the command has
// already said why, the usage after it when asked, and returns the code
// the error carries or its kind gives.
func TestExit(t *testing.T) {
	fs := pflag.NewFlagSet("qa-audit", pflag.ContinueOnError)
	fs.Usage = func() {}
	tests := []struct {
		name, cmd  string
		err        error
		usage      func(*bytes.Buffer)
		wantCode   int
		wantStderr string
	}{
		{"nil", "report", nil, nil, ExitOK, ""},
		{"usage", "report", usagef("unexpected argument %q", "x"), nil, ExitUsage, "benchgate report: unexpected argument \"x\"\n"},
		{"every problem a line", "report", problems{"Missing value for --gate-profile", "--plan needs --stats"}, nil, ExitUsage,
			"benchgate report: Missing value for --gate-profile\nbenchgate report: --plan needs --stats\n"},
		{"gate failed", "report", exitcode.WithCode(ExitFailed, errors.New("gate v2 failed")), nil, ExitFailed, "benchgate report: gate v2 failed\n"},
		{"already said", "swebench run", exitcode.WithCode(ExitIncomplete, nil), nil, ExitIncomplete, ""},
		{"plain error is a failure", "set", errors.New("disk full"), nil, ExitFailed, "benchgate set: disk full\n"},
		{"setup error", "swebench batch", fmt.Errorf("batch: %w", &exitcode.SetupError{Err: errors.New("no engine"), Fix: "start it"}), nil, ExitUsage,
			"benchgate swebench batch: batch: no engine; start it\n"},
		{"benchgate's own", "", usagef("unknown command %q", "x"), nil, ExitUsage, "benchgate: unknown command \"x\"\n"},
		{"usage after", "qa-audit", withUsage(usagef("no question files given"), fs), func(b *bytes.Buffer) { b.WriteString("Usage: ...\n") }, ExitUsage,
			"benchgate qa-audit: no question files given\nUsage: ...\n"},
	}
	for _, tc := range tests {
		var errb bytes.Buffer
		fs.Usage = func() {}
		if tc.usage != nil {
			fs.Usage = func() { tc.usage(&errb) }
		}
		code := exit(&Env{Stderr: &errb}, tc.cmd, tc.err)
		if code != tc.wantCode || errb.String() != tc.wantStderr {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", tc.name, code, errb.String(), tc.wantCode, tc.wantStderr)
		}
	}
}

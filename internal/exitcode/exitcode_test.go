package exitcode

import (
	"errors"
	"fmt"
	"testing"
)

func TestOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, OK},
		{"plain error", errors.New("disk full"), Failed},
		{"usage error", Usagef("--x: bad"), Usage},
		{"wrapped usage error", fmt.Errorf("set a: %w", Usagef("bad")), Usage},
		{"wrapped sentinel", fmt.Errorf("%w: set a: unknown", ErrUsage), Usage},
		{"setup error", fmt.Errorf("batch: %w", &SetupError{Err: errors.New("docker engine: no socket"), Fix: "start it"}), Usage},
	}
	for _, tc := range tests {
		if got := Of(tc.err); got != tc.want {
			t.Errorf("%s: Of = %d, want %d", tc.name, got, tc.want)
		}
	}
	if msg := Usagef("--x %q: bad", "v").Error(); msg != `--x "v": bad` {
		t.Errorf("UsageError changes the message: %q", msg)
	}
}

func TestStatus(t *testing.T) {
	for code, want := range map[int]string{OK: "pass", Failed: "fail", Usage: "error", Incomplete: "incomplete", 3: "error"} {
		if got := Status(code); got != want {
			t.Errorf("Status(%d) = %q, want %q", code, got, want)
		}
	}
}

// TestRename: a core package's error names the option by its key; the
// command line renames it to the flag wherever it sits in the chain, and
// the cause stays reachable.
func TestRename(t *testing.T) {
	cause := errors.New("no such file")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"bare", Optionf("max_loops", " %d: expected >= 1", 0), "--max-loops 0: expected >= 1"},
		{"wrapped", fmt.Errorf("batch: %w", Optionf("dataset_file", ": %w", cause)), "batch: --dataset-file: no such file"},
		{"usage error", &UsageError{Err: Optionf("shard", " %q: expected i/n", "0/2")}, `--shard "0/2": expected i/n`},
		{"joined", errors.Join(errors.New("first"), Optionf("max_loops", " is required")), "first\n--max-loops is required"},
		{"unknown key kept", Optionf("other", " is required"), "other is required"},
	}
	names := map[string]string{"max_loops": "--max-loops", "dataset_file": "--dataset-file", "shard": "--shard"}
	for _, tc := range tests {
		if got := Rename(tc.err, names).Error(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if err := Rename(fmt.Errorf("x: %w", Optionf("dataset_file", ": %w", cause)), names); !errors.Is(err, cause) {
		t.Errorf("the cause is lost: %v", err)
	}
}

// TestCode: a CodeError decides the code wherever it sits in the chain and
// keeps its message; without one the error's kind does.
func TestCode(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		want    int
		wantMsg string
	}{
		{"nil", nil, OK, ""},
		{"plain", errors.New("disk full"), Failed, "disk full"},
		{"usage kind", Usagef("--x: bad"), Usage, "--x: bad"},
		{"code over kind", WithCode(Failed, Usagef("gate failed")), Failed, "gate failed"},
		{"wrapped code", fmt.Errorf("report: %w", WithCode(Usage, errors.New("no rows"))), Usage, "report: no rows"},
		{"already said", WithCode(Incomplete, nil), Incomplete, ""},
	}
	for _, tc := range tests {
		if got := Code(tc.err); got != tc.want {
			t.Errorf("%s: Code = %d, want %d", tc.name, got, tc.want)
		}
		if tc.err != nil && tc.err.Error() != tc.wantMsg {
			t.Errorf("%s: message %q, want %q", tc.name, tc.err.Error(), tc.wantMsg)
		}
	}
}

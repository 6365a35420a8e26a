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

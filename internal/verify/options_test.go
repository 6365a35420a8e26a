package verify

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/bench"
	"github.com/benchgate/benchgate/internal/exitcode"
)

// TestOptionErrorsNameNoFlags: verify checks its option values itself
// (it is called by the CLI and by tests alike), but names the option, not
// a command-line flag: flags are the CLI's to name.
func TestOptionErrorsNameNoFlags(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		run  func() error
		want string
	}{
		{"set without provider", func() error {
			_, err := RunSet(context.Background(), SetOptions{Config: bench.Default(dir), Set: "pr-exec", Repetitions: 1, OutDir: t.TempDir()})
			return err
		}, "provider: expected a provider ID"},
		{"set with zero repetitions", func() error {
			_, err := RunSet(context.Background(), SetOptions{Config: bench.Default(dir), Set: "pr-exec", Provider: "openai", OutDir: t.TempDir()})
			return err
		}, "repetitions: expected an integer >= 1, got 0"},
		{"ordered without provider", func() error {
			_, err := RunOrdered(context.Background(), OrderedOptions{Config: bench.Default(dir), Repetitions: 1, BaseDir: t.TempDir()})
			return err
		}, "provider: expected a provider ID"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if exitcode.Of(err) != exitcode.Usage || !errors.Is(err, ErrBadInput) {
				t.Fatalf("err = %v, want a usage error", err)
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "--") {
				t.Errorf("err = %q, want %q and no flag name", err, tc.want)
			}
		})
	}
}

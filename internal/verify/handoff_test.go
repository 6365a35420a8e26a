package verify

import (
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/bench"
)

func TestConfirmationIntro(t *testing.T) {
	canonical := confirmationModel(bench.Default(".").Confirm)
	if canonical != "openai/gpt-5.3-codex" {
		t.Fatalf("default confirmation model %q, want openai/gpt-5.3-codex (seed 000)", canonical)
	}
	for _, c := range []struct{ run, confirm, want string }{
		{"gpt-5.1-codex-mini", canonical, "Canonical confirmation on openai/gpt-5.3-codex, not this run's gpt-5.1-codex-mini: seed 000 confirms every run"},
		{"gpt-5.3-codex", canonical, "Canonical confirmation on openai/gpt-5.3-codex (verify_pr and verify_release, as seed 000 requires)"},
		{"m", "", "Canonical confirmation"},
	} {
		if got := confirmationIntro(c.run, c.confirm); !strings.HasPrefix(got, c.want) {
			t.Errorf("confirmationIntro(%q, %q) = %q, want it to start %q", c.run, c.confirm, got, c.want)
		}
	}
	if got := confirmationModel([]bench.Command{{Name: "x", Argv: []string{"x"}}, {Name: "y", Argv: []string{"y"}, Env: []string{"BENCH_MODEL_ID=m2"}}}); got != "m2" {
		t.Errorf("model without provider: %q", got)
	}
}

package action

import "testing"

// TestInputChecks: values as people write them, checked by the rules
// the modes use; the expected text says what to write instead.
func TestInputChecks(t *testing.T) {
	for _, c := range []struct {
		check func(string) string
		value string
		want  string // "" when the value is right
	}{
		{checkConfidence, "0.95", ""},
		{checkConfidence, "0.5", ""},
		{checkConfidence, "0.999", ""},
		{checkConfidence, "95", "a number from 0.5 to 0.999 (a fraction, not a percentage: 0.95 means 95%)"},
		{checkConfidence, "95%", "a number from 0.5 to 0.999 (a fraction, not a percentage: 0.95 means 95%)"},
		{checkConfidence, "1", "a number from 0.5 to 0.999"},
		{checkConfidence, "high", "a number from 0.5 to 0.999"},
		{checkConfidence, "NaN", "a number from 0.5 to 0.999"},
		{checkTolerance, "10", ""},
		{checkTolerance, "0", ""},
		{checkTolerance, "100", "a percentage from 0 to below 100 such as 10"},
		{checkTolerance, "10%", "a percentage from 0 to below 100 such as 10"},
		{checkProfile, "pr_fast", ""},
		{checkProfile, "verify-pr", "verify_pr or verify_release (pr_fast is an alias of verify_pr)"},
		{checkDuration, "30m", ""},
		{checkDuration, "30", "a duration above zero such as 90s, 30m or 2h"},
		{checkDuration, "-5m", "a duration above zero such as 90s, 30m or 2h"},
		{checkShard, "2/4", ""},
		{checkShard, "0/4", "i/n with 1 <= i <= n, such as 2/4"},
		{checkGrouping, "run", ""},
		{checkGrouping, "files", "file (one pull request per fixed file) or run (one per run)"},
		{checkBackend, "openai", ""},
		{checkBackend, "anthropic", "gemini or openai (an OpenAI-compatible endpoint)"},
	} {
		if got := c.check(c.value); got != c.want {
			t.Errorf("check(%q) = %q, want %q", c.value, got, c.want)
		}
	}
}

package codex

import "testing"

func TestLedgerShare(t *testing.T) {
	var l Ledger // the zero value is usable
	steps := []struct {
		name string
		ev   Events
		want Usage
	}{
		{"plan thread", Events{ThreadID: "p", Turns: 1, Usage: Usage{InputTokens: 2100, CachedInputTokens: 1200, OutputTokens: 34, ReasoningOutputTokens: 5}},
			Usage{InputTokens: 2100, CachedInputTokens: 1200, OutputTokens: 34, ReasoningOutputTokens: 5}},
		{"execute thread", Events{ThreadID: "e", Turns: 1, Usage: Usage{InputTokens: 500, OutputTokens: 10, ReasoningOutputTokens: 1}},
			Usage{InputTokens: 500, OutputTokens: 10, ReasoningOutputTokens: 1}},
		{"handoff resumes execute: only its own share", Events{ThreadID: "e", Turns: 1, Usage: Usage{InputTokens: 1200, CachedInputTokens: 500, OutputTokens: 30, ReasoningOutputTokens: 3}},
			Usage{InputTokens: 700, CachedInputTokens: 500, OutputTokens: 20, ReasoningOutputTokens: 2}},
		{"a resume that failed before any turn adds nothing", Events{ThreadID: "e", Failed: true}, Usage{}},
		{"a second resume counts from the last total", Events{ThreadID: "e", Turns: 1, Usage: Usage{InputTokens: 1300, CachedInputTokens: 500, OutputTokens: 31, ReasoningOutputTokens: 3}},
			Usage{InputTokens: 100, OutputTokens: 1}},
		{"no thread at all", Events{Usage: Usage{InputTokens: 7}}, Usage{InputTokens: 7}},
	}
	for _, s := range steps {
		if got := l.Share(s.ev); got != s.want {
			t.Fatalf("%s: share %+v, want %+v", s.name, got, s.want)
		}
	}
}

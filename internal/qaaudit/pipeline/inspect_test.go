package pipeline

import "testing"

// TestFQNPattern: only dotted names reach the generated inspection file, so
// a model cannot smuggle code into it.
func TestFQNPattern(t *testing.T) {
	for name, ok := range map[string]bool{
		"json.dumps":                 true,
		"google.adk.agents.LlmAgent": true,
		"_private.x1":                true,
		`json"; import os; "`:        false,
		"json.dumps()":               false,
		"1abc":                       false,
		"a..b":                       false,
		"":                           false,
		"a.b\nimport os":             false,
	} {
		if got := fqnPattern.MatchString(name); got != ok {
			t.Errorf("fqnPattern(%q) = %v, want %v", name, got, ok)
		}
	}
}

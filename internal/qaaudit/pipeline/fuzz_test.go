package pipeline

import (
	"strings"
	"testing"
)

// FuzzParseModelJSON feeds arbitrary model text to the JSON extraction used
// for the analyst's claims and the remediation proposals: no panic, and an
// extracted object is always brace-delimited text taken from the input.
func FuzzParseModelJSON(f *testing.F) {
	f.Add("```json\n{\"claims\": [{\"option\": \"A\", \"hypothesis\": \"h\"}]}\n```")
	f.Add(`Here you go: {"correct_answer": "A", "rationale": "r"} done`)
	f.Add("}{")
	f.Add("```\n```")
	f.Add(`{"claims": "not a list"}`)
	f.Fuzz(func(t *testing.T, text string) {
		obj := jsonObject(text)
		if obj != "" {
			if obj[0] != '{' || obj[len(obj)-1] != '}' {
				t.Fatalf("jsonObject(%q) = %q", text, obj)
			}
			if !strings.Contains(text, obj) {
				t.Fatalf("jsonObject invented text: %q from %q", obj, text)
			}
		}
		for _, c := range parseClaims(text) {
			_ = c.Option
		}
	})
}

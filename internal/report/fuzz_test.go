package report

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadExpectations checks that any expectations file either loads
// into complete, valid thresholds or is rejected with an error naming the
// file, and never panics.
func FuzzLoadExpectations(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "suites", "expectations.json")); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"default_model":"a/b","expectations":{}}`))
	f.Add([]byte(`{"default_model":"a/b","expectations":{"a/b":{"verify_pr":null}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		const p = "config/expectations.json"
		exp, err := ParseExpectations(data, p)
		if err != nil {
			if len(err.Error()) < len(p) || err.Error()[:len(p)] != p {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if exp.DefaultModel == "" {
			t.Fatal("loaded without default_model")
		}
		for model, profiles := range exp.Models {
			for _, profile := range []string{ProfileVerifyPR, ProfileVerifyRelease} {
				th, ok := profiles[profile]
				if !ok || th.MinSamplesPerScenarioPerMode < 1 {
					t.Fatalf("%s %s: %+v", model, profile, th)
				}
			}
		}
	})
}

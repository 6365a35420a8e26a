package questions

import (
	"os"
	"testing"
)

// BenchmarkParse measures loading the largest real question file
// (configure_adk_features_mc, 81 cases, 893 lines).
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(adk(b, "configure_adk_features_mc.benchmark.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("configure.yaml", data, Options{SkipSnippets: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyFix measures splicing one fix into the same file (a fix
// re-parses the file to validate the result).
func BenchmarkApplyFix(b *testing.B) {
	data, err := os.ReadFile(adk(b, "configure_adk_features_mc.benchmark.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	f, err := Parse("configure.yaml", data, Options{SkipSnippets: true})
	if err != nil {
		b.Fatal(err)
	}
	c := f.Cases()[40]
	answers := []string{"A", "B"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		a := answers[i%2]
		i++
		if err := f.ApplyFix(c.ID, Fix{CorrectAnswer: &a}); err != nil {
			b.Fatal(err)
		}
	}
}

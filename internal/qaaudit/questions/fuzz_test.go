package questions

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input makes the loader panic, that every case
// it returns is located, and that a file which loads also round-trips.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"debug_suite.benchmark.yaml", "verification_test_mc.benchmark.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "adk", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("benchmarks:\n" + goodCase + goodCase))
	f.Add([]byte("benchmarks: [{id: a, options: {A: x}, correct_answer: B}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.yaml", data, Options{SkipSnippets: true})
		if err != nil {
			return
		}
		out, _ := file.Bytes()
		if string(out) != string(data) {
			t.Fatal("Bytes() differs from the input")
		}
		for _, c := range file.Cases() {
			if c.File != "fuzz.yaml" {
				t.Fatalf("case without file: %+v", c)
			}
			for _, p := range c.Problems {
				if p.Field == "" || p.Message == "" {
					t.Fatalf("problem without field or message: %+v", p)
				}
			}
			if c.OK() && c.Kind == MultipleChoice {
				if _, ok := c.Option(c.CorrectAnswer); !ok {
					t.Fatalf("case %q is OK but its key names no option", c.ID)
				}
				// A fix of a well-formed case must never corrupt the file.
				q := "Fuzzed question?"
				if err := file.ApplyFix(c.ID, Fix{Question: &q}); err == nil {
					if nc, ok := file.Case(c.ID); !ok || nc.Question != q {
						t.Fatalf("fixed question does not read back")
					}
				}
				return
			}
		}
	})
}

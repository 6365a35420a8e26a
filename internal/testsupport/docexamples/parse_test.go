package docexamples

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestEveryCommandBlockIsMarked is the quick half of TestDocExamples:
// every command block of the docs says how it runs or why it is not run.
func TestEveryCommandBlockIsMarked(t *testing.T) {
	root := testenv.RepoRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	runnable := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		examples, err := Parse(rel, string(data))
		if err != nil {
			t.Error(err)
			continue
		}
		for _, ex := range examples {
			if !ex.Marked {
				t.Errorf("%s:%d: a command block without a marker", ex.File, ex.Line)
			}
			if ex.NotRun == "" {
				runnable++
			}
		}
	}
	if runnable < 10 {
		t.Errorf("only %d runnable examples found", runnable)
	}
}

func TestParse(t *testing.T) {
	doc := strings.Join([]string{
		"text",
		"<!-- example: dir=empty exit=1 needs=pnpm -->",
		"",
		"```bash",
		"benchgate report --x",
		"```",
		"```",
		"Wrote reports/latest-summary.json",
		"```",
		"```",
		"benchgate set: bad input: unknown set",
		"```",
		"```",
		"benchsim confirm <name>",
		"```",
		"```json",
		`{"a": 1}`,
		"```",
		"<!-- example: continues -->",
		"```",
		"$ benchgate report --suite-jsonl a \\",
		"    --suite-jsonl b",
		"Wrote x",
		"...",
		"last \\",
		"$ echo $?",
		"1",
		"```",
		"```sh",
		"go test ./...",
		"```",
	}, "\n")
	got, err := Parse("d.md", doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d command blocks, want 3 (output, a printed line, a synopsis and JSON are none): %+v", len(got), got)
	}
	if g := got[0]; !g.Marked || g.Dir != "empty" || g.Exit != 1 || len(g.Needs) != 1 || g.Line != 4 || g.Transcript() {
		t.Errorf("first block: %+v", g)
	}
	tr := got[1]
	steps := tr.Steps()
	if !tr.Continues || !tr.Transcript() || len(steps) != 2 || steps[0].Command != "benchgate report --suite-jsonl a \\\n    --suite-jsonl b" ||
		strings.Join(steps[0].Output, "|") != `Wrote x|...|last \` || strings.Join(steps[1].Output, "|") != "1" {
		t.Errorf("transcript: %+v %q", tr, steps)
	}
	if got[2].Marked {
		t.Errorf("an unmarked block reads as marked: %+v", got[2])
	}
	for _, bad := range []string{"dir=home", "exit=x", "needs=docker", "colour=red", "not run:"} {
		if _, err := Parse("d.md", "<!-- example: "+bad+" -->\n```bash\nls\n```\n"); err == nil || !strings.Contains(err.Error(), "d.md:1: example marker") {
			t.Errorf("marker %q: %v", bad, err)
		}
	}
}

func TestMissing(t *testing.T) {
	out := "a\nb  \nc\nd\n"
	for _, tc := range []struct {
		shown []string
		ok    bool
	}{
		{[]string{"a", "...", "d"}, true},
		{[]string{"b", "c"}, true},
		{[]string{"c", "b"}, false},
		{[]string{"e"}, false},
		{[]string{"b "}, true},
	} {
		if _, ok := Missing(tc.shown, out); ok != tc.ok {
			t.Errorf("Missing(%q) ok=%v, want %v", tc.shown, ok, tc.ok)
		}
	}
}

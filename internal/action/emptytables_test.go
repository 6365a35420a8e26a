package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

func TestDropEmptyTables(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"empty table and its heading",
			"## Mode Metrics\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Profiling Snapshot\n\n| Mode | Runs |\n|---|---:|\n\n## Gate V2\n\nProfile: x\n",
			"## Mode Metrics\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Gate V2\n\nProfile: x\n"},
		{"a table with rows stays",
			"### P\n\n| Mode | Runs |\n|---|---:|\n| ghx | 3 |\n", "### P\n\n| Mode | Runs |\n|---|---:|\n| ghx | 3 |\n"},
		{"a heading with other text keeps it",
			"## P\n\nNo timing.\n\n| a |\n|---|\n\n## Q\n\nq\n", "## P\n\nNo timing.\n\n\n## Q\n\nq\n"},
		{"an empty table at the end",
			"## A\n\ntext\n\n## P\n\n| a |\n|---|", "## A\n\ntext\n"},
		{"a sub-section keeps its parent",
			"## P\n\n### Q\n\n| a |\n|---|\n\n### R\n\nr\n", "## P\n\n### R\n\nr\n"},
		{"no tables", "# T\n\ntext\n", "# T\n\ntext\n"},
	} {
		if got := dropEmptyTables(c.in); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestDropEmptyTablesOnUpstreamSummary: upstream's own summary, whose
// tables all have rows, passes unchanged.
func TestDropEmptyTablesOnUpstreamSummary(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "suites", "upstream-latest-summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	in := string(b)
	got := dropEmptyTables(in)
	if got != in {
		t.Errorf("upstream's summary has no empty table, yet it changed:\n%s", got)
	}
	for _, l := range strings.Split(in, "\n") {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| Mode | Profiled") && !strings.Contains(got, l) {
			t.Errorf("a row of a table with rows was dropped: %q", l)
		}
	}
}

package audit_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/qaaudit/audit"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// benchNames are standard-library names an api_understanding case can
// give, with the member its answer names.
var benchNames = [][2]string{
	{"json.decoder.JSONDecoder", "object_hook"}, {"json.JSONEncoder", "indent"}, {"logging.LogRecord", "levelname"},
	{"collections.OrderedDict", "move_to_end"}, {"argparse.ArgumentParser", "add_argument"}, {"pathlib.PurePath", "suffix"},
	{"subprocess.Popen", "communicate"}, {"csv.DictReader", "fieldnames"}, {"string.Template", "substitute"},
	{"datetime.timedelta", "total_seconds"},
}

// writeBenchBank writes a question bank of n api_understanding cases and
// m fix_error cases (each with its own test, unfixed and fixed files),
// every one Valid, and returns its folder.
func writeBenchBank(b *testing.B, n, m int) string {
	b.Helper()
	dir := b.TempDir()
	var y strings.Builder
	y.WriteString("benchmarks:\n")
	for i := range n {
		name := benchNames[i%len(benchNames)]
		fmt.Fprintf(&y, "- id: bench:api_%03d\n  question: Which member of %s?\n  benchmark_type: api_understanding\n  answers:\n  - answer_template: StringMatchAnswer\n    answer: %s\n    fully_qualified_class_name: [%s]\n",
			i, name[0], name[1], name[0])
	}
	for i := range m {
		folder := fmt.Sprintf("cases/%02d_mean", i)
		files := map[string]string{
			folder + "/test_agent.py": "def test_mean_of_nothing_is_zero():\n    import fixed\n\n    assert fixed.mean([]) == 0.0\n\n\ndef test_mean():\n    import fixed\n\n    assert fixed.mean([1, 2, 3]) == 2\n",
			folder + "/unfixed.py":    "def mean(values):\n    return sum(values) / len(values)\n",
			folder + "/fixed.py":      "def mean(values):\n    if not values:\n        return 0.0\n    return sum(values) / len(values)\n",
		}
		for p, data := range files {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, p), []byte(data), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		fmt.Fprintf(&y, "- id: bench:fix_%02d\n  name: Implement mean.\n  benchmark_type: fix_error\n  test_file: %[2]s/test_agent.py\n  unfixed_file: %[2]s/unfixed.py\n  fixed_file: %[2]s/fixed.py\n", i, folder)
	}
	if err := os.WriteFile(filepath.Join(dir, "bank.benchmark.yaml"), []byte(y.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkAuditWallTime is the wall time of a whole audit, as the
// command runs it (preflight, every case, the report), of 100
// api_understanding cases and of 20 fix_error cases with the real
// interpreter, at --jobs 1 and 2. These kinds need no model, so the time
// is the pytest runs', and it falls with the cases audited at once.
func BenchmarkAuditWallTime(b *testing.B) {
	py := testenv.Python(b)
	for _, bank := range []struct {
		name     string
		api, fix int
	}{{"api_understanding=100", 100, 0}, {"fix_error=20", 0, 20}} {
		dir := writeBenchBank(b, bank.api, bank.fix)
		for _, jobs := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/jobs=%d", bank.name, jobs), func(b *testing.B) {
				for b.Loop() {
					out := b.TempDir()
					sum, err := audit.Execute(context.Background(), audit.Config{Paths: []string{filepath.Join(dir, "bank.benchmark.yaml")},
						RepoRoot: dir, OutDir: out, Python: py, Jobs: jobs, Getenv: func(string) string { return "" }})
					if err != nil {
						b.Fatal(err)
					}
					if t := sum.Result.Report.Totals; t.Valid != bank.api+bank.fix {
						b.Fatalf("totals %+v, want every case Valid", t)
					}
				}
			})
		}
	}
}

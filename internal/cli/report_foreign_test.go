package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files")

// foreignIDs are scenario IDs of suites upstream's report reads that the
// benchmark's own ID pattern refuses.
var foreignIDs = []string{"s1", "Repo_Issue_1", "swe/django-1234", "django__django-11099", "café-001", "задача-7", "bell\a-001", "bidi\u202e-001"}

// firstRow is the first row of a real upstream suite file.
func firstRow(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(suiteFile(t, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	sc.Scan()
	return sc.Text()
}

// withID returns row with its scenario_id replaced by id (JSON-escaped).
func withID(t *testing.T, row, id string) string {
	t.Helper()
	i := strings.Index(row, `"scenario_id":"`)
	j := strings.Index(row[i+15:], `"`)
	q, _ := jsonString(id)
	return row[:i] + `"scenario_id":` + q + row[i+15+j+1:]
}

func jsonString(s string) (string, error) {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteString(strings.ToUpper(string("0123456789abcdef"[r>>4]) + string("0123456789abcdef"[r&15])))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}

// TestReportForeignScenarioIDs runs the built binary's report over a
// suite pair whose scenario IDs are not the benchmark's shape, as
// upstream's report reads them, with a negative sub-timing and one
// malformed row: every row with a non-empty ID is read, the control
// characters are named by file and line, and every ID shown is escaped.
// The golden file holds stderr and the summary Markdown.
func TestReportForeignScenarioIDs(t *testing.T) {
	bin := testenv.Benchgate(t)
	dir := t.TempDir()
	ad, ghx := firstRow(t, "2026-02-25-agent_direct-suite.jsonl"), firstRow(t, "2026-02-25-ghx-suite.jsonl")
	var adRows, ghxRows []string
	for _, id := range foreignIDs {
		adRows = append(adRows, withID(t, ad, id))
		ghxRows = append(ghxRows, withID(t, ghx, id))
	}
	// Upstream reads a negative sub-timing (clock skew) as a number.
	ghxRows[0] = strings.Replace(ghxRows[0], `"tool_bash_ms":`, `"tool_bash_ms":-3,"x":`, 1)
	// A malformed row (no tokens) whose ID needs escaping, and an empty ID.
	ghxRows = append(ghxRows, strings.Replace(withID(t, ghx, "swe/django-9\n::error::x"), `"tokens":`, `"tokens_gone":`, 1),
		withID(t, ghx, ""))
	adPath, ghxPath := filepath.Join(dir, "a-agent_direct-suite.jsonl"), filepath.Join(dir, "a-ghx-suite.jsonl")
	os.WriteFile(adPath, []byte(strings.Join(adRows, "\n")+"\n"), 0o644)
	os.WriteFile(ghxPath, []byte(strings.Join(ghxRows, "\n")+"\n"), 0o644)
	md := filepath.Join(dir, "summary.md")
	cmd := exec.Command(bin, "report", "--suite-jsonl", adPath, "--suite-jsonl", ghxPath, "--skip-bad-rows",
		"--summary-json", filepath.Join(dir, "summary.json"), "--summary-md", md)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr.String())
	}
	summary, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(summary), "\n") {
		if strings.HasPrefix(l, "Generated: ") {
			l = "Generated: (time)"
		}
		lines = append(lines, l)
	}
	got := strings.ReplaceAll("== stderr\n"+stderr.String()+"== summary.md\n"+strings.Join(lines, "\n"), dir, "DIR")
	golden := filepath.Join("testdata", "report-foreign-ids.golden")
	if *updateGolden {
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n%s", golden, got)
	}

	// The run record of the same suites counts every foreign row as
	// the row it is: each scenario passed once in each mode.
	rr := filepath.Join(dir, "run-record.json")
	cmd = exec.Command(bin, "report", "--suite-jsonl", adPath, "--suite-jsonl", ghxPath, "--skip-bad-rows",
		"--summary-json", filepath.Join(dir, "summary.json"), "--summary-md", md, "--run-record", rr)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("report --run-record: %v\n%s", err, out)
	}
	var rec struct {
		Modes []struct {
			Mode      string
			Scenarios []struct {
				ID     string
				Passed int
			}
		}
	}
	data, _ := os.ReadFile(rr)
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	for _, m := range rec.Modes {
		passed := map[string]int{}
		for _, sc := range m.Scenarios {
			passed[sc.ID] = sc.Passed
		}
		for _, id := range foreignIDs {
			if passed[id] != 1 {
				t.Errorf("run record %s: scenario %q passed %d times, want 1", m.Mode, id, passed[id])
			}
		}
	}
}

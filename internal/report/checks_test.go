package report

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/stats"
)

// TestChecksTableIsComplete: every check of the table has an ID in a
// known group, an operator, words for the verdict and the Markdown, and
// a statistical metric at most once, with the values it samples.
func TestChecksTableIsComplete(t *testing.T) {
	ids, metrics := map[string]bool{}, map[string]bool{}
	for i, c := range Checks() {
		where := fmt.Sprintf("Checks()[%d] %q", i, c.ID)
		if ids[c.ID] {
			t.Errorf("%s: the ID appears twice", where)
		}
		ids[c.ID] = true
		if g := c.Group(); g != "reliability" && g != "efficiency" {
			t.Errorf("%s: expected the ID to start with reliability_ or efficiency_, got group %q", where, g)
		}
		if c.Operator != ">=" && c.Operator != "<=" {
			t.Errorf("%s: expected operator >= or <=, got %q", where, c.Operator)
		}
		if c.Key == "" || c.value == nil || c.ThresholdKey == "" || c.threshold == nil {
			t.Errorf("%s: expected a Key with its value and a ThresholdKey with its threshold", where)
		}
		if c.Name == "" || c.Unit == "" {
			t.Errorf("%s: expected a Name and a Unit for the verdict, got %q, %q", where, c.Name, c.Unit)
		}
		if n := strings.Count(c.Snapshot, "%s"); n != 1 || strings.Count(c.Snapshot, "%")-2*strings.Count(c.Snapshot, "%%") != 1 {
			t.Errorf("%s: expected a Snapshot format with one %%s and no other verb, got %q", where, c.Snapshot)
		}
		if (c.StatsMetric == "") != (c.sample == nil) {
			t.Errorf("%s: a StatsMetric needs a sample and a sample a StatsMetric", where)
		}
		if c.StatsMetric != "" {
			if metrics[c.StatsMetric] {
				t.Errorf("%s: stats metric %q appears twice", where, c.StatsMetric)
			}
			metrics[c.StatsMetric] = true
		}
	}
	if len(metrics) == 0 {
		t.Error("expected some checks with a stats metric")
	}
}

// fillDistinct sets every float field of the struct v points to a value
// no other field has, starting at from.
func fillDistinct(v any, from float64) float64 {
	s := reflect.ValueOf(v).Elem()
	for i := 0; i < s.NumField(); i++ {
		switch f := s.Field(i); f.Kind() {
		case reflect.Float64:
			from++
			f.SetFloat(from)
		case reflect.Int:
			from++
			f.SetInt(int64(from))
		}
	}
	return from
}

// TestCheckValueIsItsJSONKey: each check's value is the figure its Key
// names in the summary JSON (gateV2.<group>.<Key>), so a value that
// reads another field, or a Key that is not in the JSON, fails.
func TestCheckValueIsItsJSONKey(t *testing.T) {
	rel, eff := &Reliability{}, &Efficiency{}
	fillDistinct(eff, fillDistinct(rel, 0))
	data, err := json.Marshal(GateV2{Reliability: rel, Efficiency: eff})
	if err != nil {
		t.Fatal(err)
	}
	var sections map[string]json.RawMessage
	if err := json.Unmarshal(data, &sections); err != nil {
		t.Fatal(err)
	}
	for _, c := range Checks() {
		var section map[string]float64
		if err := json.Unmarshal(sections[c.Group()], &section); err != nil {
			t.Fatalf("%s: gateV2.%s: %v", c.ID, c.Group(), err)
		}
		got, ok := section[c.Key]
		if !ok {
			t.Errorf("%s: Key %q is not a key of gateV2.%s", c.ID, c.Key, c.Group())
			continue
		}
		if v := c.value(rel, eff); v != got {
			t.Errorf("%s: value reads %v, but gateV2.%s.%s is %v", c.ID, v, c.Group(), c.Key, got)
		}
	}
}

// TestCheckThresholdIsItsKey: each check's ThresholdKey is a key the
// expectations decoder reads, and its threshold changes with that key's
// number and with no other.
func TestCheckThresholdIsItsKey(t *testing.T) {
	var base Thresholds
	fillDistinct(&base, 0)
	keys := map[string]int{}
	for _, f := range thresholdFields() {
		keys[thresholdKey(f)] = 0
	}
	for _, c := range Checks() {
		if _, ok := keys[c.ThresholdKey]; !ok {
			t.Errorf("%s: ThresholdKey %q is not an expectations key (a JSON tag of Thresholds)", c.ID, c.ThresholdKey)
			continue
		}
		keys[c.ThresholdKey]++
		for _, f := range thresholdFields() {
			th := base
			fv := reflect.ValueOf(&th).Elem().FieldByIndex(f.Index)
			if fv.Kind() == reflect.Int {
				fv.SetInt(fv.Int() + 100)
			} else {
				fv.SetFloat(fv.Float() + 100)
			}
			moved := c.threshold(th) != c.threshold(base)
			if k := thresholdKey(f); moved != (k == c.ThresholdKey) {
				t.Errorf("%s: changing %s moves the threshold: %v; expected it to move only for %s", c.ID, k, moved, c.ThresholdKey)
			}
		}
	}
	for k, n := range keys {
		if n > 1 {
			t.Errorf("expectations key %s is the threshold of %d checks, expected one", k, n)
		}
	}
}

// TestChecksAreTheGoldenChecks: the real suites' golden summary lists
// the table's checks in its order, each with the value its Key holds.
func TestChecksAreTheGoldenChecks(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(suitesDir(), "golden", "real-verify_pr.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		GateV2 struct {
			Reliability, Efficiency map[string]float64
			Checks                  []Check
		}
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	g := golden.GateV2
	var ids []string
	for _, c := range Checks() {
		ids = append(ids, c.ID)
	}
	var names []string
	for _, c := range g.Checks {
		names = append(names, c.Name)
	}
	if !slices.Equal(ids, names) {
		t.Fatalf("golden checks %v, table %v", names, ids)
	}
	for i, c := range Checks() {
		section := map[string]map[string]float64{"reliability": g.Reliability, "efficiency": g.Efficiency}[c.Group()]
		if v := section[c.Key]; v != g.Checks[i].Value || c.Operator != g.Checks[i].Operator {
			t.Errorf("%s: golden check %+v, but gateV2.%s.%s is %v (table operator %s)", c.ID, g.Checks[i], c.Group(), c.Key, v, c.Operator)
		}
	}
}

// TestStatsSampleIsTheCheckValue: in the scenarios scope each statistical
// check pairs the per-scenario medians of the values its sample picks;
// v2's value of the same check is the median of those pairs' reductions.
// A sample that picks another metric's values fails.
func TestStatsSampleIsTheCheckValue(t *testing.T) {
	res, _ := run(t, Options{SuitePaths: realSuites(), Gate: true, Stats: StatsOptions{Enabled: true, Scope: stats.ScopeScenarios}})
	if res == nil || res.Stats == nil {
		t.Fatal("expected a statistical gate")
	}
	var withMetric []string
	for _, c := range Checks() {
		if c.StatsMetric != "" {
			withMetric = append(withMetric, c.ID)
		}
	}
	var judged []string
	for _, e := range res.Stats.Efficiency {
		judged = append(judged, e.Check)
		spec, _ := CheckByID(e.Check)
		if e.Metric != spec.StatsMetric {
			t.Errorf("%s: metric %s, table %s", e.Check, e.Metric, spec.StatsMetric)
		}
		var red values
		for _, p := range e.Pairs {
			red.add(reduction(p.Base, p.Target))
		}
		if len(e.Pairs) == 0 || !approx(red.median(), e.V2Value) {
			t.Errorf("%s: median reduction of the %d pairs %v, v2 value %v", e.Check, len(e.Pairs), red.median(), e.V2Value)
		}
	}
	if !slices.Equal(judged, withMetric) {
		t.Errorf("statistical checks %v, expected the table's checks with a metric %v", judged, withMetric)
	}
	var kept []string
	for _, c := range res.Stats.Reliability {
		kept = append(kept, c.Name)
	}
	if len(kept)+len(judged) != len(Checks()) {
		t.Errorf("the statistical gate keeps %v and judges %v: expected every check once", kept, judged)
	}
}

// moduleRoot is the repository root, two levels above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// eachGoFile parses each Go file of the product under root (neither
// tests nor the test-support packages) and calls fn with its path
// relative to root, with slashes.
func eachGoFile(t *testing.T, root string, fn func(rel string, f *ast.File)) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || name == "testsupport" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fn(filepath.ToSlash(rel), f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// stringLiterals maps each string literal of the module's non-test Go
// files to the files (relative to the root) that hold it.
func stringLiterals(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	eachGoFile(t, root, func(rel string, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && !slices.Contains(out[s], rel) {
					out[s] = append(out[s], rel)
				}
			}
			return true
		})
	})
	return out
}

// TestCheckIDsOnlyInTable: no Go code outside the table spells a check's
// ID, so no second list of checks can fall out of step with it: the gate,
// the statistical gate, the Markdown and the Action's verdict all read
// Checks.
func TestCheckIDsOnlyInTable(t *testing.T) {
	lits := stringLiterals(t, moduleRoot(t))
	for _, c := range Checks() {
		if files := lits[c.ID]; !slices.Equal(files, []string{"internal/report/checks.go"}) {
			t.Errorf("%s: spelled in %v; expected only in internal/report/checks.go", c.ID, files)
		}
	}
}

// TestDocsListEveryCheck: docs/report.md's table of checks has one row
// per check, in the table's order, with the check's rule.
func TestDocsListEveryCheck(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| (\\d+) \\| `([a-z_]+)` \\| [^|]+ \\| `([<>]=) (-?)([A-Za-z]+)` \\|$")
	rows := row.FindAllStringSubmatch(string(data), -1)
	checks := Checks()
	if len(rows) != len(checks) {
		t.Fatalf("docs/report.md lists %d checks, the table has %d", len(rows), len(checks))
	}
	var th Thresholds
	fillDistinct(&th, 0)
	for i, c := range checks {
		sign := ""
		if c.threshold(th) < 0 {
			sign = "-"
		}
		wantRow := []string{strconv.Itoa(i + 1), c.ID, c.Operator, sign, c.ThresholdKey}
		if !slices.Equal(rows[i][1:], wantRow) {
			t.Errorf("docs/report.md check row %d: got %v, expected %v", i+1, rows[i][1:], wantRow)
		}
	}
	if want := fmt.Sprintf("The %s checks, always in this order", spelled(len(checks))); !strings.Contains(string(data), want) {
		t.Errorf("docs/report.md: expected %q", want)
	}
}

func spelled(n int) string {
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	if n < len(words) {
		return words[n]
	}
	return strconv.Itoa(n)
}

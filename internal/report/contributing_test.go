package report

import (
	"go/ast"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// gateCheckSection is the "Adding a gate check" section of CONTRIBUTING.md.
func gateCheckSection(t *testing.T, root string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	const heading = "## Adding a gate check\n"
	_, section, ok := strings.Cut(string(data), heading)
	if !ok {
		t.Fatalf("CONTRIBUTING.md: expected a section %q", strings.TrimSpace(heading))
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	return section
}

// goFieldByTag is the name of the field of struct type typ whose JSON
// key is key.
func goFieldByTag(typ reflect.Type, key string) string {
	for _, f := range reflect.VisibleFields(typ) {
		if k, _, _ := strings.Cut(f.Tag.Get("json"), ","); k == key {
			return f.Name
		}
	}
	return ""
}

// TestContributingGateCheck keeps CONTRIBUTING.md's "Adding a gate check"
// honest. Its steps are at most three; each file it names exists; each
// identifier it names is declared in this package (a Test in its tests);
// it names every field of CheckSpec; and the Go files that name a check's
// figures (the fields of its value and its threshold) are among the files
// its steps list, with the check's ID spelled in the table's file only
// (TestCheckIDsOnlyInTable): adding a check touches the places it lists.
func TestContributingGateCheck(t *testing.T) {
	root := moduleRoot(t)
	section := gateCheckSection(t, root)

	steps := regexp.MustCompile(`(?m)^\d+\. `).FindAllStringIndex(section, -1)
	if len(steps) == 0 || len(steps) > 3 {
		t.Fatalf("expected one to three numbered steps, got %d", len(steps))
	}
	// The files the steps (not the paragraphs after them) name.
	stepsText := section[steps[0][0]:]
	if i := strings.Index(stepsText, "\n\n"); i >= 0 {
		stepsText = stepsText[:i]
	}

	// What this package declares: types, functions, methods
	// (Type.method), and CheckSpec's fields.
	decls, tests := map[string]bool{}, map[string]bool{}
	var specFields []string
	eachGoFile(t, root, func(rel string, f *ast.File) {
		if filepath.Dir(rel) != "internal/report" {
			return
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil && len(d.Recv.List) == 1 {
					typ := d.Recv.List[0].Type
					if star, ok := typ.(*ast.StarExpr); ok {
						typ = star.X
					}
					if id, ok := typ.(*ast.Ident); ok {
						name = id.Name + "." + name
					}
				}
				decls[name] = true
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok {
						continue
					}
					decls[ts.Name.Name] = true
					if st, ok := ts.Type.(*ast.StructType); ok && ts.Name.Name == "CheckSpec" {
						for _, fld := range st.Fields.List {
							for _, n := range fld.Names {
								specFields = append(specFields, n.Name)
							}
						}
					}
				}
			}
		}
	})
	testFiles, _ := filepath.Glob("*_test.go")
	more, _ := filepath.Glob(filepath.Join("..", "baseline", "*_test.go"))
	testFiles = append(testFiles, more...)
	for _, p := range testFiles {
		data, _ := os.ReadFile(p)
		for _, m := range regexp.MustCompile(`(?m)^func (Test\w+)\(`).FindAllStringSubmatch(string(data), -1) {
			tests[m[1]] = true
		}
	}
	if len(specFields) == 0 {
		t.Fatal("no CheckSpec struct in internal/report")
	}

	ident := regexp.MustCompile(`^[A-Za-z]\w*(\.[A-Za-z]\w*)?$`)
	var stepFiles []string
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatchIndex(section, -1) {
		tok := section[m[2]:m[3]]
		named[tok] = true
		switch {
		case strings.HasPrefix(tok, "internal/") || strings.HasPrefix(tok, "docs/"):
			if _, err := os.Stat(filepath.Join(root, tok)); err != nil {
				t.Errorf("names %s, which does not exist", tok)
			}
			if strings.HasSuffix(tok, ".go") && !strings.HasSuffix(tok, "_test.go") && m[0] >= steps[0][0] && m[0] < steps[0][0]+len(stepsText) && !slices.Contains(stepFiles, tok) {
				stepFiles = append(stepFiles, tok)
			}
		case strings.HasPrefix(tok, "Test"):
			if !tests[tok] {
				t.Errorf("names %s, which is not a test of internal/report or internal/baseline", tok)
			}
		case ident.MatchString(tok):
			if !decls[tok] && !slices.Contains(specFields, tok) {
				t.Errorf("names %s, which internal/report does not declare (nor is it a field of CheckSpec)", tok)
			}
		}
	}
	for _, f := range specFields {
		if !named[f] {
			t.Errorf("does not name CheckSpec's field %s", f)
		}
	}
	if len(stepFiles) > 3 {
		t.Errorf("its steps name %d Go files outside tests %v, expected at most three", len(stepFiles), stepFiles)
	}

	// The Go files that name each check's value field and threshold
	// field must be among the files the steps list.
	idents := map[string][]string{}
	eachGoFile(t, root, func(rel string, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && !slices.Contains(idents[id.Name], rel) {
				idents[id.Name] = append(idents[id.Name], rel)
			}
			return true
		})
	})
	for _, c := range Checks() {
		typ := reflect.TypeFor[Reliability]()
		if c.Group() == "efficiency" {
			typ = reflect.TypeFor[Efficiency]()
		}
		for _, field := range []string{goFieldByTag(typ, c.Key), goFieldByTag(reflect.TypeFor[Thresholds](), c.ThresholdKey)} {
			if field == "" {
				t.Errorf("%s: no field for its Key %s or ThresholdKey %s", c.ID, c.Key, c.ThresholdKey)
				continue
			}
			for _, file := range idents[field] {
				if !slices.Contains(stepFiles, file) {
					t.Errorf("%s: %s names its field %s, but the steps list only %v", c.ID, file, field, stepFiles)
				}
			}
		}
	}
}

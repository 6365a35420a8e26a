package action

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/failcode"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestContributingSections keeps CONTRIBUTING.md's "Adding an Action
// input" and "Adding a failure code" true: each lists at most three
// places; the files it names exist; every Go identifier it names (Table,
// failcode.Code, a test) is declared in the packages of those files; and
// each `go generate` command it names is the generator that writes the
// generated parts of the files it says are generated.
func TestContributingSections(t *testing.T) {
	root := testenv.RepoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	generators := map[string]func(string) (map[string][]byte, error){
		"go generate ./internal/action":   GeneratedFiles,
		"go generate ./internal/failcode": failcode.GeneratedFiles,
	}
	for _, title := range []string{"Adding an Action input", "Adding a failure code"} {
		t.Run(title, func(t *testing.T) {
			sec := section(t, string(b), title)
			if n := len(regexp.MustCompile(`(?m)^\d+\. `).FindAllString(sec, -1)); n == 0 || n > 3 {
				t.Errorf("%d places listed, want one to three", n)
			}
			// Files, and the packages whose identifiers the section may name.
			pkgs := map[string]bool{}
			for _, p := range regexp.MustCompile("(?:internal/[a-z/_]+\\.go|docs/[a-z]+\\.md|action\\.yml)").FindAllString(sec, -1) {
				if _, err := os.Stat(filepath.Join(root, p)); err != nil {
					t.Errorf("names %s: %v", p, err)
				}
				if strings.HasSuffix(p, ".go") {
					pkgs[filepath.Dir(p)] = true
				}
			}
			decl := map[string]bool{}
			for dir := range pkgs {
				declared(t, filepath.Join(root, dir), filepath.Base(dir), decl)
			}
			for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(sec, -1) {
				word := m[1]
				switch {
				case generators[word] != nil:
					checkGenerator(t, root, word, sec, generators[word])
				case regexp.MustCompile(`^[a-z]+\.[A-Z]\w*$`).MatchString(word):
					pkg, _, _ := strings.Cut(word, ".")
					declared(t, filepath.Join(root, "internal", pkg), pkg, decl)
					if !decl[word] {
						t.Errorf("names %s, which internal/%s does not declare", word, pkg)
					}
				case strings.HasPrefix(word, "go generate"):
					t.Errorf("names %q, which is not a generator this test knows", word)
				case regexp.MustCompile(`^[A-Z]\w*$`).MatchString(word):
					if !decl[word] {
						t.Errorf("names %s, which none of the packages it names declares", word)
					}
				}
			}
		})
	}
}

// section is the text under "## title" up to the next "## ".
func section(t *testing.T, doc, title string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n## "+title+"\n")
	if !ok {
		t.Fatalf("CONTRIBUTING.md has no section %q", title)
	}
	sec, _, _ := strings.Cut(rest, "\n## ")
	return sec
}

// declared adds the names the Go files of dir declare (top-level names,
// methods, struct fields, tests) to decl, both bare and as pkg.Name.
func declared(t *testing.T, dir, pkg string, decl map[string]bool) {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	add := func(n string) { decl[n], decl[pkg+"."+n] = true, true }
	for _, p := range pkgs {
		for _, f := range p.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncDecl:
					add(n.Name.Name)
				case *ast.TypeSpec:
					add(n.Name.Name)
				case *ast.ValueSpec:
					for _, id := range n.Names {
						add(id.Name)
					}
				case *ast.Field:
					for _, id := range n.Names {
						add(id.Name)
					}
				}
				return true
			})
		}
	}
}

// checkGenerator: the package the command runs in has a go:generate line,
// and every file the section names whose generated part names the
// command is one its generator writes.
func checkGenerator(t *testing.T, root, cmd, sec string, gen func(string) (map[string][]byte, error)) {
	t.Helper()
	dir := strings.TrimPrefix(cmd, "go generate ./")
	files, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
	directive := false
	for _, f := range files {
		b, _ := os.ReadFile(f)
		directive = directive || strings.Contains(string(b), "\n//go:generate ")
	}
	if !directive {
		t.Errorf("%s: %s has no //go:generate line", cmd, dir)
	}
	written, err := gen(root)
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, p := range regexp.MustCompile(`docs/[a-z]+\.md|action\.yml`).FindAllString(sec, -1) {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil || !strings.Contains(string(b), "by `"+cmd+"`") {
			continue
		}
		marked++
		if written[p] == nil {
			t.Errorf("%s says %s writes it, but that generator writes only %v", p, cmd, keys(written))
		}
	}
	if marked == 0 {
		t.Errorf("no file the section names says %s writes it", cmd)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

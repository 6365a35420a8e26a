package cli

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestQAAuditCorePackagesNameNoFlag reads every string in the packages
// qa-audit runs (the audit, its sandbox and pipeline, the model backend)
// and requires that none names a qa-audit flag: the packages name an
// option by its key and the command line renames it to its flag, so the
// same packages serve the command line and any other caller.
func TestQAAuditCorePackagesNameNoFlag(t *testing.T) {
	var help bytes.Buffer
	runQAAudit(context.Background(), &Env{Stdout: &help, Stderr: &help}, []string{"--help"})
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z][a-z-]*)`).FindAllStringSubmatch(help.String(), -1) {
		flags[m[1]] = true
	}
	if !flags["python"] || !flags["kinds"] || !flags["model-url"] {
		t.Fatalf("flags read from --help: %v\n%s", flags, help.String())
	}
	named := regexp.MustCompile(`--([a-z][a-z-]*)`)
	root := testenv.RepoRoot(t)
	for _, dir := range []string{"internal/qaaudit", "internal/llm"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				for _, m := range named.FindAllStringSubmatch(s, -1) {
					if flags[m[1]] {
						t.Errorf("%s: %q names the flag --%s", fset.Position(lit.Pos()), s, m[1])
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

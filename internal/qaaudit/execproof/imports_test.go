package execproof

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoModelPathImportsNoModel: the execution proofs, which run with no
// model, and the result types they share with the agent pipeline import
// neither the pipeline nor a model package; a prover reaches them through
// the ClaimProver interface.
func TestNoModelPathImportsNoModel(t *testing.T) {
	for _, dir := range []string{".", "../caseresult"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range file.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if strings.HasSuffix(path, "/qaaudit/pipeline") || strings.HasSuffix(path, "/internal/llm") || strings.HasPrefix(path, "google.golang.org/adk") {
					t.Errorf("%s imports %s", f, path)
				}
			}
		}
	}
}

package questions

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestSnippetRefsResolveFromTheRepositoryRoot(t *testing.T) {
	repo := filepath.Join("testdata", "repo")
	yamlPath := filepath.Join(repo, "benchmarks", "benchmark_definitions", "diagnose_setup_errors_mc", "benchmark.yaml")
	tests := []struct {
		name string
		opts Options
	}{
		{"found by walking up from the file", Options{}},
		{"explicit root", Options{SnippetRoot: repo}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Load(yamlPath, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			c, _ := f.Case("diagnose_setup_errors_mc:missing_model_arg")
			want := "from google.adk.agents import LlmAgent\n\nagent = LlmAgent(\n    name=\"assistant\",\n    instruction=\"Help the user.\",\n)\n"
			if c.CodeSnippet != want {
				t.Errorf("snippet = %q, want %q", c.CodeSnippet, want)
			}
			if !strings.HasSuffix(c.SnippetRef.Path, "snippets.py") || c.SnippetRef.Section != "missing_model_arg" {
				t.Errorf("ref = %+v", c.SnippetRef)
			}
			r, _ := f.Case("diagnose_setup_errors_mc:raw_function_tool")
			if !strings.HasPrefix(r.CodeSnippet, "def calculate_tax(") || strings.Contains(r.CodeSnippet, "assert") {
				t.Errorf("raw_function_tool snippet = %q", r.CodeSnippet)
			}
			wantProblems := map[string]string{
				"diagnose_setup_errors_mc:missing_section": "code_snippet_ref.section",
				"diagnose_setup_errors_mc:missing_file":    "code_snippet_ref.file",
			}
			if len(f.Problems) != len(wantProblems) {
				t.Fatalf("problems = %v", f.Problems)
			}
			for _, p := range f.Problems {
				if wantProblems[p.CaseID] != p.Field || p.Line == 0 {
					t.Errorf("problem %s", p)
				}
			}
		})
	}
}

func TestExtractSection(t *testing.T) {
	tests := []struct {
		name, src, section, want, err string
	}{
		{"indented", "def t():\n    # --8<-- [start:s]\n    x = 1\n\n        y = 2\n    # --8<-- [end:s]\n", "s", "x = 1\n\n    y = 2\n", ""},
		{"top level", "# --8<-- [start:s]\nimport os\n# --8<-- [end:s]\n", "s", "import os\n", ""},
		{"other section ignored", "# --8<-- [start:a]\nA\n# --8<-- [end:a]\n# --8<-- [start:b]\nB\n# --8<-- [end:b]\n", "b", "B\n", ""},
		{"missing", "x\n", "s", "", "start marker"},
		{"unclosed runs to the end", "# --8<-- [start:s]\nx\n", "s", "x\n", "never closed"},
		{"markers of another section inside", "# --8<-- [start:s]\nx\n# --8<-- [start:t]\ny\n# --8<-- [end:t]\n# --8<-- [end:s]\n", "s", "x\ny\n", ""},
		{"twice", "# --8<-- [start:s]\n# --8<-- [end:s]\n# --8<-- [start:s]\n", "s", "", "starts twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExtractSection([]byte(tt.src), tt.section)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				if got != tt.want {
					t.Errorf("got %q with the error, want %q", got, tt.want)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestSnippetPathMayNotEscape(t *testing.T) {
	src := "benchmarks:\n- id: s:a\n  question: Q\n  code_snippet_ref: {file: ../../etc/passwd, section: x}\n  options: {A: a}\n  correct_answer: A\n"
	f, err := Parse(filepath.Join(t.TempDir(), "s.yaml"), []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Problems) != 1 || f.Problems[0].Field != "code_snippet_ref.file" || !strings.Contains(f.Problems[0].Message, "relative path inside") {
		t.Fatalf("problems = %v", f.Problems)
	}
}

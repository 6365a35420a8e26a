package execproof

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func apiCase(t *testing.T, fqns string, answer string) *questions.Case {
	t.Helper()
	src := "benchmarks:\n- id: c\n  question: q\n  benchmark_type: api_understanding\n  answers:\n  - answer_template: StringMatchAnswer\n    answer: " + answer + "\n    fully_qualified_class_name: " + fqns + "\n"
	f, err := questions.Parse("q.yaml", []byte(src), questions.Options{})
	if err != nil || len(f.Problems) > 0 {
		t.Fatalf("%v %v", err, f.Problems)
	}
	return f.Cases()[0]
}

// TestResolutionTellsMissingNamesFromBrokenEnvironments runs the generated
// resolver against a package written for the test: only a name whose
// parent imports and lacks it is Incorrect; a dependency the package
// cannot import is the environment's problem.
func TestResolutionTellsMissingNamesFromBrokenEnvironments(t *testing.T) {
	py := testenv.Python(t)
	lib := t.TempDir()
	writeFiles(t, lib, map[string]string{
		"benchpkg/__init__.py":        "from benchpkg.agents import Agent\n",
		"benchpkg/agents.py":          "class Agent:\n    tools: list\n\n    def __init__(self, name, model=None):\n        self.name = name\n",
		"benchpkg/needs_dep.py":       "import benchgate_missing_dependency\n\nclass Thing:\n    pass\n",
		"benchpkg/raises.py":          "raise RuntimeError('broken at import')\n",
		"benchpkg/sub/__init__.py":    "",
		"benchpkg/sub/deeper.py":      "class Deep:\n    pass\n",
		"benchpkg_broken/__init__.py": "import benchgate_missing_dependency\n",
		"nsbench/present.py":          "class Here:\n    pass\n",
	})
	tests := []struct {
		name, fqns, answer string
		want               verdict.Verdict
		message            string
	}{
		{"attribute of package", "[benchpkg.Agent, benchpkg.agents.Agent]", "Agent", verdict.Valid, ""},
		{"submodule not yet imported", "[benchpkg.sub.deeper.Deep]", "Deep", verdict.Valid, ""},
		{"answer is a parameter", "[benchpkg.Agent]", "model", verdict.Valid, ""},
		{"answer is an annotation", "[benchpkg.Agent]", "tools", verdict.Valid, ""},
		{"missing class in module", "[benchpkg.agents.Runner]", "Runner", verdict.Incorrect, "benchpkg.agents has no attribute or submodule Runner"},
		{"attribute of a class", "[benchpkg.Agent.nothing]", "nothing", verdict.Incorrect, "benchpkg.Agent exists but has no attribute nothing"},
		{"missing dependency", "[benchpkg.needs_dep.Thing]", "Thing", verdict.Inconclusive, "needs benchgate_missing_dependency"},
		{"module raises on import", "[benchpkg.raises.X]", "X", verdict.Inconclusive, "RuntimeError"},
		{"top-level package broken", "[benchpkg_broken.X]", "X", verdict.Inconclusive, "top-level package benchpkg_broken is not importable"},
		{"namespace portion present", "[nsbench.present.Here]", "Here", verdict.Valid, ""},
		{"namespace portion not installed", "[nsbench.absent.Thing]", "Thing", verdict.Inconclusive, "namespace package nsbench has no absent"},
		{"not a dotted name", "['benchpkg.Agent()']", "Agent", verdict.Incorrect, "not a dotted Python name"},
	}
	a := &Auditor{Runner: sandbox.Runner{Python: py, Env: []string{"PYTHONPATH=" + lib}}, WorkDir: t.TempDir()}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := a.AuditCase(context.Background(), apiCase(t, tt.fqns, tt.answer))
			if r.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s: %+v", r.Verdict, tt.want, r.Attempts)
			}
			msg := ""
			for _, o := range r.Attempts[0].Options {
				msg += o.Message + "\n"
			}
			if !strings.Contains(msg, tt.message) {
				t.Errorf("messages %q, want %q", msg, tt.message)
			}
			if r.DurationMS <= 0 && tt.name != "not a dotted name" {
				t.Errorf("duration %d ms", r.DurationMS)
			}
		})
	}
}

func TestFixErrorPathsStayUnderTheRoot(t *testing.T) {
	py := testenv.Python(t)
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	writeFiles(t, base, map[string]string{
		"outside.py":                  "def add(a, b):\n    return a + b\n",
		"repo/cases/01/test_agent.py": "def test_add():\n    import fixed\n    assert fixed.add(1, 2) == 3\n",
		"repo/cases/01/fixed.py":      "def add(a, b):\n    return a + b\n",
		"repo/cases/01/unfixed.py":    "def add(a, b):\n    return 0\n",
	})
	if err := os.Symlink(filepath.Join(base, "outside.py"), filepath.Join(root, "cases", "01", "link.py")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, unfixed, field, message string
	}{
		{"relative escape", "../outside.py", "unfixed_file", "path leaves the repository root"},
		{"absolute", filepath.Join(base, "outside.py"), "unfixed_file", "expected a path relative to the repository root"},
		{"symbolic link", "cases/01/link.py", "unfixed_file", "through a symbolic link"},
		{"missing field", "", "unfixed_file", "missing or empty"},
		{"within the root", "cases/01/unfixed.py", "", ""},
	}
	a := &Auditor{Runner: sandbox.Runner{Python: py}, WorkDir: t.TempDir(), RepoRoot: root}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "benchmarks:\n- id: c\n  benchmark_type: fix_error\n  test_file: cases/01/test_agent.py\n  unfixed_file: '" + tt.unfixed + "'\n  fixed_file: cases/01/fixed.py\n"
			f, err := questions.Parse("q.yaml", []byte(src), questions.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := a.AuditCase(context.Background(), f.Cases()[0])
			if tt.field == "" {
				if r.Verdict != verdict.Valid || len(r.Problems) > 0 {
					t.Fatalf("verdict %s, problems %v; want Valid", r.Verdict, r.Problems)
				}
				return
			}
			if r.Verdict != verdict.Inconclusive || len(r.Problems) != 1 || r.Problems[0].Field != tt.field || !strings.Contains(r.Problems[0].Message, tt.message) {
				t.Fatalf("verdict %s, problems %+v; want Inconclusive with %s: %q", r.Verdict, r.Problems, tt.field, tt.message)
			}
			for _, o := range r.Attempts[0].Options {
				if o.Outcome != "" || o.TestPath != "" {
					t.Errorf("check %s ran although a path was refused: %+v", o.Option, o)
				}
			}
		})
	}
}

func TestSandboxFailureIsAnAuditError(t *testing.T) {
	f := loadCases(t)
	c, _ := f.Case("stdlib:json_decoder")
	a := &Auditor{Runner: sandbox.Runner{Python: filepath.Join(t.TempDir(), "no-python")}, WorkDir: t.TempDir()}
	r := a.AuditCase(context.Background(), c)
	if r.Verdict != verdict.Inconclusive || len(r.Attempts) != 1 || !strings.Contains(r.Attempts[0].Error, "no-python") {
		t.Errorf("verdict %s, attempts %+v", r.Verdict, r.Attempts)
	}
}

// TestRealBenchmarkWithoutTheLibrary audits the upstream mixed suite in a
// Python without google-adk: the api_understanding case must not be called
// Incorrect (google is a namespace package other distributions install),
// and the fix_error case, whose files are not in this repository, is
// Inconclusive with the missing files as problems.
func TestRealBenchmarkWithoutTheLibrary(t *testing.T) {
	py := testenv.Python(t)
	f, err := questions.Load(filepath.Join(testenv.RepoRoot(t), "testdata", "adk", "debug_suite.benchmark.yaml"), questions.Options{SkipSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	lib := t.TempDir()
	writeFiles(t, lib, map[string]string{"google/protobuf_like.py": "X = 1\n"}) // makes google a namespace package
	a := &Auditor{Runner: sandbox.Runner{Python: py, Env: []string{"PYTHONPATH=" + lib}}, WorkDir: t.TempDir(), RepoRoot: t.TempDir()}
	want := map[string]int{"debug_suite:api_understanding_base_agent": 0, "debug_suite:fix_error_logic_agent": 3}
	for id, problems := range want {
		c, ok := f.Case(id)
		if !ok {
			t.Fatalf("no case %s", id)
		}
		r := a.AuditCase(context.Background(), c)
		if r.Verdict != verdict.Inconclusive || !r.NeedsHumanReview || len(r.Problems) != problems {
			t.Errorf("%s: verdict %s, problems %+v, attempts %+v", id, r.Verdict, r.Problems, r.Attempts)
		}
		if problems == 0 && !strings.Contains(r.Attempts[0].Options[0].Message, "namespace package google has no adk") {
			t.Errorf("%s: checks %+v", id, r.Attempts[0].Options)
		}
	}
}

func TestFixErrorTimeoutIsInconclusive(t *testing.T) {
	py := testenv.Python(t)
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"cases/01/test_agent.py": "def test_add():\n    import fixed\n    assert fixed.add(1, 2) == 3\n",
		"cases/01/unfixed.py":    "def add(a, b):\n    return 0\n",
		"cases/01/fixed.py":      "import time\n\n\ndef add(a, b):\n    time.sleep(60)\n    return a + b\n",
	})
	src := "benchmarks:\n- id: c\n  benchmark_type: fix_error\n  test_file: cases/01/test_agent.py\n  unfixed_file: cases/01/unfixed.py\n  fixed_file: cases/01/fixed.py\n"
	f, err := questions.Parse("q.yaml", []byte(src), questions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := &Auditor{Runner: sandbox.Runner{Python: py, Timeout: 10 * time.Second}, WorkDir: t.TempDir(), RepoRoot: root}
	r := a.AuditCase(context.Background(), f.Cases()[0])
	if r.Verdict != verdict.Inconclusive || len(r.Attempts[0].Options) != 2 {
		t.Fatalf("verdict %s: %+v", r.Verdict, r.Attempts)
	}
	un, fx := r.Attempts[0].Options[0], r.Attempts[0].Options[1]
	if un.Truth != verdict.True || fx.Outcome != string(sandbox.StatusTimeout) || fx.Truth != verdict.Unknown {
		t.Errorf("unfixed %+v, fixed %+v", un, fx)
	}
}

func TestAnswerWithoutNamesIsAProblem(t *testing.T) {
	src := "benchmarks:\n- id: c\n  question: q\n  benchmark_type: api_understanding\n  answers:\n  - answer_template: StringMatchAnswer\n    answer: X\n"
	f, err := questions.Parse("q.yaml", []byte(src), questions.Options{})
	if err != nil || len(f.Problems) > 0 {
		t.Fatal(err, f.Problems)
	}
	a := &Auditor{Runner: sandbox.Runner{Python: "python3-not-needed"}, WorkDir: t.TempDir()}
	r := a.AuditCase(context.Background(), f.Cases()[0])
	if r.Verdict != verdict.Inconclusive || !r.NeedsHumanReview || len(r.Problems) != 1 || r.Problems[0].Field != "answers[0].fully_qualified_class_name" || r.Problems[0].Line != 5 {
		t.Fatalf("verdict %s, problems %+v", r.Verdict, r.Problems)
	}
	if at := r.Attempts[0]; at.Error != "" || at.Decision == nil || !strings.Contains(at.Decision.Reason, "nothing to check") {
		t.Errorf("attempt %+v", at)
	}
}

// TestFixErrorMissingLibraryIsNotEvidence separates a library that is not
// installed (the environment) from a name the installed library lacks
// (drift, evidence).
func TestFixErrorMissingLibraryIsNotEvidence(t *testing.T) {
	py := testenv.Python(t)
	lib := t.TempDir()
	writeFiles(t, lib, map[string]string{"nsbench/present.py": "X = 1\n"})
	test := "def test_add():\n    import fixed\n    assert fixed.add(1, 2) == 3\n\n\ndef test_other():\n    assert True\n"
	tests := []struct {
		name, fixed string
		want        verdict.Verdict
		fixedTruth  verdict.Truth
		message     string
	}{
		{"package not installed", "import benchgate_not_installed_pkg\n\n\ndef add(a, b):\n    return a + b\n", verdict.Inconclusive, verdict.Unknown, "benchgate_not_installed_pkg is not installed"},
		{"namespace portion not installed", "import nsbench.absent\n\n\ndef add(a, b):\n    return a + b\n", verdict.Inconclusive, verdict.Unknown, "nsbench.absent is not installed"},
		{"name missing from installed library", "from json import NoSuchDecoder\n\n\ndef add(a, b):\n    return a + b\n", verdict.Incorrect, verdict.False, "cannot import name"},
		{"submodule missing from installed package", "import json.nosuch\n\n\ndef add(a, b):\n    return a + b\n", verdict.Incorrect, verdict.False, "json.nosuch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, map[string]string{
				"cases/01/test_agent.py": test,
				"cases/01/unfixed.py":    "def add(a, b):\n    return 0\n",
				"cases/01/fixed.py":      tt.fixed,
			})
			src := "benchmarks:\n- id: c\n  benchmark_type: fix_error\n  test_file: cases/01/test_agent.py\n  unfixed_file: cases/01/unfixed.py\n  fixed_file: cases/01/fixed.py\n"
			f, err := questions.Parse("q.yaml", []byte(src), questions.Options{})
			if err != nil {
				t.Fatal(err)
			}
			a := &Auditor{Runner: sandbox.Runner{Python: py, Env: []string{"PYTHONPATH=" + lib}}, WorkDir: t.TempDir(), RepoRoot: root}
			r := a.AuditCase(context.Background(), f.Cases()[0])
			if r.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s: %+v", r.Verdict, tt.want, r.Attempts)
			}
			fx := r.Attempts[0].Options[1]
			if fx.Truth != tt.fixedTruth || !strings.Contains(fx.Message, tt.message) {
				t.Errorf("fixed check %+v, want %s with %q", fx, tt.fixedTruth, tt.message)
			}
		})
	}
}

// TestFixErrorTestImportsHelpersFromTheRepository mirrors upstream tests,
// which import shared helpers from the repository root at the top.
func TestFixErrorTestImportsHelpersFromTheRepository(t *testing.T) {
	py := testenv.Python(t)
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"helpers/__init__.py":    "",
		"helpers/consts.py":      "EXPECTED = 3\n",
		"fixed.py":               "def add(a, b):\n    return 'the root copy must not be imported'\n",
		"cases/01/test_agent.py": "from helpers.consts import EXPECTED\n\n\ndef test_add():\n    import fixed\n    assert fixed.add(1, 2) == EXPECTED\n",
		"cases/01/unfixed.py":    "def add(a, b):\n    return 0\n",
		"cases/01/fixed.py":      "def add(a, b):\n    return a + b\n",
	})
	src := "benchmarks:\n- id: c\n  benchmark_type: fix_error\n  test_file: cases/01/test_agent.py\n  unfixed_file: cases/01/unfixed.py\n  fixed_file: cases/01/fixed.py\n"
	f, err := questions.Parse("q.yaml", []byte(src), questions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := &Auditor{Runner: sandbox.Runner{Python: py, Env: []string{"PYTHONPATH=" + t.TempDir()}}, WorkDir: t.TempDir(), RepoRoot: root}
	if r := a.AuditCase(context.Background(), f.Cases()[0]); r.Verdict != verdict.Valid {
		t.Fatalf("verdict %s: %+v", r.Verdict, r.Attempts)
	}
}

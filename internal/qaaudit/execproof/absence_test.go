package execproof

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/qaaudit/caseresult"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestAbsenceFromDirIsNotProof covers the names dir() does not list but
// that exist all the same: attributes set in __init__, keywords a
// function takes through **kwargs (read from them or forwarded; a docstring is no evidence). None of them
// may be called Incorrect; a name that is provably absent still is. The
// truth of each was checked by hand against the standard library.
func TestAbsenceFromDirIsNotProof(t *testing.T) {
	python := testenv.Python(t)
	tests := []struct {
		id, fqn, answer string
		want            verdict.Verdict
		reason          string // substring of the case reason
		question        string // "" words no kind: "q"
	}{
		{"t:jsonerr_lineno", "json.JSONDecodeError", "lineno", verdict.Valid, "", ""},
		{"t:logrecord_levelname", "logging.LogRecord", "levelname", verdict.Valid, "", ""},
		{"t:basicconfig_format", "logging.basicConfig", "format", verdict.Valid, "", ""},
		{"t:add_argument_help", "argparse.ArgumentParser.add_argument", "help", verdict.Inconclusive, "takes **kwargs, so help may be a keyword it forwards", ""},
		{"t:decoder_keyword", "json.decoder.JSONDecoder", "object_hook", verdict.Valid, "", ""},
		{"t:decoder_wrong", "json.decoder.JSONDecoder", "parse_lazily", verdict.Incorrect, "proven false", ""},
		// subprocess.run passes its **kwargs to Popen, whose parameters
		// are known: a keyword of Popen is one of run's, a name that is
		// none is provably not.
		{"t:run_forwards_cwd", "subprocess.run", "cwd", verdict.Valid, "", ""},
		{"t:run_reads_stdin", "subprocess.run", "stdin", verdict.Valid, "", ""},
		{"t:run_no_such_keyword", "subprocess.run", "working_folder", verdict.Incorrect, "proven false", "Which keyword argument of subprocess.run sets the working folder?"},
		// A question that names no kind may mean an attribute of what the
		// function returns: its world is open, so absence proves nothing.
		{"t:run_no_such_name", "subprocess.run", "working_folder", verdict.Inconclusive, "what it returns or decorates", ""},
		// basicConfig tests "if kwargs:", a use that cannot be followed.
		{"t:basicconfig_unknown", "logging.basicConfig", "colour", verdict.Inconclusive, "cannot be followed", ""},
		// json.dump passes **kw to cls(...), a parameter whose default is
		// None and which the body sets to JSONEncoder: its keywords are
		// known, and parse_float (a keyword of json.load) is none of them.
		{"t:dump_forwards_to_a_parameter", "json.dump", "parse_float", verdict.Incorrect, "parse_float", "Which parameter of json.dump parses floats?"},
		{"t:dump_forwards_indent", "json.dump", "indent", verdict.Valid, "", ""},
	}
	var cases []bankCase
	for _, tc := range tests {
		cases = append(cases, bankCase{id: tc.id, question: question(tc.question), answer: tc.answer, fqn: tc.fqn})
	}
	audit := apiBank(t, python, "absence", cases)
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			r, reason := audit(t, tc.id)
			if r.Verdict != tc.want {
				t.Fatalf("verdict %s (%s), want %s", r.Verdict, reason, tc.want)
			}
			if !strings.Contains(reason, tc.reason) {
				t.Errorf("reason %q does not contain %q", reason, tc.reason)
			}
		})
	}
}

// fakePydantic stands for a pydantic v2 model (which cannot be installed
// here): keywords reach __init__ through **data, and are exactly the
// fields (or their aliases) unless extra keywords are allowed.
const fakePydantic = `class FieldInfo:
    def __init__(self, alias=None):
        self.alias = alias
        self.validation_alias = None


class BaseModel:
    model_fields = {}
    model_config = {}

    def __init__(self, **data):
        self.__validate(data)

    def __validate(self, data):
        pass


class Agent(BaseModel):
    model_fields = {"name": FieldInfo(), "sub_agents": FieldInfo(alias="children")}
    model_config = {"extra": "forbid"}


class Open(BaseModel):
    model_fields = {"name": FieldInfo()}
    model_config = {"extra": "allow"}
`

// TestPydanticFieldsDecideKeywords checks that a pydantic model's
// keywords are its fields: a field or alias is present, another name is
// provably absent, unless the model allows extra keywords.
func TestPydanticFieldsDecideKeywords(t *testing.T) {
	python := testenv.Python(t)
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, "fakepydantic.py"), []byte(fakePydantic), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id, fqn, answer string
		want            verdict.Verdict
	}{
		{"t:field", "fakepydantic.Agent", "sub_agents", verdict.Valid},
		{"t:alias", "fakepydantic.Agent", "children", verdict.Valid},
		{"t:not_a_field", "fakepydantic.Agent", "tools", verdict.Incorrect},
		{"t:extra_allowed", "fakepydantic.Open", "tools", verdict.Inconclusive},
	}
	var b strings.Builder
	b.WriteString("benchmarks:\n")
	for _, tc := range tests {
		b.WriteString("- id: " + tc.id + "\n  category: c\n  question: q\n  rationale: r\n  benchmark_type: api_understanding\n  template: identifier\n  answers:\n  - answer_template: StringMatchAnswer\n    answer: " + tc.answer + "\n    fully_qualified_class_name: [" + tc.fqn + "]\n  file: f.py\n")
	}
	path := filepath.Join(t.TempDir(), "pyd.benchmark.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := questions.Load(path, questions.Options{SkipSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	a := &Auditor{Runner: sandbox.Runner{Python: python, Env: []string{"PYTHONPATH=" + lib}}, WorkDir: t.TempDir()}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			c, _ := f.Case(tc.id)
			r := a.AuditCase(context.Background(), c)
			if r.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s: %+v", r.Verdict, tc.want, r.Attempts[0].Decision)
			}
		})
	}
}

func question(q string) string {
	if q == "" {
		return "q"
	}
	return q
}

// bankCase is one api_understanding question of a test bank; its question
// and answer are YAML scalars as written into the file.
type bankCase struct{ id, question, answer, fqn string }

// apiBank writes cases as one benchmark file (name.benchmark.yaml), loads
// it as the audit does, and returns a function that audits one case by
// its ID with python and gives its result and the reason of its one
// decision ("" when it has none).
func apiBank(t *testing.T, python, name string, cases []bankCase) func(*testing.T, string) (caseresult.CaseResult, string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("benchmarks:\n")
	for _, c := range cases {
		b.WriteString("- id: " + c.id + "\n  category: c\n  question: " + c.question + "\n  rationale: r\n  benchmark_type: api_understanding\n  template: identifier\n  answers:\n  - answer_template: StringMatchAnswer\n    answer: " + c.answer + "\n    fully_qualified_class_name: [" + c.fqn + "]\n  file: f.py\n")
	}
	path := filepath.Join(t.TempDir(), name+".benchmark.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := questions.Load(path, questions.Options{SkipSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	a := &Auditor{Runner: sandbox.Runner{Python: python}, WorkDir: t.TempDir()}
	return func(t *testing.T, id string) (caseresult.CaseResult, string) {
		t.Helper()
		c, ok := f.Case(id)
		if !ok {
			t.Fatalf("no case %s", id)
		}
		r := a.AuditCase(context.Background(), c)
		reason := ""
		if len(r.Attempts) == 1 && r.Attempts[0].Decision != nil {
			reason = r.Attempts[0].Decision.Reason
		}
		return r, reason
	}
}

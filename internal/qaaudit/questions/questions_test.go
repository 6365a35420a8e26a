package questions

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func adk(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "testdata", "adk", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return p
}

func TestLoadRealFiles(t *testing.T) {
	tests := []struct {
		file       string
		cases      int
		kinds      map[Kind]int
		nota       int // cases with a "None of the above" option text
		wantFields bool
	}{
		{"configure_adk_features_mc.benchmark.yaml", 81, map[Kind]int{MultipleChoice: 81}, 81, true},
		{"diagnose_setup_errors_mc.benchmark.yaml", 32, map[Kind]int{MultipleChoice: 32}, 0, true},
		{"predict_runtime_behavior_mc.benchmark.yaml", 17, map[Kind]int{MultipleChoice: 17}, 0, true},
		{"api_understanding.benchmark.yaml", 41, map[Kind]int{APIUnderstanding: 41}, 0, false},
		{"debug_suite.benchmark.yaml", 3, map[Kind]int{MultipleChoice: 1, APIUnderstanding: 1, FixError: 1}, 1, false},
		{"verification_test_mc.benchmark.yaml", 1, map[Kind]int{MultipleChoice: 1}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := Load(adk(t, tt.file), Options{SkipSnippets: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(f.Cases()); got != tt.cases {
				t.Fatalf("cases = %d, want %d", got, tt.cases)
			}
			if len(f.Problems) != 0 {
				t.Fatalf("unexpected problems: %v", f.Problems)
			}
			kinds := map[Kind]int{}
			nota := 0
			for _, c := range f.Cases() {
				kinds[c.Kind]++
				if c.Line == 0 || c.File == "" || c.ID == "" {
					t.Errorf("case without location or id: %+v", c)
				}
				for _, o := range c.Options {
					if o.Text == "None of the above" {
						nota++
					}
					if o.Line <= c.Line {
						t.Errorf("%s option %s line %d not after case line %d", c.ID, o.Key, o.Line, c.Line)
					}
				}
				if c.Kind == MultipleChoice {
					if _, ok := c.Option(c.CorrectAnswer); !ok {
						t.Errorf("%s: key %q not an option", c.ID, c.CorrectAnswer)
					}
					if tt.wantFields && (c.Question == "" || c.Explanation == "") {
						t.Errorf("%s: question or explanation empty", c.ID)
					}
				}
			}
			if !reflect.DeepEqual(kinds, tt.kinds) {
				t.Errorf("kinds = %v, want %v", kinds, tt.kinds)
			}
			if tt.nota > 0 && nota != tt.nota {
				t.Errorf("none-of-the-above options = %d, want %d", nota, tt.nota)
			}
			out, _ := f.Bytes()
			src, _ := os.ReadFile(f.Path)
			if !bytes.Equal(out, src) {
				t.Error("Bytes() of an unmodified file differ from the file")
			}
		})
	}
}

func TestTypedFieldsAndLines(t *testing.T) {
	f, err := Load(adk(t, "debug_suite.benchmark.yaml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	fe, api, mc := f.Cases()[0], f.Cases()[1], f.Cases()[2]
	if fe.Kind != FixError || fe.TestFile != "benchmarks/benchmark_definitions/fix_errors/cases/22_logic_error/test_agent.py" || fe.Name == "" || fe.Line != 2 {
		t.Errorf("fix_error case = %+v", fe)
	}
	if api.Kind != APIUnderstanding || len(api.Answers) != 1 || api.Answers[0].Answer != "BaseAgent" ||
		!reflect.DeepEqual(api.Answers[0].FullyQualifiedClassName, []string{"google.adk.agents.base_agent.BaseAgent"}) ||
		api.Source != "src/google/adk/agents/base_agent.py" || api.Template != "identifier" || api.Line != 10 {
		t.Errorf("api case = %+v", api)
	}
	if mc.ID != "debug_suite:mc_proactivity" || mc.CorrectAnswer != "D" || len(mc.Options) != 5 || mc.Line != 23 ||
		mc.FieldLines["correct_answer"] != 31 || mc.Options[4].Line != 30 {
		t.Errorf("mc case = %+v lines %v", mc, mc.FieldLines)
	}
	if got := mc.OptionKeys(); !reflect.DeepEqual(got, []string{"A", "B", "C", "D", "E"}) {
		t.Errorf("option keys %v", got)
	}
}

const goodCase = `- id: s:good
  question: Q?
  options:
    A: a
    B: b
  correct_answer: A
  benchmark_type: multiple_choice
`

func TestPerCaseProblemsDoNotStopOthers(t *testing.T) {
	tests := []struct {
		name      string
		bad       string
		field     string
		line      int // line of the problem inside the file
		msgSubstr string
	}{
		{"duplicated id", "- id: s:good\n  question: Again?\n  options: {A: x, B: y}\n  correct_answer: B\n", "id", 10, "duplicated case id; first defined at line 2"},
		{"missing correct_answer", "- id: s:bad\n  question: Q?\n  options:\n    A: x\n    B: y\n", "correct_answer", 10, "missing"},
		{"key names no option", "- id: s:bad\n  question: Q?\n  options:\n    A: x\n    B: y\n  correct_answer: F\n", "correct_answer", 15, `"F" names no option`},
		{"empty options", "- id: s:bad\n  question: Q?\n  options: {}\n  correct_answer: A\n", "options", 12, "empty"},
		{"options missing", "- id: s:bad\n  question: Q?\n  correct_answer: A\n", "options", 10, "missing"},
		{"options a list", "- id: s:bad\n  question: Q?\n  options: [a, b]\n  correct_answer: A\n", "options", 12, "found a list"},
		{"empty option text", "- id: s:bad\n  question: Q?\n  options:\n    A: ''\n    B: y\n  correct_answer: B\n", "options.A", 13, "empty option text"},
		{"id with a slash", "- id: s/../bad\n  question: Q?\n  options: {A: x}\n  correct_answer: A\n", "id", 10, "expected letters, digits"},
		{"missing id", "- question: Q?\n  options: {A: x}\n  correct_answer: A\n", "id", 10, "missing"},
		{"unknown type", "- id: s:bad\n  benchmark_type: essay\n", "benchmark_type", 11, "unknown type"},
		{"not a mapping", "- just text\n", "benchmarks[]", 10, "expected a case mapping"},
		{"question a list", "- id: s:bad\n  question: [a]\n  options: {A: x}\n  correct_answer: A\n", "question", 11, "expected a string"},
		{"api without answers", "- id: s:bad\n  benchmark_type: api_understanding\n  question: Q?\n", "answers", 10, "missing or empty"},
		{"fix_error without test_file", "- id: s:bad\n  benchmark_type: fix_error\n  name: n\n", "test_file", 10, "missing"},
		{"snippet ref incomplete", "- id: s:bad\n  question: Q?\n  code_snippet_ref: {file: x.py}\n  options: {A: x}\n  correct_answer: A\n", "code_snippet_ref.section", 12, "missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "benchmarks:\n" + goodCase + "# a comment\n" + tt.bad + goodCase2
			f, err := Parse("suite.yaml", []byte(src), Options{})
			if err != nil {
				t.Fatalf("a per-case problem stopped the file: %v", err)
			}
			if len(f.Problems) != 1 {
				t.Fatalf("problems = %v, want exactly one", f.Problems)
			}
			p := f.Problems[0]
			if p.Field != tt.field || p.Line != tt.line || p.File != "suite.yaml" || !strings.Contains(p.Message, tt.msgSubstr) {
				t.Errorf("problem = %+v (%s), want field %s line %d containing %q", p, p, tt.field, tt.line, tt.msgSubstr)
			}
			ok := 0
			for _, c := range f.Cases() {
				if c.OK() {
					ok++
				}
			}
			if ok != 2 || len(f.Cases()) != 3 {
				t.Errorf("ok cases = %d of %d, want 2 of 3", ok, len(f.Cases()))
			}
		})
	}
}

const goodCase2 = `- id: s:other
  question: Other?
  options:
    A: a
    B: b
  correct_answer: B
  benchmark_type: multiple_choice
`

func TestMalformedFileNamesFileLineField(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		line  int
		field string
		msg   string
	}{
		{"bad yaml", "benchmarks:\n- id: a\n  question: [unclosed\n", 2, "", "invalid YAML"},
		{"tab indentation", "benchmarks:\n\t- id: a\n", 2, "", "invalid YAML"},
		{"empty", "", 1, "benchmarks", "empty file"},
		{"top-level list", "- id: a\n", 1, "", "expected a mapping"},
		{"no benchmarks key", "cases:\n- id: a\n", 1, "benchmarks", "missing"},
		{"benchmarks a mapping", "benchmarks:\n  id: a\n", 2, "benchmarks", "expected a list of cases"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte(tt.src), Options{})
			var qe *Error
			if !errors.As(err, &qe) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if qe.File != "bad.yaml" || qe.Line != tt.line || qe.Field != tt.field || !strings.Contains(qe.Message, tt.msg) {
				t.Errorf("error = %+v, want line %d field %q msg %q", qe, tt.line, tt.field, tt.msg)
			}
			if !strings.HasPrefix(err.Error(), "bad.yaml:") {
				t.Errorf("message %q does not start with the file", err)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	if _, err := LoadFile(filepath.Join(t.TempDir(), "nope.yaml")); err == nil || !strings.Contains(err.Error(), "nope.yaml") {
		t.Fatalf("err = %v", err)
	}
}

func TestUnknownKeysAreKept(t *testing.T) {
	src := "# header\ntarget_repo_version: v1.20.0\nbenchmarks:\n- id: s:a\n  question: Q?\n  difficulty: hard # unknown\n  options:\n    A: a\n    B: b\n  correct_answer: A\n  tags: [x, y]\n"
	f, err := Parse("s.yaml", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := f.Cases()[0]
	if c.FieldLines["difficulty"] != 6 || c.FieldLines["tags"] != 11 {
		t.Errorf("unknown keys not located: %v", c.FieldLines)
	}
	q := "New question?"
	if err := f.ApplyFix("s:a", Fix{Question: &q}); err != nil {
		t.Fatal(err)
	}
	out, _ := f.Bytes()
	want := strings.Replace(src, "question: Q?", "question: New question?", 1)
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if _, v := mapGet(f.Root().Content[0], "target_repo_version"); v == nil || v.Value != "v1.20.0" {
		t.Error("file-level key lost")
	}
}

func TestMissingTypeIsAWarning(t *testing.T) {
	f, err := Load(adk(t, "verification_test_mc.benchmark.yaml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := f.Cases()[0]
	if c.Kind != MultipleChoice || !c.OK() || len(c.Warnings) != 1 || c.Warnings[0].Field != "benchmark_type" || c.Warnings[0].Line != 2 {
		t.Fatalf("case = %+v warnings %v", c, c.Warnings)
	}
}

package pipeline_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/qaaudit/pipeline"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

func assertTest(expr string) string {
	return "def test_option():\n    import json\n    assert " + expr + "\n"
}

func raisesTest(exc, expr string) string {
	return "import pytest\n\ndef test_option():\n    import json\n    with pytest.raises(" + exc + "):\n        " + expr + "\n"
}

// stdlibTests are the proof engineer's tests for every option text of
// testdata/stdlib.benchmark.yaml and of the scripted fixes.
var stdlibTests = map[string]string{
	`The string '{"a": 1}'`: assertTest(`json.dumps({"a": 1}) == '{"a": 1}'`),
	`The string "{'a': 1}"`: assertTest(`json.dumps({"a": 1}) == "{'a': 1}"`),
	`It raises TypeError`:   raisesTest("TypeError", `json.dumps({"a": 1})`),
	`len("abcd")`:           assertTest(`len("abcd") == 4`),
	`abs(-4)`:               assertTest(`abs(-4) == 4`),
	`abs(-5)`:               assertTest(`abs(-5) == 4`),
	`int("5")`:              assertTest(`int("5") == 4`),
	`The list [1, 2]`:       assertTest(`json.loads("[1, 2]") == [1, 2]`),
	`The tuple (1, 2)`:      assertTest(`json.loads("[1, 2]") == (1, 2)`),
	`It raises ValueError`:  raisesTest("ValueError", `json.loads("[1, 2]")`),
	`The list ["a", "b"]`:   assertTest(`"a,b".split(",") == ["a", "b"]`),
	`The string "ab"`:       "def test_option(:\n    assert True\n",
	`The list [1, 2, 3]`:    assertTest(`sorted([3, 1, 2]) == [1, 2, 3]`),
	`The list [3, 2, 1]`:    "import time\n\ndef test_option():\n    time.sleep(60)\n",
	`The string "7"`:        assertTest(`int("7") == "7"`),
	`The float 7.0`:         assertTest(`isinstance(int("7"), float)`),
	`bool(1)`:               assertTest(`bool(1) is True`),
	`bool("x")`:             assertTest(`bool("x") is True`),
	`bool("y")`:             assertTest(`bool("y") is True`),
	`bool(0)`:               assertTest(`bool(0) is True`),
	`The integer 3`:         assertTest(`abs(-3) == 3`),
	// Written the upstream way round: it passes when the option is false.
	`It returns a string without an error`: "import pytest\n\ndef test_option():\n    import json\n    with pytest.raises(TypeError):\n        json.dumps([\"x\"])\n",
	`The integer -3`:                       "import pytest\n\n@pytest.mark.skip(reason='needs the GPU build')\ndef test_option():\n    assert abs(-3) == -3\n",
}

var stdlibFixes = map[string][]string{
	"stdlib:ambiguous_four": {`{"options": {"B": "abs(-5)"}, "rationale": "B must be false"}`},
	"stdlib:incorrect_json_loads": {
		`{"correct_answer": "C", "rationale": "first guess"}`,
		"```json\n{\"correct_answer\": \"A\", \"explanation\": \"JSON arrays decode to lists.\", \"rationale\": \"json.loads returns a list\"}\n```",
	},
	"stdlib:never_fixed": {
		`{"options": {"B": "bool(\"y\")"}}`,
		`{"options": {"B": "bool(\"y\")"}}`,
		`not json at all`,
	},
}

func loadCases(t testing.TB) []*questions.Case {
	t.Helper()
	f, err := questions.Load("testdata/stdlib.benchmark.yaml", questions.Options{SkipSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	return f.Cases()
}

func newAuditor(t *testing.T, m *scriptedModel, budget int64) *pipeline.Auditor {
	t.Helper()
	a, err := pipeline.New(pipeline.Config{
		Model:              m,
		Prover:             pipeline.SandboxProver{Runner: sandbox.Runner{Python: testenv.Python(t), Timeout: 15 * time.Second}},
		WorkDir:            t.TempDir(),
		MaxProofIterations: 4,
		TriesPerOption:     1,
		ModelCallBudget:    budget,
		CaseTimeout:        2 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestAuditWithRealPytest(t *testing.T) {
	m := newScripted(stdlibTests, stdlibFixes)
	a := newAuditor(t, m, 0)
	type want struct {
		verdict, final verdict.Verdict
		attempts       int
		review         bool
		outcomes       map[string]string // option -> outcome of the first attempt
	}
	wants := map[string]want{
		"stdlib:valid_json_dumps":      {verdict.Valid, verdict.Valid, 1, false, map[string]string{"A": "passed", "B": "failed", "C": "failed", "D": "derived"}},
		"stdlib:ambiguous_four":        {verdict.Ambiguous, verdict.Valid, 2, false, map[string]string{"A": "passed", "B": "passed", "C": "failed"}},
		"stdlib:incorrect_json_loads":  {verdict.Incorrect, verdict.Valid, 3, false, map[string]string{"A": "passed", "B": "failed", "C": "failed"}},
		"stdlib:syntax_error_test":     {verdict.Inconclusive, verdict.Inconclusive, 1, true, map[string]string{"A": "passed", "B": "collection_error"}},
		"stdlib:hanging_test":          {verdict.Inconclusive, verdict.Inconclusive, 1, true, map[string]string{"A": "passed", "B": "timeout"}},
		"stdlib:never_fixed":           {verdict.Ambiguous, verdict.Ambiguous, 4, true, map[string]string{"A": "passed", "B": "passed", "C": "failed"}},
		"stdlib:none_of_the_above_key": {verdict.Valid, verdict.Valid, 1, false, map[string]string{"A": "failed", "B": "failed", "C": "derived"}},
		"stdlib:skipped_test":          {verdict.Inconclusive, verdict.Inconclusive, 1, true, map[string]string{"A": "passed", "B": "skipped"}},
		"stdlib:wrong_direction":       {verdict.Inconclusive, verdict.Inconclusive, 1, true, map[string]string{"A": pipeline.OutcomeWrongDirection, "B": "failed"}},
	}
	results := map[string]pipeline.CaseResult{}
	for _, c := range loadCases(t) {
		w, ok := wants[c.ID]
		if !ok {
			t.Fatalf("unexpected case %s", c.ID)
		}
		t.Run(c.ID, func(t *testing.T) {
			r := a.AuditCase(context.Background(), c)
			results[c.ID] = r
			if r.Verdict != w.verdict || r.FinalVerdict != w.final || len(r.Attempts) != w.attempts || r.NeedsHumanReview != w.review {
				t.Fatalf("got verdict %s final %s attempts %d review %v (error %q), want %+v; first attempt: %+v", r.Verdict, r.FinalVerdict, len(r.Attempts), r.NeedsHumanReview, r.Error, w, r.Attempts[0])
			}
			for _, o := range r.Attempts[0].Options {
				if wo, ok := w.outcomes[o.Option]; ok && o.Outcome != wo {
					t.Errorf("option %s outcome %s (%s), want %s", o.Option, o.Outcome, o.Message, wo)
				}
				if o.Outcome == "passed" || o.Outcome == "failed" {
					if filepath.Base(o.TestPath) != "test_option_"+o.Option+".py" {
						t.Errorf("option %s test path %q", o.Option, o.TestPath)
					} else if _, err := os.Stat(o.TestPath); err != nil {
						t.Errorf("test file not kept: %v", err)
					}
					if o.Claim == "" {
						t.Errorf("option %s has no claim from the analyst", o.Option)
					}
				}
			}
			if w.final == verdict.Valid && w.attempts > 1 && r.Fix == nil {
				t.Errorf("fixed case has no fix")
			}
		})
	}
	// The accepted fix of the incorrect case is attempt 2's proposal; attempt 1 stayed Incorrect.
	r := results["stdlib:incorrect_json_loads"]
	if len(r.Attempts) == 3 {
		if r.Fix == nil || r.Fix.CorrectAnswer == nil || *r.Fix.CorrectAnswer != "A" || r.Attempts[1].Verdict != verdict.Incorrect {
			t.Errorf("fix = %+v, attempt 1 verdict %s", r.Fix, r.Attempts[1].Verdict)
		}
		if r.Attempts[2].Rationale != "json.loads returns a list" {
			t.Errorf("rationale = %q", r.Attempts[2].Rationale)
		}
	}
	// The never-fixed case's third proposal was not JSON: recorded as an error, not a crash.
	if r := results["stdlib:never_fixed"]; len(r.Attempts) == 4 && !strings.Contains(r.Attempts[3].Error, "no valid fix JSON") {
		t.Errorf("attempt 3 error = %q", r.Attempts[3].Error)
	}
	// The analyst researched json.dumps and got its real signature back.
	if reqs := m.Requests(pipeline.AnalystName); !containsAny(reqs, "json.dumps(obj") {
		t.Errorf("no analyst request carries the inspected signature of json.dumps")
	}
	// In the valid case A is proven true, so "None of the above" is derived false.
	if r := results["stdlib:valid_json_dumps"]; len(r.Attempts) > 0 {
		for _, o := range r.Attempts[0].Options {
			if o.Option == "D" && (!o.Derived || o.Truth != verdict.False) {
				t.Errorf("NOTA option: %+v", o)
			}
		}
	}
	// A skipped test says why, in the option, the case's reason and the
	// tool result the engineer reads.
	if r := results["stdlib:skipped_test"]; len(r.Attempts) > 0 {
		at := r.Attempts[0]
		if len(at.Options) != 2 || at.Options[1].Message != "skipped: needs the GPU build" {
			t.Errorf("skipped option: %+v", at.Options)
		}
		if at.Decision == nil || !strings.Contains(at.Decision.Reason, "B: skipped: needs the GPU build") {
			t.Errorf("reason of the Inconclusive case does not carry the skip reason: %+v", at.Decision)
		}
	}
	if !containsAny(m.Requests(pipeline.EngineerName), "skipped: needs the GPU build") {
		t.Errorf("the engineer's tool result does not carry the skip reason")
	}
	// A test written to pass when its option is false is refused before
	// it runs; the engineer is told why, and the option proves nothing.
	if r := results["stdlib:wrong_direction"]; len(r.Attempts) > 0 {
		at := r.Attempts[0]
		if a := at.Options[0]; a.Runs != 0 || a.Rejected != 1 || a.TestPath != "" {
			t.Errorf("refused option: %+v", a)
		}
		if at.Decision == nil || !strings.Contains(at.Decision.Reason, "A: wrong_direction: direction check: the option says no error is raised, but the test expects one") {
			t.Errorf("reason: %+v", at.Decision)
		}
	}
	if !containsAny(m.Requests(pipeline.EngineerName), "direction check refused the test for option A") {
		t.Errorf("the engineer was not told why its test was refused")
	}
	_, remediated := results["stdlib:ambiguous_four"]
	checkGroundTruthHidden(t, m, remediated)
}

// checkGroundTruthHidden checks every request the analyst and the proof
// engineer sent: none may carry the correct answer or the explanation.
func checkGroundTruthHidden(t *testing.T, m *scriptedModel, remediated bool) {
	t.Helper()
	for _, agent := range []string{pipeline.AnalystName, pipeline.EngineerName} {
		reqs := m.Requests(agent)
		if len(reqs) == 0 {
			t.Fatalf("%s was never called", agent)
		}
		for _, r := range reqs {
			for _, banned := range []string{"EXPLANATION-MARKER", "correct_answer", "explanation", "JSON arrays decode to lists"} {
				if strings.Contains(r, banned) {
					t.Fatalf("%s request contains %q:\n%s", agent, banned, r)
				}
			}
		}
	}
	// The remediation engineer does see them: that is its job.
	rem := m.Requests(pipeline.RemediationName)
	if !remediated {
		return
	}
	if len(rem) == 0 || !strings.Contains(rem[0], "EXPLANATION-MARKER") || !strings.Contains(rem[0], "correct_answer") {
		t.Fatalf("remediation engineer was not shown the ground truth")
	}
}

func TestModelCallBudget(t *testing.T) {
	m := newScripted(stdlibTests, stdlibFixes)
	a := newAuditor(t, m, 1)
	c := loadCases(t)[0]
	r := a.AuditCase(context.Background(), c)
	if r.Verdict != verdict.Inconclusive || !strings.Contains(r.Attempts[0].Error, "model-call budget exhausted") {
		t.Fatalf("verdict %s, error %q", r.Verdict, r.Attempts[0].Error)
	}
	if a.ModelCalls() != 1 {
		t.Errorf("calls = %d, want 1", a.ModelCalls())
	}
	if !r.NeedsHumanReview {
		t.Error("an unfinished case needs human review")
	}
}

func TestCaseDeadline(t *testing.T) {
	m := newScripted(stdlibTests, stdlibFixes)
	a := newAuditor(t, m, 0)
	var hanging *questions.Case
	for _, c := range loadCases(t) {
		if c.ID == "stdlib:hanging_test" {
			hanging = c
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	r := a.AuditCase(ctx, hanging)
	if time.Since(start) > 20*time.Second {
		t.Errorf("deadline not honoured: %s", time.Since(start))
	}
	if r.Verdict != verdict.Inconclusive || r.Attempts[0].Error == "" {
		t.Fatalf("verdict %s error %q", r.Verdict, r.Attempts[0].Error)
	}
}

func TestUnauditableCases(t *testing.T) {
	a := newAuditor(t, newScripted(nil, nil), 0)
	src := `benchmarks:
- id: s:missing
  question: q?
  options: {A: x, B: y}
  benchmark_type: multiple_choice
- id: api:one
  category: c
  question: q?
  rationale: r
  template: identifier
  answers: [{answer_template: StringMatchAnswer, answer: X, fully_qualified_class_name: [a.X]}]
  file: src/x.py
  benchmark_type: api_understanding
`
	f, err := questions.Parse("bad.yaml", []byte(src), questions.Options{SkipSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	cs := f.Cases()
	r := a.AuditCase(context.Background(), cs[0])
	if len(r.Problems) == 0 || !r.NeedsHumanReview || r.Verdict != verdict.Inconclusive {
		t.Errorf("case with problems: %+v", r)
	}
	r = a.AuditCase(context.Background(), cs[1])
	if r.Skipped == "" || len(r.Attempts) != 0 {
		t.Errorf("api_understanding case: %+v", r)
	}
	if a.ModelCalls() != 0 {
		t.Errorf("unauditable cases called the model %d times", a.ModelCalls())
	}
}

func TestNewRejectsIncompleteConfig(t *testing.T) {
	_, err := pipeline.New(pipeline.Config{})
	// A missing model is allowed (execution-proven kinds need none); a
	// missing prover is not.
	if err == nil || !errors.Is(err, err) || !strings.Contains(err.Error(), "no prover") {
		t.Fatalf("err = %v", err)
	}
}

func containsAny(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

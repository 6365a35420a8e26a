package qreport_test

import (
	"context"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/qaaudit/qreport"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// proofs are the option tests a proof engineer would write for
// testdata/stdlib.benchmark.yaml: each asserts its option as stated.
var proofs = map[string]map[string]string{
	"stdlib_mc:what_does_sorted_return": {
		"A": "def test_option_A():\n    assert sorted([3, 1, 2]) == [1, 2, 3]\n",
		"B": "def test_option_B():\n    xs = [3, 1, 2]\n    assert sorted(xs) is None and xs == [1, 2, 3]\n",
		"C": "def test_option_C():\n    assert sorted([3, 1, 2]) == (1, 2, 3)\n",
	},
	"stdlib_mc:what_does_int_of_a_float_string_do": {
		"A": "import pytest\n\ndef test_option_A():\n    with pytest.raises(ValueError):\n        int('3.5')\n",
		"B": "def test_option_B():\n    assert int('3.5') == 3\n",
		"C": "def test_option_C():\n    assert int('3.5') == 4\n",
	},
	"stdlib_mc:which_value_is_falsy": {
		"A": "def test_option_A():\n    assert not bool(0)\n",
		"B": "def test_option_B():\n    assert not bool([])\n",
		"C": "def test_option_C():\n    assert not bool('a')\n",
	},
	"stdlib_mc:what_does_json_loads_return": {
		"A": "import json\n\ndef test_option_A(:\n    assert json.loads('[]') == []\n",
		"B": "import time\n\ndef test_option_B():\n    time.sleep(60)\n",
	},
}

// audit proves every option of c and decides its verdict.
func audit(t *testing.T, r *sandbox.Runner, c *questions.Case, number int, fix *questions.Fix) qreport.Attempt {
	t.Helper()
	start := time.Now()
	nota := ""
	for _, o := range c.Options {
		if verdict.IsNoneOfTheAbove(o.Text) {
			nota = o.Key
		}
	}
	opts := make([]qreport.Option, len(c.Options))
	results := map[string]verdict.Truth{}
	var wg sync.WaitGroup
	var mu sync.Mutex
	slots := make(chan struct{}, 2) // the machine has two cores
	for i, o := range c.Options {
		if o.Key == nota {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			out, err := r.RunTest(context.Background(), sandbox.TestSpec{CaseID: c.ID, Option: o.Key, Source: []byte(proofs[c.ID][o.Key])})
			if err != nil {
				t.Error(err)
				return
			}
			ro := qreport.OptionFromOutcome(o.Key, o.Text, "as stated", out)
			mu.Lock()
			opts[i] = ro
			results[o.Key] = ro.Truth
			mu.Unlock()
		}()
	}
	wg.Wait()
	d, err := verdict.Decide(verdict.Input{Options: c.OptionKeys(), NoneOfTheAbove: nota, CorrectAnswer: c.CorrectAnswer, Results: results})
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range c.Options {
		if o.Key == nota {
			opts[i] = qreport.Option{Key: o.Key, Text: o.Text, Derived: true, Truth: d.Truths[o.Key]}
		}
	}
	return qreport.Attempt{Number: number, Fix: fix, Verdict: d.Verdict, Reason: d.Reason, Options: opts, Duration: qreport.Seconds(time.Since(start))}
}

// TestAuditStdlibQuestionsEndToEnd loads a question file, proves every
// option with real pytest, decides in code, verifies a fix for the
// incorrect question, writes the fixed file and both reports.
func TestAuditStdlibQuestionsEndToEnd(t *testing.T) {
	python := testenv.Python(t)
	work := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "stdlib.benchmark.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	yamlPath := filepath.Join(work, "stdlib.benchmark.yaml")
	if err := os.WriteFile(yamlPath, src, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := questions.LoadFile(yamlPath)
	if err != nil {
		t.Fatal(err)
	}
	runner := &sandbox.Runner{Python: python, Timeout: 10 * time.Second, WorkDir: filepath.Join(work, "runs"), Keep: true}
	if err := os.MkdirAll(runner.WorkDir, 0o755); err != nil {
		t.Fatal(err)
	}
	rep := &qreport.Report{StartedAt: time.Now()}
	for _, c := range f.Cases() {
		rc := qreport.Case{File: c.File, Line: c.Line, ID: c.ID, Kind: string(c.Kind), Question: c.Question, CorrectAnswer: c.CorrectAnswer}
		if !c.OK() {
			rc.Skipped, rc.Problems = "malformed case", c.Problems
			rep.Cases = append(rep.Cases, rc)
			continue
		}
		first := audit(t, runner, c, 0, nil)
		rc.Attempts = []qreport.Attempt{first}
		rc.OriginalVerdict, rc.Verdict, rc.Reason, rc.Options = first.Verdict, first.Verdict, first.Reason, first.Options
		if first.Verdict == verdict.Incorrect {
			// The remediation a model would propose: the key follows the evidence.
			fix := questions.Fix{CorrectAnswer: strPtr("A"), Explanation: strPtr("`int` does not parse a float string; it raises ValueError.")}
			if err := f.ApplyFix(c.ID, fix); err != nil {
				t.Fatal(err)
			}
			fixed, _ := f.Case(c.ID)
			second := audit(t, runner, fixed, 1, &fix)
			rc.Attempts = append(rc.Attempts, second)
			rc.Verdict, rc.Reason, rc.Options = second.Verdict, second.Reason, second.Options
			if second.Verdict == verdict.Valid {
				rc.ProposedFix = &fix
			}
		}
		rc.NeedsHumanReview = rc.Verdict != verdict.Valid
		rep.Cases = append(rep.Cases, rc)
	}
	rep.FinishedAt = time.Now()

	want := map[string]struct {
		original, final verdict.Verdict
		review          bool
	}{
		"stdlib_mc:what_does_sorted_return":            {verdict.Valid, verdict.Valid, false},
		"stdlib_mc:what_does_int_of_a_float_string_do": {verdict.Incorrect, verdict.Valid, false},
		"stdlib_mc:which_value_is_falsy":               {verdict.Ambiguous, verdict.Ambiguous, true},
		"stdlib_mc:what_does_json_loads_return":        {verdict.Inconclusive, verdict.Inconclusive, true},
	}
	for _, c := range rep.Cases {
		if c.ID == "stdlib_mc:broken" {
			if c.Skipped == "" || len(c.Problems) != 1 || c.Problems[0].Field != "correct_answer" {
				t.Errorf("broken case = %+v", c)
			}
			continue
		}
		w := want[c.ID]
		if c.OriginalVerdict != w.original || c.Verdict != w.final || c.NeedsHumanReview != w.review {
			t.Errorf("%s: %s -> %s review=%v (%s), want %s -> %s review=%v; options %+v", c.ID, c.OriginalVerdict, c.Verdict, c.NeedsHumanReview, c.Reason, w.original, w.final, w.review, c.Options)
		}
	}
	// The hanging and the broken test of the json question are evidence of nothing.
	for _, c := range rep.Cases {
		if c.ID != "stdlib_mc:what_does_json_loads_return" {
			continue
		}
		got := map[string]sandbox.Status{}
		for _, o := range c.Options {
			got[o.Key] = o.Outcome
			if o.Evidence {
				t.Errorf("option %s counted as evidence: %+v", o.Key, o)
			}
		}
		if got["A"] != sandbox.StatusCollectionError || got["B"] != sandbox.StatusTimeout {
			t.Errorf("json outcomes = %v", got)
		}
	}

	// Only the fixed case's lines changed in the question file.
	if err := f.WriteAtomic(yamlPath); err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(yamlPath)
	changed := diffLines(string(src), string(out))
	if len(changed) != 2 || changed[0] != 21 || changed[1] != 22 {
		t.Errorf("changed lines %v, want the key and explanation of the fixed case (21, 22)", changed)
	}

	jsonPath := filepath.Join(work, "out", qreport.FileName)
	if err := rep.WriteJSON(jsonPath); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteMarkdown(filepath.Join(work, "out", "quality_report.md")); err != nil {
		t.Fatal(err)
	}
	back, err := qreport.Read(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	tt := back.Totals
	if tt.Cases != 5 || tt.Valid != 1 || tt.Incorrect != 1 || tt.Ambiguous != 1 || tt.Inconclusive != 1 || tt.Skipped != 1 || tt.Fixed != 1 || tt.NeedsHumanReview != 2 || tt.TestRuns != 14 {
		t.Errorf("totals = %+v", tt)
	}
	for _, c := range back.Cases {
		for _, o := range c.Options {
			if o.Outcome != "" {
				if _, err := os.Stat(o.TestPath); err != nil {
					t.Errorf("%s option %s: test file not kept: %v", c.ID, o.Key, err)
				}
			}
		}
	}
	md, _ := os.ReadFile(filepath.Join(work, "out", "quality_report.md"))
	gfm.Require(t, "quality_report.md", string(md))
	if !strings.Contains(string(md), "stdlib_mc:which_value_is_falsy") || !strings.Contains(string(md), "timeout") {
		t.Errorf("summary:\n%s", md)
	}
}

func strPtr(s string) *string { return &s }

func diffLines(a, b string) []int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []int
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			out = append(out, i+1)
		}
	}
	if len(al) != len(bl) {
		out = append(out, -1)
	}
	return out
}

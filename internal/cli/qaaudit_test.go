package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/qaaudit/qreport"
	"github.com/benchgate/benchgate/internal/testsupport/agentfake"
	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// newChatFake starts the scripted OpenAI-compatible endpoint that plays
// the qa-audit agents (agentfake), closed when the test ends, so the
// command runs end to end through the real HTTP model backend, the ADK
// graph and real pytest.
func newChatFake(t *testing.T, tests map[string]string, proposals map[string][]string) *agentfake.Server {
	f := agentfake.New(tests, proposals)
	t.Cleanup(f.Close)
	return f
}

const qaQuestions = `# stdlib questions
benchmarks:
- id: stdlib:valid_upper
  question: 'What does "ab".upper() return?'
  options:
    A: 'The string "AB"'
    B: 'The string "ab"'
    C: None of the above
  correct_answer: A
  explanation: SECRET-EXPLANATION upper() upper-cases.
  benchmark_type: multiple_choice
- id: stdlib:drifted_answer
  question: 'What does len([1, 2, 3]) return?'
  options:
    A: The integer 3
    B: The integer 2
    C: None of the above
  correct_answer: B   # wrong on purpose
  explanation: SECRET-EXPLANATION it counts items.
  benchmark_type: multiple_choice
- id: stdlib:valid_upper
  question: 'Duplicate id?'
  options: {A: x, B: y}
  correct_answer: A
  benchmark_type: multiple_choice
- id: stdlib:no_answer
  question: 'Missing key?'
  options: {A: x, B: y}
  benchmark_type: multiple_choice
- id: stdlib:unknown_option
  question: 'Key names no option?'
  options: {A: x, B: y}
  correct_answer: F
  benchmark_type: multiple_choice
`

var qaTests = map[string]string{
	`The string "AB"`: "def test_option():\n    assert \"ab\".upper() == \"AB\"\n",
	`The string "ab"`: "def test_option():\n    assert \"ab\".upper() == \"ab\"\n",
	`The integer 3`:   "def test_option():\n    assert len([1, 2, 3]) == 3\n",
	`The integer 2`:   "def test_option():\n    assert len([1, 2, 3]) == 2\n",
}

var qaProposals = map[string][]string{
	"stdlib:drifted_answer": {`{"correct_answer": "A", "explanation": "len counts the items: 3.", "rationale": "A is proven true"}`},
}

type qaRun struct {
	code           int
	stdout, stderr string
	out            string
}

func runQA(t *testing.T, dir string, env map[string]string, args ...string) qaRun {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &Env{Stdout: &stdout, Stderr: &stderr, Dir: dir, Now: time.Now, Getenv: func(k string) string { return env[k] }}
	code := Main(context.Background(), e, append([]string{"qa-audit"}, args...))
	return qaRun{code: code, stdout: stdout.String(), stderr: stderr.String(), out: filepath.Join(dir, "out")}
}

func qaRepo(t *testing.T) string {
	dir := t.TempDir()
	p := filepath.Join(dir, "benchmarks", "stdlib", "benchmark.yaml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(qaQuestions), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestQAAuditEndToEnd(t *testing.T) {
	py := testenv.Python(t)
	chat := newChatFake(t, qaTests, qaProposals)
	gh := ghfake.New("octo", "bench", "main", "ghs_tok", map[string]string{"benchmarks/stdlib/benchmark.yaml": qaQuestions})
	defer gh.Close()
	dir := qaRepo(t)
	env := map[string]string{"OPENAI_API_KEY": "sk-local-123456", "GITHUB_TOKEN": "ghs_tok", "GITHUB_REPOSITORY": "octo/bench"}
	args := []string{"--model-backend", "openai", "--model", "local", "--model-url", chat.URL + "/v1",
		"--python", py, "--test-timeout", "30s", "--out-dir", "out", "--open-prs", "--github-api-url", gh.BaseURL(),
		"--pr-labels", "qa-audit,automated", "benchmarks"}

	r := runQA(t, dir, env, args...)
	if r.code != ExitFailed {
		t.Fatalf("exit %d, want 1 (flawed and malformed cases)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	rep, err := qreport.Read(filepath.Join(r.out, "quality_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string][]qreport.Case{}
	for _, c := range rep.Cases {
		byID[c.ID] = append(byID[c.ID], c)
	}
	if c := byID["stdlib:valid_upper"][0]; c.Verdict != "Valid" || c.NeedsHumanReview || len(c.Options) != 3 || c.Options[0].Outcome != "passed" || c.Options[1].Outcome != "failed" {
		t.Errorf("valid case: %+v", c)
	}
	if c := byID["stdlib:drifted_answer"][0]; c.OriginalVerdict != "Incorrect" || c.Verdict != "Valid" || c.ProposedFix == nil || len(c.Attempts) != 2 {
		t.Errorf("drifted case: %+v", c)
	} else if c.Attempts[1].Rationale != "A is proven true" || c.Attempts[1].ModelCalls == 0 {
		t.Errorf("the accepted fix's attempt lacks the rationale or its model calls: %+v", c.Attempts[1])
	}
	// Counters count what ran: the two cases' option tests (no retries
	// here), not the malformed cases' options nor the derived ones.
	runs := 0
	for _, c := range rep.Cases {
		for _, a := range c.Attempts {
			for _, o := range a.Options {
				runs += o.Runs
			}
		}
	}
	if rep.Totals.TestRuns != runs || runs != 2+2+2 {
		t.Errorf("test_runs %d, options ran %d times; want 6 (valid: A, B; drifted: A, B twice)", rep.Totals.TestRuns, runs)
	}
	// Malformed cases are reported with file, line and field, and did not stop the others.
	wantProblems := map[string]string{"stdlib:valid_upper": "duplicated case id", "stdlib:no_answer": "correct_answer", "stdlib:unknown_option": "names no option"}
	for id, want := range wantProblems {
		cs := byID[id]
		c := cs[len(cs)-1]
		if len(c.Problems) == 0 || !strings.Contains(c.Problems[0].Field+" "+c.Problems[0].Message, want) || c.Problems[0].Line == 0 {
			t.Errorf("%s: problems %+v, want %q", id, c.Problems, want)
		}
	}
	if rep.Totals.Fixed != 1 || rep.Totals.Cases != 5 {
		t.Errorf("totals %+v", rep.Totals)
	}
	md, err := os.ReadFile(filepath.Join(r.out, "quality_report.md"))
	if err != nil || !strings.Contains(string(md), "stdlib:drifted_answer") || !strings.Contains(string(md), "rationale: A is proven true") {
		t.Errorf("markdown summary (%v) lacks the case or the fix's rationale:\n%s", err, md)
	}
	// The fixed copy changes only the fixed case's lines.
	fixed, err := os.ReadFile(filepath.Join(r.out, "fixed", "benchmarks", "stdlib", "benchmark.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(fixed), "len counts the items: 3.") || !strings.Contains(string(fixed), "# stdlib questions") {
		t.Errorf("fixed copy:\n%s", fixed)
	}
	if strings.Contains(string(fixed), "correct_answer: B") {
		t.Errorf("fixed copy still has the wrong answer:\n%s", fixed)
	}
	// The pull request carries the fix and the proof; main is untouched.
	pulls := gh.Pulls()
	if len(pulls) != 1 || !strings.Contains(pulls[0].Body, "stdlib:drifted_answer") || !strings.Contains(pulls[0].Body, "test_option_A.py") || strings.Join(pulls[0].Labels, ",") != "qa-audit,automated" {
		t.Fatalf("pulls: %+v", pulls)
	}
	if rep, _ := os.ReadFile(filepath.Join(r.out, "quality_report.json")); !strings.Contains(string(rep), "https://github.com/octo/bench/pull/1") {
		t.Errorf("quality_report.json does not list the pull request")
	}
	if md, _ := os.ReadFile(filepath.Join(r.out, "quality_report.md")); !strings.Contains(string(md), "## Pull requests") {
		t.Errorf("summary does not list the pull request")
	}
	if got, _ := gh.File(pulls[0].Head, "benchmarks/stdlib/benchmark.yaml"); got != string(fixed) {
		t.Errorf("branch content differs from the fixed copy")
	}
	if got, _ := gh.File("main", "benchmarks/stdlib/benchmark.yaml"); got != qaQuestions {
		t.Errorf("default branch changed")
	}
	// Ground truth never reached the analyst or the engineer.
	for _, agent := range []string{"claim_analyst", "proof_engineer"} {
		for _, b := range chat.Bodies(agent) {
			if strings.Contains(b, "SECRET-EXPLANATION") || strings.Contains(b, "correct_answer") {
				t.Errorf("%s saw the ground truth: %s", agent, b)
			}
		}
	}
	if auth := chat.Auth(); auth[0] != "Bearer sk-local-123456" {
		t.Errorf("auth header %q", auth[0])
	}

	// A second run updates the same pull request instead of opening another.
	r2 := runQA(t, dir, env, args...)
	if r2.code != ExitFailed {
		t.Fatalf("second run exit %d: %s", r2.code, r2.stderr)
	}
	var prs []map[string]any
	if b, err := os.ReadFile(filepath.Join(r2.out, "pull-requests", "pull_requests.json")); err != nil || json.Unmarshal(b, &prs) != nil || len(prs) != 1 {
		t.Errorf("pull_requests.json: %v %v", err, prs)
	}
	if n := len(gh.Pulls()); n != 1 || !strings.Contains(r2.stdout, "updated pull request #1") {
		t.Errorf("second run: %d pulls, stdout:\n%s", n, r2.stdout)
	}
}

func TestQAAuditExitCodes(t *testing.T) {
	py := testenv.Python(t)
	chat := newChatFake(t, qaTests, qaProposals)
	valid := strings.SplitN(qaQuestions, "- id: stdlib:drifted_answer", 2)[0]
	tests := []struct {
		name  string
		yaml  string
		env   map[string]string
		extra []string
		want  int
		msg   string
	}{
		{"all valid", valid, nil, nil, ExitOK, ""},
		{"broken yaml", "benchmarks: [\n", nil, nil, ExitUsage, "benchmark.yaml"},
		{"no benchmarks list", "cases: []\n", nil, nil, ExitUsage, "benchmarks"},
		{"bad grouping", valid, nil, []string{"--open-prs", "--dry-run", "--repo", "o/r", "--pr-grouping", "repo"}, ExitUsage, "--pr-grouping"},
		{"prs without token", valid, nil, []string{"--open-prs", "--repo", "o/r"}, ExitUsage, "benchgate qa-audit: --open-prs needs a token in GITHUB_TOKEN or GH_TOKEN (or use --dry-run)"},
		{"python that does not run", valid, nil, []string{"--python", "/nonexistent/python9"}, ExitUsage, "benchgate qa-audit: --python /nonexistent/python9: cannot run it"},
		{"openai without endpoint", valid, nil, []string{"--model-url", ""}, ExitUsage,
			"benchgate qa-audit: openai backend: no endpoint: give --model-url or set OPENAI_BASE_URL (a model is needed because 1 multiple_choice case(s) are selected; --kinds api_understanding,fix_error audits the kinds that need none)"},
		{"negative case timeout", valid, nil, []string{"--case-timeout", "-1m"}, ExitUsage, "benchgate qa-audit: --case-timeout -1m0s: must not be negative"},
		{"too many remediations", valid, nil, []string{"--max-remediations", "11"}, ExitUsage, "benchgate qa-audit: --max-remediations 11: at most 10"},
		{"bad repo", valid, nil, []string{"--open-prs", "--dry-run", "--repo", "nope"}, ExitUsage, "owner/name"},
		{"unknown backend", valid, nil, []string{"--model-backend", "x"}, ExitUsage, "--model-backend \"x\""},
		{"unknown case id", valid, nil, []string{"--case", "stdlib:nope"}, ExitUsage, `--case "stdlib:nope"`},
		{"missing file", valid, nil, []string{"missing.yaml"}, ExitUsage, "missing.yaml"},
		{"negative test timeout", valid, nil, []string{"--test-timeout", "-1s"}, ExitUsage, "--test-timeout -1s"},
		{"negative budget", valid, nil, []string{"--model-call-budget", "-2"}, ExitUsage, "--model-call-budget -2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "benchmark.yaml"), []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"--model-backend", "openai", "--model", "m", "--model-url", chat.URL + "/v1", "--python", py, "--output-dir", "out"}, tt.extra...)
			args = append(args, "benchmark.yaml")
			r := runQA(t, dir, tt.env, args...)
			if r.code != tt.want || !strings.Contains(r.stderr, tt.msg) {
				t.Fatalf("exit %d, stderr %q; want %d containing %q\nstdout: %s", r.code, r.stderr, tt.want, tt.msg, r.stdout)
			}
			if tt.want == ExitUsage {
				if _, err := os.Stat(filepath.Join(r.out, "quality_report.json")); err == nil {
					t.Error("bad input still wrote a report")
				}
			}
		})
	}
}

func TestQAAuditDryRunWritesPlan(t *testing.T) {
	py := testenv.Python(t)
	chat := newChatFake(t, qaTests, qaProposals)
	dir := qaRepo(t)
	r := runQA(t, dir, nil, "--model-backend", "openai", "--model", "m", "--model-url", chat.URL+"/v1", "--python", py,
		"--output-dir", "out", "--backend", "openai", "--open-prs", "--dry-run", "--repo", "octo/bench", "--pr-grouping", "run", "--run-id", "weekly",
		"--case", "stdlib:drifted_answer", "benchmarks/stdlib/benchmark.yaml")
	if r.code != ExitFailed {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	plan, err := os.ReadFile(filepath.Join(r.out, "pull-requests", "plan.md"))
	if err != nil {
		t.Fatal(err)
	}
	gfm.Require(t, "plan.md", string(plan))
	if !strings.Contains(string(plan), "benchgate/qa-audit/weekly") || !strings.Contains(string(plan), "stdlib:drifted_answer") {
		t.Errorf("plan:\n%s", plan)
	}
	rep, err := qreport.Read(filepath.Join(r.out, "quality_report.json"))
	if err != nil || len(rep.Cases) != 1 {
		t.Fatalf("--case should audit one case: %v %+v", err, rep)
	}
}

// qaMixed mixes the three kinds: one multiple-choice case proven by the
// scripted agents, and api_understanding and fix_error cases proven by
// execution alone, against the stdlib fixtures of package execproof.
const qaMixed = `benchmarks:
- id: stdlib:valid_upper
  question: 'What does "ab".upper() return?'
  options:
    A: 'The string "AB"'
    B: 'The string "ab"'
    C: None of the above
  correct_answer: A
  benchmark_type: multiple_choice
- id: stdlib:json_decoder
  category: Core classes
  question: Which class decodes JSON documents?
  rationale: json.decoder.JSONDecoder decodes.
  benchmark_type: api_understanding
  template: identifier
  answers:
  - answer_template: StringMatchAnswer
    answer: JSONDecoder
    fully_qualified_class_name: [json.decoder.JSONDecoder, json.JSONDecoder]
  file: Lib/json/decoder.py
- id: fix:valid
  name: Implement add.
  benchmark_type: fix_error
  description: Implement add.
  test_file: cases/01_valid/test_agent.py
  unfixed_file: cases/01_valid/unfixed.py
  fixed_file: cases/01_valid/fixed.py
`

const qaMixedFlawed = `- id: stdlib:json_no_such_thing
  category: Core classes
  question: Which class decodes JSON lazily?
  rationale: None does.
  benchmark_type: api_understanding
  template: identifier
  answers:
  - answer_template: StringMatchAnswer
    answer: NoSuchThing
    fully_qualified_class_name: [json.decoder.NoSuchThing]
  file: Lib/json/decoder.py
- id: thirdparty:not_installed
  category: Core classes
  question: What is the base agent class?
  rationale: Not installed here.
  benchmark_type: api_understanding
  template: identifier
  answers:
  - answer_template: StringMatchAnswer
    answer: BaseAgent
    fully_qualified_class_name: [benchgate_not_installed_pkg.agents.BaseAgent]
  file: src/agents/base_agent.py
- id: fix:fixed_fails
  name: The reference solution is wrong.
  benchmark_type: fix_error
  description: Implement add.
  test_file: cases/02_fixed_fails/test_agent.py
  unfixed_file: cases/02_fixed_fails/unfixed.py
  fixed_file: cases/02_fixed_fails/fixed.py
- id: fix:missing_file
  name: A file is missing.
  benchmark_type: fix_error
  description: fixed_file points nowhere.
  test_file: cases/01_valid/test_agent.py
  unfixed_file: cases/01_valid/unfixed.py
  fixed_file: cases/01_valid/fixed_v2.py
`

func TestQAAuditProvesEveryKind(t *testing.T) {
	py := testenv.Python(t)
	root, err := filepath.Abs(filepath.Join("..", "qaaudit", "execproof", "testdata", "repo"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		yaml     string
		want     int
		verdicts map[string]string
	}{
		{"all valid", qaMixed, ExitOK, map[string]string{
			"stdlib:valid_upper": "Valid", "stdlib:json_decoder": "Valid", "fix:valid": "Valid"}},
		{"flawed", qaMixed + qaMixedFlawed, ExitFailed, map[string]string{
			"stdlib:valid_upper": "Valid", "stdlib:json_decoder": "Valid", "fix:valid": "Valid",
			"stdlib:json_no_such_thing": "Incorrect", "thirdparty:not_installed": "Inconclusive",
			"fix:fixed_fails": "Incorrect", "fix:missing_file": "Inconclusive"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chat := newChatFake(t, qaTests, nil)
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "benchmark.yaml"), []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			r := runQA(t, dir, nil, "--model-backend", "openai", "--model", "m", "--model-url", chat.URL+"/v1",
				"--python", py, "--test-timeout", "30s", "--repo-root", root, "--out-dir", "out", "benchmark.yaml")
			if r.code != tt.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tt.want, r.stdout, r.stderr)
			}
			rep, err := qreport.Read(filepath.Join(r.out, "quality_report.json"))
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Cases) != len(tt.verdicts) || rep.Totals.Skipped != 0 {
				t.Fatalf("%d cases, %d skipped; want %d audited", len(rep.Cases), rep.Totals.Skipped, len(tt.verdicts))
			}
			mcCalls := 0
			for _, c := range rep.Cases {
				if want := tt.verdicts[c.ID]; string(c.Verdict) != want || c.Skipped != "" || c.Error != "" {
					t.Errorf("%s: verdict %q skipped %q error %q, want %s", c.ID, c.Verdict, c.Skipped, c.Error, want)
				}
				if c.NeedsHumanReview != (c.Verdict != "Valid") {
					t.Errorf("%s: needs_human_review %v with %s", c.ID, c.NeedsHumanReview, c.Verdict)
				}
				if c.Kind == "multiple_choice" {
					mcCalls += c.ModelCalls
					continue
				}
				// Proven by execution: no model call, and per-check evidence.
				if c.ModelCalls != 0 || len(c.Options) == 0 {
					t.Errorf("%s: %d model calls, %d checks", c.ID, c.ModelCalls, len(c.Options))
				}
			}
			calls, checks := chat.Calls(), chat.Checks()
			bodies := map[string][]string{}
			for _, role := range []string{"claim_analyst", "proof_engineer", "remediation_engineer"} {
				bodies[role] = chat.Bodies(role)
			}
			if mcCalls == 0 || calls != mcCalls {
				t.Errorf("the model served %d calls, the multiple-choice case made %d: the other kinds must make none", calls, mcCalls)
			}
			if checks != 1 || rep.ModelCheck == nil || !rep.ModelCheck.OK || rep.Totals.ModelCalls != mcCalls+1 {
				t.Errorf("%d check calls, report check %+v, total model calls %d; want one check before the case's %d calls", checks, rep.ModelCheck, rep.Totals.ModelCalls, mcCalls)
			}
			for _, bs := range bodies {
				for _, b := range bs {
					if strings.Contains(b, "json.decoder") || strings.Contains(b, "JSONDecoder") || strings.Contains(b, "cases/0") {
						t.Errorf("a model request mentions an execution-proven case: %.200s", b)
					}
				}
			}
			if tt.want == ExitFailed {
				byID := map[string]qreport.Case{}
				for _, c := range rep.Cases {
					byID[c.ID] = c
				}
				if c := byID["fix:missing_file"]; len(c.Problems) != 1 || c.Problems[0].Field != "fixed_file" || c.Problems[0].Line == 0 {
					t.Errorf("missing file: problems %+v", c.Problems)
				}
				if c := byID["stdlib:json_no_such_thing"]; c.Options[0].Truth != "false" || !strings.Contains(c.Options[0].Message, "NoSuchThing") {
					t.Errorf("missing name: checks %+v", c.Options)
				}
				if c := byID["fix:fixed_fails"]; len(c.Options) != 2 || c.Options[1].Key != "fixed" || c.Options[1].Outcome != "failed" {
					t.Errorf("fixed fails: checks %+v", c.Options)
				}
				md, _ := os.ReadFile(filepath.Join(r.out, "quality_report.md"))
				if !strings.Contains(string(md), "fixed_v2.py") || !strings.Contains(string(md), "fix:fixed_fails") {
					t.Errorf("summary lacks the problem or the flawed case:\n%s", md)
				}
			}
		})
	}
}

// TestQAAuditMaxRemediations checks that --max-remediations bounds the
// remediation proposals as written: 0 and -1 mean none.
func TestQAAuditMaxRemediations(t *testing.T) {
	py := testenv.Python(t)
	chat := newChatFake(t, qaTests, qaProposals)
	tests := []struct {
		flag         string
		wantAttempts int
		wantVerdict  string
	}{
		{"0", 1, "Incorrect"},
		{"-1", 1, "Incorrect"},
		{"1", 2, "Valid"},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			dir := qaRepo(t)
			r := runQA(t, dir, nil, "--model-backend", "openai", "--model", "m", "--model-url", chat.URL+"/v1", "--python", py,
				"--out-dir", "out", "--case", "stdlib:drifted_answer", "--max-remediations="+tt.flag, "benchmarks")
			if r.code != ExitFailed {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			rep, err := qreport.Read(filepath.Join(r.out, "quality_report.json"))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range rep.Cases {
				if c.ID == "stdlib:drifted_answer" && (len(c.Attempts) != tt.wantAttempts || string(c.Verdict) != tt.wantVerdict) {
					t.Errorf("--max-remediations %s: %d attempts, verdict %s; want %d, %s", tt.flag, len(c.Attempts), c.Verdict, tt.wantAttempts, tt.wantVerdict)
				}
			}
		})
	}
}

// TestQAAuditOutDirInsideTheQuestionFolder checks that a rerun does not
// audit the fixed copies the first run wrote under its output folder.
func TestQAAuditOutDirInsideTheQuestionFolder(t *testing.T) {
	py := testenv.Python(t)
	chat := newChatFake(t, qaTests, qaProposals)
	dir := qaRepo(t)
	args := []string{"--model-backend", "openai", "--model", "m", "--model-url", chat.URL + "/v1", "--python", py,
		"--out-dir", "benchmarks/qa-out", "benchmarks"}
	var cases []int
	for run := 1; run <= 2; run++ {
		r := runQA(t, dir, nil, args...)
		if r.code != ExitFailed {
			t.Fatalf("run %d: exit %d: %s", run, r.code, r.stderr)
		}
		rep, err := qreport.Read(filepath.Join(dir, "benchmarks", "qa-out", "quality_report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if run == 1 && rep.Totals.Fixed == 0 {
			t.Fatal("the first run fixed nothing, so it wrote no copy to find")
		}
		cases = append(cases, rep.Totals.Cases)
	}
	if cases[0] != cases[1] {
		t.Errorf("cases per run %v: the second run audited the first run's fixed copies", cases)
	}
}

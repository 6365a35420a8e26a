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

const repo = "testdata/repo"

func loadCases(t *testing.T) *questions.File { return loadCasesB(t) }

func loadCasesB(t testing.TB) *questions.File {
	t.Helper()
	f, err := questions.Load(filepath.Join(repo, "questions.yaml"), questions.Options{SkipSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Problems) > 0 {
		t.Fatalf("fixture problems: %v", f.Problems)
	}
	return f
}

// check is the expected outcome of one check of a case.
type check struct {
	key     string
	truth   verdict.Truth
	outcome sandbox.Status
	message string // substring of the check's message
}

func TestAuditCaseProvesByExecution(t *testing.T) {
	python := testenv.Python(t)
	f := loadCases(t)
	tests := []struct {
		id      string
		verdict verdict.Verdict
		checks  []check
		problem string // field of the expected problem
	}{
		{"stdlib:json_decoder", verdict.Valid, []check{
			{"answers[0].fully_qualified_class_name[0]", verdict.True, sandbox.StatusPassed, ""},
			{"answers[0].fully_qualified_class_name[1]", verdict.True, sandbox.StatusPassed, ""},
			{"answers[0].answer", verdict.True, sandbox.StatusPassed, ""},
		}, ""},
		{"stdlib:json_decoder_member", verdict.Valid, []check{
			{"answers[0].fully_qualified_class_name[0]", verdict.True, sandbox.StatusPassed, ""},
			{"answers[0].answer", verdict.True, sandbox.StatusPassed, ""},
		}, ""},
		{"stdlib:json_no_such_thing", verdict.Incorrect, []check{
			{"answers[0].fully_qualified_class_name[0]", verdict.True, sandbox.StatusPassed, ""},
			{"answers[0].fully_qualified_class_name[1]", verdict.False, sandbox.StatusFailed, "module json.decoder has no attribute or submodule NoSuchThing"},
			{"answers[0].answer", verdict.False, sandbox.StatusFailed, "neither the name nor a member of json.decoder.JSONDecoder"},
		}, ""},
		{"stdlib:wrong_answer", verdict.Incorrect, []check{
			{"answers[0].fully_qualified_class_name[0]", verdict.True, sandbox.StatusPassed, ""},
			{"answers[0].answer", verdict.False, sandbox.StatusFailed, "'JSONEncoder' is neither the name nor a member"},
		}, ""},
		{"thirdparty:not_installed", verdict.Inconclusive, []check{
			{"answers[0].fully_qualified_class_name[0]", verdict.Unknown, sandbox.StatusSkipped, "top-level package benchgate_not_installed_pkg is not importable"},
			{"answers[0].answer", verdict.Unknown, sandbox.StatusSkipped, "cannot check BaseAgent"},
		}, ""},
		{"fix:valid", verdict.Valid, []check{
			{UnfixedCheck, verdict.True, sandbox.StatusFailed, "test_create_passes"},
			{FixedCheck, verdict.True, sandbox.StatusPassed, ""},
		}, ""},
		{"fix:fixed_fails", verdict.Incorrect, []check{
			{UnfixedCheck, verdict.True, sandbox.StatusFailed, ""},
			{FixedCheck, verdict.False, sandbox.StatusFailed, "test_create_passes"},
		}, ""},
		{"fix:unfixed_passes", verdict.Incorrect, []check{
			{UnfixedCheck, verdict.False, sandbox.StatusPassed, "every test passed against the unfixed code"},
			{FixedCheck, verdict.True, sandbox.StatusPassed, ""},
		}, ""},
		{"fix:fixed_syntax", verdict.Incorrect, []check{
			{UnfixedCheck, verdict.True, sandbox.StatusFailed, ""},
			{FixedCheck, verdict.False, sandbox.StatusFailed, "the fixed code does not compile in this Python: SyntaxError"},
		}, ""},
		{"fix:missing_file", verdict.Inconclusive, []check{
			{UnfixedCheck, verdict.Unknown, "", "not run: fixed_file"},
			{FixedCheck, verdict.Unknown, "", "not run: fixed_file"},
		}, "fixed_file"},
		{"fix:escapes_root", verdict.Inconclusive, []check{
			{UnfixedCheck, verdict.Unknown, "", "path leaves the repository root"},
		}, "unfixed_file"},
	}
	work := t.TempDir()
	a := &Auditor{Runner: sandbox.Runner{Python: python}, WorkDir: work, RepoRoot: repo}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			c, ok := f.Case(tt.id)
			if !ok {
				t.Fatalf("no case %s", tt.id)
			}
			r := a.AuditCase(context.Background(), c)
			if r.Verdict != tt.verdict || r.FinalVerdict != tt.verdict {
				t.Fatalf("verdict %s/%s, want %s; attempts %+v", r.Verdict, r.FinalVerdict, tt.verdict, r.Attempts)
			}
			if r.NeedsHumanReview != (tt.verdict != verdict.Valid) {
				t.Errorf("needs_human_review %v for %s", r.NeedsHumanReview, r.Verdict)
			}
			if r.ModelCalls != 0 || r.Fix != nil || len(r.Attempts) != 1 {
				t.Errorf("model calls %d, fix %v, %d attempts: want 0, none, 1", r.ModelCalls, r.Fix, len(r.Attempts))
			}
			got := map[string]caseresult.OptionResult{}
			for _, o := range r.Attempts[0].Options {
				got[o.Option] = o
			}
			for _, want := range tt.checks {
				o, ok := got[want.key]
				if !ok {
					t.Errorf("no check %s in %+v", want.key, r.Attempts[0].Options)
					continue
				}
				if o.Truth != want.truth || sandbox.Status(o.Outcome) != want.outcome || !strings.Contains(o.Message, want.message) {
					t.Errorf("check %s: truth %s outcome %q message %q; want %s %q containing %q", want.key, o.Truth, o.Outcome, o.Message, want.truth, want.outcome, want.message)
				}
				if want.outcome != "" {
					if _, err := os.Stat(o.TestPath); err != nil || !strings.HasPrefix(o.TestPath, work) {
						t.Errorf("check %s: test file %q not kept under the work folder: %v", want.key, o.TestPath, err)
					}
				}
			}
			if tt.problem == "" && len(r.Problems) > 0 {
				t.Errorf("unexpected problems %v", r.Problems)
			}
			if tt.problem != "" {
				if len(r.Problems) != 1 || r.Problems[0].Field != tt.problem || r.Problems[0].File != c.File || r.Problems[0].Line != c.FieldLines[tt.problem] {
					t.Errorf("problems %+v, want one on field %s at line %d", r.Problems, tt.problem, c.FieldLines[tt.problem])
				}
			}
		})
	}
}

package audit_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/benchgate/benchgate/internal/qaaudit/audit"
	"github.com/benchgate/benchgate/internal/qaaudit/execproof"
	"github.com/benchgate/benchgate/internal/qaaudit/pipeline"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// recorder notes which cases reached it.
type recorder struct{ seen []string }

func (r *recorder) AuditCase(_ context.Context, c *questions.Case) pipeline.CaseResult {
	r.seen = append(r.seen, c.ID)
	return pipeline.CaseResult{ID: c.ID, Verdict: verdict.Valid, FinalVerdict: verdict.Valid}
}

func TestByKindRoutesExecutionKindsAwayFromTheAgents(t *testing.T) {
	src := `benchmarks:
- {id: mc, question: q, options: {A: x, B: y}, correct_answer: A, benchmark_type: multiple_choice}
- {id: api, question: q, benchmark_type: api_understanding, answers: [{answer: X, fully_qualified_class_name: [a.X]}]}
- {id: fix, benchmark_type: fix_error, test_file: t.py}
- {id: broken_api, benchmark_type: api_understanding}
`
	f, err := questions.Parse("q.yaml", []byte(src), questions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	agents, exec := &recorder{}, &recorder{}
	k := audit.ByKind{Agents: agents, Exec: exec}
	for _, c := range f.Cases() {
		k.AuditCase(context.Background(), c)
	}
	// A malformed case goes to the agent pipeline, which reports it as malformed.
	if got, want := agents.seen, []string{"mc", "broken_api"}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("agents saw %v, want %v", got, want)
	}
	if got := exec.seen; len(got) != 2 || got[0] != "api" || got[1] != "fix" {
		t.Errorf("execution proofs saw %v, want [api fix]", got)
	}
}

func TestReportCaseKeepsProvenCaseWithProblemsAudited(t *testing.T) {
	py := testenv.Python(t)
	src := `benchmarks:
- id: fix:missing
  benchmark_type: fix_error
  test_file: cases/01_valid/test_agent.py
  unfixed_file: cases/01_valid/unfixed.py
  fixed_file: cases/01_valid/nowhere.py
`
	f, err := questions.Parse("q.yaml", []byte(src), questions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := f.Cases()[0]
	a := &execproof.Auditor{Runner: sandbox.Runner{Python: py}, WorkDir: t.TempDir(), RepoRoot: filepath.Join("..", "execproof", "testdata", "repo")}
	rc := audit.ReportCase(c, a.AuditCase(context.Background(), c))
	if rc.Skipped != "" || rc.Verdict != verdict.Inconclusive || !rc.NeedsHumanReview || len(rc.Problems) != 1 || rc.Problems[0].Field != "fixed_file" || rc.Problems[0].Line != 6 {
		t.Errorf("report case %+v", rc)
	}
	if len(rc.Options) != 2 || rc.Reason == "" {
		t.Errorf("checks %+v, reason %q", rc.Options, rc.Reason)
	}
}

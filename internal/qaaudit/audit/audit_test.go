package audit_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/ghpr"
	"github.com/benchgate/benchgate/internal/qaaudit/audit"
	"github.com/benchgate/benchgate/internal/qaaudit/pipeline"
	"github.com/benchgate/benchgate/internal/qaaudit/qreport"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// oracle plays the auditor with the maintainers' own labels: a case they
// later changed is Incorrect and its fix is their change; every other case
// is Valid. It lets the test check the orchestration on real files.
type oracle struct{ fixes map[string]questions.Fix }

func (o oracle) AuditCase(_ context.Context, c *questions.Case) pipeline.CaseResult {
	r := pipeline.CaseResult{ID: c.ID, File: c.File, Line: c.Line, Verdict: verdict.Valid, FinalVerdict: verdict.Valid}
	if !c.OK() {
		r.Problems, r.Verdict, r.FinalVerdict, r.NeedsHumanReview = c.Problems, verdict.Inconclusive, verdict.Inconclusive, true
		return r
	}
	r.Attempts = []pipeline.Attempt{{Number: 0, Verdict: verdict.Valid, Options: []pipeline.OptionResult{{Option: c.CorrectAnswer, Outcome: "passed", Truth: verdict.True, Evidence: true}}}}
	if fix, ok := o.fixes[c.ID]; ok {
		r.Verdict = verdict.Incorrect
		r.Attempts[0].Verdict = verdict.Incorrect
		r.Attempts = append(r.Attempts, pipeline.Attempt{Number: 1, Fix: &fix, Verdict: verdict.Valid, Rationale: "maintainers' fix"})
		r.Fix = &fix
	}
	return r
}

func str(s string) *string { return &s }

// humanFixes compares a file before the maintainers' fixes with the current
// one and returns, per case id, the change they made.
func humanFixes(t *testing.T, before, after *questions.File) map[string]questions.Fix {
	t.Helper()
	out := map[string]questions.Fix{}
	for _, b := range before.Cases() {
		a, ok := after.Case(b.ID)
		if !ok || b.Kind != questions.MultipleChoice || !b.OK() || len(a.Options) != len(b.Options) {
			continue
		}
		var fix questions.Fix
		if a.CorrectAnswer != b.CorrectAnswer {
			fix.CorrectAnswer = str(a.CorrectAnswer)
		}
		if a.Question != b.Question {
			fix.Question = str(a.Question)
		}
		if a.Explanation != b.Explanation && b.Explanation != "" {
			fix.Explanation = str(a.Explanation)
		}
		for _, o := range a.Options {
			if bo, _ := b.Option(o.Key); bo.Text != o.Text {
				if fix.Options == nil {
					fix.Options = map[string]string{}
				}
				fix.Options[o.Key] = o.Text
			}
		}
		if !fix.Empty() {
			out[b.ID] = fix
		}
	}
	return out
}

func TestRunAppliesHumanFixesToRealFiles(t *testing.T) {
	data := filepath.Join(testenv.RepoRoot(t), "testdata", "adk")
	for _, suite := range []string{"configure_adk_features_mc", "diagnose_setup_errors_mc"} {
		t.Run(suite, func(t *testing.T) {
			repo := t.TempDir()
			rel := filepath.Join("benchmarks", suite, "benchmark.yaml")
			src, err := os.ReadFile(filepath.Join(data, suite+".benchmark.before-fixes-d7e1048.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, rel)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(repo, rel), src, 0o644); err != nil {
				t.Fatal(err)
			}
			before, err := questions.Load(filepath.Join(repo, rel), questions.Options{SkipSnippets: true})
			if err != nil {
				t.Fatal(err)
			}
			after, err := questions.Load(filepath.Join(data, suite+".benchmark.yaml"), questions.Options{SkipSnippets: true})
			if err != nil {
				t.Fatal(err)
			}
			fixes := humanFixes(t, before, after)
			if len(fixes) < 4 {
				t.Fatalf("only %d human-fixed cases found", len(fixes))
			}
			files, err := audit.LoadAll([]string{filepath.Join(repo, rel)}, repo)
			if err != nil {
				t.Fatal(err)
			}
			// Cases whose code_snippet_ref file is not in this checkout are
			// malformed (reported, not audited): only the others get fixed.
			for id := range fixes {
				if c, ok := files[0].Case(id); !ok || !c.OK() {
					delete(fixes, id)
				}
			}
			if len(fixes) == 0 {
				t.Fatal("no auditable human-fixed case")
			}
			out := filepath.Join(repo, "out")
			res, err := audit.Run(context.Background(), files, audit.Options{RepoRoot: repo, OutDir: out, Auditor: oracle{fixes}, Only: nil})
			if err != nil {
				t.Fatal(err)
			}
			if res.AllValid {
				t.Error("a run with Incorrect cases is not all valid")
			}
			for _, c := range res.Report.Cases {
				if c.Error != "" {
					t.Errorf("%s: %s", c.ID, c.Error)
				}
				if c, _ := files[0].Case(c.ID); !c.OK() && c.SnippetRef == nil {
					t.Errorf("%s: unexpected problems %v", c.ID, c.Problems)
				}
			}
			if len(res.Fixed) != 1 || res.Fixed[0].RelPath != filepath.ToSlash(rel) || len(res.Fixed[0].Cases) != len(fixes) {
				t.Fatalf("fixed files = %d, want 1 with %d cases", len(res.Fixed), len(fixes))
			}
			// Every fixed case now reads like the maintainers' version.
			fixed, err := questions.Load(res.Fixed[0].Written, questions.Options{SkipSnippets: true})
			if err != nil {
				t.Fatal(err)
			}
			for id := range fixes {
				got, _ := fixed.Case(id)
				want, _ := after.Case(id)
				if got.CorrectAnswer != want.CorrectAnswer || got.Question != want.Question {
					t.Errorf("%s: fixed answer %q question %q, want %q %q", id, got.CorrectAnswer, got.Question, want.CorrectAnswer, want.Question)
				}
			}
			// Lines of the cases nobody fixed are untouched.
			srcLines, fixedLines := strings.Split(string(src), "\n"), strings.Split(string(res.Fixed[0].Content), "\n")
			changed := 0
			for i := 0; i < len(srcLines) && i < len(fixedLines); i++ {
				if srcLines[i] != fixedLines[i] {
					changed++
				}
			}
			if changed == 0 || changed > 8*len(fixes) {
				t.Errorf("%d lines changed for %d fixed cases", changed, len(fixes))
			}
			rep, err := qreport.Read(res.ReportPath)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Totals.Fixed != len(fixes) || rep.Totals.Cases != len(before.Cases()) || rep.Totals.Incorrect != len(fixes) {
				t.Errorf("totals %+v (fixes %d, cases %d)", rep.Totals, len(fixes), len(before.Cases()))
			}
			// The pull-request plan groups the file on one branch and shows every fixed case.
			plan := audit.Plan(ghpr.Config{Owner: "o", Repo: "r", Labels: []string{"qa-audit"}}, audit.Changes(res.Fixed))
			for id := range fixes {
				if !strings.Contains(plan, id) {
					t.Errorf("plan lacks %s", id)
				}
			}
			if !strings.Contains(plan, "benchgate/qa-audit/benchmarks-"+suite+"-benchmark") {
				t.Errorf("plan branch:\n%s", plan[:200])
			}
		})
	}
}

func TestExpandPaths(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/x.yaml", "a/b/y.yml", "a/notes.txt"} {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte("benchmarks: []\n"), 0o644)
	}
	got, err := audit.ExpandPaths([]string{filepath.Join(dir, "a")})
	if err != nil || len(got) != 2 || !strings.HasSuffix(got[0], "y.yml") || !strings.HasSuffix(got[1], "x.yaml") {
		t.Errorf("ExpandPaths = %v, %v", got, err)
	}
	for _, bad := range [][]string{{filepath.Join(dir, "missing")}, {}, {filepath.Join(dir, "a", "b", "empty")}} {
		if len(bad) == 1 && strings.HasSuffix(bad[0], "empty") {
			os.MkdirAll(bad[0], 0o755)
		}
		if _, err := audit.ExpandPaths(bad); err == nil {
			t.Errorf("ExpandPaths(%v) accepted", bad)
		}
	}
}

// cancelAfter cancels the run once it has audited n cases, like a SIGTERM
// arriving in the middle of an audit.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
	oracle
}

func (c *cancelAfter) AuditCase(ctx context.Context, qc *questions.Case) pipeline.CaseResult {
	c.n--
	if c.n == 0 {
		c.cancel()
	}
	return c.oracle.AuditCase(ctx, qc)
}

func TestRunInterruptedLeavesCompleteReport(t *testing.T) {
	path := filepath.Join(testenv.RepoRoot(t), "testdata", "adk", "configure_adk_features_mc.benchmark.yaml")
	files, err := audit.LoadAll([]string{path}, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := t.TempDir()
	res, err := audit.Run(ctx, files, audit.Options{OutDir: out, Auditor: &cancelAfter{n: 3, cancel: cancel}})
	if err == nil {
		t.Fatal("an interrupted run must return the cancellation")
	}
	rep, rerr := qreport.Read(filepath.Join(out, "quality_report.json"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if len(rep.Cases) != len(files[0].Cases()) || rep.Totals.Valid != 3 || rep.Totals.Errors != len(rep.Cases)-3 {
		t.Errorf("totals %+v for %d cases", rep.Totals, len(rep.Cases))
	}
	if !strings.Contains(rep.Cases[5].Error, "not audited") || res.AllValid {
		t.Errorf("case 5 error %q, all valid %v", rep.Cases[5].Error, res.AllValid)
	}
}

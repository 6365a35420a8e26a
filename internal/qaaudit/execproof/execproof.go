// Package execproof audits the benchmark kinds whose ground truth can be
// checked by execution alone, with no model: api_understanding (every fully
// qualified name an answer gives must exist in the configured Python) and
// fix_error (the case's test must fail against the unfixed code and pass
// against the fixed code). Each check runs as real pytest in the sandbox,
// and the verdict comes from verdict.DecideChecks: a check proven false
// makes the case Incorrect, errors and missing packages make it
// Inconclusive, never Incorrect.
//
// The result has the shape of a multiple-choice audit (one attempt whose
// "options" are the checks), so the report, the totals and the exit code
// treat every kind alike. These kinds are never remediated: a case that is
// not Valid is flagged for human review.
package execproof

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/ident"
	"github.com/benchgate/benchgate/internal/qaaudit/caseresult"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// Auditor proves api_understanding and fix_error cases.
type Auditor struct {
	// Runner is the sandbox the checks run in (interpreter or image,
	// timeout, scrubbed environment). WorkDir and Keep are set per case.
	Runner sandbox.Runner
	// WorkDir holds one folder per case with the generated and copied files.
	WorkDir string
	// RepoRoot is the folder fix_error file paths are relative to; a path
	// that leaves it is refused.
	RepoRoot string
	// Prover, when set, proves the checks the rules left undecided (a
	// model writes and runs a test for each claim); without it they stay
	// Inconclusive, and the reason names what was not decided.
	Prover ClaimProver
	// Typeshed is the folder of typeshed's standard-library stubs, whose
	// sys.platform and sys.version_info branches tell a name that exists
	// only on another platform (os.startfile) from one that does not
	// exist; "" finds Debian's python3-mypy copy, "none" uses none.
	Typeshed string
}

// ClaimProver proves claims about a case that code did not decide, one
// result per claim in order, and says how many model calls it made.
// *pipeline.Auditor is the implementation.
type ClaimProver interface {
	ProveClaims(ctx context.Context, c *questions.Case, claims []string) ([]caseresult.OptionResult, int64, error)
}

// Handles reports whether the case is of a kind this package proves.
func Handles(c *questions.Case) bool {
	return c.Kind == questions.APIUnderstanding || c.Kind == questions.FixError
}

// AuditCase proves one api_understanding or fix_error case. It never calls
// a model; a case of another kind comes back skipped.
func (a *Auditor) AuditCase(ctx context.Context, c *questions.Case) (res caseresult.CaseResult) {
	start := time.Now()
	res = caseresult.CaseResult{ID: c.ID, File: c.File, Line: c.Line, Verdict: verdict.Inconclusive, FinalVerdict: verdict.Inconclusive}
	defer func() { res.DurationMS = time.Since(start).Milliseconds() }()
	if !c.OK() {
		res.Problems = c.Problems
		res.NeedsHumanReview = true
		return res
	}
	var checks []caseresult.OptionResult
	var err error
	switch c.Kind {
	case questions.APIUnderstanding:
		checks, res.Problems, err = a.apiChecks(ctx, c)
	case questions.FixError:
		checks, res.Problems, err = a.fixChecks(ctx, c)
	default:
		res.Skipped = fmt.Sprintf("benchmark_type %s is not proven without a model", c.Kind)
		return res
	}
	if err == nil {
		res.ModelCalls = a.prove(ctx, c, checks)
	}
	at := caseresult.Attempt{Number: 0, Options: checks, Verdict: verdict.Inconclusive, DurationMS: time.Since(start).Milliseconds(), ModelCalls: res.ModelCalls}
	if err != nil {
		at.Error = err.Error()
	}
	var in []verdict.Check
	for _, o := range checks {
		in = append(in, verdict.Check{Key: o.Option, Truth: o.Truth, Answer: o.AnswerCheck})
	}
	switch d, derr := verdict.DecideChecks(in); {
	case derr == nil:
		d.Reason = explain(d, checks, a.Prover != nil)
		at.Decision, at.Verdict = &d, d.Verdict
	case len(in) == 0 && len(res.Problems) > 0:
		at.Decision = &verdict.Decision{Verdict: verdict.Inconclusive, Reason: "nothing to check: " + res.Problems[0].Field + " " + res.Problems[0].Message}
	case at.Error == "":
		at.Error = derr.Error()
	}
	if at.Error != "" && at.Decision == nil {
		at.Decision = &verdict.Decision{Verdict: verdict.Inconclusive, Reason: at.Error}
	}
	res.Attempts = []caseresult.Attempt{at}
	res.Verdict, res.FinalVerdict = at.Verdict, at.Verdict
	res.NeedsHumanReview = at.Verdict != verdict.Valid
	return res
}

// caseDir is the case's work folder, laid out like the agent pipeline's
// (<work>/<case>/attempt-0) so that every case's files are found alike.
func (a *Auditor) caseDir(id string) string {
	return filepath.Join(a.WorkDir, ident.PathSegment(id), "attempt-0")
}

// truthOf maps one test's status to what it proves about its check.
func truthOf(s sandbox.Status) verdict.Truth {
	switch s {
	case sandbox.StatusPassed:
		return verdict.True
	case sandbox.StatusFailed:
		return verdict.False
	}
	return verdict.Unknown
}

// explain words a decision with the checks' claims, so that a reader of
// the summary sees what was proven, by what, and what was not decided.
func explain(d verdict.Decision, checks []caseresult.OptionResult, prover bool) string {
	byKey := map[string]caseresult.OptionResult{}
	for _, o := range checks {
		byKey[o.Option] = o
	}
	switch d.Verdict {
	case verdict.Incorrect:
		// Each false check says what its run showed (which code passed or
		// failed, a name that does not exist, code that does not compile).
		parts := make([]string, len(d.ProvenFalse))
		for i, k := range d.ProvenFalse {
			parts[i] = fmt.Sprintf("%s (%s): proven false", byKey[k].Claim, k)
			if why, _, _ := strings.Cut(strings.TrimSpace(byKey[k].Message), "\n"); why != "" {
				parts[i] += ": " + textfmt.Truncate(why, 300)
			}
		}
		return strings.Join(parts, "; ")
	case verdict.Inconclusive:
		if len(d.Unknown) == 0 {
			return d.Reason + "; " + checked(checks)
		}
		// Each unproven check says why (the skip reason pytest reported:
		// a library not installed, a claim the rules did not decide), so a
		// reader knows what to fix or to check by hand.
		parts := make([]string, len(d.Unknown))
		for i, k := range d.Unknown {
			o := byKey[k]
			why := strings.TrimSpace(o.Message)
			if len(why) >= 8 && strings.EqualFold(why[:8], "skipped:") {
				why = strings.TrimSpace(why[8:])
			}
			if o.Undecided != "" {
				why = "not decided by the rules: " + o.Undecided
				if !prover {
					why += " (no model is configured to prove it)"
				} else if p := proverNote(o.Message); p != "" {
					why += " (" + p + ")"
				}
			}
			if why == "" {
				why = "no evidence"
			}
			parts[i] = fmt.Sprintf("%s (%s): not proven: %s", o.Claim, k, textfmt.Truncate(why, 400))
		}
		return strings.Join(parts, "; ")
	default:
		return checked(checks)
	}
}

// checked lists the checks that were proven true, and by whom.
func checked(checks []caseresult.OptionResult) string {
	var parts []string
	for _, o := range checks {
		if o.Truth != verdict.True {
			continue
		}
		p := o.Claim
		if o.ProvedBy != "" {
			p += " (by the " + o.ProvedBy + ")"
		}
		parts = append(parts, p)
	}
	return "checked: " + strings.Join(parts, "; ")
}

// proverNote is what the prover said about a check it did not decide.
func proverNote(msg string) string {
	if i := strings.Index(msg, "prover: "); i >= 0 {
		return firstLine(msg[i:])
	}
	return ""
}

// prove sends the checks the rules left undecided to the prover, in
// place, and returns the model calls it made. A check the prover did not
// decide keeps its reason, with the prover's.
func (a *Auditor) prove(ctx context.Context, c *questions.Case, checks []caseresult.OptionResult) int64 {
	var idx []int
	var claims []string
	for i, o := range checks {
		if o.Truth == verdict.Unknown && o.Undecided != "" {
			idx = append(idx, i)
			claims = append(claims, o.Claim)
		}
	}
	if len(idx) == 0 || a.Prover == nil {
		return 0
	}
	got, calls, err := a.Prover.ProveClaims(ctx, c, claims)
	for n, i := range idx {
		o := &checks[i]
		if err != nil || n >= len(got) {
			why := "no result"
			if err != nil {
				why = err.Error()
			}
			o.Message = strings.TrimSpace(o.Message + "\nprover: " + why)
			continue
		}
		p := got[n]
		o.ProvedBy, o.Runs, o.DurationMS = "prover", o.Runs+p.Runs, o.DurationMS+p.DurationMS
		if p.Truth == verdict.True || p.Truth == verdict.False {
			o.Truth, o.Evidence, o.Outcome, o.TestPath = p.Truth, true, p.Outcome, p.TestPath
			o.Message = fmt.Sprintf("proven %s by the prover's test (%s); the rules had not decided it: %s", p.Truth, p.Outcome, o.Undecided)
			if p.Message != "" {
				o.Message += ": " + firstLine(p.Message)
			}
			continue
		}
		o.Message = strings.TrimSpace(o.Message + "\nprover: " + p.Outcome + ": " + firstLine(p.Message))
	}
	return calls
}

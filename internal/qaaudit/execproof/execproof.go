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
	"github.com/benchgate/benchgate/internal/qaaudit/pipeline"
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
	// Typeshed is the folder of typeshed's standard-library stubs, whose
	// sys.platform and sys.version_info branches tell a name that exists
	// only on another platform (os.startfile) from one that does not
	// exist; "" finds Debian's python3-mypy copy, "none" uses none.
	Typeshed string
}

// Handles reports whether the case is of a kind this package proves.
func Handles(c *questions.Case) bool {
	return c.Kind == questions.APIUnderstanding || c.Kind == questions.FixError
}

// AuditCase proves one api_understanding or fix_error case. It never calls
// a model; a case of another kind comes back skipped.
func (a *Auditor) AuditCase(ctx context.Context, c *questions.Case) (res pipeline.CaseResult) {
	start := time.Now()
	res = pipeline.CaseResult{ID: c.ID, File: c.File, Line: c.Line, Verdict: verdict.Inconclusive, FinalVerdict: verdict.Inconclusive}
	defer func() { res.DurationMS = time.Since(start).Milliseconds() }()
	if !c.OK() {
		res.Problems = c.Problems
		res.NeedsHumanReview = true
		return res
	}
	var checks []pipeline.OptionResult
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
	at := pipeline.Attempt{Number: 0, Options: checks, Verdict: verdict.Inconclusive, DurationMS: time.Since(start).Milliseconds()}
	if err != nil {
		at.Error = err.Error()
	}
	var in []verdict.Check
	for _, o := range checks {
		in = append(in, verdict.Check{Key: o.Option, Truth: o.Truth})
	}
	switch d, derr := verdict.DecideChecks(in); {
	case derr == nil:
		d.Reason = explain(d, checks)
		at.Decision, at.Verdict = &d, d.Verdict
	case len(in) == 0 && len(res.Problems) > 0:
		at.Decision = &verdict.Decision{Verdict: verdict.Inconclusive, Reason: "nothing to check: " + res.Problems[0].Field + " " + res.Problems[0].Message}
	case at.Error == "":
		at.Error = derr.Error()
	}
	if at.Error != "" && at.Decision == nil {
		at.Decision = &verdict.Decision{Verdict: verdict.Inconclusive, Reason: at.Error}
	}
	res.Attempts = []pipeline.Attempt{at}
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
// the summary sees what was proven false or could not be proven.
func explain(d verdict.Decision, checks []pipeline.OptionResult) string {
	claim, message := map[string]string{}, map[string]string{}
	for _, o := range checks {
		claim[o.Option], message[o.Option] = o.Claim, o.Message
	}
	switch d.Verdict {
	case verdict.Incorrect:
		// Each false check says what its run showed (which code passed or
		// failed, a name that does not exist, code that does not compile).
		parts := make([]string, len(d.ProvenFalse))
		for i, k := range d.ProvenFalse {
			parts[i] = fmt.Sprintf("%s (%s): proven false", claim[k], k)
			if why, _, _ := strings.Cut(strings.TrimSpace(message[k]), "\n"); why != "" {
				parts[i] += ": " + textfmt.Truncate(why, 300)
			}
		}
		return strings.Join(parts, "; ")
	case verdict.Inconclusive:
		// Each unproven check says why (the skip reason pytest reported:
		// a library not installed, a name taken through **kwargs), so a
		// reader knows what to fix or to check by hand.
		parts := make([]string, len(d.Unknown))
		for i, k := range d.Unknown {
			why := strings.TrimSpace(message[k])
			if len(why) >= 8 && strings.EqualFold(why[:8], "skipped:") {
				why = strings.TrimSpace(why[8:])
			}
			if why == "" {
				why = "no evidence"
			}
			parts[i] = fmt.Sprintf("%s (%s): not proven: %s", claim[k], k, textfmt.Truncate(why, 400))
		}
		return strings.Join(parts, "; ")
	default:
		return d.Reason
	}
}

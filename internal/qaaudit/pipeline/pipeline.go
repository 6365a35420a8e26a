// Package pipeline is the qa-audit agent graph, built on Google's ADK for Go.
//
// For every multiple-choice case it runs a verification pipeline (an ADK
// sequential agent): a claim analyst turns each option into a testable
// claim; a proof engineer, looping under an iteration bound, writes one
// test_option_<X>.py per option asserting the option as stated and runs it
// through a Prover (the pytest sandbox); a code agent then decides the
// verdict from the outcomes. The ground truth (correct_answer, explanation)
// never enters those agents' session or prompts: it lives only in Go and is
// compared with the proven options in code (package verdict).
//
// A case proven Ambiguous or Incorrect goes to a remediation engineer, which
// may see the ground truth and the proof and proposes a corrected case. Each
// proposal is verified again from scratch in a fresh session, up to
// MaxRemediations times; a case still flawed after that, or whose evidence is
// inconclusive, is flagged for human review.
//
// Every run is bounded: the proof loop by MaxProofIterations, each case by
// CaseTimeout, and the whole audit by ModelCallBudget.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"google.golang.org/adk/model"

	"github.com/benchgate/benchgate/internal/qaaudit/caseresult"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
)

// ProofResult is what running one option's test file showed.
type ProofResult struct {
	// Outcome classifies the run: passed, failed, error, collection_error,
	// timeout, no_tests, crashed...
	Outcome string
	// Evidence is true only for outcomes that say something about the claim
	// (passed, or failed on an assertion/exception in the test body).
	Evidence bool
	Passed   bool
	Message  string
	TestPath string
	Duration time.Duration
	// Limit names the sandbox limit the test ran into, or "".
	Limit string
}

// Prover runs source as test_option_<option>.py in dir and classifies it.
// An error means the prover itself could not run (not a failing test).
type Prover interface {
	Prove(ctx context.Context, dir, option, source string) (ProofResult, error)
}

// Config bounds and equips an Auditor.
type Config struct {
	Model  model.LLM
	Prover Prover
	// WorkDir holds one folder per case, attempt and option with the test files.
	WorkDir string
	// MaxProofIterations bounds the proof engineer loop (default 8).
	MaxProofIterations uint
	// TriesPerOption is how many times the engineer may run a test for an
	// option that produced no evidence before the loop gives up (default 2).
	TriesPerOption int
	// MaxRemediations bounds fix proposals per case (default 3; 0 keeps the default, negative disables).
	MaxRemediations int
	// ModelCallBudget caps model calls over the whole audit (0 = no cap).
	ModelCallBudget int64
	// CaseTimeout bounds the audit of one case, remediation included (0 = none).
	CaseTimeout time.Duration
}

// ErrBudget is returned once the model-call budget is spent.
var ErrBudget = errors.New("model-call budget exhausted")

// Auditor audits cases one at a time. It is safe for sequential use; the
// model-call counter is shared by all cases of the audit.
type Auditor struct {
	cfg   Config
	calls atomic.Int64
}

// New checks cfg and returns an Auditor.
func New(cfg Config) (*Auditor, error) {
	// A nil Model is allowed: malformed cases and kinds the pipeline does
	// not audit need none, and a multiple_choice case then says so.
	if cfg.Prover == nil {
		return nil, errors.New("pipeline: no prover")
	}
	if cfg.WorkDir == "" {
		return nil, errors.New("pipeline: no work folder")
	}
	if cfg.MaxProofIterations == 0 {
		cfg.MaxProofIterations = 8
	}
	if cfg.TriesPerOption <= 0 {
		cfg.TriesPerOption = 2
	}
	if cfg.MaxRemediations == 0 {
		cfg.MaxRemediations = 3
	}
	if cfg.Model != nil {
		cfg.Model = sentModel{cfg.Model}
	}
	return &Auditor{cfg: cfg}, nil
}

// ModelCalls returns the number of model calls made so far.
func (a *Auditor) ModelCalls() int64 { return a.calls.Load() }

// The result types live in package caseresult, shared with the
// execution proofs; these names keep the pipeline's callers unchanged.
type (
	OptionResult = caseresult.OptionResult
	Attempt      = caseresult.Attempt
	CaseResult   = caseresult.CaseResult
)

// version is one statement of a case: what the analyst and engineer see
// (question, options, snippet) plus the ground truth kept for the verdict.
type version struct {
	id       string
	question string
	snippet  string
	options  []questions.Option
	nota     string
	correct  string
}

func versionOf(c *questions.Case) version {
	v := version{id: c.ID, question: c.Question, snippet: c.CodeSnippet, correct: c.CorrectAnswer}
	v.options = append(v.options, c.Options...)
	v.nota = notaKey(v.options)
	return v
}

func notaKey(opts []questions.Option) string {
	for _, o := range opts {
		if verdict.IsNoneOfTheAbove(o.Text) {
			return o.Key
		}
	}
	return ""
}

// apply returns the version a fix describes, starting from the original.
func (v version) apply(fix questions.Fix) version {
	out := v
	out.options = nil
	seen := map[string]bool{}
	for _, o := range v.options {
		if t, ok := fix.Options[o.Key]; ok {
			o.Text = t
		}
		seen[o.Key] = true
		out.options = append(out.options, o)
	}
	for _, k := range slices.Sorted(maps.Keys(fix.Options)) {
		if !seen[k] {
			out.options = append(out.options, questions.Option{Key: k, Text: fix.Options[k]})
		}
	}
	if fix.Question != nil {
		out.question = *fix.Question
	}
	if fix.CorrectAnswer != nil {
		out.correct = *fix.CorrectAnswer
	}
	out.nota = notaKey(out.options)
	return out
}

// AuditCase audits one case. Cases that cannot be audited (load problems,
// another benchmark type) come back with Problems or Skipped set and the
// Inconclusive verdict; they never stop the audit of other cases.
func (a *Auditor) AuditCase(ctx context.Context, c *questions.Case) (res CaseResult) {
	start := time.Now()
	ctx, sent := withSentCounter(ctx)
	res = CaseResult{ID: c.ID, File: c.File, Line: c.Line, Verdict: verdict.Inconclusive, FinalVerdict: verdict.Inconclusive}
	defer func() {
		res.DurationMS = time.Since(start).Milliseconds()
		res.ModelCalls = sent.Load()
	}()
	if !c.OK() {
		res.Problems = c.Problems
		res.NeedsHumanReview = true
		return res
	}
	if c.Kind != questions.MultipleChoice {
		res.Skipped = fmt.Sprintf("benchmark_type %s is not audited by execution", c.Kind)
		return res
	}
	if a.cfg.Model == nil {
		res.Error = "multiple_choice cases need a model, and none is configured (a model backend and its API key)"
		res.NeedsHumanReview = true
		return res
	}
	if a.cfg.CaseTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.cfg.CaseTimeout)
		defer cancel()
	}
	orig := versionOf(c)
	first := a.verify(ctx, c, orig, 0)
	res.Attempts = append(res.Attempts, first)
	res.Verdict, res.FinalVerdict = first.Verdict, first.Verdict
	switch {
	case first.Verdict == verdict.Valid:
		return res
	case first.Verdict == verdict.Inconclusive || a.cfg.MaxRemediations < 0:
		res.NeedsHumanReview = true
		return res
	}
	for n := 1; n <= a.cfg.MaxRemediations; n++ {
		if ctx.Err() != nil {
			res.Error = fmt.Sprintf("stopped before remediation attempt %d: %v", n, ctx.Err())
			break
		}
		fix, rationale, err := a.remediate(ctx, c, orig, res.Attempts)
		if err != nil {
			res.Attempts = append(res.Attempts, Attempt{Number: n, Verdict: verdict.Inconclusive, Error: err.Error()})
			if errors.Is(err, ErrBudget) {
				res.Error = err.Error()
				break
			}
			continue
		}
		at := a.verify(ctx, c, orig.apply(fix), n)
		at.Fix, at.Rationale = &fix, rationale
		res.Attempts = append(res.Attempts, at)
		if at.Verdict == verdict.Valid {
			res.Fix = &fix
			res.FinalVerdict = verdict.Valid
			return res
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) || a.budgetSpent() {
			break
		}
	}
	res.NeedsHumanReview = true
	return res
}

func (a *Auditor) budgetSpent() bool {
	return a.cfg.ModelCallBudget > 0 && a.calls.Load() >= a.cfg.ModelCallBudget
}

// countCall is the BeforeModelCallback hook that enforces the budget.
func (a *Auditor) countCall() error {
	n := a.calls.Add(1)
	if a.cfg.ModelCallBudget > 0 && n > a.cfg.ModelCallBudget {
		a.calls.Add(-1)
		return fmt.Errorf("%w: %d calls allowed", ErrBudget, a.cfg.ModelCallBudget)
	}
	return nil
}

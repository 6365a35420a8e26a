package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/internal/ident"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
)

// ProverDir is the folder, under a case's work folder, of the tests the
// model wrote for claims the execution rules left undecided.
const ProverDir = "prover"

// ProveClaims proves claims that code could not decide about a case of
// another kind (an api_understanding answer worded with a negation, an
// attribute of what a function returns, a value of no known shape). Each
// claim becomes one option of a verification run, so the analyst and the
// proof engineer treat it as any option: one test asserting it as stated,
// a pass proving it true. They see the question and the claims only; the
// result holds one OptionResult per claim, in order, and the model calls
// the run made.
func (a *Auditor) ProveClaims(ctx context.Context, c *questions.Case, claims []string) ([]OptionResult, int64, error) {
	if a.cfg.Model == nil {
		return nil, 0, errors.New("no model is configured")
	}
	if len(claims) == 0 || len(claims) > 26 {
		return nil, 0, fmt.Errorf("%d claims to prove: expected 1 to 26", len(claims))
	}
	ctx, sent := withSentCounter(ctx)
	if a.cfg.CaseTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.cfg.CaseTimeout)
		defer cancel()
	}
	v := version{id: c.ID, correct: "A", question: "Which of these claims hold for the installed library? Each one comes from the benchmark question: " +
		strings.TrimSpace(c.Question)}
	for i, text := range claims {
		v.options = append(v.options, questions.Option{Key: string(rune('A' + i)), Text: text})
	}
	at := a.verifyIn(ctx, filepath.Join(a.cfg.WorkDir, ident.PathSegment(c.ID), ProverDir), v, 0)
	if at.Error != "" && len(at.Options) == 0 {
		return nil, sent.Load(), errors.New(at.Error)
	}
	return at.Options, sent.Load(), nil
}

package audit

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"google.golang.org/adk/model"

	"github.com/benchgate/benchgate/internal/llm"
	"github.com/benchgate/benchgate/internal/qaaudit/pipeline"
	"github.com/benchgate/benchgate/internal/qaaudit/qreport"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// ModelGate stands before the agent pipeline and settles a
// multiple_choice case without it when the case cannot be proven anyway:
//
//   - when a module the benchmark needs (--require-module) does not import
//     in the sandbox's Python, every test a model could write would be
//     skipped, so the case is Inconclusive at once, with that reason, and
//     no model is called (nor needed);
//   - before the first case that does need the model, one small call
//     checks that the endpoint answers for this model and key; when it
//     does not, every multiple_choice case ends at once with that error
//     (reported once, with the count of cases), instead of each case
//     failing on its own model calls.
//
// Malformed cases and other kinds pass through to Next.
type ModelGate struct {
	Next CaseAuditor
	// MissingLibrary, when set, says which required module does not
	// import, and where: the reason every multiple_choice case is
	// Inconclusive.
	MissingLibrary string
	// Model is checked once before the first multiple_choice case; nil
	// skips the check (tests with a scripted model).
	Model        model.LLM
	CheckTimeout time.Duration
	Stdout       io.Writer

	once  sync.Once
	mu    sync.Mutex
	check *qreport.ModelCheck
}

// AuditCase implements CaseAuditor.
func (g *ModelGate) AuditCase(ctx context.Context, c *questions.Case) pipeline.CaseResult {
	if !c.OK() || c.Kind != questions.MultipleChoice {
		return g.Next.AuditCase(ctx, c)
	}
	if g.MissingLibrary != "" {
		return notInstalled(c, g.MissingLibrary)
	}
	if g.Model != nil {
		g.once.Do(func() { g.runCheck(ctx) })
		if mc := g.ModelCheck(); mc != nil && !mc.OK {
			r := pipeline.CaseResult{ID: c.ID, File: c.File, Line: c.Line, Verdict: verdict.Inconclusive, FinalVerdict: verdict.Inconclusive,
				NeedsHumanReview: true, Error: "model check failed: " + mc.Error}
			return r
		}
	}
	return g.Next.AuditCase(ctx, c)
}

func (g *ModelGate) runCheck(ctx context.Context) {
	start := time.Now()
	err := llm.Check(ctx, g.Model, g.CheckTimeout)
	mc := &qreport.ModelCheck{Model: g.Model.Name(), OK: err == nil, Duration: qreport.Seconds(time.Since(start))}
	if err != nil {
		mc.Error = textfmt.OneLine(err.Error())
	}
	g.mu.Lock()
	g.check = mc
	g.mu.Unlock()
	// A failure is said by whoever ends the run with it (Precheck).
	if g.Stdout != nil && err == nil {
		fmt.Fprintf(g.Stdout, "qa-audit: model %s answered the check call in %.1f s\n", mc.Model, time.Since(start).Seconds())
	}
}

// Precheck makes the check call now, before any case, and returns its
// outcome (nil without a Model). A failed check is broken setup: the
// caller ends the run with it rather than audit cases that cannot be
// proven.
func (g *ModelGate) Precheck(ctx context.Context) *qreport.ModelCheck {
	if g.Model == nil {
		return nil
	}
	g.once.Do(func() { g.runCheck(ctx) })
	return g.ModelCheck()
}

// ModelCheck is the outcome of the check call, or nil when none was made.
func (g *ModelGate) ModelCheck() *qreport.ModelCheck {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.check
}

// notInstalled is the result of a multiple_choice case whose library is
// missing: every option unproven, with the reason, and no model call.
func notInstalled(c *questions.Case, why string) pipeline.CaseResult {
	at := pipeline.Attempt{Number: 0, Verdict: verdict.Inconclusive}
	var keys []string
	for _, o := range c.Options {
		at.Options = append(at.Options, pipeline.OptionResult{Option: o.Key, Text: o.Text, Outcome: "not_run", Truth: verdict.Unknown, Message: why})
		keys = append(keys, o.Key)
	}
	at.Decision = &verdict.Decision{Verdict: verdict.Inconclusive, Unknown: keys, Expected: strings.Split(c.CorrectAnswer, ","),
		Reason: why + "; no option can be proven, so no model was called"}
	return pipeline.CaseResult{ID: c.ID, File: c.File, Line: c.Line, Verdict: verdict.Inconclusive, FinalVerdict: verdict.Inconclusive,
		Attempts: []pipeline.Attempt{at}, NeedsHumanReview: true}
}

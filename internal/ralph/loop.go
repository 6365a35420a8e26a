package ralph

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/failcode"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// Request is one phase for the agent to run.
type Request struct {
	Phase Phase
	// Pass is the execute pass number (1-based); 0 for plan.
	Pass   int
	Prompt string
	// ResumeThreadID, when set, continues that session (handoff).
	ResumeThreadID string
}

// Usage counts the tokens of one phase.
type Usage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
}

// Result is how one phase ended.
type Result struct {
	ThreadID string
	Usage    Usage
	ExitCode int
	TimedOut bool
	// IdleTimeout, when not zero, is the idle timeout that stopped the
	// phase: the agent made no progress for that long (a dead endpoint).
	IdleTimeout time.Duration
	Cancelled   bool
	// Failed is set when the agent reported a failed turn.
	Failed bool
	Errors []string
}

// Agent runs one phase to its end. An error means the phase could not be
// run at all (the agent could not start).
type Agent interface {
	Run(ctx context.Context, r Request) (Result, error)
}

// Record is the account of one phase that ends up in status.json.
type Record struct {
	Phase       Phase    `json:"phase"`
	Pass        int      `json:"pass,omitempty"`
	ThreadID    string   `json:"thread_id,omitempty"`
	ExitCode    int      `json:"exit_code"`
	TimedOut    bool     `json:"timed_out,omitempty"`
	IdleTimeout bool     `json:"idle_timed_out,omitempty"`
	Failed      bool     `json:"failed,omitempty"`
	Errors      []string `json:"errors,omitempty"`
	Usage       Usage    `json:"usage"`
	DurationMS  int64    `json:"duration_ms"`
	StateAfter  string   `json:"plan_state_after"`
}

// Outcome statuses, fixed by the artifact contract. The failure codes
// are failcode's.
const (
	StatusSuccess    = "success"
	StatusFailed     = "failed"
	StatusIncomplete = "incomplete"
)

// Outcome is the loop's verdict.
type Outcome struct {
	Status string
	// Code is empty on success.
	Code        failcode.Code
	Detail      string
	Passes      int
	Interrupted bool
	Phases      []Record
}

// Loop is one instance's plan / execute / handoff run.
type Loop struct {
	Agent    Agent
	Prompts  Prompts
	PlansDir string
	// PatchPath, when set, is the file whose non-empty content marks a
	// real fix. When empty, archiving the plans is the agent's claim of
	// done and the caller judges the change itself (the SWE-bench runner
	// computes the prediction from the final tree).
	PatchPath string
	MaxLoops  int
	// PhaseTimeout is the agent's limit of one phase, named in the detail
	// of a phase that ran into it; zero when unknown.
	PhaseTimeout time.Duration
	// Vars fill the prompt placeholders; the loop adds EXECUTE_PASS.
	Vars map[string]string
	// OnPhase, when set, is called after every phase (for logs).
	OnPhase func(Record)
}

// Run runs the loop and classifies the end state.
func (l *Loop) Run(ctx context.Context) Outcome {
	var out Outcome
	run := func(ph Phase, pass int, resume string) (Result, bool) {
		vars := map[string]string{"EXECUTE_PASS": strconv.Itoa(pass)}
		for k, v := range l.Vars {
			vars[k] = v
		}
		start := time.Now()
		res, err := l.Agent.Run(ctx, Request{Phase: ph, Pass: pass, Prompt: l.Prompts.Render(ph, vars), ResumeThreadID: resume})
		rec := Record{Phase: ph, Pass: pass, ThreadID: res.ThreadID, ExitCode: res.ExitCode, TimedOut: res.TimedOut, IdleTimeout: res.IdleTimeout > 0,
			Failed: res.Failed, Errors: res.Errors, Usage: res.Usage, DurationMS: time.Since(start).Milliseconds(),
			StateAfter: PlanState(l.PlansDir).String()}
		out.Phases = append(out.Phases, rec)
		if l.OnPhase != nil {
			l.OnPhase(rec)
		}
		name := string(ph)
		if pass > 0 {
			name = fmt.Sprintf("%s pass %d", ph, pass)
		}
		switch {
		case res.Cancelled || ctx.Err() != nil:
			out.fail(failcode.RuntimeError, name+": interrupted")
			out.Interrupted = true
		case err != nil:
			out.fail(failcode.RuntimeError, fmt.Sprintf("%s: %v", name, err))
		case res.IdleTimeout > 0:
			msg := fmt.Sprintf("%s: no progress from codex for %s (--idle-timeout): the model endpoint does not answer", name, res.IdleTimeout)
			if len(res.Errors) > 0 {
				msg += "; codex said: " + res.Errors[len(res.Errors)-1]
			}
			out.fail(failcode.RuntimeError, msg)
		case res.TimedOut:
			msg := name + ": phase timed out"
			if l.PhaseTimeout > 0 {
				msg += fmt.Sprintf(" after its limit of %s (--phase-timeout)", l.PhaseTimeout)
			}
			out.fail(failcode.RuntimeError, msg)
		case res.ExitCode != 0:
			msg := fmt.Sprintf("%s: codex exited with code %d", name, res.ExitCode)
			if len(res.Errors) > 0 {
				msg += ": " + res.Errors[len(res.Errors)-1]
			}
			out.fail(failcode.RuntimeError, msg)
		default:
			return res, true
		}
		return res, false
	}

	if _, ok := run(PhasePlan, 0, ""); !ok {
		return out
	}
	if l.classify(&out) {
		return out
	}
	if !exists(filepath.Dir(l.PlansDir), filepath.Join(l.PlansDir, PlanFile)) {
		out.fail(failcode.RuntimeError, "plan: the plan phase ended without writing "+filepath.Join(l.PlansDir, PlanFile))
		return out
	}
	for pass := 1; pass <= l.MaxLoops; pass++ {
		out.Passes = pass
		res, ok := run(PhaseExecute, pass, "")
		if !ok || l.classify(&out) {
			return out
		}
		if res.ThreadID == "" {
			out.fail(failcode.RuntimeError, fmt.Sprintf("execute pass %d: codex reported no thread id, so handoff cannot resume the session", pass))
			return out
		}
		if _, ok := run(PhaseHandoff, pass, res.ThreadID); !ok || l.classify(&out) {
			return out
		}
	}
	out.Status, out.Code = StatusIncomplete, failcode.Incomplete
	out.Detail = fmt.Sprintf("the plan documents are still in %s after %d execute passes (--max-loops)", l.PlansDir, l.MaxLoops)
	return out
}

// classify sets a terminal outcome from the plans folder and reports
// whether the loop must stop.
func (l *Loop) classify(out *Outcome) bool {
	switch PlanState(l.PlansDir) {
	case StateBlocked:
		out.Status, out.Code = StatusFailed, failcode.Blocked
		out.Detail = "the agent moved the plan documents to " + filepath.Join(l.PlansDir, "blocked") + blockerHint(l.PlansDir)
		return true
	case StateArchived:
		if l.PatchPath == "" || nonEmpty(l.PatchPath) {
			out.Status, out.Code, out.Detail = StatusSuccess, "", ""
		} else {
			out.Status, out.Code = StatusIncomplete, failcode.Incomplete
			out.Detail = "the plan documents were archived but the patch " + l.PatchPath + " is empty"
		}
		return true
	}
	return false
}

func (o *Outcome) fail(code failcode.Code, detail string) {
	o.Status, o.Code, o.Detail = StatusFailed, code, detail
}

// blockerHint quotes the first lines of the blocked plan, where the
// execute prompt asks the agent to write its blockers.
func blockerHint(plansDir string) string {
	// The agent wrote this file: a link to a host file must not put
	// that file's text into the status detail.
	p := filepath.Join(plansDir, "blocked", PlanFile)
	b, err := fsutil.ReadFileIn(filepath.Dir(plansDir), p, 64<<10)
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(b))
	s = textfmt.Truncate(s, 300)
	if s == "" {
		return ""
	}
	return ": " + s
}

// nonEmpty reports whether the patch is a non-empty regular file, never
// through a link (see exists).
func nonEmpty(p string) bool {
	fi, err := fsutil.LstatIn(filepath.Dir(p), p)
	return err == nil && fi.Mode().IsRegular() && fi.Size() > 0
}

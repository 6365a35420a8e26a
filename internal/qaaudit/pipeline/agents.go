package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"google.golang.org/adk/agent"
	"google.golang.org/adk/agent/llmagent"
	"google.golang.org/adk/agent/workflowagents/loopagent"
	"google.golang.org/adk/agent/workflowagents/sequentialagent"
	"google.golang.org/adk/model"
	"google.golang.org/adk/runner"
	"google.golang.org/adk/session"
	"google.golang.org/adk/tool"
	"google.golang.org/adk/tool/exitlooptool"
	"google.golang.org/adk/tool/functiontool"
	"google.golang.org/genai"

	"github.com/benchgate/benchgate/internal/ident"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// Agent names. The fake model in tests and the logs key on them.
const (
	AnalystName     = "claim_analyst"
	EngineerName    = "proof_engineer"
	RemediationName = "remediation_engineer"
	// RunTestTool is the proof engineer's tool that writes and runs a test.
	RunTestTool = "run_option_test"
)

const appName = "benchgate-qa-audit"

// OutcomeWrongDirection is the outcome of an option whose only tests the
// direction check refused (see directionProblem): no evidence.
const OutcomeWrongDirection = "wrong_direction"

// recorder keeps the latest proof outcome of each option of one verification.
type recorder struct {
	mu       sync.Mutex
	required []string // option keys that need their own test (all but NOTA)
	results  map[string]OptionResult
	tries    int
}

func (r *recorder) put(o OptionResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	prev := r.results[o.Option]
	o.Runs, o.Rejected = prev.Runs+1, prev.Rejected
	o.DurationMS += prev.DurationMS // the time of every run of the option
	r.results[o.Option] = o
}

// reject records a test the direction check refused: no run, no
// evidence, but one of the option's tries.
func (r *recorder) reject(o OptionResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	prev, ok := r.results[o.Option]
	if ok && prev.Evidence {
		return // an earlier run already proved the option
	}
	o.Runs, o.DurationMS, o.Rejected = prev.Runs, prev.DurationMS, prev.Rejected+1
	r.results[o.Option] = o
}

func (r *recorder) get(key string) (OptionResult, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.results[key]
	return o, ok
}

// done reports whether every required option has evidence, or has used up
// its tries without producing any.
func (r *recorder) done() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range r.required {
		o, ok := r.results[k]
		if !ok || (!o.Evidence && o.Runs+o.Rejected < r.tries) {
			return false
		}
	}
	return true
}

// pending lists the options the engineer still has to prove.
func (r *recorder) pending() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, k := range r.required {
		if o, ok := r.results[k]; !ok || (!o.Evidence && o.Runs+o.Rejected < r.tries) {
			out = append(out, k)
		}
	}
	return out
}

// caseDir is the case's work folder; the id is made path-safe so that a
// hostile id cannot escape WorkDir.
func (a *Auditor) caseDir(id string, attempt int) string {
	return filepath.Join(a.cfg.WorkDir, ident.PathSegment(id), fmt.Sprintf("attempt-%d", attempt))
}

type runTestArgs struct {
	Option string `json:"option" jsonschema:"the option key, e.g. A"`
	Code   string `json:"code" jsonschema:"the complete pytest file test_option_<option>.py; one test function asserting the option exactly as stated"`
}

type runTestResult struct {
	Option   string `json:"option"`
	Outcome  string `json:"outcome"`
	Evidence bool   `json:"evidence"`
	Passed   bool   `json:"passed"`
	Message  string `json:"message,omitempty"`
	Pending  string `json:"pending_options"`
}

// newRunTestTool is the proof engineer's only way to execute code: it writes
// the test into the option's own folder and runs it through the Prover.
func (a *Auditor) newRunTestTool(v version, dir string, rec *recorder) (tool.Tool, error) {
	texts := map[string]string{}
	for _, o := range v.options {
		texts[o.Key] = o.Text
	}
	return functiontool.New(functiontool.Config{
		Name:        RunTestTool,
		Description: "Writes test_option_<option>.py with the given code into a fresh folder and runs it with pytest. Returns the outcome: passed (the option as stated is true), failed (it is false), or an outcome that is not evidence (error, collection_error, timeout...).",
	}, func(tc tool.Context, args runTestArgs) (runTestResult, error) {
		key := strings.TrimSpace(args.Option)
		if _, ok := texts[key]; !ok {
			return runTestResult{}, fmt.Errorf("option %q does not exist; options are %s", key, strings.Join(keysOf(v.options), ", "))
		}
		if key == v.nota {
			return runTestResult{}, fmt.Errorf("option %s is \"None of the above\": it is not tested on its own, its truth follows from the other options", key)
		}
		if strings.TrimSpace(args.Code) == "" {
			return runTestResult{}, errors.New("code is empty")
		}
		if why := directionProblem(texts[key], args.Code); why != "" {
			rec.reject(OptionResult{Option: key, Text: texts[key], Outcome: OutcomeWrongDirection, Truth: verdict.Unknown,
				Message: "direction check: " + why})
			return runTestResult{}, fmt.Errorf("direction check refused the test for option %s: %s. The test must pass if and only if option %s, as stated, is true; write it that way and run it again", key, why, key)
		}
		odir := filepath.Join(dir, "option_"+key)
		if err := os.MkdirAll(odir, 0o755); err != nil {
			return runTestResult{}, fmt.Errorf("creating test folder: %w", err)
		}
		pr, err := a.cfg.Prover.Prove(tc, odir, key, args.Code)
		if err != nil {
			return runTestResult{}, fmt.Errorf("running the test for option %s: %w", key, err)
		}
		truth := verdict.Unknown
		if pr.Evidence {
			truth = verdict.False
			if pr.Passed {
				truth = verdict.True
			}
		}
		rec.put(OptionResult{
			Option: key, Text: texts[key], TestPath: pr.TestPath, Outcome: pr.Outcome,
			Evidence: pr.Evidence, Truth: truth, Message: textfmt.Truncate(pr.Message, 2000),
			DurationMS: pr.Duration.Milliseconds(), Limit: pr.Limit,
		})
		return runTestResult{Option: key, Outcome: pr.Outcome, Evidence: pr.Evidence, Passed: pr.Passed,
			Message: textfmt.Truncate(pr.Message, 2000), Pending: strings.Join(rec.pending(), ",")}, nil
	})
}

func keysOf(opts []questions.Option) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.Key
	}
	return out
}

// Claim is one option's testable hypothesis from the claim analyst.
type Claim struct {
	Option     string `json:"option"`
	Hypothesis string `json:"hypothesis"`
	CodeHint   string `json:"code_hint,omitempty"`
}

var fence = regexp.MustCompile("(?s)```(?:json)?\\s*(.*?)```")

// jsonObject extracts the first JSON object of a model's text, tolerating a
// Markdown code fence around it.
func jsonObject(text string) string {
	if m := fence.FindStringSubmatch(text); m != nil {
		text = m[1]
	}
	i, j := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if i < 0 || j < i {
		return ""
	}
	return text[i : j+1]
}

func parseClaims(text string) []Claim {
	var out struct {
		Claims []Claim `json:"claims"`
	}
	if err := json.Unmarshal([]byte(jsonObject(text)), &out); err != nil {
		return nil
	}
	return out.Claims
}

func (a *Auditor) beforeModel(agent.CallbackContext, *model.LLMRequest) (*model.LLMResponse, error) {
	return nil, a.countCall()
}

// runAgent runs root in a fresh in-memory session and returns that
// session's final state. A fresh session per run is what keeps one
// version's conversation (and the remediation engineer's ground truth) out
// of every other run.
func runAgent(ctx context.Context, root agent.Agent, prompt string) (session.State, error) {
	svc := session.InMemoryService()
	r, err := runner.New(runner.Config{AppName: appName, Agent: root, SessionService: svc})
	if err != nil {
		return nil, err
	}
	created, err := svc.Create(ctx, &session.CreateRequest{AppName: appName, UserID: "qa-audit"})
	if err != nil {
		return nil, err
	}
	sid := created.Session.ID()
	for _, err := range r.Run(ctx, "qa-audit", sid, genai.NewContentFromText(prompt, genai.RoleUser), agent.RunConfig{}) {
		if err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	got, err := svc.Get(ctx, &session.GetRequest{AppName: appName, UserID: "qa-audit", SessionID: sid})
	if err != nil {
		return nil, err
	}
	return got.Session.State(), nil
}

func stateString(st session.State, key string) string {
	if st == nil {
		return ""
	}
	v, err := st.Get(key)
	if err != nil {
		return ""
	}
	s, _ := v.(string)
	return s
}

// verify runs the verification pipeline on one version of a case.
func (a *Auditor) verify(ctx context.Context, c *questions.Case, v version, n int) (at Attempt) {
	return a.verifyIn(ctx, a.caseDir(c.ID, n), v, n)
}

// verifyIn runs the verification pipeline on v with its files in dir.
func (a *Auditor) verifyIn(ctx context.Context, dir string, v version, n int) (at Attempt) {
	start := time.Now()
	sent := sentCounter(ctx)
	calls := sent.Load()
	at = Attempt{Number: n, Verdict: verdict.Inconclusive}
	// A named result, so that the deferred bookkeeping reaches the caller.
	defer func() {
		at.DurationMS = time.Since(start).Milliseconds()
		at.ModelCalls = sent.Load() - calls
	}()
	if err := os.RemoveAll(dir); err != nil {
		at.Error = err.Error()
		return at
	}
	rec := &recorder{results: map[string]OptionResult{}, tries: a.cfg.TriesPerOption}
	for _, o := range v.options {
		if o.Key != v.nota {
			rec.required = append(rec.required, o.Key)
		}
	}
	var decision *verdict.Decision
	var decideErr error
	root, err := a.buildVerification(v, dir, rec, func() {
		d, err := decide(v, rec)
		decision, decideErr = d, err
	})
	if err != nil {
		at.Error = fmt.Sprintf("building the agents: %v", err)
		return at
	}
	st, runErr := runAgent(ctx, root, "Verify the multiple-choice question described in your instructions.")
	claims := parseClaims(stateString(st, "claims_json"))
	at.Options = optionResults(v, rec, claims)
	if runErr != nil {
		at.Error = runErr.Error()
	}
	if decision == nil && decideErr == nil {
		// The run stopped before the verdict agent; decide from what was proven.
		d, err := decide(v, rec)
		decision, decideErr = d, err
	}
	if decideErr != nil {
		at.Error = strings.TrimPrefix(at.Error+"; ", "; ") + "verdict: " + decideErr.Error()
		return at
	}
	at.Decision = decision
	at.Verdict = decision.Verdict
	for i, o := range at.Options {
		if o.Derived {
			at.Options[i].Truth = decision.Truths[o.Option]
		}
	}
	if runErr != nil && decision.Verdict != verdict.Inconclusive && len(decision.Unknown) > 0 {
		at.Verdict = verdict.Inconclusive
	}
	if at.Verdict == verdict.Inconclusive {
		// Say why each unproven option proves nothing (a skip reason, a
		// timeout, a collection error), so that the reason is actionable.
		d := *decision
		d.Reason = strings.TrimSuffix(d.Reason+"; "+unprovenReasons(at.Options, d.Unknown), "; ")
		at.Decision = &d
	}
	return at
}

// unprovenReasons words why each option in keys has no evidence.
func unprovenReasons(opts []OptionResult, keys []string) string {
	byKey := map[string]OptionResult{}
	for _, o := range opts {
		byKey[o.Option] = o
	}
	var parts []string
	for _, k := range keys {
		o := byKey[k]
		switch {
		case o.Derived:
			continue // follows from the others
		case o.Outcome == "not_run" || o.Outcome == "":
			parts = append(parts, k+": no test was run")
		default:
			msg := strings.Join(strings.Fields(o.Message), " ")
			if msg == "" {
				msg = "no message"
			}
			if !strings.HasPrefix(strings.ToLower(msg), strings.ToLower(o.Outcome)) {
				msg = o.Outcome + ": " + msg
			}
			parts = append(parts, k+": "+textfmt.Truncate(msg, 300))
		}
	}
	return strings.Join(parts, "; ")
}

func decide(v version, rec *recorder) (*verdict.Decision, error) {
	results := map[string]verdict.Truth{}
	for _, k := range rec.required {
		if o, ok := rec.get(k); ok {
			results[k] = o.Truth
		}
	}
	d, err := verdict.Decide(verdict.Input{Options: keysOf(v.options), NoneOfTheAbove: v.nota, CorrectAnswer: v.correct, Results: results})
	if err != nil {
		return nil, err
	}
	return &d, nil
}

func optionResults(v version, rec *recorder, claims []Claim) []OptionResult {
	claimOf := map[string]string{}
	for _, c := range claims {
		claimOf[strings.TrimSpace(c.Option)] = c.Hypothesis
	}
	var out []OptionResult
	for _, o := range v.options {
		r, ok := rec.get(o.Key)
		if !ok {
			r = OptionResult{Option: o.Key, Text: o.Text, Outcome: "not_run", Truth: verdict.Unknown}
		}
		if o.Key == v.nota {
			r = OptionResult{Option: o.Key, Text: o.Text, Outcome: "derived", Truth: verdict.Unknown, Derived: true}
		}
		r.Claim = claimOf[o.Key]
		out = append(out, r)
	}
	return out
}

// buildVerification assembles the ADK graph for one version:
// verification_pipeline = [claim_analyst, proof_engineer_loop[proof_engineer, proof_check], verdict].
func (a *Auditor) buildVerification(v version, dir string, rec *recorder, onVerdict func()) (agent.Agent, error) {
	before := []llmagent.BeforeModelCallback{a.beforeModel}
	inspect, err := a.newInspectTool(dir)
	if err != nil {
		return nil, err
	}
	analyst, err := llmagent.New(llmagent.Config{
		Name:                 AnalystName,
		Description:          "Turns each option of the question into one testable claim.",
		Model:                a.cfg.Model,
		InstructionProvider:  func(agent.ReadonlyContext) (string, error) { return AnalystPrompt(v.view()), nil },
		OutputKey:            "claims_json",
		Tools:                []tool.Tool{inspect},
		BeforeModelCallbacks: before,
	})
	if err != nil {
		return nil, err
	}
	runTest, err := a.newRunTestTool(v, dir, rec)
	if err != nil {
		return nil, err
	}
	exit, err := exitlooptool.New()
	if err != nil {
		return nil, err
	}
	engineer, err := llmagent.New(llmagent.Config{
		Name:        EngineerName,
		Description: "Writes and runs one pytest file per option.",
		Model:       a.cfg.Model,
		InstructionProvider: func(ctx agent.ReadonlyContext) (string, error) {
			claims := ""
			if v, err := ctx.ReadonlyState().Get("claims_json"); err == nil {
				claims, _ = v.(string)
			}
			return EngineerPrompt(v.view(), claims, rec.pending()), nil
		},
		Tools:                []tool.Tool{runTest, inspect, exit},
		BeforeModelCallbacks: before,
	})
	if err != nil {
		return nil, err
	}
	check, err := agent.New(agent.Config{
		Name:        "proof_check",
		Description: "Ends the proof loop once every option has evidence or has used its tries.",
		Run: func(ic agent.InvocationContext) iter.Seq2[*session.Event, error] {
			return func(yield func(*session.Event, error) bool) {
				if rec.done() {
					ev := session.NewEvent(ic.InvocationID())
					ev.Author = "proof_check"
					ev.Actions.Escalate = true
					yield(ev, nil)
				}
			}
		},
	})
	if err != nil {
		return nil, err
	}
	loop, err := loopagent.New(loopagent.Config{
		AgentConfig:   agent.Config{Name: "proof_engineer_loop", Description: "Repeats the proof engineer until every option is proven.", SubAgents: []agent.Agent{engineer, check}},
		MaxIterations: a.cfg.MaxProofIterations,
	})
	if err != nil {
		return nil, err
	}
	verdictAgent, err := agent.New(agent.Config{
		Name:        "verdict",
		Description: "Decides the verdict in code from the proven options and the ground truth.",
		Run: func(ic agent.InvocationContext) iter.Seq2[*session.Event, error] {
			return func(yield func(*session.Event, error) bool) {
				onVerdict()
				ev := session.NewEvent(ic.InvocationID())
				ev.Author = "verdict"
				ev.Content = genai.NewContentFromText("verdict decided", genai.RoleModel)
				yield(ev, nil)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	return sequentialagent.New(sequentialagent.Config{AgentConfig: agent.Config{
		Name: "verification_pipeline", Description: "Analyse, prove, decide.",
		SubAgents: []agent.Agent{analyst, loop, verdictAgent},
	}})
}

// Fix proposal as the remediation engineer writes it.
type proposal struct {
	questions.Fix
	Rationale string `json:"rationale"`
}

// remediate asks the remediation engineer for a corrected case, given the
// original case (with its ground truth) and every verification so far.
func (a *Auditor) remediate(ctx context.Context, c *questions.Case, orig version, history []Attempt) (questions.Fix, string, error) {
	prompt := RemediationPrompt(c, history)
	eng, err := llmagent.New(llmagent.Config{
		Name:                 RemediationName,
		Description:          "Proposes a corrected benchmark case.",
		Model:                a.cfg.Model,
		InstructionProvider:  func(agent.ReadonlyContext) (string, error) { return prompt, nil },
		OutputKey:            "fix_json",
		BeforeModelCallbacks: []llmagent.BeforeModelCallback{a.beforeModel},
	})
	if err != nil {
		return questions.Fix{}, "", err
	}
	st, err := runAgent(ctx, eng, "Propose the corrected case as JSON.")
	if err != nil {
		return questions.Fix{}, "", fmt.Errorf("remediation engineer: %w", err)
	}
	raw := stateString(st, "fix_json")
	var p proposal
	dec := json.NewDecoder(strings.NewReader(jsonObject(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return questions.Fix{}, "", fmt.Errorf("remediation engineer answered no valid fix JSON (%v): %s", err, textfmt.Truncate(raw, 300))
	}
	if p.Fix.Empty() {
		return questions.Fix{}, "", errors.New("remediation engineer proposed no change")
	}
	next := orig.apply(p.Fix)
	if _, err := verdict.Decide(verdict.Input{Options: keysOf(next.options), NoneOfTheAbove: next.nota, CorrectAnswer: next.correct}); err != nil {
		return questions.Fix{}, "", fmt.Errorf("proposed fix is malformed: %w", err)
	}
	return p.Fix, p.Rationale, nil
}

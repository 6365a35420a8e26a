// Package caseresult holds what the audit of one case produced: per
// option (or check) evidence, attempts and the case's verdicts. Both the
// agent pipeline and the execution proofs fill it, and the report reads
// it, so the path that needs no model does not import the model's.
package caseresult

import (
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
)

// OptionResult is the evidence about one option, or one check of a case
// proven by execution.
type OptionResult struct {
	Option     string        `json:"option"`
	Text       string        `json:"text"`
	Claim      string        `json:"claim,omitempty"`
	TestPath   string        `json:"test_path,omitempty"`
	Outcome    string        `json:"outcome"`
	Evidence   bool          `json:"evidence"`
	Truth      verdict.Truth `json:"truth"`
	Message    string        `json:"message,omitempty"`
	DurationMS int64         `json:"duration_ms"`
	Runs       int           `json:"runs"`
	// Rejected counts the tests the direction check refused to run.
	Rejected int `json:"rejected,omitempty"`
	// Derived marks a "None of the above" option, whose truth follows from the others.
	Derived bool `json:"derived,omitempty"`
	// Limit names the sandbox limit (memory, cpu, file_size, processes)
	// its test ran into, or "".
	Limit string `json:"limit,omitempty"`
	// AnswerCheck marks a check of the answer itself (its kind, value,
	// exception, absence, or a fix that fixes), as opposed to a check
	// that a name exists: only these can make a case Valid.
	AnswerCheck bool `json:"answer_check,omitempty"`
	// Undecided says what the rules did not decide (an open world, a
	// negation, a value of no known shape): a claim for the prover.
	Undecided string `json:"undecided,omitempty"`
	// ProvedBy names who decided the check when code did not: "prover"
	// (a model's test).
	ProvedBy string `json:"proved_by,omitempty"`
}

// Attempt is one verification of one version of a case: the original
// (Number 0) or a remediation proposal (1..MaxRemediations).
type Attempt struct {
	Number     int               `json:"number"`
	Fix        *questions.Fix    `json:"fix,omitempty"`
	Rationale  string            `json:"rationale,omitempty"`
	Options    []OptionResult    `json:"options"`
	Decision   *verdict.Decision `json:"decision,omitempty"`
	Verdict    verdict.Verdict   `json:"verdict"`
	Error      string            `json:"error,omitempty"`
	DurationMS int64             `json:"duration_ms"`
	ModelCalls int64             `json:"model_calls"`
}

// CaseResult is the audit of one case.
type CaseResult struct {
	ID   string `json:"id"`
	File string `json:"file"`
	Line int    `json:"line"`
	// Verdict is the verdict of the case as written.
	Verdict verdict.Verdict `json:"verdict"`
	// FinalVerdict is the verdict after remediation (equal to Verdict when none was needed or none succeeded).
	FinalVerdict     verdict.Verdict     `json:"final_verdict"`
	Attempts         []Attempt           `json:"attempts"`
	Fix              *questions.Fix      `json:"fix,omitempty"`
	NeedsHumanReview bool                `json:"needs_human_review"`
	Problems         []questions.Problem `json:"problems,omitempty"`
	Skipped          string              `json:"skipped,omitempty"`
	Error            string              `json:"error,omitempty"`
	DurationMS       int64               `json:"duration_ms"`
	ModelCalls       int64               `json:"model_calls"`
}

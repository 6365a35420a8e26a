// Package suite reads benchmark suite JSONL files: one JSON object per
// line, each describing one run of one scenario in one benchmark mode.
//
// The reader streams (a suite of any size costs one row of memory), keeps
// the file and line of every row so that a bad row can be named precisely,
// ignores keys it does not know (later benchmark versions add fields) and
// accepts the fields the schema allows to be null.
package suite

import (
	"fmt"
	"strconv"

	"github.com/benchgate/benchgate/internal/textfmt"
)

// Benchmark modes a row may carry.
const (
	ModeAgentDirect = "agent_direct"
	ModeMCP         = "mcp"
	ModeGhx         = "ghx"
)

// IsMode reports whether s is one of the benchmark modes a row may carry.
func IsMode(s string) bool { return s == ModeAgentDirect || s == ModeMCP || s == ModeGhx }

// Error types the benchmark runner writes into a row's error object.
const (
	ErrorAssertionFailed = "assertion_failed"
	ErrorRunner          = "runner_error"
	// ErrorRunnerTimeoutPrefix starts every retryable runner timeout type:
	// runner_timeout_no_first_assistant, runner_timeout_stalled_session and
	// runner_timeout_wait_for_assistant.
	ErrorRunnerTimeoutPrefix = "runner_timeout_"
)

// MaxMagnitude bounds every number of a row. Token counts, latencies and
// costs are far below it; a value near the float64 limit (1.7e308) is a
// corrupted row, and summing two of them gives +Inf, which no summary can
// hold. Such a value is refused where it is read, with its file, line and
// field, instead of failing later without a location.
const MaxMagnitude = 1e15

// Row is one benchmark row: one scenario, one iteration, one mode.
//
// Nullable fields of the schema are pointers; TimingBreakdown and
// LatencyMsAgent are optional (absent on runner-failure rows and in older
// suites). The JSON tags reproduce the upstream key names and order, so a
// Row marshalled with encoding/json is a valid suite line again. Rows read
// from one file may share the targets of their *string fields: replace a
// pointer, never write through it.
type Row struct {
	Timestamp          string           `json:"timestamp"`
	RunID              string           `json:"run_id"`
	Mode               string           `json:"mode"`
	ScenarioID         string           `json:"scenario_id"`
	ScenarioSet        *string          `json:"scenario_set"`
	Iteration          int              `json:"iteration"`
	SessionID          *string          `json:"session_id"`
	Success            bool             `json:"success"`
	OutputValid        bool             `json:"output_valid"`
	LatencyMsWall      float64          `json:"latency_ms_wall"`
	LatencyMsAgent     *float64         `json:"latency_ms_agent,omitempty"`
	SDKLatencyMs       *float64         `json:"sdk_latency_ms"`
	Tokens             Tokens           `json:"tokens"`
	Cost               float64          `json:"cost"`
	ToolCalls          float64          `json:"tool_calls"`
	APICalls           float64          `json:"api_calls"`
	InternalRetryCount float64          `json:"internal_retry_count"`
	ExternalRetryCount float64          `json:"external_retry_count"`
	Model              Model            `json:"model"`
	Git                Git              `json:"git"`
	Error              *RowError        `json:"error"`
	TimingBreakdown    *TimingBreakdown `json:"timing_breakdown,omitempty"`

	// File and Line say where the row was read from (Line is 1-based).
	File string `json:"-"`
	Line int    `json:"-"`
}

// Tokens are the token counts of the final assistant message. Total is
// input + output + reasoning + cache_read + cache_write as the runner
// computes it.
type Tokens struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	Reasoning  float64 `json:"reasoning"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
	Total      float64 `json:"total"`
}

// Model names the model that produced the row.
type Model struct {
	ProviderID string  `json:"provider_id"`
	ModelID    string  `json:"model_id"`
	Mode       *string `json:"mode"`
}

// Signature is "provider/model/mode" with a null mode written as <null>,
// the form the summary and the cohort check compare.
func (m Model) Signature() string {
	return m.ProviderID + "/" + m.ModelID + "/" + nullable(m.Mode)
}

// Git records the commit the benchmark ran against, when known.
type Git struct {
	Repo   *string `json:"repo"`
	Commit *string `json:"commit"`
}

// RowError is the error object of a failed row.
type RowError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// TimingBreakdown is the per-phase timing of a completed session.
type TimingBreakdown struct {
	AssistantTotalMs                   float64 `json:"assistant_total_ms"`
	AssistantPreReasoningMs            float64 `json:"assistant_pre_reasoning_ms"`
	AssistantReasoningMs               float64 `json:"assistant_reasoning_ms"`
	AssistantBetweenReasoningAndToolMs float64 `json:"assistant_between_reasoning_and_tool_ms"`
	AssistantPostToolMs                float64 `json:"assistant_post_tool_ms"`
	ToolTotalMs                        float64 `json:"tool_total_ms"`
	ToolBashMs                         float64 `json:"tool_bash_ms"`
	ToolStructuredOutputMs             float64 `json:"tool_structured_output_ms"`
	ObservedAssistantTurns             float64 `json:"observed_assistant_turns"`
}

// ActiveTokens is tokens.total - tokens.cache_read: the tokens a run
// really paid for, since cached prompt reads are cheap and dominate totals.
func (r *Row) ActiveTokens() float64 { return r.Tokens.Total - r.Tokens.CacheRead }

// ErrorType is the row's error type, or "" when error is null.
func (r *Row) ErrorType() string {
	if r.Error == nil {
		return ""
	}
	return r.Error.Type
}

// Key identifies the row within one mode of a suite: "<scenario_id>:<iteration>".
func (r *Row) Key() string { return r.ScenarioID + ":" + strconv.Itoa(r.Iteration) }

// Where is "file:line" for messages about this row.
func (r *Row) Where() string { return fmt.Sprintf("%s:%d", r.File, r.Line) }

// Violations returns the blocking row rules the row breaks, in schema
// order, located at the row: success must be true, output_valid must be
// true and error must be null. A row with no violations passes; the
// benchmark process's exit code says nothing about it (it exits 0 even
// when rows fail).
func (r *Row) Violations() []Diagnostic {
	var vs []Diagnostic
	add := func(field, want, got string) {
		vs = append(vs, Diagnostic{Mode: r.Mode, File: r.File, Line: r.Line, ScenarioID: r.ScenarioID, Iteration: r.Iteration,
			Field: field, Expected: want, Got: got})
	}
	if !r.Success {
		add("success", "true", "false")
	}
	if !r.OutputValid {
		add("output_valid", "true", "false")
	}
	if r.Error != nil {
		add("error", "null", textfmt.Truncate(r.Error.Type+": "+r.Error.Message, 200))
	}
	return vs
}

func nullable(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

// Nullable renders a nullable string the way summaries and cohort
// messages do: the value, or <null>.
func Nullable(s *string) string { return nullable(s) }

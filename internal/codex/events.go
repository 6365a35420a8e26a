package codex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Usage is the token usage Codex reports in `turn.completed`.
type Usage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
}

// Sub returns u minus v, the usage of one invocation when u and v are the
// thread totals after and before it.
func (u Usage) Sub(v Usage) Usage {
	return Usage{
		InputTokens:           u.InputTokens - v.InputTokens,
		CachedInputTokens:     u.CachedInputTokens - v.CachedInputTokens,
		OutputTokens:          u.OutputTokens - v.OutputTokens,
		ReasoningOutputTokens: u.ReasoningOutputTokens - v.ReasoningOutputTokens,
	}
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:           u.InputTokens + v.InputTokens,
		CachedInputTokens:     u.CachedInputTokens + v.CachedInputTokens,
		OutputTokens:          u.OutputTokens + v.OutputTokens,
		ReasoningOutputTokens: u.ReasoningOutputTokens + v.ReasoningOutputTokens,
	}
}

// Events is what a runner needs from one `codex exec --json` stream.
type Events struct {
	// ThreadID comes from `thread.started`; `exec resume` needs it.
	ThreadID string
	// Usage is the usage of the last `turn.completed`. Codex 0.169 reports
	// the running total of the whole thread there, so after `exec resume`
	// it includes the invocations that built the thread; subtract the
	// Usage of the resumed invocation (Usage.Sub) for this one's share.
	Usage Usage
	// Turns counts `turn.completed` events.
	Turns int
	// Failed is set by a `turn.failed` event: the turn ended in error.
	Failed bool
	// Errors holds the messages of `turn.failed` and top-level `error`
	// events in order, with consecutive repeats folded (a dead endpoint
	// makes Codex repeat "Reconnecting..." without end). Errors alone do
	// not mean failure: a stream Codex retried successfully leaves its
	// "Reconnecting... 1/5" here; judge a run by Failed and the exit code.
	Errors []string
	// Warnings holds `item.completed` items of type "error". Codex emits
	// them for non-fatal conditions such as unknown model metadata, so
	// they never make a run fail.
	Warnings []string
	// Commands counts completed `command_execution` items.
	Commands int
	// LastMessage is the text of the last `agent_message` item.
	LastMessage string
}

// maxLine bounds one event line. A command's aggregated output travels in
// a single line, so the bound is generous; beyond it the stream is
// rejected rather than buffered without limit.
const maxLine = 64 << 20

// ErrLineTooLong is returned for an event line longer than 64 MiB.
var ErrLineTooLong = errors.New("event line longer than 64 MiB")

// event is the union of the fields benchgate reads from `--json` events.
type event struct {
	Type     *string `json:"type"`
	ThreadID string  `json:"thread_id"`
	Message  string  `json:"message"`
	Usage    *Usage  `json:"usage"`
	Error    *struct {
		Message string `json:"message"`
	} `json:"error"`
	Item *struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Message string `json:"message"`
	} `json:"item"`
}

// ParseEvents reads a `codex exec --json` stream. Lines that are not JSON
// objects (blank lines, stray log text) are skipped: Codex and shells
// around it may print such lines. A line that starts like a JSON object
// but does not parse, or an object without a string "type", is an error
// naming the line number, because a runner must not classify a run from
// a stream it misread. Unknown event and item types are ignored.
func ParseEvents(r io.Reader) (Events, error) {
	var ev Events
	br := bufio.NewReaderSize(r, 64<<10)
	for lineNo := 1; ; lineNo++ {
		line, err := readLine(br)
		if len(line) > 0 {
			if perr := ev.apply(line); perr != nil {
				return ev, fmt.Errorf("codex --json line %d: %w", lineNo, perr)
			}
		}
		if err == io.EOF {
			return ev, nil
		}
		if err != nil {
			return ev, fmt.Errorf("codex --json line %d: %w", lineNo, err)
		}
	}
}

// readLine returns the next line without its newline, failing when the
// line exceeds maxLine.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			return nil, ErrLineTooLong
		}
		if err != nil || !isPrefix {
			return buf, err
		}
	}
}

func (ev *Events) apply(line []byte) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return nil
	}
	var e event
	if err := json.Unmarshal(line, &e); err != nil {
		return fmt.Errorf("malformed JSON event: %v", err)
	}
	if e.Type == nil {
		return errors.New(`JSON event has no string field "type"`)
	}
	switch *e.Type {
	case "thread.started":
		if e.ThreadID == "" {
			return errors.New(`thread.started event has no "thread_id"`)
		}
		ev.ThreadID = e.ThreadID
	case "turn.completed":
		ev.Turns++
		if e.Usage != nil {
			ev.Usage = *e.Usage
		}
	case "turn.failed":
		ev.Failed = true
		msg := "turn failed"
		if e.Error != nil && e.Error.Message != "" {
			msg = e.Error.Message
		}
		ev.addError(msg)
	case "error":
		ev.addError(e.Message)
	case "item.completed":
		if e.Item == nil {
			return errors.New(`item.completed event has no "item"`)
		}
		switch e.Item.Type {
		case "agent_message":
			ev.LastMessage = e.Item.Text
		case "command_execution":
			ev.Commands++
		case "error":
			ev.Warnings = append(ev.Warnings, e.Item.Message)
		}
	}
	return nil
}

func (ev *Events) addError(msg string) {
	if n := len(ev.Errors); n > 0 && ev.Errors[n-1] == msg {
		return
	}
	ev.Errors = append(ev.Errors, msg)
}

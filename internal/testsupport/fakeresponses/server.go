// Package fakeresponses is a scripted stand-in for an OpenAI Responses API
// endpoint, the only wire API Codex 0.169 speaks. Tests point a real Codex
// CLI at it (base_url = Server.BaseURL()) and script what the "model"
// answers turn by turn: assistant messages and shell tool calls that Codex
// then really executes. The server records every request so a test can
// assert what Codex sent, and it enforces the protocol Codex must follow:
// POST {base_url}/responses with "stream": true, a known model, and every
// function_call_output answering an earlier function_call. Anything else
// is answered with an HTTP error and recorded as a violation.
//
// The SSE shape follows what Codex parses (codex-rs/codex-api/src/sse/
// responses.rs): response.created, response.output_item.done per item,
// then response.completed carrying the response id and usage.
package fakeresponses

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
)

// Usage is the token usage reported in response.completed.
type Usage struct {
	InputTokens     int64
	CachedTokens    int64
	OutputTokens    int64
	ReasoningTokens int64
}

// Item is one output item of a turn.
type Item struct {
	kind string // "message" or "shell"
	text string // message text or shell command
}

// Message is an assistant message item.
func Message(text string) Item { return Item{kind: "message", text: text} }

// Shell is a function call that makes Codex run command with its shell
// tool. The tool name and argument shape are taken from the tools the
// request offers (exec_command{cmd}, shell_command{command} or
// shell{command:[argv]}), because Codex picks the tool by model metadata.
func Shell(command string) Item { return Item{kind: "shell", text: command} }

// Turn is the answer to one POST /responses.
type Turn struct {
	// Items are streamed in order as response.output_item.done events.
	Items []Item
	// ItemsFrom, when set, gives the items from the request instead, as a
	// model answers what its prompt says: a scripted agent can take a path
	// the prompt names (where the plan goes) without knowing it in advance.
	ItemsFrom func(Request) []Item
	// Usage goes into response.completed.
	Usage Usage
	// Status, when non-zero, answers with this HTTP status and an OpenAI
	// style error body instead of a stream (Codex fails a 400 at once).
	Status int
	// FailCode, when set, ends the stream with response.failed carrying
	// this error code instead of response.completed.
	FailCode string
	// CloseEarly ends the stream after the items without
	// response.completed.
	CloseEarly bool
	// Stall accepts the request and then sends nothing until the client
	// goes away or the server closes: a hung model.
	Stall bool
}

// Request is one recorded HTTP request.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	// Model and Stream are read from a JSON body; Input holds its "input"
	// items and Tools the names of the offered tools.
	Model  string
	Stream bool
	Input  []map[string]any
	Tools  []string
	// Turn is the index of the script turn that answered, or -1.
	Turn int
}

// InputText concatenates every text part of the request's input items, so
// a test can check that a prompt reached the model.
func (r Request) InputText() string {
	var b strings.Builder
	for _, it := range r.Input {
		if c, ok := it["content"].([]any); ok {
			for _, part := range c {
				if p, ok := part.(map[string]any); ok {
					if s, ok := p["text"].(string); ok {
						b.WriteString(s)
						b.WriteByte('\n')
					}
				}
			}
		}
		if s, ok := it["output"].(string); ok {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// FunctionOutputs returns the outputs of the function_call_output items.
func (r Request) FunctionOutputs() []string {
	var out []string
	for _, it := range r.Input {
		if it["type"] == "function_call_output" {
			s, _ := it["output"].(string)
			out = append(out, s)
		}
	}
	return out
}

// Server is a running fake endpoint.
type Server struct {
	srv    *httptest.Server
	models []string
	done   chan struct{}

	mu         sync.Mutex
	script     []Turn
	next       int
	seq        int
	requests   []Request
	violations []string
}

// New starts a server on 127.0.0.1 that serves models (the first is the
// default a test configures) and answers POST /v1/responses with script,
// one turn per request. Close it when done.
func New(models []string, script ...Turn) *Server {
	s := &Server{models: slices.Clone(models), script: script, done: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the provider base_url for Codex; Codex appends /responses.
func (s *Server) BaseURL() string { return s.srv.URL + "/v1" }

// Close stops the server, releasing stalled streams first.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Append adds turns to the end of the script.
func (s *Server) Append(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, turns...)
}

// Remaining is the number of script turns not yet served.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script) - s.next
}

// Requests returns a copy of every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// ResponseRequests returns the recorded POST /v1/responses requests.
func (s *Server) ResponseRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Method == http.MethodPost && r.Path == "/v1/responses" {
			out = append(out, r)
		}
	}
	return out
}

// Violations returns the protocol violations seen so far; a test that
// expects a well-behaved client asserts this is empty.
func (s *Server) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.violations)
}

func (s *Server) violate(w http.ResponseWriter, status int, code, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.mu.Lock()
	s.violations = append(s.violations, msg)
	s.mu.Unlock()
	writeError(w, status, code, msg)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "code": code,
	}})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Turn: -1}
	var parsed struct {
		Model  string           `json:"model"`
		Stream bool             `json:"stream"`
		Input  []map[string]any `json:"input"`
		Tools  []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	jsonErr := json.Unmarshal(body, &parsed)
	if jsonErr == nil {
		rec.Model, rec.Stream, rec.Input = parsed.Model, parsed.Stream, parsed.Input
		for _, t := range parsed.Tools {
			if t.Name != "" {
				rec.Tools = append(rec.Tools, t.Name)
			}
		}
	}
	idx := s.record(rec)

	switch {
	case r.URL.Path == "/v1/models":
		if r.Method != http.MethodGet {
			s.violate(w, http.StatusMethodNotAllowed, "method_not_allowed", "%s /v1/models: only GET is allowed", r.Method)
			return
		}
		s.serveModels(w)
		return
	case r.URL.Path != "/v1/responses":
		s.violate(w, http.StatusNotFound, "not_found", "%s %s: unknown path; the Responses API is POST /v1/responses", r.Method, r.URL.Path)
		return
	case r.Method != http.MethodPost:
		s.violate(w, http.StatusMethodNotAllowed, "method_not_allowed", "%s /v1/responses: only POST is allowed", r.Method)
		return
	case jsonErr != nil:
		s.violate(w, http.StatusBadRequest, "invalid_json", "POST /v1/responses: body is not JSON: %v", jsonErr)
		return
	case !parsed.Stream:
		s.violate(w, http.StatusBadRequest, "stream_required", `POST /v1/responses: "stream": true is required`)
		return
	case !slices.Contains(s.models, parsed.Model):
		s.violate(w, http.StatusBadRequest, "model_not_found", "POST /v1/responses: unknown model %q (serving %q)", parsed.Model, s.models)
		return
	}
	if msg := checkCallOutputs(parsed.Input); msg != "" {
		s.violate(w, http.StatusBadRequest, "invalid_input", "POST /v1/responses: %s", msg)
		return
	}

	s.mu.Lock()
	if s.next >= len(s.script) {
		s.mu.Unlock()
		s.violate(w, http.StatusBadRequest, "script_exhausted", "POST /v1/responses: request %d has no scripted turn left", idx+1)
		return
	}
	turnIdx := s.next
	turn := s.script[turnIdx]
	s.next++
	s.requests[idx].Turn = turnIdx
	s.mu.Unlock()

	if turn.ItemsFrom != nil {
		turn.Items = turn.ItemsFrom(rec)
	}
	s.stream(w, r, turn, rec.Tools)
}

func (s *Server) record(r Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
	return len(s.requests) - 1
}

func (s *Server) serveModels(w http.ResponseWriter) {
	data := make([]map[string]any, 0, len(s.models))
	for _, m := range s.models {
		data = append(data, map[string]any{"id": m, "object": "model", "owned_by": "benchgate-test"})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

// checkCallOutputs returns a complaint when a function_call_output has no
// earlier function_call with the same call_id, the invariant Codex's own
// test mocks check.
func checkCallOutputs(input []map[string]any) string {
	calls := map[string]bool{}
	for i, it := range input {
		id, _ := it["call_id"].(string)
		switch it["type"] {
		case "function_call":
			calls[id] = true
		case "function_call_output":
			if !calls[id] {
				return fmt.Sprintf("input[%d]: function_call_output for call_id %q has no earlier function_call", i, id)
			}
		}
	}
	return ""
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, t Turn, tools []string) {
	if t.Status != 0 {
		writeError(w, t.Status, "scripted_error", fmt.Sprintf("scripted HTTP %d", t.Status))
		return
	}
	s.mu.Lock()
	s.seq++
	n := s.seq
	s.mu.Unlock()

	// Resolve every item before the first byte so that a bad script is a
	// clean HTTP error, not a half stream.
	items := make([]map[string]any, 0, len(t.Items))
	for i, it := range t.Items {
		item, err := render(it, tools, fmt.Sprintf("%d_%d", n, i))
		if err != nil {
			s.violate(w, http.StatusBadRequest, "invalid_script", "POST /v1/responses: %v", err)
			return
		}
		items = append(items, item)
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(typ string, payload map[string]any) {
		payload["type"] = typ
		b, _ := json.Marshal(payload)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	respID := fmt.Sprintf("resp_%d", n)
	send("response.created", map[string]any{"response": map[string]any{"id": respID}})
	if t.Stall {
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	}
	for _, item := range items {
		send("response.output_item.done", map[string]any{"item": item})
	}
	switch {
	case t.CloseEarly:
		return
	case t.FailCode != "":
		send("response.failed", map[string]any{"response": map[string]any{
			"id":    respID,
			"error": map[string]any{"code": t.FailCode, "message": "scripted failure " + t.FailCode},
		}})
	default:
		u := t.Usage
		send("response.completed", map[string]any{"response": map[string]any{
			"id": respID,
			"usage": map[string]any{
				"input_tokens":          u.InputTokens,
				"input_tokens_details":  map[string]any{"cached_tokens": u.CachedTokens},
				"output_tokens":         u.OutputTokens,
				"output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
				"total_tokens":          u.InputTokens + u.OutputTokens,
			},
		}})
	}
}

// render turns a script item into a Responses API output item.
func render(it Item, tools []string, id string) (map[string]any, error) {
	switch it.kind {
	case "message":
		return map[string]any{
			"type": "message", "role": "assistant", "id": "msg_" + id,
			"content": []any{map[string]any{"type": "output_text", "text": it.text}},
		}, nil
	case "shell":
		var name string
		var args map[string]any
		switch {
		case slices.Contains(tools, "exec_command"):
			name, args = "exec_command", map[string]any{"cmd": it.text}
		case slices.Contains(tools, "shell_command"):
			name, args = "shell_command", map[string]any{"command": it.text}
		case slices.Contains(tools, "shell"):
			name, args = "shell", map[string]any{"command": []string{"bash", "-lc", it.text}}
		default:
			return nil, fmt.Errorf("the request offers no shell tool (tools %q)", tools)
		}
		a, _ := json.Marshal(args)
		return map[string]any{
			"type": "function_call", "id": "fc_" + id, "call_id": "call_" + id,
			"name": name, "arguments": string(a),
		}, nil
	}
	return nil, fmt.Errorf("unknown script item kind %q", it.kind)
}

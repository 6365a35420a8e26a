// Package agentfake is a scripted OpenAI-compatible chat-completions
// endpoint that plays qa-audit's agents (model check, claim analyst,
// proof engineer, remediation engineer) for tests that run the audit end
// to end through the real HTTP model backend, the agent graph and real
// pytest. It keeps what it was sent, so a test can check that the answer
// key never reached an agent and that the API key was the one given.
package agentfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
)

// A Server is the scripted endpoint; its URL plus "/v1" is the base URL.
type Server struct {
	*httptest.Server
	tests     map[string]string   // option text -> pytest source
	proposals map[string][]string // case id -> fix JSON per attempt

	mu     sync.Mutex
	bodies map[string][]string // agent -> raw request bodies
	auth   []string
	calls  int
	checks int
}

var (
	roleLine    = regexp.MustCompile(`(?m)^Role: (\S+)`)
	caseIDLine  = regexp.MustCompile(`(?m)^Question \(([^)]+)\):`)
	pendingLine = regexp.MustCompile(`(?m)^Options still to prove: (.*)\.$`)
	optionLine  = regexp.MustCompile(`(?m)^([A-Z]): (.*)$`)
)

// New starts a server whose proof engineer answers each option with the
// test tests holds for its text, and whose remediation engineer answers
// the n-th attempt at a case with proposals[case ID][n].
func New(tests map[string]string, proposals map[string][]string) *Server {
	s := &Server{tests: tests, proposals: proposals, bodies: map[string][]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Bodies returns the raw request bodies an agent role was sent.
func (s *Server) Bodies(role string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies[role]...)
}

// Auth returns the Authorization header of every agent call.
func (s *Server) Auth() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...)
}

// Calls returns the number of agent calls, and Checks the number of
// model check calls.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Checks returns the number of model check calls.
func (s *Server) Checks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.checks
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []struct {
			Role    string  `json:"role"`
			Content *string `json:"content"`
		} `json:"messages"`
	}
	if r.URL.Path != "/v1/chat/completions" || json.Unmarshal(raw, &req) != nil || len(req.Messages) == 0 ||
		req.Messages[0].Role != "system" || req.Messages[0].Content == nil {
		http.Error(w, `{"error":{"message":"bad request: want POST /v1/chat/completions with a system message first"}}`, http.StatusBadRequest)
		return
	}
	sys := *req.Messages[0].Content
	m := roleLine.FindStringSubmatch(sys)
	if m == nil {
		http.Error(w, `{"error":{"message":"the system message names no Role"}}`, http.StatusBadRequest)
		return
	}
	role := m[1]
	s.mu.Lock()
	if role == "model_check" {
		s.checks++
		s.mu.Unlock()
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"OK"},"finish_reason":"stop"}]}`)
		return
	}
	s.bodies[role] = append(s.bodies[role], string(raw))
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.calls++
	n := s.calls
	s.mu.Unlock()

	options := map[string]string{}
	for _, o := range optionLine.FindAllStringSubmatch(sys, -1) {
		options[o[1]] = o[2]
	}
	msg := map[string]any{"role": "assistant"}
	switch role {
	case "claim_analyst":
		msg["content"] = `{"claims": [{"option": "A", "hypothesis": "A holds"}]}`
	case "proof_engineer":
		if req.Messages[len(req.Messages)-1].Role == "tool" {
			msg["content"] = "Tests ran."
			break
		}
		var calls []map[string]any
		if p := pendingLine.FindStringSubmatch(sys); p != nil {
			for i, k := range strings.Split(p[1], ", ") {
				args, _ := json.Marshal(map[string]string{"option": k, "code": s.tests[options[k]]})
				calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
					"function": map[string]any{"name": "run_option_test", "arguments": string(args)}})
			}
		} else {
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d", n), "type": "function",
				"function": map[string]any{"name": "exit_loop", "arguments": "{}"}})
		}
		msg["tool_calls"] = calls
	case "remediation_engineer":
		msg["content"] = "{}"
		if id := caseIDLine.FindStringSubmatch(sys); id != nil {
			i := strings.Count(sys, "Proof for your proposal")
			if i < len(s.proposals[id[1]]) {
				msg["content"] = s.proposals[id[1]][i]
			}
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": msg, "finish_reason": "stop"}}})
}

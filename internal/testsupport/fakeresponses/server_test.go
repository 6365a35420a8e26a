package fakeresponses

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

const model = "m1"

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// sseEvents reads an SSE body into its data payloads, checking that each
// event line matches the payload's type.
func sseEvents(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	var event string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var m map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
				t.Fatal(err)
			}
			if m["type"] != event {
				t.Fatalf("event %q carries data of type %v", event, m["type"])
			}
			out = append(out, m)
		}
	}
	return out
}

func TestProtocolEnforcement(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		path       string
		body       string
		wantStatus int
		wantCode   string
	}{
		{name: "GET responses", method: "GET", path: "/v1/responses", wantStatus: 405, wantCode: "method_not_allowed"},
		{name: "wrong path", method: "POST", path: "/v1/chat/completions", body: `{"model":"m1","stream":true}`, wantStatus: 404, wantCode: "not_found"},
		{name: "no stream", method: "POST", path: "/v1/responses", body: `{"model":"m1","input":[]}`, wantStatus: 400, wantCode: "stream_required"},
		{name: "unknown model", method: "POST", path: "/v1/responses", body: `{"model":"gpt-x","stream":true}`, wantStatus: 400, wantCode: "model_not_found"},
		{name: "not JSON", method: "POST", path: "/v1/responses", body: `{`, wantStatus: 400, wantCode: "invalid_json"},
		{name: "orphan tool output", method: "POST", path: "/v1/responses", body: `{"model":"m1","stream":true,"input":[{"type":"function_call_output","call_id":"c9","output":"x"}]}`, wantStatus: 400, wantCode: "invalid_input"},
		{name: "POST models", method: "POST", path: "/v1/models", wantStatus: 405, wantCode: "method_not_allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New([]string{model}, Turn{Items: []Item{Message("never")}})
			defer s.Close()
			req, _ := http.NewRequest(tt.method, strings.TrimSuffix(s.BaseURL(), "/v1")+tt.path, strings.NewReader(tt.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Error struct{ Code string } `json:"error"`
			}
			json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != tt.wantStatus || body.Error.Code != tt.wantCode {
				t.Fatalf("got %d %q, want %d %q", resp.StatusCode, body.Error.Code, tt.wantStatus, tt.wantCode)
			}
			if len(s.Violations()) != 1 {
				t.Fatalf("violations %q, want exactly one", s.Violations())
			}
			if s.Remaining() != 1 {
				t.Fatal("a rejected request consumed a scripted turn")
			}
			if len(s.Requests()) != 1 || s.Requests()[0].Path != tt.path {
				t.Fatalf("requests not recorded: %+v", s.Requests())
			}
		})
	}
}

func TestStreamsScriptedTurns(t *testing.T) {
	s := New([]string{model},
		Turn{Items: []Item{Message("hi"), Shell("ls -la")}, Usage: Usage{InputTokens: 9, CachedTokens: 2, OutputTokens: 3, ReasoningTokens: 1}},
		Turn{FailCode: "context_length_exceeded"},
		Turn{Items: []Item{Message("cut")}, CloseEarly: true},
		Turn{Status: 503},
	)
	defer s.Close()
	url := s.BaseURL() + "/responses"

	resp := post(t, url, `{"model":"m1","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"PROMPT"}]}],"tools":[{"type":"function","name":"exec_command"},{"type":"namespace"}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	ev := sseEvents(t, resp.Body)
	resp.Body.Close()
	types := []string{}
	for _, e := range ev {
		types = append(types, e["type"].(string))
	}
	if got := strings.Join(types, ","); got != "response.created,response.output_item.done,response.output_item.done,response.completed" {
		t.Fatalf("event sequence %s", got)
	}
	call := ev[2]["item"].(map[string]any)
	if call["type"] != "function_call" || call["name"] != "exec_command" || call["arguments"] != `{"cmd":"ls -la"}` {
		t.Fatalf("function call item %v", call)
	}
	usage := ev[3]["response"].(map[string]any)["usage"].(map[string]any)
	if usage["input_tokens"] != 9.0 || usage["output_tokens"] != 3.0 || usage["total_tokens"] != 12.0 ||
		usage["input_tokens_details"].(map[string]any)["cached_tokens"] != 2.0 ||
		usage["output_tokens_details"].(map[string]any)["reasoning_tokens"] != 1.0 {
		t.Fatalf("usage %v", usage)
	}

	// The tool output answering the call is accepted and recorded.
	callID := call["call_id"].(string)
	resp = post(t, url, `{"model":"m1","stream":true,"input":[{"type":"function_call","call_id":"`+callID+`","name":"exec_command","arguments":"{}"},{"type":"function_call_output","call_id":"`+callID+`","output":"TOOL_OUT"}]}`)
	ev = sseEvents(t, resp.Body)
	resp.Body.Close()
	if last := ev[len(ev)-1]; last["type"] != "response.failed" || last["response"].(map[string]any)["error"].(map[string]any)["code"] != "context_length_exceeded" {
		t.Fatalf("want response.failed, got %v", last)
	}

	resp = post(t, url, `{"model":"m1","stream":true}`)
	ev = sseEvents(t, resp.Body)
	resp.Body.Close()
	if last := ev[len(ev)-1]; last["type"] != "response.output_item.done" {
		t.Fatalf("close-early stream ended with %v", last["type"])
	}

	resp = post(t, url, `{"model":"m1","stream":true}`)
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Fatalf("status %d, want 503", resp.StatusCode)
	}

	resp = post(t, url, `{"model":"m1","stream":true}`)
	resp.Body.Close()
	if resp.StatusCode != 400 || len(s.Violations()) != 1 || !strings.Contains(s.Violations()[0], "no scripted turn left") {
		t.Fatalf("exhausted script: status %d, violations %q", resp.StatusCode, s.Violations())
	}

	reqs := s.ResponseRequests()
	if len(reqs) != 5 {
		t.Fatalf("%d recorded requests", len(reqs))
	}
	if !strings.Contains(reqs[0].InputText(), "PROMPT") || reqs[0].Model != model || !reqs[0].Stream || strings.Join(reqs[0].Tools, ",") != "exec_command" {
		t.Fatalf("first request recorded as %+v", reqs[0])
	}
	if outs := reqs[1].FunctionOutputs(); len(outs) != 1 || outs[0] != "TOOL_OUT" {
		t.Fatalf("function outputs %q", outs)
	}
	for i, want := range []int{0, 1, 2, 3, -1} {
		if reqs[i].Turn != want {
			t.Errorf("request %d answered by turn %d, want %d", i, reqs[i].Turn, want)
		}
	}
}

func TestShellToolShapes(t *testing.T) {
	tests := []struct {
		tools    string
		wantName string
		wantArgs string
	}{
		{`[{"name":"shell_command"}]`, "shell_command", `{"command":"pwd"}`},
		{`[{"name":"shell"}]`, "shell", `{"command":["bash","-lc","pwd"]}`},
		{`[{"name":"exec_command"},{"name":"shell_command"}]`, "exec_command", `{"cmd":"pwd"}`},
	}
	for _, tt := range tests {
		t.Run(tt.wantName, func(t *testing.T) {
			s := New([]string{model}, Turn{Items: []Item{Shell("pwd")}})
			defer s.Close()
			resp := post(t, s.BaseURL()+"/responses", `{"model":"m1","stream":true,"tools":`+tt.tools+`}`)
			ev := sseEvents(t, resp.Body)
			resp.Body.Close()
			item := ev[1]["item"].(map[string]any)
			if item["name"] != tt.wantName || item["arguments"] != tt.wantArgs {
				t.Fatalf("item %v", item)
			}
		})
	}
	s := New([]string{model}, Turn{Items: []Item{Shell("pwd")}})
	defer s.Close()
	resp := post(t, s.BaseURL()+"/responses", `{"model":"m1","stream":true,"tools":[{"name":"web_search"}]}`)
	resp.Body.Close()
	if resp.StatusCode != 400 || len(s.Violations()) != 1 {
		t.Fatalf("no shell tool: status %d, violations %q", resp.StatusCode, s.Violations())
	}
}

func TestModelsAndStall(t *testing.T) {
	s := New([]string{"a", "b"}, Turn{Stall: true})
	resp, err := http.Get(s.BaseURL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Data []struct{ ID string } }
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Data) != 2 || list.Data[0].ID != "a" || list.Data[1].ID != "b" {
		t.Fatalf("models %+v", list)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.BaseURL()+"/responses", strings.NewReader(`{"model":"a","stream":true}`))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	if err == nil {
		t.Fatal("a stalled stream ended on its own")
	}
	resp.Body.Close()
	// Close must not hang on a stalled stream.
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs on a stalled stream")
	}
}

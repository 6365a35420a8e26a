package llm_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/llm"
	"google.golang.org/adk/model"
	"google.golang.org/genai"
)

const secret = "sk-test-9f8e7d6c5b4a"

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// chatServer is a fake chat-completions endpoint that records the last
// request and answers with a scripted status and body.
type chatServer struct {
	*httptest.Server
	got     map[string]any
	auth    string
	path    string
	status  int
	respond string
}

func newChatServer(t *testing.T, status int, respond string) *chatServer {
	s := &chatServer{status: status, respond: respond}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.auth, s.path = r.Header.Get("Authorization"), r.URL.Path
		b, _ := io.ReadAll(r.Body)
		s.got = nil
		json.Unmarshal(b, &s.got)
		w.WriteHeader(s.status)
		io.WriteString(w, s.respond)
	}))
	t.Cleanup(s.Close)
	return s
}

func request() *model.LLMRequest {
	return &model.LLMRequest{
		Contents: []*genai.Content{
			genai.NewContentFromText("Analyse the question.", genai.RoleUser),
			{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "call_1", Name: "run_option_test", Args: map[string]any{"option": "A"}}}}},
			{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "call_1", Name: "run_option_test", Response: map[string]any{"outcome": "passed"}}}}},
		},
		Config: &genai.GenerateContentConfig{
			SystemInstruction: genai.NewContentFromText("You are a QA engineer.", genai.RoleUser),
			Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
				Name: "run_option_test", Description: "runs a test",
				ParametersJsonSchema: map[string]any{"type": "object", "properties": map[string]any{"option": map[string]any{"type": "string"}}},
			}}}},
		},
	}
}

func generate(t *testing.T, m model.LLM) (*model.LLMResponse, error) {
	t.Helper()
	var resp *model.LLMResponse
	var err error
	for r, e := range m.GenerateContent(context.Background(), request(), false) {
		resp, err = r, e
	}
	return resp, err
}

func TestOpenAIRequestShapeAndReply(t *testing.T) {
	srv := newChatServer(t, 200, `{"choices":[{"message":{"role":"assistant","content":"thinking","tool_calls":[{"id":"call_2","type":"function","function":{"name":"run_option_test","arguments":"{\"option\":\"B\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`)
	m, err := llm.New(context.Background(), llm.Config{Backend: llm.OpenAI, Model: "qwen-local", BaseURL: srv.URL + "/v1/"}, env(map[string]string{"OPENAI_API_KEY": secret}))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := generate(t, m)
	if err != nil {
		t.Fatal(err)
	}
	if srv.path != "/v1/chat/completions" {
		t.Errorf("path = %q", srv.path)
	}
	if srv.auth != "Bearer "+secret {
		t.Errorf("auth header = %q", srv.auth)
	}
	if srv.got["model"] != "qwen-local" || srv.got["stream"] != false {
		t.Errorf("model/stream = %v/%v", srv.got["model"], srv.got["stream"])
	}
	msgs, _ := srv.got["messages"].([]any)
	roles := []string{}
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool" {
		t.Fatalf("roles = %v", roles)
	}
	asst := msgs[2].(map[string]any)
	tc := asst["tool_calls"].([]any)[0].(map[string]any)
	if tc["id"] != "call_1" || tc["function"].(map[string]any)["arguments"] != `{"option":"A"}` {
		t.Errorf("assistant tool call = %v", tc)
	}
	if tool := msgs[3].(map[string]any); tool["tool_call_id"] != "call_1" || tool["content"] != `{"outcome":"passed"}` {
		t.Errorf("tool message = %v", tool)
	}
	tools := srv.got["tools"].([]any)
	if fn := tools[0].(map[string]any)["function"].(map[string]any); fn["name"] != "run_option_test" || fn["parameters"] == nil {
		t.Errorf("tools = %v", tools)
	}
	if len(resp.Content.Parts) != 2 || resp.Content.Parts[0].Text != "thinking" {
		t.Fatalf("reply parts = %+v", resp.Content.Parts)
	}
	fc := resp.Content.Parts[1].FunctionCall
	if fc == nil || fc.Name != "run_option_test" || fc.Args["option"] != "B" || fc.ID != "call_2" {
		t.Errorf("function call = %+v", fc)
	}
	if resp.UsageMetadata.TotalTokenCount != 15 {
		t.Errorf("usage = %+v", resp.UsageMetadata)
	}
}

func TestOpenAIErrorsMaskKey(t *testing.T) {
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"unauthorized echoes key", `{"error":{"message":"invalid key ` + secret + `"}}`, 401, "HTTP 401: invalid key ****"},
		{"server error text", `upstream down`, 502, "HTTP 502: upstream down"},
		{"no choices", `{"choices":[]}`, 200, "no choices"},
		{"not json", `<html>`, 200, "not chat-completions JSON"},
		{"bad tool args", `{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"x","type":"function","function":{"name":"f","arguments":"[1"}}]}}]}`, 200, "not a JSON object"},
		{"empty message", `{"choices":[{"message":{"role":"assistant","content":""}}]}`, 200, "neither content nor tool calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newChatServer(t, tt.status, tt.body)
			m, err := llm.New(context.Background(), llm.Config{Backend: llm.OpenAI, Model: "m", APIKeyEnv: "LOCAL_KEY"}, env(map[string]string{"LOCAL_KEY": secret, "OPENAI_BASE_URL": srv.URL}))
			if err != nil {
				t.Fatal(err)
			}
			_, err = generate(t, m)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("error leaks the key: %v", err)
			}
		})
	}
}

func TestOpenAINoKeySendsNoAuth(t *testing.T) {
	srv := newChatServer(t, 200, `{"choices":[{"message":{"role":"assistant","content":"ok"}}]}`)
	m, err := llm.New(context.Background(), llm.Config{Backend: llm.OpenAI, Model: "m", BaseURL: srv.URL}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := generate(t, m); err != nil {
		t.Fatal(err)
	}
	if srv.auth != "" {
		t.Errorf("auth header sent without a key: %q", srv.auth)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  llm.Config
		env  map[string]string
		want string
	}{
		{"gemini without key", llm.Config{Backend: llm.Gemini}, nil, "GEMINI_API_KEY or GOOGLE_API_KEY"},
		{"openai without model", llm.Config{Backend: llm.OpenAI, BaseURL: "http://x"}, nil, "openai backend: model is required"},
		{"openai without url", llm.Config{Backend: llm.OpenAI, Model: "m"}, nil, "give model_url or set OPENAI_BASE_URL"},
		{"unknown backend", llm.Config{Backend: "claude"}, nil, `model backend "claude"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := llm.New(context.Background(), tt.cfg, env(tt.env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			// An option is named by its key, for the command line to
			// name by its flag.
			if strings.Contains(err.Error(), "--") {
				t.Errorf("err = %v names a flag", err)
			}
		})
	}
}

// TestGeminiAgainstFakeEndpoint drives ADK's real Gemini model against a
// local server speaking the generateContent wire format.
func TestGeminiAgainstFakeEndpoint(t *testing.T) {
	var gotKey, gotPath string
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotKey, gotPath = r.Header.Get("x-goog-api-key"), r.URL.Path
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &got)
		io.WriteString(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"{\"claims\":[]}"}]},"finishReason":"STOP"}]}`)
	}))
	defer srv.Close()
	m, err := llm.New(context.Background(), llm.Config{Backend: llm.Gemini, Model: "gemini-test", BaseURL: srv.URL}, env(map[string]string{"GOOGLE_API_KEY": secret}))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := generate(t, m)
	if err != nil {
		t.Fatal(llm.Mask(err.Error(), secret))
	}
	if gotKey != secret || !strings.HasSuffix(gotPath, "/models/gemini-test:generateContent") {
		t.Errorf("key sent = %v, path = %q", gotKey == secret, gotPath)
	}
	if got["systemInstruction"] == nil || got["tools"] == nil {
		t.Errorf("request lacks system instruction or tools: %v", got)
	}
	if resp.Content == nil || resp.Content.Parts[0].Text != `{"claims":[]}` {
		t.Errorf("reply = %+v", resp.Content)
	}
}

func TestMask(t *testing.T) {
	if got := llm.Mask("key="+secret+" again "+secret, secret, ""); got != "key=**** again ****" {
		t.Errorf("Mask = %q", got)
	}
}

func TestGeminiErrorsMaskKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"code":400,"message":"API key `+secret+` not valid","status":"INVALID_ARGUMENT"}}`)
	}))
	defer srv.Close()
	m, err := llm.New(context.Background(), llm.Config{Backend: llm.Gemini, Model: "gemini-test", BaseURL: srv.URL}, env(map[string]string{"GEMINI_API_KEY": secret}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = generate(t, m)
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "****") {
		t.Fatalf("err = %v", err)
	}
}

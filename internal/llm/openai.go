package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"

	"google.golang.org/adk/model"
	"google.golang.org/genai"

	"github.com/benchgate/benchgate/internal/textfmt"
)

// ChatModel is a model.LLM over an OpenAI-compatible /chat/completions
// endpoint. It maps ADK's Gemini-shaped requests (system instruction,
// contents, function declarations, function calls and responses) onto chat
// messages and tools, and the reply back onto genai content. Streaming is
// not used: the audit needs whole answers.
type ChatModel struct {
	BaseURL string // API root, e.g. http://127.0.0.1:8080/v1
	Model   string
	APIKey  string
	HTTP    *http.Client
}

// Name returns the served model name.
func (m *ChatModel) Name() string { return m.Model }

type chatMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Name       string         `json:"name,omitempty"`
}

type chatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Parameters  any    `json:"parameters,omitempty"`
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Tools       []chatTool    `json:"tools,omitempty"`
	Temperature *float32      `json:"temperature,omitempty"`
	MaxTokens   int32         `json:"max_tokens,omitempty"`
	Stream      bool          `json:"stream"`
}

type chatResponse struct {
	Choices []struct {
		Message      chatMessage `json:"message"`
		FinishReason string      `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int32 `json:"prompt_tokens"`
		CompletionTokens int32 `json:"completion_tokens"`
		TotalTokens      int32 `json:"total_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func strPtr(s string) *string { return &s }

func textOf(c *genai.Content) string {
	if c == nil {
		return ""
	}
	var parts []string
	for _, p := range c.Parts {
		if p != nil && p.Text != "" && !p.Thought {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// buildRequest converts an ADK request into a chat-completions request.
func (m *ChatModel) buildRequest(req *model.LLMRequest) (*chatRequest, error) {
	out := &chatRequest{Model: m.Model}
	if req.Model != "" {
		out.Model = req.Model
	}
	if cfg := req.Config; cfg != nil {
		if sys := textOf(cfg.SystemInstruction); sys != "" {
			out.Messages = append(out.Messages, chatMessage{Role: "system", Content: strPtr(sys)})
		}
		out.Temperature = cfg.Temperature
		out.MaxTokens = cfg.MaxOutputTokens
		for _, t := range cfg.Tools {
			if t == nil {
				continue
			}
			for _, fd := range t.FunctionDeclarations {
				f := chatFunction{Name: fd.Name, Description: fd.Description}
				switch {
				case fd.ParametersJsonSchema != nil:
					f.Parameters = fd.ParametersJsonSchema
				case fd.Parameters != nil:
					f.Parameters = fd.Parameters
				default:
					f.Parameters = map[string]any{"type": "object", "properties": map[string]any{}}
				}
				out.Tools = append(out.Tools, chatTool{Type: "function", Function: f})
			}
		}
	}
	for _, c := range req.Contents {
		if c == nil {
			continue
		}
		role := "user"
		if c.Role == genai.RoleModel {
			role = "assistant"
		}
		msg := chatMessage{Role: role}
		var texts []string
		for _, p := range c.Parts {
			switch {
			case p == nil || p.Thought:
			case p.FunctionCall != nil:
				args, err := json.Marshal(p.FunctionCall.Args)
				if err != nil {
					return nil, fmt.Errorf("encoding arguments of call %s: %w", p.FunctionCall.Name, err)
				}
				tc := chatToolCall{ID: p.FunctionCall.ID, Type: "function"}
				tc.Function.Name, tc.Function.Arguments = p.FunctionCall.Name, string(args)
				msg.ToolCalls = append(msg.ToolCalls, tc)
			case p.FunctionResponse != nil:
				body, err := json.Marshal(p.FunctionResponse.Response)
				if err != nil {
					return nil, fmt.Errorf("encoding result of %s: %w", p.FunctionResponse.Name, err)
				}
				out.Messages = append(out.Messages, chatMessage{Role: "tool", ToolCallID: p.FunctionResponse.ID, Name: p.FunctionResponse.Name, Content: strPtr(string(body))})
			case p.Text != "":
				texts = append(texts, p.Text)
			}
		}
		if len(texts) > 0 || len(msg.ToolCalls) > 0 {
			if len(texts) > 0 {
				msg.Content = strPtr(strings.Join(texts, "\n"))
			}
			out.Messages = append(out.Messages, msg)
		}
	}
	return out, nil
}

// GenerateContent sends one chat-completions request and yields one response.
func (m *ChatModel) GenerateContent(ctx context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		resp, err := m.generate(ctx, req)
		if err != nil {
			err = fmt.Errorf("model %s at %s: %s", m.Model, m.BaseURL, Mask(err.Error(), m.APIKey))
		}
		yield(resp, err)
	}
}

func (m *ChatModel) generate(ctx context.Context, req *model.LLMRequest) (*model.LLMResponse, error) {
	creq, err := m.buildRequest(req)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(creq)
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, m.BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	if m.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+m.APIKey)
	}
	hc := m.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	hresp, err := hc.Do(hreq)
	if err != nil {
		return nil, err
	}
	defer hresp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(hresp.Body, 32<<20))
	if err != nil {
		return nil, fmt.Errorf("reading response: %w", err)
	}
	return m.parseResponse(hresp.StatusCode, raw)
}

// parseResponse turns a chat-completions HTTP reply into an ADK response.
func (m *ChatModel) parseResponse(status int, raw []byte) (*model.LLMResponse, error) {
	var cr chatResponse
	jsonErr := json.Unmarshal(raw, &cr)
	if status != http.StatusOK {
		msg := strings.TrimSpace(string(raw))
		if jsonErr == nil && cr.Error != nil {
			msg = cr.Error.Message
		}
		msg = textfmt.Truncate(msg, 500)
		return nil, fmt.Errorf("HTTP %d: %s", status, msg)
	}
	if jsonErr != nil {
		return nil, fmt.Errorf("response is not chat-completions JSON: %w", jsonErr)
	}
	if len(cr.Choices) == 0 {
		return nil, fmt.Errorf("response has no choices")
	}
	ch := cr.Choices[0]
	content := &genai.Content{Role: genai.RoleModel}
	if ch.Message.Content != nil && *ch.Message.Content != "" {
		content.Parts = append(content.Parts, genai.NewPartFromText(*ch.Message.Content))
	}
	for _, tc := range ch.Message.ToolCalls {
		args := map[string]any{}
		if strings.TrimSpace(tc.Function.Arguments) != "" {
			if err := json.Unmarshal([]byte(tc.Function.Arguments), &args); err != nil {
				return nil, fmt.Errorf("tool call %s has arguments that are not a JSON object: %w", tc.Function.Name, err)
			}
		}
		content.Parts = append(content.Parts, &genai.Part{FunctionCall: &genai.FunctionCall{ID: tc.ID, Name: tc.Function.Name, Args: args}})
	}
	if len(content.Parts) == 0 {
		return nil, fmt.Errorf("response message has neither content nor tool calls")
	}
	out := &model.LLMResponse{Content: content, TurnComplete: true, ModelVersion: m.Model}
	switch ch.FinishReason {
	case "length":
		out.FinishReason = genai.FinishReasonMaxTokens
	default:
		out.FinishReason = genai.FinishReasonStop
	}
	if cr.Usage != nil {
		out.UsageMetadata = &genai.GenerateContentResponseUsageMetadata{
			PromptTokenCount: cr.Usage.PromptTokens, CandidatesTokenCount: cr.Usage.CompletionTokens, TotalTokenCount: cr.Usage.TotalTokens,
		}
	}
	return out, nil
}

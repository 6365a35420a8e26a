package llm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/adk/model"
	"google.golang.org/genai"
)

// CheckRole is the role line of the check request's system instruction,
// so that a scripted endpoint can tell the check from the agents' calls.
const CheckRole = "Role: model_check"

// Check makes one small call to m (a one-word answer) and returns the
// error that call ended with, or nil. An audit runs it once before the
// first case that needs the model, so that a wrong key, model name or
// endpoint is reported once, in seconds, instead of failing every case.
// Any reply counts as a success: what is checked is that the endpoint
// answers for this model and key, not what it says.
func Check(ctx context.Context, m model.LLM, timeout time.Duration) error {
	if m == nil {
		return errors.New("no model configured")
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	req := &model.LLMRequest{
		Model:    m.Name(),
		Contents: []*genai.Content{genai.NewContentFromText("Reply with the single word OK.", genai.RoleUser)},
		Config: &genai.GenerateContentConfig{
			SystemInstruction: genai.NewContentFromText(CheckRole+"\nAnswer with one word.", genai.RoleUser),
			MaxOutputTokens:   512,
		},
	}
	got := false
	for resp, err := range m.GenerateContent(ctx, req, false) {
		if err != nil {
			return err
		}
		if resp != nil && resp.ErrorCode != "" {
			return fmt.Errorf("model %s: %s: %s", m.Name(), resp.ErrorCode, resp.ErrorMessage)
		}
		got = got || resp != nil
	}
	if !got {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("model %s: %w", m.Name(), err)
		}
		return fmt.Errorf("model %s: no response", m.Name())
	}
	return nil
}

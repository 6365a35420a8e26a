package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// DefaultProbeTimeout bounds ProbeResponses (the answer and its body) when
// ctx has no deadline.
const DefaultProbeTimeout = 60 * time.Second

// ProbeResponses checks what Codex itself uses, POST {baseURL}/responses,
// with a one-token request. A /models that answers says nothing about a
// /responses that hangs (an overloaded or wedged model server), which is
// what fails a batch's instances one after another; this probe tells the
// two apart. Any answer below 500 counts as alive: the request only has
// to be served, not to succeed.
func ProbeResponses(ctx context.Context, p Provider, getenv func(string) string) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultProbeTimeout)
		defer cancel()
	}
	body, _ := json.Marshal(map[string]any{"model": p.Model, "input": "ping", "max_output_tokens": 1, "stream": false})
	url := strings.TrimRight(p.BaseURL, "/") + "/responses"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("model endpoint probe: base URL %q: %w", p.BaseURL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if p.APIKeyEnv != "" {
		req.Header.Set("Authorization", "Bearer "+getenv(p.APIKeyEnv))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("model endpoint probe: POST %s: %w", url, err)
	}
	defer resp.Body.Close()
	// The answer counts only once its body arrived within the deadline: a
	// server that sends its status line and then nothing is as dead as
	// one that sends nothing.
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return fmt.Errorf("model endpoint probe: POST %s: HTTP %d, then the body did not arrive: %w", url, resp.StatusCode, err)
	}
	if resp.StatusCode >= 500 {
		return fmt.Errorf("model endpoint probe: POST %s: HTTP %d: %s", url, resp.StatusCode, snippet(b))
	}
	return nil
}

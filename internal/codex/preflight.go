package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/textfmt"
)

// DefaultPreflightTimeout bounds Preflight when ctx has no deadline.
const DefaultPreflightTimeout = 15 * time.Second

// Preflight proves that the endpoint at baseURL answers before a batch
// starts: Codex retries an unreachable endpoint forever, so without this
// check every instance of a batch would burn its whole phase timeout. It
// sends GET {baseURL}/models (served by vLLM, LiteLLM and OpenAI) and
// requires a 200 with an OpenAI model list that names model. The request
// is bounded by ctx, or by DefaultPreflightTimeout when ctx has no
// deadline. A nil hc means http.DefaultClient; give a client whose
// transport adds credentials when the endpoint needs them.
func Preflight(ctx context.Context, baseURL, model string, hc *http.Client) error {
	if hc == nil {
		hc = http.DefaultClient
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultPreflightTimeout)
		defer cancel()
	}
	url := strings.TrimRight(baseURL, "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("model endpoint preflight: base URL %q: %w", baseURL, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("model endpoint preflight: GET %s: %w (is the endpoint running and reachable?)", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("model endpoint preflight: GET %s: reading the answer: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("model endpoint preflight: GET %s: HTTP %d: %s", url, resp.StatusCode, snippet(body))
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return fmt.Errorf("model endpoint preflight: GET %s: expected an OpenAI model list {\"data\":[{\"id\":...}]}: %v", url, err)
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID == model {
			return nil
		}
		ids = append(ids, m.ID)
	}
	return fmt.Errorf("model endpoint preflight: GET %s: model %q is not served; the endpoint lists %q", url, model, ids)
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	s = textfmt.Truncate(s, 200)
	if s == "" {
		return "(empty body)"
	}
	return s
}

// PreflightProvider runs Preflight for p, sending the bearer token from
// p.APIKeyEnv (looked up with getenv) as Codex itself would, so that an
// endpoint that requires a key is not reported as down. An unset or
// empty key variable is an error: Codex would fail every request.
func PreflightProvider(ctx context.Context, p Provider, getenv func(string) string) error {
	hc := &http.Client{}
	if p.APIKeyEnv != "" {
		key := getenv(p.APIKeyEnv)
		if key == "" {
			return fmt.Errorf("model endpoint preflight: environment variable %s (the provider's API key) is empty", p.APIKeyEnv)
		}
		hc.Transport = bearer{token: key, next: http.DefaultTransport}
	}
	return Preflight(ctx, p.BaseURL, p.Model, hc)
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Package llm builds the model backends the qa-audit agents talk to, as ADK
// model.LLM values: Gemini through ADK's own Gemini model (the default), and
// any OpenAI-compatible chat-completions endpoint (llama.cpp, vLLM, Ollama,
// LM Studio...) through a small adapter, because ADK v1 has no such backend.
//
// Credentials come only from the environment. They are never logged, and
// Mask removes them from any error text that might echo them.
package llm

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"time"

	"google.golang.org/adk/model"
	"google.golang.org/adk/model/gemini"
	"google.golang.org/genai"

	"github.com/benchgate/benchgate/internal/exitcode"
)

// Backend names a model provider.
type Backend string

// The supported backends.
const (
	Gemini Backend = "gemini"
	OpenAI Backend = "openai" // any OpenAI-compatible chat-completions endpoint
)

// DefaultGeminiModel is the model the audit uses when none is given.
const DefaultGeminiModel = "gemini-3-pro-preview"

// Config selects and configures a backend.
type Config struct {
	Backend Backend
	Model   string
	// BaseURL overrides the endpoint. For OpenAI it is the API root that
	// holds /chat/completions, e.g. http://127.0.0.1:8080/v1.
	BaseURL string
	// APIKeyEnv names the environment variable holding the key; empty means
	// GEMINI_API_KEY then GOOGLE_API_KEY (Gemini) or OPENAI_API_KEY (OpenAI).
	APIKeyEnv string
	// Timeout bounds one model call (default 5 minutes).
	Timeout    time.Duration
	HTTPClient *http.Client
}

// New returns the model for cfg. getenv reads the environment (os.Getenv in
// production, a map in tests).
func New(ctx context.Context, cfg Config, getenv func(string) string) (model.LLM, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Minute
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: cfg.Timeout}
	}
	switch cfg.Backend {
	case Gemini, "":
		name := cfg.Model
		if name == "" {
			name = DefaultGeminiModel
		}
		key, envName := lookupKey(getenv, cfg.APIKeyEnv, "GEMINI_API_KEY", "GOOGLE_API_KEY")
		if key == "" {
			return nil, fmt.Errorf("gemini backend: no API key: set %s", envName)
		}
		cc := &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI, HTTPClient: hc}
		if cfg.BaseURL != "" {
			cc.HTTPOptions.BaseURL = cfg.BaseURL
		}
		m, err := gemini.NewModel(ctx, name, cc)
		if err != nil {
			return nil, fmt.Errorf("gemini backend: %s", Mask(err.Error(), key))
		}
		return masked{LLM: m, secret: key}, nil
	case OpenAI:
		if cfg.Model == "" {
			return nil, fmt.Errorf("openai backend: %w", exitcode.Optionf("model", " is required (the name the endpoint serves)"))
		}
		base := cfg.BaseURL
		if base == "" {
			base = getenv("OPENAI_BASE_URL")
		}
		if base == "" {
			return nil, fmt.Errorf("openai backend: no endpoint: give %w or set OPENAI_BASE_URL", exitcode.Optionf("model_url", ""))
		}
		// A local server often needs no key; send one only when it is set.
		key, _ := lookupKey(getenv, cfg.APIKeyEnv, "OPENAI_API_KEY")
		return &ChatModel{BaseURL: strings.TrimRight(base, "/"), Model: cfg.Model, APIKey: key, HTTP: hc}, nil
	}
	return nil, fmt.Errorf("model backend %q: want %q or %q", cfg.Backend, Gemini, OpenAI)
}

func lookupKey(getenv func(string) string, explicit string, defaults ...string) (key, names string) {
	if explicit != "" {
		return getenv(explicit), explicit
	}
	for _, n := range defaults {
		if v := getenv(n); v != "" {
			return v, n
		}
	}
	return "", strings.Join(defaults, " or ")
}

// masked wraps a model so that no error it returns can carry the key.
type masked struct {
	model.LLM
	secret string
}

func (m masked) GenerateContent(ctx context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		for resp, err := range m.LLM.GenerateContent(ctx, req, stream) {
			if err != nil {
				err = errors.New(Mask(err.Error(), m.secret))
			}
			if resp != nil && resp.ErrorMessage != "" {
				resp.ErrorMessage = Mask(resp.ErrorMessage, m.secret)
			}
			if !yield(resp, err) {
				return
			}
		}
	}
}

// Mask replaces every secret in s with "****" so that error messages which
// echo a request URL or header never reveal a key.
func Mask(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "****")
		}
	}
	return s
}

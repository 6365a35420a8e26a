package audit

import (
	"strings"
	"testing"
)

func TestModelHint(t *testing.T) {
	openai := Config{Backend: "openai", Model: "m1", ModelURL: "http://host:8000"}
	v1 := Config{Backend: "openai", Model: "m1", ModelURL: "http://host:8000/v1/"}
	gemini := Config{Backend: "gemini", Model: "gemini-2.5-flash"}
	for _, c := range []struct {
		msg  string
		cfg  Config
		want string
	}{
		{`model m1 at http://host:8000: HTTP 404: {"detail":"Not Found"}`, openai, "model_url http://host:8000 has no /chat/completions; OpenAI-compatible servers serve it under /v1: try http://host:8000/v1"},
		{"model m1 at http://host:8000/v1: HTTP 404: The model `m1` does not exist.", v1, `does not serve model "m1"`},
		{"model m1 at http://host:8000/v1: HTTP 400: model 'm1' not found", v1, `does not serve model "m1"`},
		{"model m1 at http://host:8000/v1: HTTP 400: max_tokens too large", v1, "check model_url"},
		{"model m1 at http://host:8000/v1: HTTP 401: Incorrect API key provided.", v1, "put a valid key in OPENAI_API_KEY"},
		{"Error 403, Message: Permission denied", gemini, "put a valid key in GEMINI_API_KEY"},
		{"Error 404, Message: models/gemini-9 is not found", gemini, `does not serve model "gemini-2.5-flash"`},
		{"model m1 at http://host:8000/v1: HTTP 429: quota", v1, "rate limiting"},
		{"model m1 at http://host:8000/v1: HTTP 502: bad gateway", v1, "HTTP 502"},
		{`model m1 at http://host:8000/v1: Post "http://host:8000/v1/chat/completions": dial tcp 127.0.0.1:8000: connect: connection refused`, v1, "nothing answers there"},
		{"model m1: context deadline exceeded", v1, "raise model_timeout"},
		{"model m1: no response", v1, "check model_url"},
	} {
		got := modelHint(c.msg, c.cfg).Error()
		if !strings.Contains(got, c.want) {
			t.Errorf("%q:\n got %q\nwant it to contain %q", c.msg, got, c.want)
		}
	}
	// A key given by --api-key-env is the variable named.
	cfg := v1
	cfg.APIKeyEnv = "VLLM_KEY"
	if got := modelHint("HTTP 401: no", cfg).Error(); !strings.Contains(got, "VLLM_KEY") {
		t.Errorf("401 with api_key_env VLLM_KEY: %q", got)
	}
}

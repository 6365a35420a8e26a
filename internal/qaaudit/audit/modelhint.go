package audit

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/exitcode"
)

// statusPattern finds the HTTP status in a model error: the openai
// backend says "HTTP 404: ...", the Gemini client "Error 404, ...".
var statusPattern = regexp.MustCompile(`(?:HTTP|Error) ([1-5][0-9][0-9])\b`)

// modelCheckFailed is the error that ends a run whose model check failed:
// the endpoint, the key or the model name is wrong, which is broken setup
// (exit 2), not a finding about the questions. It says what failed and
// what to change, by the option keys the command line renames to its
// flags (--model-url, --model, --api-key-env).
func modelCheckFailed(msg string, cfg Config) error {
	hint := modelHint(msg, cfg)
	return exitcode.Usagef("model check failed before any case was audited: %s; %w", msg, hint)
}

func modelHint(msg string, cfg Config) error {
	url := cfg.ModelURL
	if url == "" && cfg.Getenv != nil {
		url = cfg.Getenv("OPENAI_BASE_URL")
	}
	url = strings.TrimRight(url, "/")
	keyEnv := cfg.APIKeyEnv
	if keyEnv == "" {
		keyEnv = "OPENAI_API_KEY"
		if cfg.Backend != "openai" {
			keyEnv = "GEMINI_API_KEY"
		}
	}
	status := 0
	lower := strings.ToLower(msg)
	detail := "" // what the server said, after the status
	if m := statusPattern.FindStringSubmatchIndex(msg); m != nil {
		status, _ = strconv.Atoi(msg[m[2]:m[3]])
		detail = lower[m[1]:]
	}
	switch {
	case status == 404 && cfg.Backend == "openai" && url != "" && !strings.HasSuffix(url, "/v1"):
		return exitcode.Optionf("model_url", " %s has no /chat/completions; OpenAI-compatible servers serve it under /v1: try %s/v1", url, url)
	case status == 404 || (status == 400 || status == 422) && strings.Contains(detail, "model"):
		return fmt.Errorf("the server does not serve model %q (or not at this path): check %w and %w", cfg.Model,
			exitcode.Optionf("model", " (the name the server serves)"), exitcode.Optionf("model_url", ""))
	case status == 401 || status == 403:
		return fmt.Errorf("the endpoint refused the API key: put a valid key in %s (the variable %w names)", keyEnv, exitcode.Optionf("api_key_env", ""))
	case status == 429:
		return fmt.Errorf("the endpoint is rate limiting or out of quota: try again later or audit fewer cases at once")
	case status >= 500:
		return fmt.Errorf("the model server failed (HTTP %d): check its logs", status)
	case strings.Contains(lower, "connection refused") || strings.Contains(lower, "no such host") || strings.Contains(lower, "dial tcp"):
		return fmt.Errorf("nothing answers there: start the model server or fix %w", exitcode.Optionf("model_url", ""))
	case strings.Contains(lower, "deadline exceeded") || strings.Contains(lower, "timeout"):
		return fmt.Errorf("the endpoint did not answer in time: check it is up, or raise %w", exitcode.Optionf("model_timeout", ""))
	}
	return fmt.Errorf("check %w, %w and the key in %s", exitcode.Optionf("model_url", ""), exitcode.Optionf("model", " (the name the server serves)"), keyEnv)
}

package cli

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// chatEndpoint is an OpenAI-compatible server as vLLM answers: only POST
// /v1/chat/completions exists (any other path is a 404 with FastAPI's
// body), a request without the right bearer key is a 401, and a model it
// does not serve is a 404 naming the model.
type chatEndpoint struct {
	*httptest.Server
	key, model string

	mu    sync.Mutex
	calls int
}

func newChatEndpoint(t *testing.T, key, model string) *chatEndpoint {
	e := &chatEndpoint{key: key, model: model}
	e.Server = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.Close)
	return e
}

func (e *chatEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	e.calls++
	e.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"detail":"Not Found"}`)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+e.key {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`)
		return
	}
	var req struct {
		Model string `json:"model"`
	}
	if json.NewDecoder(r.Body).Decode(&req) != nil {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"invalid JSON body"}}`)
		return
	}
	if req.Model != e.model {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"The model `+"`"+req.Model+"`"+` does not exist.","type":"NotFoundError","code":404}}`)
		return
	}
	io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"OK"},"finish_reason":"stop"}]}`)
}

// TestQAAuditModelCheckIsBrokenSetup runs the built binary against
// endpoints set up wrong in each of the ways a user gets wrong: every one
// ends the run with exit 2 before any case is audited (no report), and
// the message says what to change.
func TestQAAuditModelCheckIsBrokenSetup(t *testing.T) {
	py := testenv.Python(t)
	bin := testenv.Benchgate(t)
	ep := newChatEndpoint(t, "sk-right-123456", "qwen3-coder")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	for _, c := range []struct {
		name, url, model, key string
		want                  []string
	}{
		{"base URL without /v1", ep.URL, "qwen3-coder", "sk-right-123456",
			[]string{"HTTP 404", "--model-url " + ep.URL + " has no /chat/completions", "try " + ep.URL + "/v1"}},
		{"wrong key", ep.URL + "/v1", "qwen3-coder", "sk-wrong-123456",
			[]string{"HTTP 401", "refused the API key", "OPENAI_API_KEY", "--api-key-env"}},
		{"wrong model name", ep.URL + "/v1", "qwen3-coderr", "sk-right-123456",
			[]string{"HTTP 404", "does not serve model \"qwen3-coderr\"", "check --model (the name the server serves) and --model-url"}},
		{"connection refused", dead, "qwen3-coder", "sk-right-123456",
			[]string{"connection refused", "nothing answers there", "fix --model-url"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := mcFile(t, dir, 3)
			code, out, _ := runBinary(t, dir, append(os.Environ(), "OPENAI_API_KEY="+c.key), bin, "qa-audit", "--model-backend", "openai",
				"--model", c.model, "--model-url", c.url, "--python", py, "--output-dir", "out", file)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d (broken setup)\n%s", code, ExitUsage, out)
			}
			if !strings.Contains(out, "benchgate qa-audit: model check failed before any case was audited") {
				t.Errorf("no model check error:\n%s", out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("the message lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, c.key) {
				t.Errorf("the message shows the key:\n%s", out)
			}
			if _, err := os.Stat(filepath.Join(dir, "out", "quality_report.json")); err == nil {
				t.Errorf("a report was written for a run that judged nothing")
			}
		})
	}
	// Set up right, the same endpoint answers the check.
	dir := t.TempDir()
	file := mcFile(t, dir, 1)
	_, out, _ := runBinary(t, dir, append(os.Environ(), "OPENAI_API_KEY=sk-right-123456"), bin, "qa-audit", "--model-backend", "openai",
		"--model", "qwen3-coder", "--model-url", ep.URL+"/v1", "--python", py, "--output-dir", "out", "--max-remediations", "0", file)
	if !strings.Contains(out, "qa-audit: model qwen3-coder answered the check call") {
		t.Errorf("a right setup did not pass the check:\n%s", out)
	}
}

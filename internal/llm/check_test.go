package llm_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/llm"
)

// TestCheck makes the one small call against a working endpoint, one
// that refuses the key, one that is not there and one that never answers
// (bounded by the timeout), for both backends.
func TestCheck(t *testing.T) {
	ok := newChatServer(t, http.StatusOK, `{"choices":[{"message":{"role":"assistant","content":"OK"},"finish_reason":"stop"}]}`)
	denied := newChatServer(t, http.StatusUnauthorized, `{"error":{"message":"invalid api key `+secret+`"}}`)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	stop := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer silent.Close()
	defer close(stop)
	gemini := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"OK"}]},"finishReason":"STOP"}]}`)
	}))
	defer gemini.Close()

	openai := func(url string) llm.Config {
		return llm.Config{Backend: llm.OpenAI, Model: "m", BaseURL: url}
	}
	tests := []struct {
		name string
		cfg  llm.Config
		want string // "" for success, else a part of the error
	}{
		{"openai ok", openai(ok.URL + "/v1"), ""},
		{"gemini ok", llm.Config{Backend: llm.Gemini, Model: "g", BaseURL: gemini.URL}, ""},
		{"key refused", openai(denied.URL + "/v1"), "HTTP 401"},
		{"nothing listens", openai(dead), "connection refused"},
		{"never answers", openai(silent.URL + "/v1"), "deadline exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := llm.New(context.Background(), tt.cfg, env(map[string]string{"OPENAI_API_KEY": secret, "GEMINI_API_KEY": secret}))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err = llm.Check(context.Background(), m, time.Second)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("check took %s", took)
			}
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("check failed: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			case err != nil && strings.Contains(err.Error(), secret):
				t.Fatalf("the error shows the key: %v", err)
			}
		})
	}
	if got, _ := ok.got["messages"].([]any); len(got) != 2 || !strings.Contains(ok.Server.URL, "127.0.0.1") {
		t.Errorf("check request messages = %v", ok.got["messages"])
	}
	if sys := ok.got["messages"].([]any)[0].(map[string]any)["content"]; !strings.HasPrefix(sys.(string), llm.CheckRole) {
		t.Errorf("system message %q does not start with %q", sys, llm.CheckRole)
	}
}

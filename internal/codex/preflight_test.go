package codex

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestPreflight(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		model   string
		wantErr string
	}{
		{name: "model listed", status: 200, body: `{"object":"list","data":[{"id":"other"},{"id":"qwen3-coder-next-FP8","object":"model"}]}`, model: "qwen3-coder-next-FP8"},
		{name: "model missing", status: 200, body: `{"data":[{"id":"other"}]}`, model: "qwen3-coder-next-FP8", wantErr: `model "qwen3-coder-next-FP8" is not served; the endpoint lists ["other"]`},
		{name: "http error", status: 401, body: `{"error":"no key"}`, model: "m", wantErr: `HTTP 401: {"error":"no key"}`},
		{name: "not a model list", status: 200, body: `<html>`, model: "m", wantErr: "expected an OpenAI model list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotPath string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotPath = r.Method + " " + r.URL.Path
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			err := Preflight(context.Background(), srv.URL+"/v1/", tt.model, srv.Client())
			if gotPath != "GET /v1/models" {
				t.Errorf("request %q, want GET /v1/models", gotPath)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestPreflightDeadEndpoint(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there any more
	err = Preflight(context.Background(), "http://"+addr+"/v1", "m", nil)
	if err == nil || !strings.Contains(err.Error(), "is the endpoint running") {
		t.Fatalf("error %v, want a connection failure", err)
	}
}

// TestPreflightBounded: an endpoint that accepts but never answers is cut
// off by the caller's deadline instead of hanging the batch.
func TestPreflightBounded(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := Preflight(ctx, srv.URL+"/v1", "m", srv.Client())
	if err == nil {
		t.Fatal("want an error from a silent endpoint")
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("preflight took %v despite a 200ms deadline", time.Since(start))
	}
}

func TestPreflightProvider(t *testing.T) {
	tests := []struct {
		name     string
		keyEnv   string
		env      map[string]string
		wantAuth string
		wantErr  string
	}{
		{name: "no key", wantAuth: ""},
		{name: "key from the environment", keyEnv: "LLM_KEY", env: map[string]string{"LLM_KEY": "sk-1"}, wantAuth: "Bearer sk-1"},
		{name: "key variable empty", keyEnv: "LLM_KEY", wantErr: "environment variable LLM_KEY (the provider's API key) is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotAuth := "(no request)"
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotAuth = r.Header.Get("Authorization")
				w.Write([]byte(`{"data":[{"id":"m"}]}`))
			}))
			defer srv.Close()
			err := PreflightProvider(context.Background(), Provider{BaseURL: srv.URL + "/v1", Model: "m", APIKeyEnv: tt.keyEnv}, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				if gotAuth != "(no request)" {
					t.Fatal("a request was sent without the key")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if gotAuth != tt.wantAuth {
				t.Fatalf("Authorization %q, want %q", gotAuth, tt.wantAuth)
			}
		})
	}
}

package codex

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestProbeResponses(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"answers", func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer k" {
				w.WriteHeader(http.StatusTeapot)
			}
			w.Write([]byte(`{}`))
		}, ""},
		{"a client error is still an answer", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadRequest) }, ""},
		{"server error", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) }, "HTTP 502"},
		{"hangs", func(w http.ResponseWriter, r *http.Request) { time.Sleep(2 * time.Second) }, "context deadline exceeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			err := ProbeResponses(ctx, Provider{BaseURL: srv.URL + "/v1", Model: "m", APIKeyEnv: "K"}, func(string) string { return "k" })
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

package codex

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/deadendpoint"
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

// TestProbeResponsesDeadEndpoints: each way an endpoint dies is dead to
// the probe within its deadline, on real sockets. A 200 whose body never
// comes is no answer.
func TestProbeResponsesDeadEndpoints(t *testing.T) {
	for _, tc := range []struct {
		mode deadendpoint.Mode
		want string
	}{
		{deadendpoint.Silent, "context deadline exceeded"},
		{deadendpoint.Stall, "HTTP 200, then the body did not arrive: context deadline exceeded"},
		{deadendpoint.Refused, "connection refused"},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			srv := deadendpoint.New(t, tc.mode, "m")
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			start := time.Now()
			err := ProbeResponses(ctx, Provider{BaseURL: srv.BaseURL, Model: "m"}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("the probe took %s, past its deadline", took)
			}
			// /models still answers: only the probe of /responses tells.
			if tc.mode != deadendpoint.Refused {
				if err := Preflight(context.Background(), srv.BaseURL, "m", nil); err != nil {
					t.Errorf("preflight of the /models that still answers: %v", err)
				}
			}
		})
	}
}

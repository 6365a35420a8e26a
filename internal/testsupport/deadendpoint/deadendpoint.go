// Package deadendpoint serves the ways a model endpoint dies, on real
// sockets, for tests of what notices it: a /responses that accepts the
// connection and never answers, one that answers 200 and then stalls, and
// an address where nothing listens. GET /models keeps answering (the
// model list), as a wedged model server's does.
package deadendpoint

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// Mode is how POST /responses fails.
type Mode string

const (
	// Silent accepts the request and never writes a byte.
	Silent Mode = "silent"
	// Stall sends the status line and headers of a 200 event stream, then
	// nothing.
	Stall Mode = "stall"
	// Refused is an address where nothing listens: every connection is
	// refused, /models included.
	Refused Mode = "refused"
)

// Server is one dead endpoint.
type Server struct {
	// BaseURL is what --base-url takes (ends in /v1).
	BaseURL string
	hits    atomic.Int64
}

// Responses counts the POST /responses requests that reached the server.
func (s *Server) Responses() int64 { return s.hits.Load() }

// New starts a dead endpoint serving model; it ends with the test, after
// releasing every request it holds.
func New(t testing.TB, mode Mode, model string) *Server {
	t.Helper()
	s := &Server{}
	if mode == Refused {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s.BaseURL = "http://" + l.Addr().String() + "/v1"
		l.Close()
		return s
	}
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": []map[string]any{{"id": model, "object": "model"}}})
		case "/v1/responses":
			s.hits.Add(1)
			if mode == Stall {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
			} else {
				// Take the connection from the server so that not even
				// a header goes out.
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					defer conn.Close()
				}
			}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	s.BaseURL = srv.URL + "/v1"
	return s
}

// Package container talks to a Docker Engine (or a compatible engine) over
// its HTTP API on a unix socket. It uses net/http directly so that the
// runner needs no docker CLI and no large SDK, and so that every call has a
// context: a cancelled run can still force-remove what it created.
package container

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// APIVersion is the Engine API version the client pins. 1.41 is served by
// Docker 20.10 and every later engine, and has all the endpoints used here.
const APIVersion = "v1.41"

// ErrNotFound is returned (wrapped) when the engine answers 404: a missing
// image, container or exec instance.
var ErrNotFound = errors.New("not found")

// Client is an Engine API client bound to one daemon socket.
type Client struct {
	hc   *http.Client
	host string
}

// New returns a client for dockerHost, a DOCKER_HOST value such as
// "unix:///var/run/docker.sock". An empty value means the default socket.
func New(dockerHost string) (*Client, error) {
	if dockerHost == "" {
		dockerHost = "unix:///var/run/docker.sock"
	}
	u, err := url.Parse(dockerHost)
	if err != nil || u.Scheme != "unix" || u.Path == "" {
		return nil, fmt.Errorf("DOCKER_HOST %q: only unix:///path/to/docker.sock is supported", dockerHost)
	}
	sock := u.Path
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
		MaxIdleConns:    8,
		IdleConnTimeout: 30 * time.Second,
	}
	return &Client{hc: &http.Client{Transport: tr}, host: dockerHost}, nil
}

// Host returns the DOCKER_HOST the client talks to.
func (c *Client) Host() string { return c.host }

// apiError is the engine's JSON error body.
type apiError struct {
	Message string `json:"message"`
}

func (c *Client) do(ctx context.Context, method, path string, query url.Values, body io.Reader, contentType string) (*http.Response, error) {
	u := "http://docker/" + APIVersion + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("docker %s %s (%s): %w", method, path, c.host, err)
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		var ae apiError
		msg := strings.TrimSpace(string(b))
		if json.Unmarshal(b, &ae) == nil && ae.Message != "" {
			msg = ae.Message
		}
		err := fmt.Errorf("docker %s %s: %s (HTTP %d)", method, path, msg, resp.StatusCode)
		if resp.StatusCode == http.StatusNotFound {
			err = fmt.Errorf("%w: %w", ErrNotFound, err)
		}
		return nil, err
	}
	return resp, nil
}

// retryDelays are the waits before the second, third and fourth try of
// a request that failed in transport (the engine restarting, a reset
// connection). A week-long batch meets such blips; without a retry each
// one became a final runtime_error for the instance at hand.
var retryDelays = []time.Duration{200 * time.Millisecond, time.Second, 3 * time.Second}

// transient reports an error of the connection, not an answer of the
// engine: worth another try.
func transient(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ENOENT) || // the socket is being re-created
		// net/http's own error (unexported) for a kept-alive connection
		// the engine closed just as a request went out on it: the engine
		// never read the request. It retries idempotent requests itself,
		// never a POST.
		strings.Contains(err.Error(), "http: server closed idle connection")
}

// doJSON sends in (when not nil) as JSON and decodes the answer into out
// (when not nil). A transport failure is retried with backoff, since the
// body can be sent again; an answer of the engine (4xx, 5xx) is not.
func (c *Client) doJSON(ctx context.Context, method, path string, query url.Values, in, out any) error {
	var payload []byte
	ct := ""
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		payload = b
		ct = "application/json"
	}
	var resp *http.Response
	var err error
	for try := 0; ; try++ {
		var body io.Reader
		if payload != nil {
			body = bytes.NewReader(payload)
		}
		resp, err = c.do(ctx, method, path, query, body, ct)
		if err == nil || !transient(err) || try >= len(retryDelays) || ctx.Err() != nil {
			break
		}
		t := time.NewTimer(retryDelays[try])
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("docker %s %s: decode answer: %w", method, path, err)
	}
	return nil
}

// FixUnreachable says what to do when Ping finds no engine.
const FixUnreachable = "start the Docker engine, or set DOCKER_HOST to the socket of a running one that this user may use"

// Ping checks that the engine answers.
func (c *Client) Ping(ctx context.Context) error {
	resp, err := c.do(ctx, http.MethodGet, "/_ping", nil, nil, "")
	var ue *url.Error
	if errors.As(err, &ue) {
		// Said without the HTTP request it was carried in: the socket
		// or address and why it did not answer.
		return fmt.Errorf("no Docker engine answers at %s: %w", c.host, ue.Err)
	}
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// Package artifacts uploads folders as GitHub Actions artifacts with the v4
// protocol that actions/upload-artifact@v4 speaks: a Twirp CreateArtifact
// call on the results service, the zip streamed to the returned signed URL as
// Azure block blob blocks plus a block list, and a FinalizeArtifact call
// carrying the size and sha256 of the zip.
//
// It exists because a containerized Action cannot run the JavaScript
// toolkit, and no Go client for the v4 protocol is published.
package artifacts

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/textfmt"
)

// Environment variables the Actions runner passes to every step, including
// container actions.
const (
	EnvResultsURL   = "ACTIONS_RESULTS_URL"
	EnvRuntimeToken = "ACTIONS_RUNTIME_TOKEN"
	// EnvRetentionDays is the repository's maximum artifact retention.
	EnvRetentionDays = "GITHUB_RETENTION_DAYS"
)

// userAgent identifies the client to the results service and blob store.
const userAgent = "benchgate-artifacts"

// twirpService is the path prefix of the results service RPCs.
const twirpService = "/twirp/github.actions.results.api.v1.ArtifactService/"

// artifactVersion is the CreateArtifact version upload-artifact@v4 sends.
// Version 7 adds mime_type, which nektos/act and older Gitea servers reject,
// so the zip-only version 4 is the one every server accepts.
const artifactVersion = 4

// Defaults for Client fields left at their zero value. The retry schedule is
// the toolkit's (5 attempts, 3 s, x1.5).
const (
	DefaultBlockSize   = 4 << 20
	DefaultMaxAttempts = 5
	DefaultBackoff     = 3 * time.Second
	// DefaultRequestTimeout bounds one HTTP request, like the toolkit's
	// 5-minute upload stall timeout; a timed-out request is retried.
	DefaultRequestTimeout = 5 * time.Minute
)

// Uploaded describes an artifact the service accepted.
type Uploaded struct {
	// ID is the artifact ID FinalizeArtifact returned; with the repository
	// and run ID it forms the artifact URL shown to users.
	ID int64
	// Name is the artifact name.
	Name string
	// Size is the number of zip bytes uploaded.
	Size int64
	// Digest is the hex sha256 of the uploaded zip (the value
	// upload-artifact reports as artifact-digest).
	Digest string
	// Skipped lists the symbolic links, FIFOs, sockets and devices left
	// out of the archive, by path relative to the uploaded folder;
	// callers warn about each.
	Skipped []Skipped
}

// Client talks to the Actions results service of one job. Its zero-valued
// tuning fields take the defaults above. It holds no per-upload state: once
// configured, several uploads may run at the same time.
type Client struct {
	// BaseURL is the origin of the results service.
	BaseURL *url.URL
	// HTTP sends every request; NewClientFromEnv sets one with
	// DefaultRequestTimeout, http.DefaultClient is used when nil.
	HTTP *http.Client
	// BlockSize is the size of each uploaded block.
	BlockSize int
	// MaxAttempts bounds the tries of each RPC and each block PUT.
	MaxAttempts int
	// Backoff is the wait before the first retry; each later wait is 1.5x
	// the previous one.
	Backoff time.Duration

	// RetentionDays asks the service to expire the artifact after this
	// many days; 0 keeps the repository default. A value above the
	// repository maximum (GITHUB_RETENTION_DAYS) is lowered to it, as
	// upload-artifact does.
	RetentionDays int

	token        string
	runID        string
	jobID        string
	maxRetention int
	level        int // flate level 0-9, or flate.DefaultCompression
	logger       func(format string, args ...any)
}

// NewClientFromEnv builds a Client from ACTIONS_RESULTS_URL and
// ACTIONS_RUNTIME_TOKEN as getenv returns them. The workflow run and job
// backend IDs every RPC needs are read from the token's scp claim.
func NewClientFromEnv(getenv func(string) string) (*Client, error) {
	rawURL := strings.TrimSpace(getenv(EnvResultsURL))
	if rawURL == "" {
		return nil, fmt.Errorf("artifact upload needs %s: it is not set (it is only present inside a GitHub Actions job)", EnvResultsURL)
	}
	token := strings.TrimSpace(getenv(EnvRuntimeToken))
	if token == "" {
		return nil, fmt.Errorf("artifact upload needs %s: it is not set (it is only present inside a GitHub Actions job)", EnvRuntimeToken)
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s=%q: expected an http(s) URL", EnvResultsURL, rawURL)
	}
	runID, jobID, err := backendIDs(token)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvRuntimeToken, err)
	}
	maxRetention := 0
	if v := strings.TrimSpace(getenv(EnvRetentionDays)); v != "" {
		n, err := strconv.Atoi(v)
		// 0 means no maximum is known, as the toolkit reads it (nektos/act
		// sets it); a negative or non-number value is a broken runner.
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s=%q: expected a whole number of days (0: no maximum)", EnvRetentionDays, v)
		}
		maxRetention = n
	}
	return &Client{
		BaseURL:      &url.URL{Scheme: u.Scheme, Host: u.Host},
		HTTP:         &http.Client{Timeout: DefaultRequestTimeout},
		token:        token,
		runID:        runID,
		jobID:        jobID,
		maxRetention: maxRetention,
		level:        flate.DefaultCompression,
	}, nil
}

// SetCompressionLevel sets the zlib level of the zip, 0 (store, fastest,
// for data that is already compressed) to 9 (smallest); the default is 6
// like upload-artifact's compression-level input.
func (c *Client) SetCompressionLevel(level int) error {
	if level < 0 || level > 9 {
		return fmt.Errorf("compression level %d: expected 0 to 9", level)
	}
	c.level = level
	return nil
}

// expiresAt returns the RFC 3339 expiry CreateArtifact should carry, or ""
// for the repository default.
func (c *Client) expiresAt(now time.Time) string {
	days := c.RetentionDays
	if days <= 0 {
		return ""
	}
	if c.maxRetention > 0 && days > c.maxRetention {
		c.logf("retention of %d days is above the repository maximum; using %d", days, c.maxRetention)
		days = c.maxRetention
	}
	return now.AddDate(0, 0, days).UTC().Format(time.RFC3339)
}

// ArtifactURL is the page of an uploaded artifact, the value upload-artifact
// reports as artifact-url. serverURL is GITHUB_SERVER_URL, repo
// GITHUB_REPOSITORY and runID GITHUB_RUN_ID.
func ArtifactURL(serverURL, repo, runID string, id int64) string {
	return fmt.Sprintf("%s/%s/actions/runs/%s/artifacts/%d", strings.TrimSuffix(serverURL, "/"), repo, runID, id)
}

// SetLogger installs a printf-style sink for retry notices; messages never
// contain the token or the signature of signed URLs.
func (c *Client) SetLogger(logf func(format string, args ...any)) { c.logger = logf }

func (c *Client) logf(format string, args ...any) {
	if c.logger != nil {
		c.logger(format, args...)
	}
}

// backendIDs extracts the workflow run and job backend IDs from the
// Actions.Results:<run>:<job> scope of a runtime token. The signature is not
// checked: the token is only forwarded, the service verifies it.
func backendIDs(token string) (runID, jobID string, err error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", "", fmt.Errorf("expected a JWT with 3 dot-separated parts, got %d", len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return "", "", fmt.Errorf("JWT payload is not base64url: %w", err)
	}
	var claims struct {
		Scp string `json:"scp"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return "", "", fmt.Errorf("JWT payload is not a JSON object with a string scp claim: %w", err)
	}
	for _, scope := range strings.Fields(claims.Scp) {
		p := strings.Split(scope, ":")
		if len(p) == 3 && p[0] == "Actions.Results" && p[1] != "" && p[2] != "" {
			return p[1], p[2], nil
		}
	}
	return "", "", errors.New("JWT scp claim has no Actions.Results:<run>:<job> scope")
}

// TwirpError is an error answer of the results service.
type TwirpError struct {
	Method string
	Status int
	Code   string
	Msg    string
}

func (e *TwirpError) Error() string {
	s := fmt.Sprintf("%s: HTTP %d", e.Method, e.Status)
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	switch {
	case strings.Contains(e.Msg, "insufficient usage"):
		s += " (the artifact storage quota of the account is used up)"
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		s += " (the runtime token was refused; it is only valid inside its own job)"
	}
	return s
}

// retryable reports whether an HTTP status is worth another try: the set the
// toolkit retries.
func retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// permanent marks an error that retrying cannot fix.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// retry runs op until it succeeds, returns a permanent error, the context
// ends or the attempts run out. what names the operation in notices.
func (c *Client) retry(ctx context.Context, what string, op func() error) error {
	attempts := c.MaxAttempts
	if attempts <= 0 {
		attempts = DefaultMaxAttempts
	}
	wait := c.Backoff
	if wait <= 0 {
		wait = DefaultBackoff
	}
	var err error
	for i := 1; ; i++ {
		err = op()
		var p permanent
		if err == nil {
			return nil
		}
		if errors.As(err, &p) {
			return p.err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", what, ctx.Err())
		}
		if i >= attempts {
			return fmt.Errorf("%s: giving up after %d attempts: %w", what, attempts, err)
		}
		c.logf("%s failed (attempt %d of %d), retrying in %s: %v", what, i, attempts, wait, err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: %w (last error: %v)", what, ctx.Err(), err)
		case <-t.C:
		}
		wait = wait * 3 / 2
	}
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// call posts req as JSON to a Twirp method and decodes the answer into resp,
// retrying transient failures.
func (c *Client) call(ctx context.Context, method string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("%s: encode request: %w", method, err)
	}
	endpoint := c.BaseURL.JoinPath(twirpService + method).String()
	return c.retry(ctx, method, func() error {
		hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
		if err != nil {
			return permanent{fmt.Errorf("%s: %w", method, err)}
		}
		hreq.Header.Set("Content-Type", "application/json")
		hreq.Header.Set("Accept", "application/json")
		hreq.Header.Set("Authorization", "Bearer "+c.token)
		hreq.Header.Set("User-Agent", userAgent)
		hres, err := c.httpClient().Do(hreq)
		if err != nil {
			return fmt.Errorf("%s: %w", method, redactURLError(err))
		}
		defer hres.Body.Close()
		data, err := io.ReadAll(io.LimitReader(hres.Body, 1<<20))
		if err != nil {
			return fmt.Errorf("%s: read response: %w", method, err)
		}
		if hres.StatusCode/100 != 2 {
			te := &TwirpError{Method: method, Status: hres.StatusCode}
			var tw struct {
				Code string `json:"code"`
				Msg  string `json:"msg"`
			}
			if json.Unmarshal(data, &tw) == nil {
				te.Code, te.Msg = tw.Code, tw.Msg
			} else {
				te.Msg = textfmt.Truncate(strings.TrimSpace(string(data)), 200)
			}
			if retryable(hres.StatusCode) {
				return te
			}
			return permanent{te}
		}
		if err := json.Unmarshal(data, resp); err != nil {
			return permanent{fmt.Errorf("%s: response is not the expected JSON: %w", method, err)}
		}
		return nil
	})
}

// redactURLError drops the query (which carries the SAS signature) from the
// URL a *url.Error quotes.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s %s: %w", ue.Op, redact(ue.URL), ue.Err)
	}
	return err
}

// redact returns rawURL without its query string.
func redact(rawURL string) string {
	if i := strings.IndexByte(rawURL, '?'); i >= 0 {
		return rawURL[:i] + "?<redacted>"
	}
	return rawURL
}

// int64String decodes a protobuf int64, which protojson writes as a JSON
// string but some servers write as a number.
type int64String int64

func (v *int64String) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*v = 0
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("expected an int64, got %s", b)
	}
	*v = int64String(n)
	return nil
}

// Requests use the proto field names (snake_case) like the toolkit does;
// responses are read in both spellings because protojson servers emit
// lowerCamelCase and others echo the proto names.

type createArtifactRequest struct {
	RunID     string `json:"workflow_run_backend_id"`
	JobID     string `json:"workflow_job_run_backend_id"`
	Name      string `json:"name"`
	ExpiresAt string `json:"expires_at,omitempty"`
	Version   int    `json:"version"`
}

type createArtifactResponse struct {
	Ok       bool   `json:"ok"`
	URLCamel string `json:"signedUploadUrl"`
	URLSnake string `json:"signed_upload_url"`
}

type finalizeArtifactRequest struct {
	RunID string `json:"workflow_run_backend_id"`
	JobID string `json:"workflow_job_run_backend_id"`
	Name  string `json:"name"`
	Size  string `json:"size"`
	Hash  string `json:"hash"`
}

type finalizeArtifactResponse struct {
	Ok      bool        `json:"ok"`
	IDCamel int64String `json:"artifactId"`
	IDSnake int64String `json:"artifact_id"`
}

func (c *Client) createArtifact(ctx context.Context, name string) (string, error) {
	var resp createArtifactResponse
	err := c.call(ctx, "CreateArtifact", createArtifactRequest{
		RunID: c.runID, JobID: c.jobID, Name: name, Version: artifactVersion,
		ExpiresAt: c.expiresAt(time.Now()),
	}, &resp)
	if err != nil {
		return "", err
	}
	signed := resp.URLCamel
	if signed == "" {
		signed = resp.URLSnake
	}
	if !resp.Ok {
		return "", errors.New("CreateArtifact: the service answered ok=false (an artifact with this name may already exist in this run)")
	}
	if signed == "" {
		return "", errors.New("CreateArtifact: the service returned no signed upload URL")
	}
	return signed, nil
}

func (c *Client) finalizeArtifact(ctx context.Context, name string, size int64, digest string) (int64, error) {
	var resp finalizeArtifactResponse
	err := c.call(ctx, "FinalizeArtifact", finalizeArtifactRequest{
		RunID: c.runID, JobID: c.jobID, Name: name,
		Size: strconv.FormatInt(size, 10), Hash: "sha256:" + digest,
	}, &resp)
	if err != nil {
		return 0, err
	}
	if !resp.Ok {
		return 0, errors.New("FinalizeArtifact: the service answered ok=false")
	}
	id := int64(resp.IDCamel)
	if id == 0 {
		id = int64(resp.IDSnake)
	}
	return id, nil
}

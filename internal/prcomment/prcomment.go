// Package prcomment keeps one sticky comment on a pull request: a hidden
// marker names the workflow, job and mode it belongs to, and each run
// edits the comment carrying its marker instead of adding another, so a
// pull request shows one current verdict per check, as the tools
// maintainers already use do (github-action-benchmark, Bencher,
// CodSpeed).
//
// A comment can also be kept as a file (pr-comment.json) and posted
// later: a pull request from a fork gets a read-only token, so a second
// workflow, started by workflow_run with a token that can write, posts
// the file the first run left in its artifact. The file holds data (the
// run's verdict), never Markdown: ReadFile checks it strictly, since it
// comes from a run of someone else's code, and File.Comment renders the
// comment in the posting stage, bound to that stage's own event.
package prcomment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/google/go-github/v62/github"
)

// MaxBody is GitHub's limit of a comment's body, in characters; a body
// is kept to as many bytes, which are never fewer.
const MaxBody = 65536

// FileName is the file a comment is kept in, in the run folder and so
// in the run's artifact.
const FileName = "pr-comment.json"

// markerPrefix starts every marker; a comment without it is never
// edited.
const markerPrefix = "<!-- benchgate-comment "

// Comment is a sticky comment: where it goes and what it says.
type Comment struct {
	// Repository is owner/name.
	Repository  string `json:"repository"`
	PullRequest int    `json:"pull_request"`
	// HeadSHA is the pull request's head commit the run judged; a
	// comment posted from a file is refused when the pull request has
	// moved to another head, so a file can only speak about its own run.
	HeadSHA string `json:"head_sha"`
	Marker  string `json:"marker"`
	// Body is the Markdown, the marker on its first line.
	Body string `json:"body"`
}

// Marker is the hidden line that identifies the comment of one
// workflow, job and mode outside a matrix: LegMarker with no leg.
func Marker(workflow, job, mode string) string {
	return LegMarker(workflow, job, mode, "")
}

// LegMarker is the hidden line that identifies the comment of one
// workflow, job, mode and matrix leg (MatrixLeg): the legs of a matrix
// share the job's ID, and each keeps its own comment. Each name is
// written with markerEscape, which is reversible, so two different names
// never give the same marker, and nothing in them can end the HTML
// comment early. A job outside a matrix has no leg, and its marker is
// the one benchgate always wrote, so its comment stays the one edited.
func LegMarker(workflow, job, mode, leg string) string {
	m := fmt.Sprintf("%sworkflow=%s job=%s mode=%s", markerPrefix, markerEscape(workflow), markerEscape(job), markerEscape(mode))
	if leg != "" {
		m += " leg=" + markerEscape(leg)
	}
	return m + " -->"
}

// MaxLeg is the longest matrix leg kept as written; a longer one is
// named by its digest (MatrixLeg).
const MaxLeg = 200

// MatrixLeg names a matrix leg by its values: matrixJSON is the job's
// matrix context as toJSON(matrix) gives it ("null" outside a matrix,
// which has no leg). The leg is key=value pairs in the order of the
// keys, comma-separated, each value as written when it is a string and
// as compact JSON otherwise ("os=ubuntu,set=pr-exec"): the values, not
// strategy.job-index, so that adding an entry to the matrix does not
// move the other legs' comments. One longer than MaxLeg is
// "sha256:<16 hex digits>" of that text.
func MatrixLeg(matrixJSON string) (string, error) {
	s := strings.TrimSpace(matrixJSON)
	if s == "" || s == "null" {
		return "", nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return "", fmt.Errorf("the matrix context: expected a JSON object or null, got %.80q: %v", s, err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		var text string
		// null unmarshals into a string too, as "": only a quoted value is
		// a string.
		if err := json.Unmarshal(m[k], &text); err == nil && bytes.HasPrefix(m[k], []byte(`"`)) {
			text = legText(text)
		} else {
			var buf bytes.Buffer
			if err := json.Compact(&buf, m[k]); err != nil {
				return "", fmt.Errorf("the matrix context: value of %q: %v", k, err)
			}
			text = buf.String()
		}
		parts = append(parts, legText(k)+"="+text)
	}
	leg := strings.Join(parts, ",")
	if len(leg) > MaxLeg {
		sum := sha256.Sum256([]byte(leg))
		leg = "sha256:" + hex.EncodeToString(sum[:8])
	}
	return leg, nil
}

// legText is a matrix key or string value as the leg writes it: as
// written when that cannot be read as anything else, else JSON-quoted.
// Quoted are an empty text, one with a ',' '=' '"' '[' '{' or control
// character (a multi-line value of an include entry), and one that reads
// as JSON (the string "2" beside the number 2),
// so two different matrices never give one leg ({"a": "1,b=2"} is
// a="1,b=2", not the a=1,b=2 of {"a": "1", "b": "2"}) and a leg holds
// no control character, which the comment file refuses.
func legText(s string) string {
	plain := s != "" && !strings.ContainsAny(s, ",=\"[{") && !strings.ContainsFunc(s, unicode.IsControl) && !json.Valid([]byte(s))
	if plain {
		return s
	}
	q, _ := json.Marshal(s)
	return string(q)
}

// markerEscape percent-encodes every byte of s but ASCII letters, digits
// and . _ / @, and a '-' that another '-' follows or that ends s (so that
// no "--" appears, which HTML does not allow inside a comment). '%' is
// always encoded, so the result decodes to s and only s.
func markerEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		keep := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._/@", c) >= 0 ||
			c == '-' && i+1 < len(s) && s[i+1] != '-'
		if keep {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

var (
	repoPattern   = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
	shaPattern    = regexp.MustCompile(`^[0-9a-f]{40}$`)
	markerPattern = regexp.MustCompile(`^<!-- benchgate-comment workflow=[A-Za-z0-9._/@%-]* job=[A-Za-z0-9._/@%-]* mode=[A-Za-z0-9._/@%-]*( leg=[A-Za-z0-9._/@%-]+)? -->$`)
)

// Validate says what is wrong with a comment, naming the field.
func (c *Comment) Validate() error {
	switch {
	case !repoPattern.MatchString(c.Repository):
		return fmt.Errorf("field repository: expected owner/name, got %q", c.Repository)
	case c.PullRequest < 1:
		return fmt.Errorf("field pull_request: expected a pull request number >= 1, got %d", c.PullRequest)
	case c.HeadSHA != "" && !shaPattern.MatchString(c.HeadSHA):
		return fmt.Errorf("field head_sha: expected 40 hexadecimal digits, got %q", c.HeadSHA)
	case !markerPattern.MatchString(c.Marker) || strings.Contains(strings.TrimSuffix(strings.TrimPrefix(c.Marker, markerPrefix), " -->"), "--"):
		return fmt.Errorf("field marker: expected a benchgate comment marker, got %q", c.Marker)
	case !strings.HasPrefix(c.Body, c.Marker+"\n"):
		return fmt.Errorf("field body: expected to start with its marker line")
	case len(c.Body) > MaxBody:
		return fmt.Errorf("field body: %d bytes, more than GitHub's %d", len(c.Body), MaxBody)
	}
	return nil
}

// NewClient is a go-github client for api (GITHUB_API_URL; "" is
// github.com) with token.
func NewClient(api, token string) (*github.Client, error) {
	gh := github.NewClient(&http.Client{Timeout: time.Minute}).WithAuthToken(token)
	if api != "" {
		u, err := url.Parse(strings.TrimRight(api, "/") + "/")
		if err != nil {
			return nil, fmt.Errorf("GITHUB_API_URL %q: %v", api, err)
		}
		gh.BaseURL = u
	}
	return gh, nil
}

// Result is what Upsert did.
type Result struct {
	URL     string
	ID      int64
	Created bool
	// Updated is false when the comment already said the same, and when
	// there was none to update (Options.NoCreate).
	Updated bool
	// Author is the login the sticky comment was looked for under.
	Author string
	// Ignored are comments that carry the marker but were written by
	// someone else ("<url> by <login>"): never edited, for the log.
	Ignored []string
	// File is the comment file posted (mode pr-comment), so that the
	// step's own views say what it posted, for which head; nil for a
	// comment a run posts of itself.
	File *File `json:"-"`
}

// Action says what was done, in a word: created, updated, unchanged or
// not posted.
func (r Result) Action() string {
	switch {
	case r.Created:
		return "created"
	case r.Updated:
		return "updated"
	case r.ID != 0:
		return "unchanged"
	}
	return "not posted"
}

// Options change what Upsert does.
type Options struct {
	// CheckHead: the pull request's head must still be the comment's
	// HeadSHA.
	CheckHead bool
	// NoCreate only updates a comment that exists (pr-comment:
	// on-failure, once the failure is fixed).
	NoCreate bool
	// Author is the login of the comments the token writes; "" asks
	// Identity.
	Author string
}

// ActionsBot is the author of comments a workflow's GITHUB_TOKEN writes.
const ActionsBot = "github-actions[bot]"

// Identity is the login that comments made with gh's token carry: the
// token's user (GET /user). An installation token (a workflow's
// GITHUB_TOKEN) may not read /user and is answered 403; its comments are
// ActionsBot's. (A GitHub App's own installation token writes as
// "<app-slug>[bot]": name it with Options.Author.)
func Identity(ctx context.Context, gh *github.Client) (string, error) {
	u, _, err := gh.Users.Get(ctx, "")
	if Forbidden(err) {
		return ActionsBot, nil
	}
	if err != nil {
		return "", fmt.Errorf("who the token is (GET /user): %w", err)
	}
	if u.GetLogin() == "" {
		return "", errors.New("who the token is (GET /user): no login in the answer")
	}
	return u.GetLogin(), nil
}

// maxPages bounds the comments looked through (100 a page);
// maxIgnored the foreign comments with the marker that are reported.
const (
	maxPages   = 50
	maxIgnored = 10
)

// Upsert edits the pull request's comment carrying c.Marker that the
// token's own identity wrote, or creates it when there is none; of
// several (a race between two runs), the oldest is kept current. A
// comment carrying the marker that someone else wrote is never edited
// (its author could edit the verdict back): it is listed in
// Result.Ignored.
func Upsert(ctx context.Context, gh *github.Client, c *Comment, o Options) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	author := o.Author
	if author == "" {
		var err error
		if author, err = Identity(ctx, gh); err != nil {
			return Result{}, err
		}
	}
	res := Result{Author: author}
	owner, repo, _ := strings.Cut(c.Repository, "/")
	if o.CheckHead {
		pr, _, err := gh.PullRequests.Get(ctx, owner, repo, c.PullRequest)
		if err != nil {
			return Result{}, fmt.Errorf("read pull request #%d: %w", c.PullRequest, err)
		}
		if got := pr.GetHead().GetSHA(); got != c.HeadSHA {
			return Result{}, fmt.Errorf("pull request #%d's head is %s, the comment is about %s: not posted", c.PullRequest, short(got), short(c.HeadSHA))
		}
	}
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for page := 0; page < maxPages; page++ {
		list, resp, err := gh.Issues.ListComments(ctx, owner, repo, c.PullRequest, opts)
		if err != nil {
			return Result{}, fmt.Errorf("list the comments of #%d: %w", c.PullRequest, err)
		}
		for _, old := range list {
			if firstLine(old.GetBody()) != c.Marker {
				continue
			}
			if login := old.GetUser().GetLogin(); !strings.EqualFold(login, author) {
				if len(res.Ignored) < maxIgnored {
					res.Ignored = append(res.Ignored, old.GetHTMLURL()+" by "+login)
				}
				continue
			}
			res.URL, res.ID = old.GetHTMLURL(), old.GetID()
			if old.GetBody() == c.Body {
				return res, nil
			}
			got, _, err := gh.Issues.EditComment(ctx, owner, repo, old.GetID(), &github.IssueComment{Body: github.String(c.Body)})
			if err != nil {
				return res, fmt.Errorf("edit comment %d of #%d: %w", old.GetID(), c.PullRequest, err)
			}
			res.URL, res.ID, res.Updated = got.GetHTMLURL(), got.GetID(), true
			return res, nil
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if o.NoCreate {
		return res, nil
	}
	got, _, err := gh.Issues.CreateComment(ctx, owner, repo, c.PullRequest, &github.IssueComment{Body: github.String(c.Body)})
	if err != nil {
		return res, fmt.Errorf("comment on #%d: %w", c.PullRequest, err)
	}
	res.URL, res.ID, res.Created = got.GetHTMLURL(), got.GetID(), true
	return res, nil
}

// Forbidden reports whether err is GitHub refusing a token that may not
// write (403), as the token of a pull request from a fork is.
func Forbidden(err error) bool {
	var e *github.ErrorResponse
	return errors.As(err, &e) && e.Response != nil && e.Response.StatusCode == http.StatusForbidden
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimRight(l, "\r")
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

package prcomment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/verdict"
)

// FileSchema names the form of pr-comment.json: data (the run's
// verdict), never Markdown. The stage that posts it renders the comment
// itself.
const FileSchema = "benchgate.pr-comment/v2"

// Limits of a comment file, which a pull request's own run (someone
// else's code, for a fork) wrote: a file, list or text beyond them is
// refused, not cut.
const (
	maxFileBytes = 1 << 20
	maxChecks    = 200
	maxScenarios = 5000
	maxListItems = 200
	maxText      = 2000
)

// File is a pull-request comment kept as data: where it goes and the
// verdict it reports.
type File struct {
	Schema string `json:"schema"`
	// Repository is owner/name.
	Repository  string `json:"repository"`
	PullRequest int    `json:"pull_request"`
	// HeadSHA is the pull request's head commit the run judged.
	HeadSHA string `json:"head_sha"`
	// Job and Mode name the marker's job and mode (mode "set/<set>"
	// for one set); the workflow comes from the event of the stage
	// that posts it.
	Job  string `json:"job"`
	Mode string `json:"mode"`
	// Leg is the matrix leg (MatrixLeg) of a job in a matrix, so that
	// each leg's kept comment is posted to its own; "" outside a matrix.
	Leg     string           `json:"leg,omitempty"`
	Verdict *verdict.Verdict `json:"verdict"`
}

var (
	markerNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$`)
	fullSHAPattern    = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// Validate says what is wrong with a file, naming the field; it holds
// the verdict to the limits above and to what benchgate itself writes.
func (f *File) Validate() error {
	switch {
	case f.Schema != FileSchema:
		return fmt.Errorf("field schema: expected %q, got %q", FileSchema, f.Schema)
	case !repoPattern.MatchString(f.Repository):
		return fmt.Errorf("field repository: expected owner/name, got %q", f.Repository)
	case f.PullRequest < 1:
		return fmt.Errorf("field pull_request: expected a pull request number >= 1, got %d", f.PullRequest)
	case !fullSHAPattern.MatchString(f.HeadSHA):
		return fmt.Errorf("field head_sha: expected the 40 hexadecimal digits of the judged commit, got %q", f.HeadSHA)
	case !markerNamePattern.MatchString(f.Job):
		return fmt.Errorf("field job: expected a job ID (letters, digits, . _ / -), got %q", f.Job)
	case !markerNamePattern.MatchString(f.Mode):
		return fmt.Errorf("field mode: expected a mode (letters, digits, . _ / -), got %q", f.Mode)
	case len(f.Leg) > MaxLeg || !utf8.ValidString(f.Leg) || strings.ContainsFunc(f.Leg, unicode.IsControl):
		return fmt.Errorf("field leg: expected a matrix leg (at most %d bytes of text), got %.80q", MaxLeg, f.Leg)
	case f.Verdict == nil:
		return errors.New("field verdict: expected the run's verdict, got none")
	}
	v := f.Verdict
	if err := v.Validate(); err != nil {
		return fmt.Errorf("field verdict: %v", err)
	}
	switch {
	case len(v.Checks) > maxChecks:
		return fmt.Errorf("field verdict.checks: %d, more than %d", len(v.Checks), maxChecks)
	case len(v.Failing) > maxScenarios || len(v.Flaky) > maxScenarios || len(v.Sets) > maxListItems:
		return fmt.Errorf("field verdict: more than %d failing or flaky scenarios, or %d sets", maxScenarios, maxListItems)
	case len(v.Next) > maxListItems || len(v.Links) > maxListItems:
		return fmt.Errorf("field verdict: more than %d next steps or links", maxListItems)
	}
	for _, t := range verdictTexts(v) {
		if len(*t) > maxText {
			return fmt.Errorf("field verdict: a text of %d bytes, more than %d: %q", len(*t), maxText, (*t)[:80])
		}
	}
	return nil
}

// Write keeps the file in path, atomically.
func (f *File) Write(path string) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, append(b, '\n'), 0o644)
}

// ReadFile reads and checks a comment file: at most 1 MiB, strict JSON
// (no unknown field, nothing after the object), Validate.
func ReadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(b) > maxFileBytes {
		return nil, fmt.Errorf("%s: more than %d bytes; not a comment file", path, maxFileBytes)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: not a comment file: %v", path, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: not a comment file: data after the JSON object", path)
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &f, nil
}

// Binding is what the posting stage knows from its own event (a
// workflow_run of the first run), never from the file.
type Binding struct {
	// Workflow is the name of the workflow whose run left the file
	// (workflow_run.name): the marker's workflow.
	Workflow string
	// HeadSHA is the head commit of that run (workflow_run.head_sha).
	HeadSHA string
	// LinkPrefix is what a link of the comment must start with:
	// "<server>/<repository>/" ("https://github.com/octo/bench/").
	LinkPrefix string
}

// Comment renders the file into the comment to post: the marker made of
// the binding's workflow and the file's job and mode, and the verdict
// rendered here, with its text made inert (RenderUntrusted). The file
// must be about the binding's head commit.
func (f *File) Comment(b Binding) (*Comment, error) {
	if b.Workflow == "" || !fullSHAPattern.MatchString(b.HeadSHA) {
		return nil, errors.New("no event binding (the workflow_run's workflow name and head commit): a comment file is posted only for the run that left it")
	}
	if f.HeadSHA != b.HeadSHA {
		return nil, fmt.Errorf("field head_sha: expected %s (the run that left the file), got %s", b.HeadSHA, f.HeadSHA)
	}
	marker := LegMarker(b.Workflow, f.Job, f.Mode, f.Leg)
	c := &Comment{Repository: f.Repository, PullRequest: f.PullRequest, HeadSHA: f.HeadSHA, Marker: marker,
		Body: marker + "\n" + RenderUntrusted(f.Verdict, b.LinkPrefix, MaxBody-len(marker)-1)}
	return c, c.Validate()
}

// RenderUntrusted renders a verdict another process wrote as the
// comment's Markdown. The renderer makes every text in it inert (no
// link, image, mention, autolink or HTML), says the next steps in
// benchgate's own sentences and builds the rerun command from checked
// parts (verdict.RerunCommand); here a link that does not lead into the
// repository (linkPrefix) is dropped, so that the comment can say only
// what a verdict says, in benchgate's words.
func RenderUntrusted(v *verdict.Verdict, linkPrefix string, limit int) string {
	c := *v
	c.Failing = append([]verdict.Scenario(nil), v.Failing...)
	var links []verdict.Link
	for _, l := range v.Links {
		if inRepo(l.URL, linkPrefix) {
			links = append(links, l)
		}
	}
	c.Links = links
	for i := range c.Failing {
		if !inRepo(c.Failing[i].URL, linkPrefix) {
			c.Failing[i].URL = ""
		}
	}
	for _, u := range []*string{&c.Compared.HeadURL, &c.Compared.BaseURL, &c.Compared.BaselineURL} {
		if !inRepo(*u, linkPrefix) {
			*u = ""
		}
	}
	return c.Comment(limit)
}

// inRepo reports whether u is a link into the repository: it starts
// with prefix, holds no character that could end a Markdown link, and no
// "." or ".." step (or an encoded one) that a browser would resolve to
// a page outside the repository.
func inRepo(u, prefix string) bool {
	if prefix == "" || !strings.HasPrefix(u, prefix) || strings.ContainsAny(u, " \t\n\r<>()[]\"'`\\") || strings.Contains(strings.ToLower(u), "%2e") {
		return false
	}
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	return path.Clean(p.Path) == strings.TrimSuffix(p.Path, "/") || path.Clean(p.Path)+"/" == p.Path
}

// verdictTexts are the texts of a verdict whose length is limited: its
// free texts and the rerun's set and branch.
func verdictTexts(v *verdict.Verdict) []*string {
	out := v.Texts()
	if v.Rerun != nil {
		out = append(out, &v.Rerun.Set, &v.Rerun.Ref)
	}
	return out
}

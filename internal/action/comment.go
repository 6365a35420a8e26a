package action

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/prcomment"
	"github.com/benchgate/benchgate/internal/proc"
	"github.com/benchgate/benchgate/internal/textfmt"
	"github.com/benchgate/benchgate/internal/verdict"
)

// commentInputs are the inputs of the pull-request comment.
var commentInputs = []Input{
	{Name: "pr-comment", Kind: Adapter, Default: "off", Description: "On a pull request, keep one comment with the verdict up to date (one per workflow, job, mode and matrix leg, edited in place): always, on-failure (created when the step fails, then kept up to date) or off. Needs pull-requests: write; a read-only token (a pull request from a fork) is a notice, and the comment is kept in the artifact <artifact-prefix>-<job>-pr-comment for a workflow_run workflow to post (mode pr-comment)."},
	{Name: "pr-comment-author", Kind: Adapter, Description: "The login the token's comments carry, when it cannot be asked (GET /user): for a GitHub App's installation token, <app-slug>[bot]. Default: the token's user, or github-actions[bot] for the workflow's GITHUB_TOKEN. Only a comment with the marker that this login wrote is edited; one someone else wrote is left alone and named in a warning."},
	{Name: "comment-file", Kind: Text, Flag: "--file", Modes: []string{"pr-comment"}, Required: true, Description: "pr-comment: the pr-comment.json to post, from the artifact a pull request's run kept (the second stage for pull requests from forks)."},
}

// commentOutputs are the outputs of the pull-request comment.
var commentOutputs = []Output{
	{"pr-comment-url", "URL of the pull-request comment created or updated; empty when none was posted."},
	{"posted-status", "pr-comment: the status of the verdict posted (pass, fail, incomplete or error), that is of the run that kept the comment file; empty when nothing was posted."},
	{"posted-head-sha", "pr-comment: the head commit the posted verdict judged; empty when nothing was posted."},
}

// prCommentModes are the values of the pr-comment input.
var prCommentModes = []string{"always", "on-failure", "off"}

// stepResult is what the renderers read: the plan, what the mode
// returned, how the step judged it and what it uploaded. Each renderer
// reads only this, never another renderer's output.
type stepResult struct {
	Plan      *Plan
	Res       *results
	Code      int
	Verdict   *verdict.Verdict
	Stats     []statsEntry
	Lookback  *Lookback
	Artifacts []artifact
	// RunURL is the run's page, where the job summary is.
	RunURL string
	// ArtifactURL links an uploaded artifact by its ID.
	ArtifactURL func(id int64) string
	// Comment is what mode pr-comment posted.
	Comment *prcomment.Result
}

// commentBody renders the pull-request comment from the verdict alone:
// the headline, the table of every check, the failing scenarios, the
// next step and the links. It fits GitHub's 65,536 characters with the
// marker line.
func commentBody(marker string, s *stepResult) string {
	return marker + "\n" + s.Verdict.Comment(prcomment.MaxBody-len(marker)-1)
}

// prComment keeps the pull request's comment up to date, as the
// pr-comment input asks. Nothing here fails the step: a token that
// cannot write (a pull request from a fork) is a notice, and the comment
// is uploaded for a second workflow to post.
func (r *reporter) prComment(ctx context.Context, s *stepResult) {
	if s.Plan.Mode == "pr-comment" {
		if s.Comment != nil {
			r.output("pr-comment-url", s.Comment.URL)
		}
		if p := s.Verdict.Posted; p != nil {
			r.output("posted-status", p.Status)
			r.output("posted-head-sha", p.Compared.Head)
		}
		return
	}
	want := orDefault(r.a.GetInput("pr-comment"), "off")
	if want == "off" || !slices.Contains(prCommentModes, want) {
		return
	}
	if s.Plan.Mode == "" {
		r.a.Noticef("pr-comment: the mode is not one benchgate knows, so the comment to update is not known; no comment")
		return
	}
	gctx, err := r.a.Context()
	if err != nil || gctx == nil {
		r.a.Warningf("pr-comment: the workflow's context cannot be read (%v); no comment", err)
		return
	}
	pr, _ := gctx.Event["pull_request"].(map[string]any)
	num, _ := pr["number"].(float64)
	if pr == nil || num < 1 {
		r.a.Infof("pr-comment: the event %s is not a pull request; no comment", textfmt.LogLine(orDefault(gctx.EventName, "(none)")))
		return
	}
	head, _ := pr["head"].(map[string]any)
	sha, _ := head["sha"].(string)
	modeKey := commentModeKey(s, r.a.GetInput("set"))
	// The legs of a matrix share the job's ID: each keeps its own comment.
	leg, err := prcomment.MatrixLeg(r.cfg.Getenv("BENCHGATE_MATRIX"))
	if err != nil {
		r.a.Warningf("pr-comment: %v; no comment", err)
		return
	}
	marker := prcomment.LegMarker(gctx.Workflow, gctx.Job, modeKey, leg)
	c := &prcomment.Comment{Repository: gctx.Repository, PullRequest: int(num), HeadSHA: sha, Marker: marker, Body: commentBody(marker, s)}
	if err := c.Validate(); err != nil {
		r.a.Warningf("pr-comment: %v; no comment", err)
		return
	}
	// A run stopped by SIGTERM still tells the pull request how it ended,
	// within the stop budget: the comment of an earlier pass for this
	// head must not stand beside a step that failed.
	ctx, cancel := proc.AfterStop(ctx)
	defer cancel()
	kept := r.keepComment(ctx, s.Plan, &prcomment.File{Schema: prcomment.FileSchema, Repository: c.Repository, PullRequest: c.PullRequest,
		HeadSHA: sha, Job: gctx.Job, Mode: modeKey, Leg: leg, Verdict: s.Verdict})
	token := s.Plan.Env["GITHUB_TOKEN"]
	if token == "" {
		r.a.Noticef("pr-comment: no github-token; the comment was not posted%s", kept)
		return
	}
	gh, err := prcomment.NewClient(r.cfg.Getenv("GITHUB_API_URL"), token)
	if err != nil {
		r.a.Warningf("pr-comment: %v", err)
		return
	}
	res, err := prcomment.Upsert(ctx, gh, c, prcomment.Options{NoCreate: want == "on-failure" && s.Code == exitOK, Author: r.a.GetInput("pr-comment-author")})
	r.warnIgnoredComments(res)
	switch {
	case prcomment.Forbidden(err):
		r.a.WithFieldsMap(map[string]string{"title": "benchgate pr-comment"}).Noticef("the comment on pull request #%d was not posted: the token may not write to it (a pull request from a fork gets a read-only token)%s", c.PullRequest, kept)
	case err != nil:
		r.a.WithFieldsMap(map[string]string{"title": "benchgate pr-comment"}).Warningf("the comment on pull request #%d was not posted: %v", c.PullRequest, err)
	default:
		r.a.Infof("pr-comment: %s %s", res.Action(), textfmt.LogLine(orDefault(res.URL, "(no comment yet; on-failure creates one when the step fails)")))
		r.output("pr-comment-url", res.URL)
	}
}

// commentModeKey is the mode part of the comment's marker: the mode, and
// for set the set's name (two set steps of one job keep two comments).
// The name is the set input's, so that a step that stopped before its
// set ran (bad input, a refused flag) updates the same comment as the
// runs of that set before it.
func commentModeKey(s *stepResult, setInput string) string {
	if s.Plan.Mode != "set" {
		return s.Plan.Mode
	}
	switch {
	case setInput != "":
		return "set/" + setInput
	case len(s.Res.Sets) == 1:
		return "set/" + s.Res.Sets[0].Tracking.Set
	}
	return "set"
}

// warnIgnoredComments names the comments that carry the step's marker
// but were written by someone else: the step never edits them, and a
// reader should know a verdict-looking comment there is not benchgate's.
func (r *reporter) warnIgnoredComments(res prcomment.Result) {
	if len(res.Ignored) == 0 {
		return
	}
	r.a.WithFieldsMap(map[string]string{"title": "benchgate pr-comment"}).Warningf("comments carrying this step's marker were written by someone else than %s and were left alone (not benchgate's verdict): %s",
		res.Author, strings.Join(res.Ignored, ", "))
}

// keepComment uploads the comment as its own small artifact, so that a
// workflow_run workflow can post it when this run's token cannot, and
// says where it is; "" when it was not kept.
func (r *reporter) keepComment(ctx context.Context, p *Plan, f *prcomment.File) string {
	if !p.Upload || r.cfg.Upload == nil {
		return ""
	}
	if err := f.Validate(); err != nil {
		r.a.Warningf("pr-comment: the comment was not kept: %v", err)
		return ""
	}
	dir, err := os.MkdirTemp(r.cfg.Getenv("RUNNER_TEMP"), "benchgate-comment-")
	if err != nil {
		r.a.Warningf("pr-comment: the comment was not kept: %v", err)
		return ""
	}
	defer os.RemoveAll(dir)
	if err := f.Write(filepath.Join(dir, prcomment.FileName)); err != nil {
		r.a.Warningf("pr-comment: the comment was not kept: %v", err)
		return ""
	}
	name := r.artifactName(p.ArtifactPrefix, "pr-comment")
	if _, _, err := r.cfg.Upload(ctx, name, dir, nil); err != nil {
		r.a.Warningf("pr-comment: upload of %s failed: %v", name, err)
		return ""
	}
	return fmt.Sprintf("; it is kept in artifact %s (%s) for a workflow_run workflow to post (docs/action.md)", name, prcomment.FileName)
}

// runURL is the run's page on GitHub, where its job summaries are.
func runURL(getenv func(string) string) (run string, artifactURL func(int64) string) {
	server, repo, id := orDefault(getenv("GITHUB_SERVER_URL"), "https://github.com"), getenv("GITHUB_REPOSITORY"), getenv("GITHUB_RUN_ID")
	if repo == "" || id == "" {
		return "", nil
	}
	base := strings.TrimRight(server, "/") + "/" + repo + "/actions/runs/" + id
	run = base
	if at := getenv("GITHUB_RUN_ATTEMPT"); at != "" && at != "1" {
		run += "/attempts/" + at
	}
	return run, func(aid int64) string { return base + "/artifacts/" + strconv.FormatInt(aid, 10) }
}

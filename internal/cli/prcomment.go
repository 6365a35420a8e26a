package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/prcomment"
)

// runPRComment posts the comment a pull request's run kept as data
// (pr-comment.json, in its artifact) to that pull request, editing the
// one with the same marker. It is the second stage for pull requests from
// forks, whose own run has a read-only token: a workflow_run workflow,
// with a token that can write, downloads the file and runs this. The
// file comes from a run of someone else's code, so it is only data: it is
// checked strictly, must name this repository and the head commit of the
// run that left it (--head-sha, from the workflow_run event), and the
// comment is rendered here from its verdict, with the marker of the
// workflow that ran (--workflow), and posted only while the pull
// request's head is that commit. Without that binding nothing is posted.
func runPRComment(ctx context.Context, env *Env, args []string) int {
	return exit(env, "pr-comment", prCommentCommand(ctx, env, args))
}

// prCommentFlags is pr-comment's command line as parsed.
type prCommentFlags struct {
	file, repo, head, workflow, author string
}

// prCommentCommand parses pr-comment's flags, renders the comment from
// the file bound to the run that left it, posts it and returns what ends
// it: a refused file or setup exits 2, a failed post 1.
func prCommentCommand(ctx context.Context, env *Env, args []string) error {
	f, run, err := parsePRCommentFlags(env, args)
	if !run {
		return err
	}
	file, c, err := f.boundComment(env)
	if err != nil {
		return usageError(err)
	}
	token := env.Getenv("GITHUB_TOKEN")
	if token == "" {
		return usagef("GITHUB_TOKEN is not set (a token with pull-requests: write)")
	}
	gh, err := prcomment.NewClient(env.Getenv("GITHUB_API_URL"), token)
	if err != nil {
		return usageError(err)
	}
	res, err := prcomment.Upsert(ctx, gh, c, prcomment.Options{CheckHead: true, Author: f.author})
	for _, ig := range res.Ignored {
		fmt.Fprintf(env.Stderr, "benchgate pr-comment: left alone: %s carries the marker but is not %s's\n", ig, res.Author)
	}
	if err != nil {
		return exitcode.WithCode(ExitFailed, err)
	}
	if env.Result != nil {
		res.File = file
		env.Result.Comment = &res
	}
	fmt.Fprintf(env.Stdout, "%s pull request #%d's comment: %s\n", res.Action(), c.PullRequest, res.URL)
	return nil
}

// parsePRCommentFlags parses and checks pr-comment's flags; run is false
// when pr-comment stops there (see parseCommandLine).
func parsePRCommentFlags(env *Env, args []string) (f *prCommentFlags, run bool, err error) {
	f = &prCommentFlags{}
	fs := pflag.NewFlagSet("pr-comment", pflag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.StringVar(&f.file, "file", "", "comment file to post (pr-comment.json; required)")
	fs.StringVar(&f.repo, "repo", "", "owner/name the comment must be for (default: $GITHUB_REPOSITORY)")
	fs.StringVar(&f.head, "head-sha", "", "the head commit of the run that left the file (the workflow_run's head_sha; required): the file must be about it, and the pull request's head must still be it")
	fs.StringVar(&f.workflow, "workflow", "", "name of the workflow whose run left the file (the workflow_run's name; required): the comment's marker")
	fs.StringVar(&f.author, "author", "", "login the token's comments carry (default: GET /user, or github-actions[bot] for a workflow's token); only its comment with the marker is edited")
	if run, err := parseCommandLine(env, fs, args); !run {
		return f, false, err
	}
	switch {
	case fs.NArg() > 0:
		return f, false, usagef("unexpected arguments %q", fs.Args())
	case f.file == "":
		return f, false, usagef("--file is required (the pr-comment.json of the run's artifact)")
	case f.head == "" || f.workflow == "":
		return f, false, usagef("--head-sha and --workflow are required: the workflow_run event's head_sha and workflow name bind the file to the run that left it (in the Action, mode pr-comment in a workflow_run workflow passes them); nothing is posted without them")
	}
	return f, true, nil
}

// boundComment reads the comment file, checks that it is about this
// repository, and renders the comment bound to the workflow and head
// commit given.
func (f *prCommentFlags) boundComment(env *Env) (*prcomment.File, *prcomment.Comment, error) {
	path := f.file
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	file, err := prcomment.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	want := f.repo
	if want == "" {
		want = env.Getenv("GITHUB_REPOSITORY")
	}
	if want == "" || !strings.EqualFold(file.Repository, want) {
		return nil, nil, fmt.Errorf("%s: field repository: expected %s (--repo or GITHUB_REPOSITORY), got %s", f.file, orText(want, "this repository"), file.Repository)
	}
	server := strings.TrimRight(env.Getenv("GITHUB_SERVER_URL"), "/")
	if server == "" {
		server = "https://github.com"
	}
	c, err := file.Comment(prcomment.Binding{Workflow: f.workflow, HeadSHA: f.head, LinkPrefix: server + "/" + file.Repository + "/"})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", f.file, err)
	}
	return file, c, nil
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

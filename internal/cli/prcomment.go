package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

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
	fs := pflag.NewFlagSet("pr-comment", pflag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	file := fs.String("file", "", "comment file to post (pr-comment.json; required)")
	repo := fs.String("repo", "", "owner/name the comment must be for (default: $GITHUB_REPOSITORY)")
	head := fs.String("head-sha", "", "the head commit of the run that left the file (the workflow_run's head_sha; required): the file must be about it, and the pull request's head must still be it")
	workflow := fs.String("workflow", "", "name of the workflow whose run left the file (the workflow_run's name; required): the comment's marker")
	author := fs.String("author", "", "login the token's comments carry (default: GET /user, or github-actions[bot] for a workflow's token); only its comment with the marker is edited")
	if code, ok := parseFlags(env, fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "benchgate pr-comment: unexpected arguments %q\n", fs.Args())
		return ExitUsage
	}
	if *file == "" {
		fmt.Fprintln(env.Stderr, "benchgate pr-comment: --file is required (the pr-comment.json of the run's artifact)")
		return ExitUsage
	}
	if *head == "" || *workflow == "" {
		fmt.Fprintln(env.Stderr, "benchgate pr-comment: --head-sha and --workflow are required: the workflow_run event's head_sha and workflow name bind the file to the run that left it (in the Action, mode pr-comment in a workflow_run workflow passes them); nothing is posted without them")
		return ExitUsage
	}
	path := *file
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	f, err := prcomment.ReadFile(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "benchgate pr-comment: %v\n", err)
		return ExitUsage
	}
	want := *repo
	if want == "" {
		want = env.Getenv("GITHUB_REPOSITORY")
	}
	if want == "" || !strings.EqualFold(f.Repository, want) {
		fmt.Fprintf(env.Stderr, "benchgate pr-comment: %s: field repository: expected %s (--repo or GITHUB_REPOSITORY), got %s\n", *file, orText(want, "this repository"), f.Repository)
		return ExitUsage
	}
	server := strings.TrimRight(env.Getenv("GITHUB_SERVER_URL"), "/")
	if server == "" {
		server = "https://github.com"
	}
	c, err := f.Comment(prcomment.Binding{Workflow: *workflow, HeadSHA: *head, LinkPrefix: server + "/" + f.Repository + "/"})
	if err != nil {
		fmt.Fprintf(env.Stderr, "benchgate pr-comment: %s: %v\n", *file, err)
		return ExitUsage
	}
	token := env.Getenv("GITHUB_TOKEN")
	if token == "" {
		fmt.Fprintln(env.Stderr, "benchgate pr-comment: GITHUB_TOKEN is not set (a token with pull-requests: write)")
		return ExitUsage
	}
	gh, err := prcomment.NewClient(env.Getenv("GITHUB_API_URL"), token)
	if err != nil {
		fmt.Fprintf(env.Stderr, "benchgate pr-comment: %v\n", err)
		return ExitUsage
	}
	res, err := prcomment.Upsert(ctx, gh, c, prcomment.Options{CheckHead: true, Author: *author})
	for _, ig := range res.Ignored {
		fmt.Fprintf(env.Stderr, "benchgate pr-comment: left alone: %s carries the marker but is not %s's\n", ig, res.Author)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "benchgate pr-comment: %v\n", err)
		return ExitFailed
	}
	if env.Result != nil {
		res.File = f
		env.Result.Comment = &res
	}
	fmt.Fprintf(env.Stdout, "%s pull request #%d's comment: %s\n", res.Action(), c.PullRequest, res.URL)
	return ExitOK
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/benchgate/benchgate/internal/prcomment"
)

// runPRComment posts a comment kept in a file (pr-comment.json, which the
// Action leaves in an artifact) to its pull request, editing the one
// with the same marker. It is the second stage for pull requests from
// forks, whose own run has a read-only token: a workflow_run workflow,
// with a token that can write, downloads the file and runs this. The
// file comes from a run of someone else's code, so it is checked
// strictly, must name this repository, and, with --head-sha, is posted
// only while the pull request's head is the commit that run judged.
func runPRComment(ctx context.Context, env *Env, args []string) int {
	fs := pflag.NewFlagSet("pr-comment", pflag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	file := fs.String("file", "", "comment file to post (pr-comment.json; required)")
	repo := fs.String("repo", "", "owner/name the comment must be for (default: $GITHUB_REPOSITORY)")
	head := fs.String("head-sha", "", "post only when the comment and the pull request's head are this commit (the workflow_run's head_sha)")
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
	path := *file
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	c, err := prcomment.Read(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "benchgate pr-comment: %v\n", err)
		return ExitUsage
	}
	want := *repo
	if want == "" {
		want = env.Getenv("GITHUB_REPOSITORY")
	}
	if want != "" && c.Repository != want {
		fmt.Fprintf(env.Stderr, "benchgate pr-comment: %s: field repository: expected %s, got %s\n", *file, want, c.Repository)
		return ExitUsage
	}
	if *head != "" && c.HeadSHA != *head {
		fmt.Fprintf(env.Stderr, "benchgate pr-comment: %s: field head_sha: expected %s (the run that left the file), got %q\n", *file, *head, c.HeadSHA)
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
	res, err := prcomment.Upsert(ctx, gh, c, prcomment.Options{CheckHead: *head != "", Author: *author})
	for _, ig := range res.Ignored {
		fmt.Fprintf(env.Stderr, "benchgate pr-comment: left alone: %s carries the marker but is not %s's\n", ig, res.Author)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "benchgate pr-comment: %v\n", err)
		return ExitFailed
	}
	if env.Result != nil {
		env.Result.Comment = &res
	}
	fmt.Fprintf(env.Stdout, "%s pull request #%d's comment: %s\n", res.Action(), c.PullRequest, res.URL)
	return ExitOK
}

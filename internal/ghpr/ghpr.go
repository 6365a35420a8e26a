// Package ghpr publishes fixed benchmark files as pull requests through the
// GitHub REST API (go-github v62). It creates or reuses a head branch, commits
// all changed files of one group in a single commit, and opens a pull request
// or updates the open one for that branch, so a weekly run does not pile up
// duplicates. It never writes to the repository's default branch or to the
// base branch: that is refused in code before any request that changes state.
package ghpr

import (
	"context"
	"errors"
	"fmt"
	"github.com/benchgate/benchgate/internal/textfmt"
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/benchgate/benchgate/internal/ident"
)

// Grouping says how changed files are split into pull requests.
type Grouping string

const (
	// PerFile opens one branch and one pull request per changed file.
	PerFile Grouping = "file"
	// PerRun puts every changed file of the run on one branch and one pull request.
	PerRun Grouping = "run"
)

// ParseGrouping accepts "file" or "run".
func ParseGrouping(s string) (Grouping, error) {
	switch Grouping(s) {
	case PerFile, PerRun:
		return Grouping(s), nil
	}
	return "", fmt.Errorf("pull request grouping %q: want %q or %q", s, PerFile, PerRun)
}

// ErrProtectedBranch is returned when a head branch would be the default or base branch.
var ErrProtectedBranch = errors.New("refusing to push to the default or base branch")

// CaseChange describes one remediated case for the pull request body.
type CaseChange struct {
	CaseID string
	// Before and After are the verdicts of the original and the fixed case.
	Before, After string
	// Proof is Markdown showing the evidence (per-option outcomes, test files).
	Proof string
}

// Change is one file to write, with the cases it fixes.
type Change struct {
	Path    string // repository-relative, forward slashes
	Content []byte
	Cases   []CaseChange
}

// Config says where and how to publish.
type Config struct {
	Owner, Repo string
	// Base is the branch pull requests target; empty means the repository's default branch.
	Base string
	// BranchPrefix starts every head branch name; default "benchgate/qa-audit".
	BranchPrefix string
	// RunID names the branch in PerRun grouping; default "fixes".
	RunID    string
	Grouping Grouping
	Labels   []string
	// AuthorName and AuthorEmail are set on commits when both are non-empty.
	AuthorName, AuthorEmail string
}

// Result is one published pull request.
type Result struct {
	Branch  string
	Number  int
	URL     string
	Created bool // false when an open pull request was updated
	Commit  string
	Files   []string
}

// group is the set of changes going to one branch.
type group struct {
	branch  string
	changes []Change
}

// BranchFor returns the head branch a file (PerFile) or a run (PerRun) uses.
// Names are stable so a later run finds and updates the same pull request.
func BranchFor(cfg Config, path string) string {
	prefix := cfg.BranchPrefix
	if prefix == "" {
		prefix = "benchgate/qa-audit"
	}
	if cfg.Grouping == PerRun {
		id := cfg.RunID
		if id == "" {
			id = "fixes"
		}
		return prefix + "/" + strings.Trim(ident.Sanitize(id, "-"), "-.")
	}
	p := strings.TrimSuffix(strings.TrimSuffix(path, ".yaml"), ".yml")
	return prefix + "/" + strings.Trim(ident.Sanitize(p, "-"), "-.")
}

func groups(cfg Config, changes []Change) []group {
	byBranch := map[string]*group{}
	var order []string
	for _, c := range changes {
		b := BranchFor(cfg, c.Path)
		g, ok := byBranch[b]
		if !ok {
			g = &group{branch: b}
			byBranch[b] = g
			order = append(order, b)
		}
		g.changes = append(g.changes, c)
	}
	out := make([]group, 0, len(order))
	for _, b := range order {
		out = append(out, *byBranch[b])
	}
	return out
}

// Publish commits the changes and opens or updates one pull request per group.
// It stops at the first group that fails and returns the results so far.
func Publish(ctx context.Context, gh *github.Client, cfg Config, changes []Change) ([]Result, error) {
	if cfg.Owner == "" || cfg.Repo == "" {
		return nil, errors.New("publishing pull requests needs a repository as owner/name")
	}
	if len(changes) == 0 {
		return nil, nil
	}
	if cfg.Grouping == "" {
		cfg.Grouping = PerFile
	}
	repo, _, err := gh.Repositories.Get(ctx, cfg.Owner, cfg.Repo)
	if err != nil {
		return nil, fmt.Errorf("reading repository %s/%s: %w", cfg.Owner, cfg.Repo, err)
	}
	def := repo.GetDefaultBranch()
	base := cfg.Base
	if base == "" {
		base = def
	}
	var results []Result
	for _, g := range groups(cfg, changes) {
		if g.branch == def || g.branch == base {
			return results, fmt.Errorf("head branch %q: %w (default %q, base %q)", g.branch, ErrProtectedBranch, def, base)
		}
		r, err := publishGroup(ctx, gh, cfg, base, g)
		if err != nil {
			return results, fmt.Errorf("pull request for branch %s: %w", g.branch, err)
		}
		results = append(results, r)
	}
	return results, nil
}

func isNotFound(resp *github.Response, err error) bool {
	return err != nil && resp != nil && resp.StatusCode == http.StatusNotFound
}

func publishGroup(ctx context.Context, gh *github.Client, cfg Config, base string, g group) (Result, error) {
	res := Result{Branch: g.branch}
	owner, repo := cfg.Owner, cfg.Repo
	baseRef, _, err := gh.Git.GetRef(ctx, owner, repo, "refs/heads/"+base)
	if err != nil {
		return res, fmt.Errorf("reading base branch %s: %w", base, err)
	}
	headRef, resp, err := gh.Git.GetRef(ctx, owner, repo, "refs/heads/"+g.branch)
	switch {
	case isNotFound(resp, err):
		headRef, _, err = gh.Git.CreateRef(ctx, owner, repo, &github.Reference{
			Ref:    github.String("refs/heads/" + g.branch),
			Object: &github.GitObject{SHA: baseRef.Object.SHA},
		})
		if err != nil {
			return res, fmt.Errorf("creating branch: %w", err)
		}
	case err != nil:
		return res, fmt.Errorf("reading branch: %w", err)
	}
	parentSHA := headRef.GetObject().GetSHA()
	parent, _, err := gh.Git.GetCommit(ctx, owner, repo, parentSHA)
	if err != nil {
		return res, fmt.Errorf("reading commit %s: %w", parentSHA, err)
	}
	entries := make([]*github.TreeEntry, 0, len(g.changes))
	for _, c := range g.changes {
		entries = append(entries, &github.TreeEntry{
			Path: github.String(c.Path), Mode: github.String("100644"),
			Type: github.String("blob"), Content: github.String(string(c.Content)),
		})
		res.Files = append(res.Files, c.Path)
	}
	tree, _, err := gh.Git.CreateTree(ctx, owner, repo, parent.GetTree().GetSHA(), entries)
	if err != nil {
		return res, fmt.Errorf("creating tree: %w", err)
	}
	res.Commit = parentSHA
	if tree.GetSHA() != parent.GetTree().GetSHA() {
		commit := &github.Commit{
			Message: github.String(commitMessage(g)),
			Tree:    &github.Tree{SHA: tree.SHA},
			Parents: []*github.Commit{{SHA: github.String(parentSHA)}},
		}
		if cfg.AuthorName != "" && cfg.AuthorEmail != "" {
			commit.Author = &github.CommitAuthor{Name: github.String(cfg.AuthorName), Email: github.String(cfg.AuthorEmail)}
		}
		created, _, err := gh.Git.CreateCommit(ctx, owner, repo, commit, nil)
		if err != nil {
			return res, fmt.Errorf("creating commit: %w", err)
		}
		headRef.Object.SHA = created.SHA
		if _, _, err := gh.Git.UpdateRef(ctx, owner, repo, headRef, false); err != nil {
			return res, fmt.Errorf("moving branch to the new commit: %w", err)
		}
		res.Commit = created.GetSHA()
	}

	title := Title(g.changes)
	body := Body(g.changes)
	open, _, err := gh.PullRequests.List(ctx, owner, repo, &github.PullRequestListOptions{
		State: "open", Head: owner + ":" + g.branch, Base: base,
	})
	if err != nil {
		return res, fmt.Errorf("listing open pull requests: %w", err)
	}
	var pr *github.PullRequest
	if len(open) > 0 {
		pr, _, err = gh.PullRequests.Edit(ctx, owner, repo, open[0].GetNumber(), &github.PullRequest{
			Title: github.String(title), Body: github.String(body),
		})
		if err != nil {
			return res, fmt.Errorf("updating pull request #%d: %w", open[0].GetNumber(), err)
		}
	} else {
		pr, _, err = gh.PullRequests.Create(ctx, owner, repo, &github.NewPullRequest{
			Title: github.String(title), Head: github.String(g.branch),
			Base: github.String(base), Body: github.String(body),
		})
		if err != nil {
			return res, fmt.Errorf("creating pull request: %w", err)
		}
		res.Created = true
	}
	res.Number, res.URL = pr.GetNumber(), pr.GetHTMLURL()
	if len(cfg.Labels) > 0 {
		if _, _, err := gh.Issues.AddLabelsToIssue(ctx, owner, repo, pr.GetNumber(), cfg.Labels); err != nil {
			return res, fmt.Errorf("labelling pull request #%d: %w", pr.GetNumber(), err)
		}
	}
	return res, nil
}

func caseIDs(changes []Change) []string {
	var ids []string
	for _, c := range changes {
		for _, cc := range c.Cases {
			ids = append(ids, cc.CaseID)
		}
	}
	sort.Strings(ids)
	return ids
}

func commitMessage(g group) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Fix %d benchmark case(s) proven flawed by qa-audit\n\n", len(caseIDs(g.changes)))
	for _, id := range caseIDs(g.changes) {
		sb.WriteString("- " + id + "\n")
	}
	return sb.String()
}

// Title is the pull request title for a group of changes.
func Title(changes []Change) string {
	if len(changes) == 1 {
		return fmt.Sprintf("qa-audit: fix %d case(s) in %s", len(changes[0].Cases), changes[0].Path)
	}
	return fmt.Sprintf("qa-audit: fix %d case(s) in %d files", len(caseIDs(changes)), len(changes))
}

// maxBody keeps the body under GitHub's 65536-character limit.
const maxBody = 60000

// Body renders the pull request description: every changed case with its
// verdict before and after and the execution proof of the fix. Paths and
// case IDs are code spans, which GitHub shows as written and never as a
// link or mention; the proof makes its own texts inert (audit.Proof).
func Body(changes []Change) string {
	var sb strings.Builder
	sb.WriteString("Automated remediation by `benchgate qa-audit`. Every fixed case below was re-verified by executing one pytest file per option; the verdict was computed from the test outcomes, not by a model.\n\n")
	sb.WriteString("Please review each change before merging.\n")
	for _, c := range changes {
		fmt.Fprintf(&sb, "\n## %s\n", textfmt.Code(c.Path))
		for _, cc := range c.Cases {
			fmt.Fprintf(&sb, "\n### %s: %s → %s\n\n%s\n", textfmt.Code(cc.CaseID), textfmt.InertCell(cc.Before), textfmt.InertCell(cc.After), strings.TrimSpace(cc.Proof))
		}
	}
	out := sb.String()
	if len(out) > maxBody {
		// Cut at a line break before the limit, never inside a
		// character, and close a code block or details the cut left open.
		cut := out[:maxBody]
		if i := strings.LastIndexByte(cut, '\n'); i > 0 {
			cut = cut[:i+1]
		}
		cut = closeOpenBlocks(cut)
		out = cut + "\n…(truncated; see quality_report.json in the run artifacts)\n"
	}
	return out
}

// closeOpenBlocks ends a fenced code block and <details> blocks that a
// cut left open, so the rest of the text renders as text.
func closeOpenBlocks(md string) string {
	fence := ""
	details := 0
	for _, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, "`") == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") {
			fence = t[:len(t)-len(strings.TrimLeft(t, "`"))]
			continue
		}
		details += strings.Count(l, "<details>") - strings.Count(l, "</details>")
	}
	if fence != "" {
		md += fence + "\n"
	}
	for ; details > 0; details-- {
		md += "\n</details>\n"
	}
	return md
}

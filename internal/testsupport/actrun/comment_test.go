package actrun

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/prcomment"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestBenchCommentWorkflows runs .github/workflows/examples/bench-
// comment.yml on a pull request against the fake GitHub: the first run
// creates the comment, the second edits it (one comment, edited once), a
// run of a fork's pull request (a read-only token) gets a 403, which is
// a notice and not a failure, and keeps the comment as an artifact; then
// bench-comment-post.yml, started by workflow_run with a token that can
// write, posts that artifact's comment, the same text, into the same
// comment.
func TestBenchCommentWorkflows(t *testing.T) {
	const sha = "1111111111111111111111111111111111111111"
	gh := ghfake.New("octo", "bench", "main", "ghs_write", nil)
	defer gh.Close()
	gh.ReadOnlyToken = "ghs_fork"
	pr := gh.AddPull(ghfake.Pull{Title: "faster tools", Head: "feature", Base: "main", HeadSHA: sha})

	repo := t.TempDir()
	copyTree(t, filepath.Join(testenv.RepoRoot(t), ".github", "workflows", "examples"), filepath.Join(repo, ".github", "workflows"))
	write := func(ghxTokens float64) {
		writeFile(t, filepath.Join(repo, "reports", "suites", "agent_direct-suite.jsonl"), testenv.SuiteJSONL("agent_direct", 1, 12, 1000, nil))
		writeFile(t, filepath.Join(repo, "reports", "suites", "ghx-suite.jsonl"), testenv.SuiteJSONL("ghx", 1, 12, ghxTokens, func(s, r int) bool { return s == 5 && r == 1 }))
	}
	write(500)
	gitCommitAll(t, repo)
	if out, err := exec.Command("git", "-C", repo, "remote", "add", "origin", "https://github.com/octo/bench.git").CombinedOutput(); err != nil {
		t.Fatalf("git remote add: %v: %s", err, out)
	}
	r := newRunner(t)
	api := "GITHUB_API_URL=" + strings.TrimSuffix(gh.BaseURL(), "/")
	event := fmt.Sprintf(`{"pull_request": {"number": %d, "head": {"ref": "feature", "sha": %q}, "base": {"ref": "main"}}}`, pr, sha)
	comment := func(token string, artifacts string) Result {
		res := r.exec(t, Run{Repo: repo, Workflow: ".github/workflows/bench-comment.yml", Event: "pull_request", EventJSON: event, ArtifactDir: artifacts,
			Args: []string{"--secret", "GITHUB_TOKEN=" + token, "--env", api}})
		checkJobs(t, res, map[string]string{"bench": "success"})
		return res
	}
	sticky := func() ghfake.IssueComment {
		t.Helper()
		cs := gh.Comments(pr)
		if len(cs) != 1 {
			t.Fatalf("pull request #%d has %d comments, want the one sticky comment", pr, len(cs))
		}
		return cs[0]
	}

	// First run: the comment is created, verdict first.
	res := comment("ghs_write", t.TempDir())
	c := sticky()
	if c.Edits != 0 || !strings.HasPrefix(c.Body, "<!-- benchgate-comment workflow=benchmark%20comment job=bench mode=report -->\n") || !strings.Contains(strings.SplitN(c.Body, "\n", 3)[1], "**benchgate report: pass**") {
		t.Errorf("first comment (edited %d times):\n%s", c.Edits, c.Body)
	}
	for _, want := range []string{"| ✅ | active-token reduction | 50.00% [49.99%, 50.01%] | ≥ 15.00% |", "head [`1111111`](https://github.com/octo/bench/commit/1111111111111111111111111111111111111111)",
		"- `s-005`: 1 of 3 iterations failed in ghx; first error: `success: expected true, got false`; [reports/suites/ghx-suite.jsonl:16](https://github.com/octo/bench/blob/1111111111111111111111111111111111111111/reports/suites/ghx-suite.jsonl#L16)", "[job summary](https://github.com/octo/bench/actions/runs/", "[benchgate-bench-run](https://github.com/octo/bench/actions/runs/"} {
		if !strings.Contains(c.Body, want) {
			t.Errorf("comment lacks %q:\n%s", want, c.Body)
		}
	}
	gfm.Require(t, "pull-request comment", c.Body)
	t.Logf("the comment as created:\n%s", c.Body)
	if url := res.Outputs("bench")["pr-comment-url"]; !strings.Contains(url, fmt.Sprintf("#issuecomment-%d", c.ID)) {
		t.Errorf("output pr-comment-url = %q, want comment %d", url, c.ID)
	}

	// Second run, a new push: the same comment is edited, none added.
	write(650)
	run(t, repo, []string{"GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.com"}, "git", "commit", "-q", "-am", "ghx spends more")
	comment("ghs_write", t.TempDir())
	c2 := sticky()
	if c2.ID != c.ID || c2.Edits != 1 || c2.Body == c.Body {
		t.Errorf("second run: comment %d edited %d times (body changed: %v), want comment %d edited once", c2.ID, c2.Edits, c2.Body != c.Body, c.ID)
	}

	// A fork's pull request: the token is read-only. The step says so in
	// a notice, does not fail, and keeps the comment as an artifact.
	write(400)
	run(t, repo, []string{"GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.com"}, "git", "commit", "-q", "-am", "ghx spends less")
	artifacts := t.TempDir()
	res = comment("ghs_fork", artifacts)
	notes := strings.Join(res.Commands("bench", "notice"), "\n")
	if !strings.Contains(notes, "the token may not write to it (a pull request from a fork gets a read-only token); it is kept in artifact benchgate-bench-pr-comment") {
		t.Errorf("no notice says the fork's token cannot comment; notices:\n%s", notes)
	}
	if w := strings.Join(res.Commands("bench", "warning"), "\n"); strings.Contains(w, "comment") {
		t.Errorf("a warning about the comment: %v", w)
	}
	if c3 := sticky(); c3.Edits != 1 {
		t.Errorf("the read-only run changed the comment")
	}
	// The artifact holds data (the verdict), not Markdown: the second
	// stage renders the comment itself.
	keptPath := filepath.Join(t.TempDir(), "pr-comment.json")
	writeFile(t, keptPath, string(artifactFile(t, artifacts, "benchgate-bench-pr-comment", "pr-comment.json")))
	file, err := prcomment.ReadFile(keptPath)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	json.Unmarshal(artifactFile(t, artifacts, "benchgate-bench-pr-comment", "pr-comment.json"), &raw)
	if _, ok := raw["body"]; ok {
		t.Error("the kept comment file holds a Markdown body")
	}
	kept, err := file.Comment(prcomment.Binding{Workflow: "benchmark comment", HeadSHA: sha, LinkPrefix: "https://github.com/octo/bench/"})
	if err != nil || kept.PullRequest != pr || kept.Body == c2.Body {
		t.Fatalf("kept comment for #%d at %s (same body as before: %v): %v", file.PullRequest, file.HeadSHA, kept != nil && kept.Body == c2.Body, err)
	}
	zips, _ := filepath.Glob(filepath.Join(artifacts, "*", "benchgate-bench-pr-comment"))
	runID := filepath.Base(filepath.Dir(zips[0]))

	// The second stage, on workflow_run with a token that can write,
	// posts the kept comment into the same comment.
	post := func(head string) Result {
		ev := fmt.Sprintf(`{"workflow_run": {"id": %s, "event": "pull_request", "head_sha": %q, "name": "benchmark comment"}}`, runID, head)
		return r.exec(t, Run{Repo: repo, Workflow: ".github/workflows/bench-comment-post.yml", Event: "workflow_run", EventJSON: ev, ArtifactDir: artifacts,
			Args: []string{"--secret", "GITHUB_TOKEN=ghs_write", "--env", api}})
	}
	res = post(sha)
	checkJobs(t, res, map[string]string{"post": "success"})
	c4 := sticky()
	if c4.ID != c.ID || c4.Body != kept.Body || c4.Edits != 2 {
		t.Errorf("the second stage did not post the kept comment into comment %d (edits %d, same body %v)", c.ID, c4.Edits, c4.Body == kept.Body)
	}
	if url := res.Outputs("post")["pr-comment-url"]; !strings.Contains(url, fmt.Sprintf("#issuecomment-%d", c.ID)) {
		t.Errorf("output pr-comment-url = %q", url)
	}
	// A run for another head (the pull request moved on) posts nothing.
	res = post("2222222222222222222222222222222222222222")
	checkJobs(t, res, map[string]string{"post": "failure"})
	if c5 := sticky(); c5.Edits != 2 {
		t.Errorf("a comment about another head was posted")
	}
}

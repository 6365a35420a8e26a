package ghpr_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/ghpr"
	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
	"github.com/google/go-github/v62/github"
)

const token = "ghs_faketoken"

func newClient(t *testing.T, srv *ghfake.Server, tok string) *github.Client {
	t.Helper()
	c := github.NewClient(nil).WithAuthToken(tok)
	u, err := url.Parse(srv.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	c.BaseURL = u
	return c
}

func newRepo(t *testing.T) *ghfake.Server {
	srv := ghfake.New("octo", "bench", "main", token, map[string]string{
		"a/benchmark.yaml": "benchmarks: []\n",
		"b/benchmark.yaml": "benchmarks: [x]\n",
		"README.md":        "readme\n",
	})
	t.Cleanup(srv.Close)
	return srv
}

func change(path, content, id string) ghpr.Change {
	return ghpr.Change{Path: path, Content: []byte(content), Cases: []ghpr.CaseChange{{
		CaseID: id, Before: "Incorrect", After: "Valid",
		Proof: "| option | claim | outcome |\n|---|---|---|\n| A | x | passed |",
	}}}
}

func TestPublishCreatesThenUpdatesSamePR(t *testing.T) {
	srv := newRepo(t)
	gh := newClient(t, srv, token)
	ctx := context.Background()
	cfg := ghpr.Config{Owner: "octo", Repo: "bench", Grouping: ghpr.PerFile, Labels: []string{"qa-audit", "benchmark-fix"}}
	mainBefore := srv.Branch("main")

	res, err := ghpr.Publish(ctx, gh, cfg, []ghpr.Change{
		change("a/benchmark.yaml", "benchmarks: [fixed]\n", "s:case_one"),
		change("b/benchmark.yaml", "benchmarks: [fixed-b]\n", "s:case_two"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || !res[0].Created || !res[1].Created {
		t.Fatalf("want two new pull requests, got %+v", res)
	}
	if res[0].Branch != "benchgate/qa-audit/a-benchmark" {
		t.Errorf("branch = %q", res[0].Branch)
	}
	got, ok := srv.File(res[0].Branch, "a/benchmark.yaml")
	if !ok || got != "benchmarks: [fixed]\n" {
		t.Errorf("fixed file on branch = %q, %v", got, ok)
	}
	if got, _ := srv.File(res[0].Branch, "README.md"); got != "readme\n" {
		t.Errorf("other files must be kept on the branch, README = %q", got)
	}
	if got, _ := srv.File(res[0].Branch, "b/benchmark.yaml"); got != "benchmarks: [x]\n" {
		t.Errorf("per-file grouping leaked b into a's branch: %q", got)
	}
	if srv.Branch("main") != mainBefore {
		t.Fatal("default branch moved")
	}
	pulls := srv.Pulls()
	if len(pulls) != 2 {
		t.Fatalf("pulls = %d", len(pulls))
	}
	if !strings.Contains(pulls[0].Body, "s:case_one") || !strings.Contains(pulls[0].Body, "| A | x | passed |") {
		t.Errorf("body lacks the case proof:\n%s", pulls[0].Body)
	}
	if strings.Join(pulls[0].Labels, ",") != "qa-audit,benchmark-fix" {
		t.Errorf("labels = %v", pulls[0].Labels)
	}

	// A second run with a new fix updates the same pull request on top of the branch.
	res2, err := ghpr.Publish(ctx, gh, cfg, []ghpr.Change{change("a/benchmark.yaml", "benchmarks: [fixed-again]\n", "s:case_three")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res2) != 1 || res2[0].Created || res2[0].Number != res[0].Number {
		t.Fatalf("second run must update PR #%d, got %+v", res[0].Number, res2)
	}
	if n := len(srv.Pulls()); n != 2 {
		t.Fatalf("second run duplicated a pull request: %d pulls", n)
	}
	c, _ := srv.Commit(res2[0].Commit)
	if len(c.Parents) != 1 || c.Parents[0] != res[0].Commit {
		t.Errorf("second commit parents = %v, want [%s]", c.Parents, res[0].Commit)
	}
	if p := srv.Pulls()[0]; !strings.Contains(p.Body, "s:case_three") || strings.Contains(p.Body, "s:case_one") {
		t.Errorf("updated body should describe the latest fix only:\n%s", p.Body)
	}
	if got, _ := srv.File(res[0].Branch, "a/benchmark.yaml"); got != "benchmarks: [fixed-again]\n" {
		t.Errorf("branch file after update = %q", got)
	}

	// Publishing identical content again makes no new commit.
	res3, err := ghpr.Publish(ctx, gh, cfg, []ghpr.Change{change("a/benchmark.yaml", "benchmarks: [fixed-again]\n", "s:case_three")})
	if err != nil {
		t.Fatal(err)
	}
	if res3[0].Commit != res2[0].Commit {
		t.Errorf("unchanged content created commit %s", res3[0].Commit)
	}
}

func TestPublishPerRunGroupsAllFiles(t *testing.T) {
	srv := newRepo(t)
	gh := newClient(t, srv, token)
	cfg := ghpr.Config{Owner: "octo", Repo: "bench", Grouping: ghpr.PerRun, RunID: "weekly drift"}
	res, err := ghpr.Publish(context.Background(), gh, cfg, []ghpr.Change{
		change("a/benchmark.yaml", "A\n", "s:one"),
		change("b/benchmark.yaml", "B\n", "s:two"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Branch != "benchgate/qa-audit/weekly-drift" || len(res[0].Files) != 2 {
		t.Fatalf("res = %+v", res)
	}
	for path, want := range map[string]string{"a/benchmark.yaml": "A\n", "b/benchmark.yaml": "B\n"} {
		if got, _ := srv.File(res[0].Branch, path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
}

func TestPublishRefusesDefaultAndBaseBranch(t *testing.T) {
	tests := []struct {
		name          string
		defaultBranch string
		cfg           ghpr.Config
	}{
		// A repository whose default branch has the name the run would push to.
		{"head is the default branch", "benchgate/qa-audit/weekly", ghpr.Config{Owner: "octo", Repo: "bench", Grouping: ghpr.PerRun, RunID: "weekly"}},
		{"head is the base branch", "main", ghpr.Config{Owner: "octo", Repo: "bench", Grouping: ghpr.PerRun, Base: "benchgate/qa-audit/fixes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ghfake.New("octo", "bench", tt.defaultBranch, token, map[string]string{"a/benchmark.yaml": "x\n"})
			defer srv.Close()
			gh := newClient(t, srv, token)
			if tt.cfg.Base != "" {
				def, _, _ := gh.Git.GetRef(context.Background(), "octo", "bench", "heads/"+tt.defaultBranch)
				if _, _, err := gh.Git.CreateRef(context.Background(), "octo", "bench", &github.Reference{Ref: github.String("refs/heads/" + tt.cfg.Base), Object: def.Object}); err != nil {
					t.Fatal(err)
				}
			}
			before := len(srv.Calls())
			tips := map[string]string{tt.defaultBranch: srv.Branch(tt.defaultBranch), tt.cfg.Base: srv.Branch(tt.cfg.Base)}
			_, err := ghpr.Publish(context.Background(), gh, tt.cfg, []ghpr.Change{change("a/benchmark.yaml", "X\n", "s:x")})
			if !errors.Is(err, ghpr.ErrProtectedBranch) {
				t.Fatalf("err = %v, want ErrProtectedBranch", err)
			}
			for _, c := range srv.Calls()[before:] {
				if !strings.HasPrefix(c, "GET ") {
					t.Errorf("refused publish still sent %s", c)
				}
			}
			for b, tip := range tips {
				if b != "" && srv.Branch(b) != tip {
					t.Errorf("branch %s moved", b)
				}
			}
		})
	}
}

func TestPublishErrors(t *testing.T) {
	srv := newRepo(t)
	tests := []struct {
		name string
		tok  string
		cfg  ghpr.Config
		want string
	}{
		{"bad token", "nope", ghpr.Config{Owner: "octo", Repo: "bench"}, "401 Bad credentials"},
		{"unknown repo", token, ghpr.Config{Owner: "octo", Repo: "missing"}, "404"},
		{"unknown base", token, ghpr.Config{Owner: "octo", Repo: "bench", Base: "release"}, "reading base branch release"},
		{"no repo", token, ghpr.Config{}, "owner/name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ghpr.Publish(context.Background(), newClient(t, srv, tt.tok), tt.cfg, []ghpr.Change{change("a/benchmark.yaml", "X\n", "s:x")})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if n := len(srv.Pulls()); n != 0 {
		t.Errorf("failed publishes created %d pulls", n)
	}
}

// TestFakeEnforcesGitHubRules checks that the fake rejects what GitHub rejects,
// so that the publishing tests above mean something.
func TestFakeEnforcesGitHubRules(t *testing.T) {
	srv := newRepo(t)
	gh := newClient(t, srv, token)
	ctx := context.Background()
	main, _, err := gh.Git.GetRef(ctx, "octo", "bench", "refs/heads/main")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Git.CreateRef(ctx, "octo", "bench", &github.Reference{Ref: github.String("refs/heads/main"), Object: main.Object}); err == nil || !strings.Contains(err.Error(), "422") {
		t.Errorf("duplicate ref: err = %v, want 422", err)
	}
	if _, _, err := gh.Git.CreateRef(ctx, "octo", "bench", &github.Reference{Ref: github.String("refs/heads/x"), Object: &github.GitObject{SHA: github.String("deadbeef")}}); err == nil || !strings.Contains(err.Error(), "422") {
		t.Errorf("unknown sha: err = %v, want 422", err)
	}
	if _, _, err := gh.PullRequests.Create(ctx, "octo", "bench", &github.NewPullRequest{Title: github.String("t"), Head: github.String("nope"), Base: github.String("main")}); err == nil || !strings.Contains(err.Error(), "422") {
		t.Errorf("unknown head: err = %v, want 422", err)
	}
	// A non-fast-forward update is refused unless forced.
	c, _, _ := gh.Git.GetCommit(ctx, "octo", "bench", main.GetObject().GetSHA())
	orphan, _, err := gh.Git.CreateCommit(ctx, "octo", "bench", &github.Commit{Message: github.String("o"), Tree: &github.Tree{SHA: c.Tree.SHA}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	main.Object.SHA = orphan.SHA
	if _, _, err := gh.Git.UpdateRef(ctx, "octo", "bench", main, false); err == nil || !strings.Contains(err.Error(), "fast forward") {
		t.Errorf("non fast-forward: err = %v", err)
	}
	if _, _, err := gh.Git.GetRef(ctx, "octo", "bench", "refs/heads/none"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing ref: err = %v, want 404", err)
	}
	if _, _, err := gh.PullRequests.List(ctx, "octo", "bench", &github.PullRequestListOptions{Head: "no-owner-prefix"}); err == nil || !strings.Contains(err.Error(), "422") {
		t.Errorf("head filter without owner: err = %v, want 422", err)
	}
	// Payloads with fields GitHub does not define are rejected, not ignored.
	req, _ := gh.NewRequest("POST", "repos/octo/bench/git/refs", map[string]string{"ref": "refs/heads/y", "sha": main.GetObject().GetSHA(), "branch": "y"})
	if _, err := gh.Do(ctx, req, nil); err == nil || !strings.Contains(err.Error(), "422") {
		t.Errorf("unknown payload field: err = %v, want 422", err)
	}
	// A tree entry must be a file blob with content or an existing blob sha.
	if _, _, err := gh.Git.CreateTree(ctx, "octo", "bench", c.Tree.GetSHA(), []*github.TreeEntry{{Path: github.String("x"), Mode: github.String("040000"), Type: github.String("tree"), Content: github.String("x")}}); err == nil || !strings.Contains(err.Error(), "422") {
		t.Errorf("tree entry of type tree: err = %v, want 422", err)
	}
	if _, _, err := gh.Git.CreateTree(ctx, "octo", "bench", "not-a-tree", []*github.TreeEntry{{Path: github.String("x"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("x")}}); err == nil || !strings.Contains(err.Error(), "422") {
		t.Errorf("unknown base tree: err = %v, want 422", err)
	}
	// Deleting a path: an entry with neither sha nor content.
	tree, _, err := gh.Git.CreateTree(ctx, "octo", "bench", c.Tree.GetSHA(), []*github.TreeEntry{{Path: github.String("README.md"), Mode: github.String("100644"), Type: github.String("blob")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tree.Entries {
		if e.GetPath() == "README.md" {
			t.Errorf("deleted path still in the tree")
		}
	}
}

func TestParseGrouping(t *testing.T) {
	for in, ok := range map[string]bool{"file": true, "run": true, "repo": false, "": false} {
		_, err := ghpr.ParseGrouping(in)
		if (err == nil) != ok {
			t.Errorf("ParseGrouping(%q) err = %v", in, err)
		}
	}
}

// BenchmarkPublishUpdate measures one publish of a fixed file onto an
// existing branch and pull request (the weekly steady state): 9 API calls
// against the in-process fake.
func BenchmarkPublishUpdate(b *testing.B) {
	srv := ghfake.New("octo", "bench", "main", token, map[string]string{"a/benchmark.yaml": "x\n"})
	defer srv.Close()
	gh := github.NewClient(nil).WithAuthToken(token)
	gh.BaseURL, _ = url.Parse(srv.BaseURL())
	cfg := ghpr.Config{Owner: "octo", Repo: "bench", Labels: []string{"qa-audit"}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := ghpr.Publish(context.Background(), gh, cfg, []ghpr.Change{change("a/benchmark.yaml", strings.Repeat("y", i%7+1)+"\n", "s:x")}); err != nil {
			b.Fatal(err)
		}
	}
}

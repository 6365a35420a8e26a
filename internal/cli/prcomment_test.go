package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/prcomment"
	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
	"github.com/benchgate/benchgate/internal/verdict"
)

// TestPRComment posts a kept comment file as the second stage does: the
// comment is rendered from the file's verdict under the marker of the
// event's workflow. It refuses files that are not this run's (another
// repository, another head, a broken file) and any post without the
// event binding; a pull request whose head moved gets nothing.
func TestPRComment(t *testing.T) {
	sha := strings.Repeat("1", 40)
	gh := ghfake.New("octo", "bench", "main", "ghs_w", nil)
	defer gh.Close()
	pr := gh.AddPull(ghfake.Pull{Title: "x", Head: "feature", Base: "main", HeadSHA: sha})
	dir := t.TempDir()
	v := &verdict.Verdict{Schema: verdict.Schema, Mode: "report", Status: "pass", Enforced: true}
	write := func(name, repo, head string) string {
		p := filepath.Join(dir, name)
		f := prcomment.File{Schema: prcomment.FileSchema, Repository: repo, PullRequest: pr, HeadSHA: head, Job: "bench", Mode: "report", Verdict: v}
		if err := f.Write(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", "octo/bench", sha)
	other := write("other.json", "someone/else", sha)
	moved := write("moved.json", "octo/bench", strings.Repeat("2", 40))
	broken := filepath.Join(dir, "broken.json")
	writeFileT(t, broken, `{"repository": "octo/bench", "pull_request": 1, "extra": 1}`)
	env := map[string]string{"GITHUB_TOKEN": "ghs_w", "GITHUB_API_URL": gh.BaseURL(), "GITHUB_REPOSITORY": "octo/bench"}
	bind := func(file, head string) []string {
		return []string{"--file", file, "--head-sha", head, "--workflow", "bench"}
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"posts", bind(good, sha), ExitOK, "created pull request #1's comment: https://github.com/octo/bench/pull/1#issuecomment-"},
		{"again: unchanged", bind(good, sha), ExitOK, "unchanged pull request #1's comment"},
		{"no event binding", []string{"--file", good}, ExitUsage, "--head-sha and --workflow are required"},
		{"no workflow", []string{"--file", good, "--head-sha", sha}, ExitUsage, "--head-sha and --workflow are required"},
		{"another repository", bind(other, sha), ExitUsage, "field repository: expected octo/bench (--repo or GITHUB_REPOSITORY), got someone/else"},
		{"another head", bind(good, strings.Repeat("3", 40)), ExitUsage, "field head_sha"},
		{"the pull request moved on", bind(moved, strings.Repeat("2", 40)), ExitFailed, "pull request #1's head is 111111111111"},
		{"broken file", bind(broken, sha), ExitUsage, `unknown field "extra"`},
		{"no file", nil, ExitUsage, "--file is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			e := &Env{Stdout: &out, Stderr: &out, Dir: dir, Getenv: func(k string) string { return env[k] }}
			if code := Main(context.Background(), e, append([]string{"pr-comment"}, tc.args...)); code != tc.code || !strings.Contains(out.String(), tc.out) {
				t.Errorf("exit %d, output %q; want %d and %q", code, out.String(), tc.code, tc.out)
			}
		})
	}
	m := prcomment.Marker("bench", "bench", "report")
	if cs := gh.Comments(pr); len(cs) != 1 || !strings.HasPrefix(cs[0].Body, m+"\n") || !strings.Contains(cs[0].Body, "benchgate report: pass") {
		t.Errorf("comments %+v", cs)
	}
}

func writeFileT(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/ghpr/ghfake"
	"github.com/benchgate/benchgate/internal/prcomment"
)

// TestPRComment posts a kept comment file as the second stage does, and
// refuses files that are not this run's: another repository, another
// head, a broken file; a pull request whose head moved gets nothing.
func TestPRComment(t *testing.T) {
	sha := strings.Repeat("1", 40)
	gh := ghfake.New("octo", "bench", "main", "ghs_w", nil)
	defer gh.Close()
	pr := gh.AddPull(ghfake.Pull{Title: "x", Head: "feature", Base: "main", HeadSHA: sha})
	dir := t.TempDir()
	m := prcomment.Marker("bench", "bench", "report")
	write := func(name string, c prcomment.Comment) string {
		p := filepath.Join(dir, name)
		if err := c.Write(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", prcomment.Comment{Repository: "octo/bench", PullRequest: pr, HeadSHA: sha, Marker: m, Body: m + "\nverdict"})
	other := write("other.json", prcomment.Comment{Repository: "someone/else", PullRequest: pr, HeadSHA: sha, Marker: m, Body: m + "\nverdict"})
	moved := write("moved.json", prcomment.Comment{Repository: "octo/bench", PullRequest: pr, HeadSHA: strings.Repeat("2", 40), Marker: m, Body: m + "\nold"})
	broken := filepath.Join(dir, "broken.json")
	writeFileT(t, broken, `{"repository": "octo/bench", "pull_request": 1, "extra": 1}`)
	env := map[string]string{"GITHUB_TOKEN": "ghs_w", "GITHUB_API_URL": gh.BaseURL(), "GITHUB_REPOSITORY": "octo/bench"}
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"posts", []string{"--file", good, "--head-sha", sha}, ExitOK, "created pull request #1's comment: https://github.com/octo/bench/pull/1#issuecomment-"},
		{"again: unchanged", []string{"--file", good}, ExitOK, "unchanged pull request #1's comment"},
		{"another repository", []string{"--file", other}, ExitUsage, "field repository: expected octo/bench, got someone/else"},
		{"another head", []string{"--file", good, "--head-sha", strings.Repeat("3", 40)}, ExitUsage, "field head_sha"},
		{"the pull request moved on", []string{"--file", moved, "--head-sha", strings.Repeat("2", 40)}, ExitFailed, "pull request #1's head is 111111111111"},
		{"broken file", []string{"--file", broken}, ExitUsage, `unknown field "extra"`},
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
	if cs := gh.Comments(pr); len(cs) != 1 || cs[0].Body != m+"\nverdict" {
		t.Errorf("comments %+v", cs)
	}
}

func writeFileT(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

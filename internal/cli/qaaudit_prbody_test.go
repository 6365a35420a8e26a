package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestQAAuditPullRequestBodyIsInert runs the built binary's qa-audit
// --open-prs against the fake GitHub API on a question whose option texts
// hold images, links and mentions, with a model whose proposed fix and
// rationale do too: the pull request it opens shows them as text, and its
// body, rendered through cmark-gfm, has no link, image, HTML or live
// mention; the quality report's Markdown neither.
func TestQAAuditPullRequestBodyIsInert(t *testing.T) {
	py := testenv.Python(t)
	bin := testenv.Benchgate(t)
	const (
		optA = "The integer 3 ![t](https://evil.example/a.png) @admin"
		optB = "The integer 2 [job summary](https://evil.example/summary) @octo-org/everyone"
	)
	questions := `benchmarks:
- id: stdlib:drifted_answer
  question: 'What does len([1, 2, 3]) return? <img src="https://evil.example/q.png">'
  options:
    A: '` + optA + `'
    B: '` + optB + `'
    C: None of the above
  correct_answer: B
  explanation: it counts items.
  benchmark_type: multiple_choice
`
	chat := newChatFake(t, map[string]string{
		optA: "def test_option():\n    assert len([1, 2, 3]) == 3\n",
		optB: "def test_option():\n    assert len([1, 2, 3]) == 2\n",
	}, map[string][]string{
		"stdlib:drifted_answer": {`{"correct_answer": "A", "explanation": "len counts ![x](https://evil.example/x.png) <img src=x> www.evil.example &commat;admin", "rationale": "A is proven [here](https://evil.example/r) @octo-org/everyone"}`},
	})
	gh := ghfake.New("octo", "bench", "main", "ghs_tok", map[string]string{"benchmarks/stdlib/benchmark.yaml": questions})
	defer gh.Close()
	dir := t.TempDir()
	p := filepath.Join(dir, "benchmarks", "stdlib", "benchmark.yaml")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(questions), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "OPENAI_API_KEY=sk-local-123456", "GITHUB_TOKEN=ghs_tok", "GITHUB_REPOSITORY=octo/bench")
	code, out, _ := runBinary(t, dir, env, bin, "qa-audit", "--model-backend", "openai", "--model", "local", "--model-url", chat.URL+"/v1",
		"--python", py, "--test-timeout", "30s", "--out-dir", "out", "--open-prs", "--github-api-url", gh.BaseURL(), "benchmarks")
	pulls := gh.Pulls()
	if len(pulls) != 1 {
		t.Fatalf("exit %d, %d pull requests, want 1\n%s", code, len(pulls), out)
	}
	body := pulls[0].Body
	for _, w := range []string{"job summary", "@", "evil.example/a.png", "Rationale", "proven"} {
		if !strings.Contains(body, w) {
			t.Errorf("the body does not show %q as text:\n%s", w, body)
		}
	}
	gfm.Require(t, "pull request body", body)
	gfm.RequireInert(t, "pull request body", body)
	md, err := os.ReadFile(filepath.Join(dir, "out", "quality_report.md"))
	if err != nil {
		t.Fatal(err)
	}
	gfm.RequireInert(t, "quality_report.md", string(md), "https://github.com/octo/bench/pull/")
}

package actrun

import (
	"archive/zip"
	"io/fs"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/agentfake"
	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// The question bank of the weekly example's repository: stdlib questions,
// one of which has a drifted answer key.
const weeklyQuestions = `# stdlib questions
benchmarks:
- id: stdlib:valid_upper
  question: 'What does "ab".upper() return?'
  options:
    A: 'The string "AB"'
    B: 'The string "ab"'
    C: None of the above
  correct_answer: A
  explanation: upper() upper-cases.
  benchmark_type: multiple_choice
- id: stdlib:drifted_answer
  question: 'What does len([1, 2, 3]) return?'
  options:
    A: The integer 3
    B: The integer 2
    C: None of the above
  correct_answer: B
  explanation: it counts items.
  benchmark_type: multiple_choice
`

// weeklyLinks are the links one option test leaves in its folder: to the
// runner's shadow file, the checkout's .git/config and its own
// environment. The uploaded qa-audit folder must hold none of them.
var weeklyLinks = []string{"shadow", "gitconfig", "environ"}

var weeklyTests = map[string]string{
	`The string "AB"`: "import os\n\n\ndef test_option():\n    for name, target in ((\"shadow\", \"/etc/shadow\"), (\"gitconfig\", os.path.join(os.environ.get(\"GITHUB_WORKSPACE\", \"/\"), \".git/config\")), (\"environ\", \"/proc/self/environ\")):\n        os.symlink(target, name)\n    assert \"ab\".upper() == \"AB\"\n",
	`The string "ab"`: "def test_option():\n    assert \"ab\".upper() == \"ab\"\n",
	`The integer 3`:   "def test_option():\n    assert len([1, 2, 3]) == 3\n",
	`The integer 2`:   "def test_option():\n    assert len([1, 2, 3]) == 2\n",
}

var weeklyProposals = map[string][]string{
	"stdlib:drifted_answer": {`{"correct_answer": "A", "explanation": "len counts the items: 3.", "rationale": "A is proven true"}`},
}

// TestWeeklyQAAuditWorkflow runs .github/workflows/examples/weekly-qa-
// audit.yml as its schedule would: the job's venv (with pytest) runs the
// option tests, an OpenAI-compatible endpoint (the repository variables
// the example reads) plays the agents, and the pull request with the fix
// is opened on the fake GitHub the runner's GITHUB_API_URL points at. The
// drifted question fails the audit step, so the job fails, and the next
// step lists the pull request from the step's outputs.
func TestWeeklyQAAuditWorkflow(t *testing.T) {
	testenv.Python(t)
	model := agentfake.New(weeklyTests, weeklyProposals)
	defer model.Close()
	const bank = "benchmarks/stdlib/benchmark.yaml"
	gh := ghfake.New("octo", "bench", "main", "ghs_weekly", map[string]string{bank: weeklyQuestions})
	defer gh.Close()

	repo := t.TempDir()
	copyTree(t, filepath.Join(testenv.RepoRoot(t), ".github", "workflows", "examples"), filepath.Join(repo, ".github", "workflows"))
	writeFile(t, filepath.Join(repo, bank), weeklyQuestions)
	writeFile(t, filepath.Join(repo, "benchmarks", "requirements.txt"), "pytest\n")
	writeFile(t, filepath.Join(repo, ".gitignore"), ".venv/\nbenchgate-results/\n")
	gitCommitAll(t, repo)
	// act reads the repository's name from its origin remote.
	if out, err := exec.Command("git", "-C", repo, "remote", "add", "origin", "https://github.com/octo/bench.git").CombinedOutput(); err != nil {
		t.Fatalf("git remote add: %v: %s", err, out)
	}

	r := newRunner(t)
	artifacts := t.TempDir()
	res := r.exec(t, Run{Repo: repo, Workflow: ".github/workflows/weekly-qa-audit.yml", Event: "schedule", ArtifactDir: artifacts,
		Args: []string{
			"--secret", "GITHUB_TOKEN=ghs_weekly", "--secret", "OPENAI_API_KEY=sk-weekly-123456",
			"--var", "QA_MODEL_BACKEND=openai", "--var", "QA_MODEL_URL=" + model.URL + "/v1", "--var", "QA_MODEL=local",
			"--env", "GITHUB_API_URL=" + strings.TrimSuffix(gh.BaseURL(), "/"),
		}})
	checkJobs(t, res, map[string]string{"audit": "failure"})

	pulls := gh.Pulls()
	if len(pulls) != 1 {
		t.Fatalf("pull requests = %+v, want one with the fix; audit output:\n%s", pulls, tail(res.Output("audit"), 6000))
	}
	fixed, ok := gh.File(pulls[0].Head, bank)
	if !ok || !strings.Contains(fixed, "correct_answer: A\n  explanation: 'len counts the items: 3.'") {
		t.Errorf("the pull request's %s does not carry the fix:\n%s", bank, fixed)
	}
	out := res.Output("audit")
	if !strings.Contains(out, "quality report: benchgate-results/") || !strings.Contains(out, "/pull/1") {
		t.Errorf("the listing step did not get the quality-report and pr-urls outputs; output:\n%s", tail(out, 4000))
	}
	if errs := strings.Join(res.Commands("audit", "error"), "\n"); !strings.Contains(errs, "title=qa-audit stdlib%3Adrifted_answer::Incorrect, fixed (the fix was verified Valid)") {
		t.Errorf("no error annotation names the drifted question on its line; annotations:\n%s", errs)
	}
	for _, a := range model.Auth() {
		if a != "Bearer sk-weekly-123456" {
			t.Errorf("an agent call carried Authorization %q, want the OPENAI_API_KEY secret", a)
		}
	}
	if names := strings.Join(artifactNames(t, artifacts), " "); !strings.Contains(names, "benchgate-audit-run") {
		t.Errorf("no qa-audit artifact; artifacts: %s", names)
	}
	jobSummary(t, artifacts, "benchgate-audit-run", "**benchgate qa-audit: fail**", "drifted_answer", "/pull/1")
	noLinkInArtifacts(t, artifacts, "test_option_A.py")
}

// noLinkInArtifacts opens every uploaded artifact and fails on a
// symbolic link or special file in it, or a file named as one of
// weeklyLinks (an upload that followed a link stores its target's
// content under the link's name); an artifact must hold a file named
// want, or nothing was checked.
func noLinkInArtifacts(t *testing.T, dir, want string) {
	t.Helper()
	zips, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*.zip"))
	seen := false
	for _, z := range zips {
		zr, err := zip.OpenReader(z)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			base := path.Base(f.Name)
			if base == want {
				seen = true
			}
			if m := f.Mode(); m&fs.ModeSymlink != 0 || (!m.IsRegular() && !m.IsDir()) || slices.Contains(weeklyLinks, base) {
				t.Errorf("artifact %s holds %s (%s)", filepath.Base(z), f.Name, f.Mode())
			}
		}
		zr.Close()
	}
	if !seen {
		t.Errorf("no artifact holds %s; artifacts: %v", want, artifactNames(t, dir))
	}
}

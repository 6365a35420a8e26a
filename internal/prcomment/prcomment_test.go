package prcomment

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/ghpr/ghfake"
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

func TestReadWrite(t *testing.T) {
	dir := t.TempDir()
	good := comment(7, "verdict")
	p := filepath.Join(dir, FileName)
	if err := good.Write(p); err != nil {
		t.Fatal(err)
	}
	got, err := Read(p)
	if err != nil || *got != *good {
		t.Fatalf("read %+v, %v", got, err)
	}
	m := good.Marker
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

func TestMarker(t *testing.T) {
	got := Marker("bench --> <b>.yml", "job one", "report")
	if got != "<!-- benchgate-comment workflow=bench_-_b_.yml job=job_one mode=report -->" || !markerPattern.MatchString(got) {
		t.Errorf("marker %q", got)
	}
}

package ghfake

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
)

func get(t *testing.T, url, token string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// The artifact endpoints answer as GitHub's do: the token is required,
// the download is a 302 to a signed URL outside the API, an expired
// artifact is 410, an unknown one or another format 404, and the archive
// host refuses the token and an expired signature.
func TestArtifactProtocol(t *testing.T) {
	s := New("o", "r", "main", "tok", nil)
	defer s.Close()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return now }
	run := s.AddRun(WorkflowRun{Workflow: ".github/workflows/bench.yml", HeadBranch: "main", Event: "push"})
	ok := s.AddArtifact(run, "benchgate-bench-run", map[string]string{"latest-summary.json": "{}"}, false)
	old := s.AddArtifact(run, "old", map[string]string{"a": "b"}, true)
	api := s.URL + "/api-v3/repos/o/r/actions/"
	id := itoa

	tests := []struct {
		name, url, token string
		want             int
	}{
		{"no token", api + "runs/" + id(run) + "/artifacts", "", 401},
		{"wrong token", api + "runs/" + id(run) + "/artifacts", "nope", 401},
		{"run artifacts", api + "runs/" + id(run) + "/artifacts", "tok", 200},
		{"unknown run", api + "runs/999999/artifacts", "tok", 404},
		{"unknown workflow", api + "workflows/other.yml/runs", "tok", 404},
		{"bad per_page", api + "workflows/bench.yml/runs?per_page=x", "tok", 422},
		{"download", api + "artifacts/" + id(ok) + "/zip", "tok", 302},
		{"download expired", api + "artifacts/" + id(old) + "/zip", "tok", 410},
		{"download tar", api + "artifacts/" + id(ok) + "/tar", "tok", 404},
		{"download unknown", api + "artifacts/1/zip", "tok", 404},
	}
	for _, tt := range tests {
		if got := get(t, tt.url, tt.token).StatusCode; got != tt.want {
			t.Errorf("%s: GET %s = %d, want %d", tt.name, tt.url, got, tt.want)
		}
	}

	loc := get(t, api+"artifacts/"+id(ok)+"/zip", "tok").Header.Get("Location")
	if !strings.HasPrefix(loc, s.URL+blobPrefix) || !strings.Contains(loc, "sig=") {
		t.Fatalf("Location = %q, want a signed URL under %s", loc, blobPrefix)
	}
	if got := get(t, loc, "tok").StatusCode; got != 400 {
		t.Errorf("archive with the token = %d, want 400", got)
	}
	if got := get(t, strings.Replace(loc, "sig=", "sig=0", 1), "").StatusCode; got != 403 {
		t.Errorf("archive with a bad signature = %d, want 403", got)
	}
	res := get(t, loc, "")
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/zip" {
		t.Fatalf("archive = %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil || len(zr.File) != 1 || zr.File[0].Name != "latest-summary.json" {
		t.Fatalf("archive content: %v %v", err, zr)
	}
	now = now.Add(2 * time.Minute)
	if got := get(t, loc, "").StatusCode; got != 403 {
		t.Errorf("archive after the URL expired = %d, want 403", got)
	}
	if got := s.ArchiveDownloads(); len(got) != 1 || got[0] != ok {
		t.Errorf("ArchiveDownloads = %v, want [%d]", got, ok)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// go-github pages through runs with the Link header, newest first, and
// the filters (branch, status) apply before paging.
func TestWorkflowRunsPagination(t *testing.T) {
	s := New("o", "r", "main", "tok", nil)
	defer s.Close()
	for i := 0; i < 45; i++ {
		branch := "main"
		if i%3 == 0 {
			branch = "feature"
		}
		s.AddRun(WorkflowRun{Workflow: ".github/workflows/bench.yml", HeadBranch: branch, Event: "push"})
	}
	s.AddRun(WorkflowRun{Workflow: ".github/workflows/bench.yml", HeadBranch: "main", Status: "in_progress"})
	gh := github.NewClient(nil).WithAuthToken("tok")
	gh.BaseURL, _ = gh.BaseURL.Parse(s.BaseURL())
	opts := &github.ListWorkflowRunsOptions{Branch: "main", Status: "completed", ListOptions: github.ListOptions{PerPage: 7}}
	var ids []int64
	pages := 0
	for {
		runs, resp, err := gh.Actions.ListWorkflowRunsByFileName(context.Background(), "o", "r", "bench.yml", opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if runs.GetTotalCount() != 30 {
			t.Fatalf("total_count = %d, want 30", runs.GetTotalCount())
		}
		for _, r := range runs.WorkflowRuns {
			if r.GetHeadBranch() != "main" || r.GetStatus() != "completed" {
				t.Errorf("run %d: branch %s status %s", r.GetID(), r.GetHeadBranch(), r.GetStatus())
			}
			ids = append(ids, r.GetID())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if pages != 5 || len(ids) != 30 {
		t.Fatalf("pages %d runs %d, want 5 and 30", pages, len(ids))
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] >= ids[i-1] {
			t.Fatalf("runs not newest first: %v", ids)
		}
	}
}

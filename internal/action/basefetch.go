package action

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/benchgate/benchgate/internal/fsutil"
)

// Limits of one downloaded artifact: a baseline is summaries and suite
// files, far below these; an archive beyond them is not read.
const (
	maxArchiveBytes   = 2 << 30
	maxArchiveEntries = 100000
	maxRunPages       = 5 // of 30 runs: how far back the base branch is searched
	maxArtifactPages  = 10
)

// artifactSource says which artifact of which earlier workflow runs to
// download: the newest completed runs of one workflow on one branch.
type artifactSource struct {
	API, Token, Owner, Repo string
	// Workflow is the workflow file's name ("bench.yml").
	Workflow string
	Branch   string
	// SkipRunID is the current run, never its own baseline.
	SkipRunID int64
	// Match says whether an artifact name is the one wanted.
	Match func(name string) bool
	// Want is how many runs' artifacts to download (newest first).
	Want int
	// Dest receives one folder per run, named run-<id>.
	Dest string
	HTTP *http.Client
}

// downloadedRun is one artifact downloaded and unpacked.
type downloadedRun struct {
	RunID     int64
	RunNumber int
	HeadSHA   string
	Artifact  string
	Dir       string
}

// downloadArtifacts finds the newest completed runs of the workflow on
// the branch that kept a matching, unexpired artifact, and unpacks up to
// Want of them. notes say what was passed over (expired artifacts, runs
// without one). An error means nothing could be looked up (no token, a
// workflow or branch the API does not know): the caller reports it as a
// missing baseline, never as a failure of the step.
func downloadArtifacts(ctx context.Context, src artifactSource) (got []downloadedRun, notes []string, err error) {
	hc := src.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Minute}
	}
	gh := github.NewClient(hc)
	if src.Token != "" {
		gh = gh.WithAuthToken(src.Token)
	}
	if src.API != "" {
		u, err := url.Parse(strings.TrimRight(src.API, "/") + "/")
		if err != nil {
			return nil, nil, fmt.Errorf("GITHUB_API_URL %q: %v", src.API, err)
		}
		gh.BaseURL = u
	}
	opts := &github.ListWorkflowRunsOptions{Branch: src.Branch, Status: "completed", ListOptions: github.ListOptions{PerPage: 30}}
	for pageNo := 0; pageNo < maxRunPages && len(got) < src.Want; pageNo++ {
		runs, resp, err := gh.Actions.ListWorkflowRunsByFileName(ctx, src.Owner, src.Repo, src.Workflow, opts)
		if err != nil {
			return got, notes, fmt.Errorf("list runs of workflow %s on branch %s: %w%s", src.Workflow, src.Branch, apiError(err), notFoundHint(err, src))
		}
		for _, run := range runs.WorkflowRuns {
			if len(got) == src.Want {
				break
			}
			if run.GetID() == src.SkipRunID {
				continue
			}
			art, note, err := findArtifact(ctx, gh, src, run.GetID())
			if err != nil {
				return got, notes, err
			}
			if note != "" {
				notes = append(notes, fmt.Sprintf("run %d (#%d): %s", run.GetID(), run.GetRunNumber(), note))
			}
			if art == nil {
				continue
			}
			dir := filepath.Join(src.Dest, fmt.Sprintf("run-%d", run.GetID()))
			if err := fetchArchive(ctx, gh, hc, src, art.GetID(), dir); err != nil {
				notes = append(notes, fmt.Sprintf("run %d (#%d): artifact %s: %v", run.GetID(), run.GetRunNumber(), art.GetName(), err))
				continue
			}
			got = append(got, downloadedRun{RunID: run.GetID(), RunNumber: run.GetRunNumber(), HeadSHA: run.GetHeadSHA(), Artifact: art.GetName(), Dir: dir})
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return got, notes, nil
}

// findArtifact returns the newest matching artifact of a run that has
// not expired, or a note saying why there is none.
func findArtifact(ctx context.Context, gh *github.Client, src artifactSource, runID int64) (*github.Artifact, string, error) {
	opts := &github.ListOptions{PerPage: 100}
	expired := ""
	for i := 0; i < maxArtifactPages; i++ {
		list, resp, err := gh.Actions.ListWorkflowRunArtifacts(ctx, src.Owner, src.Repo, runID, opts)
		if err != nil {
			return nil, "", fmt.Errorf("list artifacts of run %d: %w", runID, apiError(err))
		}
		for _, a := range list.Artifacts {
			if !src.Match(a.GetName()) {
				continue
			}
			if a.GetExpired() {
				expired = a.GetName()
				continue
			}
			return a, "", nil
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if expired != "" {
		return nil, "artifact " + expired + " has expired", nil
	}
	return nil, "no matching artifact", nil
}

// fetchArchive asks the API for the artifact's archive (a redirect to a
// short-lived signed URL) and fetches it from there without the token:
// the URL is its own credential, and the archive host must not see the
// job's token.
func fetchArchive(ctx context.Context, gh *github.Client, hc *http.Client, src artifactSource, id int64, dir string) error {
	loc, resp, err := gh.Actions.DownloadArtifact(ctx, src.Owner, src.Repo, id, 1)
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusGone {
			return errors.New("expired (410 Gone)")
		}
		return apiError(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc.String(), nil)
	if err != nil {
		return err
	}
	plain := &http.Client{Timeout: hc.Timeout, Transport: hc.Transport}
	res, err := plain.Do(req)
	if err != nil {
		return fmt.Errorf("archive download: %w", redactURL(err))
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("archive download: %s", res.Status)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dir), ".archive-*.zip")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	n, err := io.Copy(tmp, io.LimitReader(res.Body, maxArchiveBytes+1))
	if err != nil {
		return fmt.Errorf("archive download: %w", err)
	}
	if n > maxArchiveBytes {
		return fmt.Errorf("archive larger than %d bytes", int64(maxArchiveBytes))
	}
	return unzipArchive(tmp, n, dir)
}

// unzipArchive unpacks regular files only, below dir: an entry with an
// absolute path, a ".." step or a link is left out, so an artifact cannot
// write outside its folder or plant a link for a later reader.
func unzipArchive(r io.ReaderAt, size int64, dir string) error {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return fmt.Errorf("not a zip archive: %w", err)
	}
	if len(zr.File) > maxArchiveEntries {
		return fmt.Errorf("archive has %d entries, more than %d", len(zr.File), maxArchiveEntries)
	}
	var total int64
	for _, f := range zr.File {
		name := f.Name
		clean := path.Clean("/" + name)[1:]
		if name == "" || strings.HasSuffix(name, "/") || !f.Mode().IsRegular() || clean != name || strings.Contains(name, `\`) {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out, err := fsutil.CreateIn(dir, filepath.Join(dir, filepath.FromSlash(clean)))
		if err != nil {
			rc.Close()
			return err
		}
		n, err := io.Copy(out, io.LimitReader(rc, maxArchiveBytes-total+1))
		rc.Close()
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if total += n; total > maxArchiveBytes {
			return fmt.Errorf("archive unpacks to more than %d bytes", int64(maxArchiveBytes))
		}
	}
	return nil
}

// apiError shortens go-github's errors to the status and message.
func apiError(err error) error {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return fmt.Errorf("%s: %s", er.Response.Status, er.Message)
	}
	return redactURL(err)
}

// notFoundHint says what a 404 from listing a workflow's runs means:
// GitHub knows a workflow only once its file is on the default branch,
// and answers 404 rather than 403 to a token that may not read Actions.
func notFoundHint(err error, src artifactSource) string {
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusNotFound {
		return ""
	}
	return fmt.Sprintf(" (GitHub knows no workflow %s in %s/%s: its file is not on the default branch yet, or the token lacks actions: read)", src.Workflow, src.Owner, src.Repo)
}

// redactURL drops the query of a URL in a transport error: a signed
// archive URL is a credential for a minute.
func redactURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			u.RawQuery = ""
			return fmt.Errorf("%s %s: %w", ue.Op, u.String(), ue.Err)
		}
	}
	return err
}

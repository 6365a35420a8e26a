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
	"slices"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/benchgate/benchgate/internal/fsutil"
)

// Limits of the downloads: a baseline is summaries and suite files, far
// below these; an archive beyond them is not read. maxLookbackBytes bounds
// all the runs of one step together (each archive and what it unpacks to
// count), so history-runs times a large artifact cannot fill the disk.
const (
	maxArchiveBytes   = 2 << 30
	maxLookbackBytes  = 2 << 30
	maxArchiveEntries = 100000
	maxRunPages       = 5 // of 30 runs: how far back the base branch is searched
	maxArtifactPages  = 10
)

// DefaultLookbackEvents are the events whose runs a base-branch baseline
// or history is taken from when the user names none: a push to the branch
// is the branch's own code, run with the base repository's workflow.
var DefaultLookbackEvents = []string{"push"}

// LookbackEvents are the events a user may name for baseline-events. Left
// out on purpose: pull_request_target and workflow_run runs carry the base
// branch's name while they may have run a fork's code.
var LookbackEvents = []string{"push", "schedule", "workflow_dispatch", "merge_group", "release", "pull_request"}

// artifactSource says which artifact of which earlier workflow runs to
// download: the newest completed runs of one workflow on one branch of
// the repository itself, started by one of the trusted events.
type artifactSource struct {
	API, Token, Owner, Repo string
	// Workflow is the workflow file's name ("bench.yml").
	Workflow string
	Branch   string
	// Events are the events whose runs count (DefaultLookbackEvents when
	// empty).
	Events []string
	// SkipRunID is the current run, never its own baseline.
	SkipRunID int64
	// Match says whether an artifact name is the one wanted.
	Match func(name string) bool
	// Want is how many runs' artifacts to download (newest first).
	Want int
	// Dest receives one folder per run, named run-<id>.
	Dest string
	// Budget bounds the bytes of all archives and their files together
	// (maxLookbackBytes when 0).
	Budget int64
	HTTP   *http.Client
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
// Want of them. Only the repository's own runs count: a pull request
// from a fork may name its branch like the base branch, and its run's
// artifact must never become anyone's baseline, so a run whose event is
// not one of src.Events, whose head commit came from another repository,
// or whose branch is another is skipped. notes say what was passed over
// and why (skipped runs, expired artifacts, runs without one); they hold
// text from the API and from archives, for printing escaped. An error
// means nothing could be looked up (no token, a workflow or branch the API
// does not know): the caller reports it as a missing baseline, never as a
// failure of the step.
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
	if len(src.Events) == 0 {
		src.Events = DefaultLookbackEvents
	}
	if src.Budget <= 0 {
		src.Budget = maxLookbackBytes
	}
	budget := src.Budget
	opts := &github.ListWorkflowRunsOptions{Branch: src.Branch, Status: "completed", ListOptions: github.ListOptions{PerPage: 30}}
	if len(src.Events) == 1 {
		// GitHub filters by one event; with several, runs are filtered here.
		opts.Event = src.Events[0]
	}
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
			if why := skipReason(run, src); why != "" {
				notes = append(notes, fmt.Sprintf("run %d (#%d) skipped: %s", run.GetID(), run.GetRunNumber(), why))
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
			used, err := fetchArchive(ctx, gh, hc, src, art.GetID(), dir, budget)
			budget -= used
			if err != nil {
				os.RemoveAll(dir)
				notes = append(notes, fmt.Sprintf("run %d (#%d): artifact %s: %v", run.GetID(), run.GetRunNumber(), art.GetName(), err))
				if budget <= 0 {
					notes = append(notes, fmt.Sprintf("the downloads reached %d bytes in all; no further run is read", src.Budget))
					return got, notes, nil
				}
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

// skipReason says why a listed run is not the repository's own run of the
// branch by a trusted event, "" when it is. The API's branch and event
// filters are asked for too, but the decision is made here, on what the
// run itself says: its head repository must be the repository (same ID
// and name), since a fork's branch may carry any name.
func skipReason(run *github.WorkflowRun, src artifactSource) string {
	repo := src.Owner + "/" + src.Repo
	head, base := run.GetHeadRepository(), run.GetRepository()
	switch {
	case !slices.Contains(src.Events, run.GetEvent()):
		return fmt.Sprintf("started by %s, not %s", orDefault(run.GetEvent(), "an unnamed event"), strings.Join(src.Events, " or "))
	case head == nil:
		return "the run names no head repository"
	case !strings.EqualFold(head.GetFullName(), repo) || (base != nil && head.GetID() != base.GetID()):
		return fmt.Sprintf("its head commit came from %s, not %s", head.GetFullName(), repo)
	case run.GetHeadBranch() != src.Branch:
		return fmt.Sprintf("branch %s, not %s", run.GetHeadBranch(), src.Branch)
	case run.GetStatus() != "completed":
		return "not completed"
	}
	return ""
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
//
// budget is what the archive and its files may take together; used is
// what they took (kept on disk, or read before a limit stopped them).
func fetchArchive(ctx context.Context, gh *github.Client, hc *http.Client, src artifactSource, id int64, dir string, budget int64) (used int64, err error) {
	loc, resp, err := gh.Actions.DownloadArtifact(ctx, src.Owner, src.Repo, id, 1)
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusGone {
			return 0, errors.New("expired (410 Gone)")
		}
		return 0, apiError(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc.String(), nil)
	if err != nil {
		return 0, err
	}
	plain := &http.Client{Timeout: hc.Timeout, Transport: hc.Transport}
	res, err := plain.Do(req)
	if err != nil {
		return 0, fmt.Errorf("archive download: %w", redactURL(err))
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("archive download: %s", res.Status)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dir), ".archive-*.zip")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	limit := min(int64(maxArchiveBytes), budget)
	n, err := io.Copy(tmp, io.LimitReader(res.Body, limit+1))
	if err != nil {
		return n, fmt.Errorf("archive download: %w", err)
	}
	if n > limit {
		return n, fmt.Errorf("archive larger than %d bytes", limit)
	}
	unpacked, err := unzipArchive(tmp, n, dir, min(int64(maxArchiveBytes), budget-n))
	return n + unpacked, err
}

// unzipArchive unpacks regular files only, below dir: an entry with an
// absolute path, a ".." step or a link is left out, so an artifact cannot
// write outside its folder or plant a link for a later reader.
// Its files may take limit bytes in all; total is what they took.
func unzipArchive(r io.ReaderAt, size int64, dir string, limit int64) (total int64, err error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return 0, fmt.Errorf("not a zip archive: %w", err)
	}
	if len(zr.File) > maxArchiveEntries {
		return 0, fmt.Errorf("archive has %d entries, more than %d", len(zr.File), maxArchiveEntries)
	}
	for _, f := range zr.File {
		name := f.Name
		clean := path.Clean("/" + name)[1:]
		if name == "" || strings.HasSuffix(name, "/") || !f.Mode().IsRegular() || clean != name || strings.Contains(name, `\`) {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return total, fmt.Errorf("%q: %w", name, err)
		}
		out, err := fsutil.CreateIn(dir, filepath.Join(dir, filepath.FromSlash(clean)))
		if err != nil {
			rc.Close()
			return total, fmt.Errorf("%q: %w", name, err)
		}
		n, err := io.Copy(out, io.LimitReader(rc, limit-total+1))
		rc.Close()
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		total += n
		if err != nil {
			return total, fmt.Errorf("%q: %w", name, err)
		}
		if total > limit {
			return total, fmt.Errorf("archive unpacks to more than %d bytes", limit)
		}
	}
	return total, nil
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

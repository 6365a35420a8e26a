package ghfake

import (
	"archive/zip"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// WorkflowRun is a workflow run as the fake stores it. Runs and their
// artifacts are what a job on a pull request downloads its baseline from.
type WorkflowRun struct {
	ID int64
	// Workflow is the workflow file's path, ".github/workflows/bench.yml".
	Workflow   string
	HeadBranch string
	HeadSHA    string
	Event      string // push, pull_request, ...
	// HeadRepository is the full name (owner/name) of the repository the
	// run's head commit came from: a fork's for a pull request from a
	// fork; "" is the fake's own repository.
	HeadRepository string
	Status         string // completed, in_progress, queued
	Conclusion     string // success, failure, ... ("" until completed)
	RunNumber      int
	CreatedAt      time.Time
}

// Artifact is a stored artifact: its zip and whether it has expired.
type Artifact struct {
	ID        int64
	RunID     int64
	Name      string
	Zip       []byte
	Expired   bool
	CreatedAt time.Time
}

// archiveURLTTL is how long the signed archive URL a download redirects
// to stays valid; GitHub documents one minute.
const archiveURLTTL = time.Minute

// AddRun stores a workflow run and returns its ID (assigned when 0).
func (s *Server) AddRun(r WorkflowRun) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.ID == 0 {
		r.ID = int64(1000 + len(s.runs))
	}
	if r.Status == "" {
		r.Status = "completed"
	}
	if r.Status == "completed" && r.Conclusion == "" {
		r.Conclusion = "success"
	}
	if r.RunNumber == 0 {
		r.RunNumber = len(s.runs) + 1
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(len(s.runs)) * time.Hour)
	}
	rc := r
	s.runs = append(s.runs, &rc)
	return r.ID
}

// CompleteRun marks a run completed with conclusion, as GitHub does when
// its last job ends; until then the run is listed but never completed.
func (s *Server) CompleteRun(id int64, conclusion string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		if r.ID == id {
			r.Status, r.Conclusion = "completed", conclusion
			return
		}
	}
	panic(fmt.Sprintf("ghfake: no run %d", id))
}

// AddArtifact stores an artifact of run holding files (path -> content),
// zipped as upload-artifact zips them, and returns its ID.
func (s *Server) AddArtifact(runID int64, name string, files map[string]string, expired bool) int64 {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			panic(err)
		}
		w.Write([]byte(files[n]))
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return s.AddArtifactZip(runID, name, buf.Bytes(), expired)
}

// AddArtifactZip stores an artifact whose archive is exactly b (to test
// what a reader does with a hostile zip).
func (s *Server) AddArtifactZip(runID int64, name string, b []byte, expired bool) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &Artifact{ID: int64(5000 + len(s.artifacts)), RunID: runID, Name: name, Zip: b, Expired: expired,
		CreatedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(len(s.artifacts)) * time.Minute)}
	s.artifacts = append(s.artifacts, a)
	return a.ID
}

// ArchiveDownloads lists the IDs of the artifacts whose archive was
// served, in order.
func (s *Server) ArchiveDownloads() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int64(nil), s.archiveDownloads...)
}

func (s *Server) artifactRoutes(mux *http.ServeMux, p string) {
	mux.HandleFunc("GET "+p+"/actions/workflows/{workflow}/runs", s.listWorkflowRuns)
	mux.HandleFunc("GET "+p+"/actions/runs/{run}/artifacts", s.listRunArtifacts)
	mux.HandleFunc("GET "+p+"/actions/artifacts", s.listRepoArtifacts)
	mux.HandleFunc("GET "+p+"/actions/artifacts/{id}/{format}", s.downloadArtifact)
	mux.HandleFunc("GET "+blobPrefix+"{id}", s.serveArchive)
}

// blobPrefix is where the signed archive URLs point: outside the API, as
// GitHub's point at blob storage.
const blobPrefix = "/_blob/artifacts/"

// page reads per_page (default 30, at most 100) and page (default 1) and
// answers 422 for values that are not numbers, as GitHub does.
func page(w http.ResponseWriter, r *http.Request) (per, pg int, ok bool) {
	per, pg = 30, 1
	q := r.URL.Query()
	if v := q.Get("per_page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			writeErr(w, http.StatusUnprocessableEntity, "per_page must be a positive integer", nil)
			return 0, 0, false
		}
		per = min(n, 100)
	}
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			writeErr(w, http.StatusUnprocessableEntity, "page must be a positive integer", nil)
			return 0, 0, false
		}
		pg = n
	}
	return per, pg, true
}

// paginate cuts one page out of n items and sets the Link header GitHub
// sends (next and last), which clients follow.
func paginate(w http.ResponseWriter, r *http.Request, n, per, pg int) (lo, hi int) {
	last := max(1, (n+per-1)/per)
	link := func(p int, rel string) string {
		u := *r.URL
		u.Scheme, u.Host = "http", r.Host
		q := u.Query()
		q.Set("per_page", strconv.Itoa(per))
		q.Set("page", strconv.Itoa(p))
		u.RawQuery = q.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if pg < last {
		links = append(links, link(pg+1, "next"), link(last, "last"))
	}
	if pg > 1 {
		links = append(links, link(1, "first"), link(pg-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo = min((pg-1)*per, n)
	return lo, min(lo+per, n)
}

func (s *Server) runJSON(r *http.Request, run *WorkflowRun) map[string]any {
	return map[string]any{
		"id": run.ID, "name": strings.TrimSuffix(path.Base(run.Workflow), path.Ext(run.Workflow)), "path": run.Workflow,
		"head_branch": run.HeadBranch, "head_sha": run.HeadSHA, "event": run.Event, "status": run.Status,
		"conclusion": nullIfEmpty(run.Conclusion), "run_number": run.RunNumber, "workflow_id": workflowID(run.Workflow),
		"created_at": run.CreatedAt.Format(time.RFC3339), "updated_at": run.CreatedAt.Format(time.RFC3339),
		"repository":      s.repoJSON(s.Owner + "/" + s.Repo),
		"head_repository": s.repoJSON(orRef(run.HeadRepository, s.Owner+"/"+s.Repo)),
		"url":             s.url(r, "actions/runs/"+strconv.FormatInt(run.ID, 10)),
		"artifacts_url":   s.url(r, "actions/runs/"+strconv.FormatInt(run.ID, 10)+"/artifacts"),
	}
}

// repoJSON is the minimal repository object GitHub nests in a run: a
// fork has its own ID and full name, and fork set.
func (s *Server) repoJSON(fullName string) map[string]any {
	owner, name, _ := strings.Cut(fullName, "/")
	h := sha256.Sum256([]byte(strings.ToLower(fullName)))
	return map[string]any{
		"id": int64(h[0])<<16 | int64(h[1])<<8 | int64(h[2]) + 1000000, "name": name, "full_name": fullName,
		"owner": map[string]any{"login": owner}, "fork": !strings.EqualFold(fullName, s.Owner+"/"+s.Repo),
	}
}

func nullIfEmpty(v string) any {
	if v == "" {
		return nil
	}
	return v
}

// workflowID is a stable numeric ID for a workflow file.
func workflowID(file string) int64 {
	h := sha256.Sum256([]byte(file))
	return int64(h[0])<<16 | int64(h[1])<<8 | int64(h[2]) + 100000
}

// listWorkflowRuns is "List workflow runs for a workflow": the workflow is
// its numeric ID or its file name; branch, event and status filter
// (status takes a status or a conclusion); newest first.
func (s *Server) listWorkflowRuns(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	per, pg, ok := page(w, r)
	if !ok {
		return
	}
	wf := r.PathValue("workflow")
	q := r.URL.Query()
	s.mu.Lock()
	var match []*WorkflowRun
	known := false
	for _, run := range s.runs {
		if path.Base(run.Workflow) != wf && strconv.FormatInt(workflowID(run.Workflow), 10) != wf {
			continue
		}
		known = true
		if b := q.Get("branch"); b != "" && run.HeadBranch != b {
			continue
		}
		if e := q.Get("event"); e != "" && run.Event != e {
			continue
		}
		if st := q.Get("status"); st != "" && run.Status != st && run.Conclusion != st {
			continue
		}
		match = append(match, run)
	}
	s.mu.Unlock()
	if !known {
		writeErr(w, http.StatusNotFound, "Not Found", nil)
		return
	}
	sort.SliceStable(match, func(i, j int) bool { return match[i].CreatedAt.After(match[j].CreatedAt) })
	lo, hi := paginate(w, r, len(match), per, pg)
	out := []map[string]any{}
	for _, run := range match[lo:hi] {
		out = append(out, s.runJSON(r, run))
	}
	writeJSON(w, 200, map[string]any{"total_count": len(match), "workflow_runs": out})
}

func (s *Server) artifactJSON(r *http.Request, a *Artifact) map[string]any {
	run := s.runByID(a.RunID)
	wr := map[string]any{"id": a.RunID}
	if run != nil {
		wr["head_branch"], wr["head_sha"] = run.HeadBranch, run.HeadSHA
	}
	id := strconv.FormatInt(a.ID, 10)
	return map[string]any{
		"id": a.ID, "node_id": "MDg6QXJ0aWZhY3Q" + id, "name": a.Name, "size_in_bytes": len(a.Zip),
		"url": s.url(r, "actions/artifacts/"+id), "archive_download_url": s.url(r, "actions/artifacts/"+id+"/zip"),
		"expired": a.Expired, "created_at": a.CreatedAt.Format(time.RFC3339),
		"expires_at": a.CreatedAt.Add(90 * 24 * time.Hour).Format(time.RFC3339), "updated_at": a.CreatedAt.Format(time.RFC3339),
		"workflow_run": wr,
	}
}

// runByID finds a run. Called with mu held.
func (s *Server) runByID(id int64) *WorkflowRun {
	for _, run := range s.runs {
		if run.ID == id {
			return run
		}
	}
	return nil
}

func (s *Server) listArtifacts(w http.ResponseWriter, r *http.Request, keep func(*Artifact) bool) {
	per, pg, ok := page(w, r)
	if !ok {
		return
	}
	name := r.URL.Query().Get("name")
	s.mu.Lock()
	defer s.mu.Unlock()
	var match []*Artifact
	for _, a := range s.artifacts {
		if keep(a) && (name == "" || a.Name == name) {
			match = append(match, a)
		}
	}
	sort.SliceStable(match, func(i, j int) bool { return match[i].CreatedAt.After(match[j].CreatedAt) })
	lo, hi := paginate(w, r, len(match), per, pg)
	out := []map[string]any{}
	for _, a := range match[lo:hi] {
		out = append(out, s.artifactJSON(r, a))
	}
	writeJSON(w, 200, map[string]any{"total_count": len(match), "artifacts": out})
}

// listRunArtifacts is "List workflow run artifacts"; 404 for a run the
// repository does not have.
func (s *Server) listRunArtifacts(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("run"), 10, 64)
	s.mu.Lock()
	run := s.runByID(id)
	s.mu.Unlock()
	if err != nil || run == nil {
		writeErr(w, http.StatusNotFound, "Not Found", nil)
		return
	}
	s.listArtifacts(w, r, func(a *Artifact) bool { return a.RunID == id })
}

// listRepoArtifacts is "List artifacts for a repository".
func (s *Server) listRepoArtifacts(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	s.listArtifacts(w, r, func(*Artifact) bool { return true })
}

// downloadArtifact is "Download an artifact": 302 to a signed archive
// URL valid for a minute; 410 Gone for an expired artifact; 404 for an
// unknown one or an archive format other than zip.
func (s *Server) downloadArtifact(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	var a *Artifact
	for _, x := range s.artifacts {
		if x.ID == id {
			a = x
		}
	}
	s.mu.Unlock()
	if err != nil || a == nil || r.PathValue("format") != "zip" {
		writeErr(w, http.StatusNotFound, "Not Found", nil)
		return
	}
	if a.Expired {
		writeErr(w, http.StatusGone, "Artifact has expired", nil)
		return
	}
	exp := s.now().Add(archiveURLTTL).Unix()
	u := url.URL{Scheme: "http", Host: r.Host, Path: blobPrefix + strconv.FormatInt(id, 10)}
	u.RawQuery = url.Values{"se": {strconv.FormatInt(exp, 10)}, "sig": {s.sign(id, exp)}}.Encode()
	w.Header().Set("Location", u.String())
	w.WriteHeader(http.StatusFound)
}

func (s *Server) sign(id, exp int64) string {
	m := hmac.New(sha256.New, []byte("ghfake-blob-key:"+s.Token))
	fmt.Fprintf(m, "%d:%d", id, exp)
	return hex.EncodeToString(m.Sum(nil))
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// serveArchive plays blob storage: the signature and expiry in the URL
// are the credential, and a request that also carries an Authorization
// header is refused (400), as Azure storage refuses one, so a client that
// forwards the GitHub token to the archive host fails here too.
func (s *Server) serveArchive(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "" {
		http.Error(w, "InvalidAuthenticationInfo: Authentication information is not given in the correct format.", http.StatusBadRequest)
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	exp, err2 := strconv.ParseInt(r.URL.Query().Get("se"), 10, 64)
	if err != nil || err2 != nil || !hmac.Equal([]byte(r.URL.Query().Get("sig")), []byte(s.sign(id, exp))) {
		http.Error(w, "AuthenticationFailed: Signature did not match.", http.StatusForbidden)
		return
	}
	if s.now().Unix() > exp {
		http.Error(w, "AuthenticationFailed: Signed expiry time has passed.", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	var a *Artifact
	for _, x := range s.artifacts {
		if x.ID == id {
			a = x
		}
	}
	if a != nil {
		s.archiveDownloads = append(s.archiveDownloads, id)
	}
	s.mu.Unlock()
	if a == nil {
		http.Error(w, "BlobNotFound", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Length", strconv.Itoa(len(a.Zip)))
	w.Write(a.Zip)
}

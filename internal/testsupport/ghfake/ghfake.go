// Package ghfake is a stateful fake of the parts of the GitHub REST API that
// benchgate uses: repositories, git refs, blobs, trees, commits, pull
// requests and issue labels (qa-audit's pull requests), and workflow runs
// with their artifacts (the Action's baseline download). It keeps real
// state (a second run sees what the first one created) and answers like GitHub does: 404 for
// unknown objects, 422 for invalid payloads, duplicated refs or duplicated
// pull requests, 401 without the expected token. Tests drive it with the real
// go-github client, so a request shape that GitHub would reject fails here too.
package ghfake

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Pull is a pull request as the fake stores it.
type Pull struct {
	Number int
	Title  string
	Body   string
	Head   string // branch name in the same repository
	Base   string
	State  string
	Labels []string
	// HeadSHA is the head commit when the head branch is not in the fake
	// (a pull request from a fork); "" reads the branch.
	HeadSHA string
}

// Commit is a stored commit object.
type Commit struct {
	SHA     string
	Message string
	Tree    string
	Parents []string
}

// Server is the fake API. Create it with New; close it with Close.
type Server struct {
	*httptest.Server

	Owner, Repo   string
	DefaultBranch string
	Token         string // when set, every request must carry "Bearer <Token>"
	// ReadOnlyToken, when set, is also accepted, for reading only: a
	// request that writes gets 403, as the token of a pull request from
	// a fork does.
	ReadOnlyToken string
	// TokenLogin, when set, makes Token a user's token (GET /user answers
	// this login, comments carry it); otherwise Token is a workflow's
	// installation token: GET /user answers 403 and its comments are
	// github-actions[bot]'s.
	TokenLogin string
	// users are the tokens of accounts without write access (AddUser).
	users map[string]string

	mu      sync.Mutex
	blobs   map[string][]byte
	trees   map[string]map[string]string // tree sha -> path -> blob sha
	commits map[string]Commit
	refs    map[string]string // "heads/main" -> commit sha
	pulls   []*Pull
	calls   []string

	// Now is the fake's clock for signed archive URLs; nil is time.Now.
	Now              func() time.Time
	runs             []*WorkflowRun
	artifacts        []*Artifact
	archiveDownloads []int64
	comments         []*IssueComment
	deletedComments  int
	issues           []*Issue
}

// New starts a fake repository owner/repo whose default branch holds files.
func New(owner, repo, defaultBranch, token string, files map[string]string) *Server {
	s := &Server{
		Owner: owner, Repo: repo, DefaultBranch: defaultBranch, Token: token,
		blobs:   map[string][]byte{},
		trees:   map[string]map[string]string{},
		commits: map[string]Commit{},
		refs:    map[string]string{},
		users:   map[string]string{},
	}
	entries := map[string]string{}
	for p, c := range files {
		entries[p] = s.putBlob([]byte(c))
	}
	tree := s.putTree(entries)
	c := s.putCommit("initial commit", tree, nil)
	s.refs["heads/"+defaultBranch] = c
	s.Server = httptest.NewServer(s.routes())
	return s
}

// BaseURL is the URL to give go-github's Client.BaseURL (with trailing slash).
func (s *Server) BaseURL() string { return s.Server.URL + "/api-v3/" }

func hash(kind string, data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

func (s *Server) putBlob(b []byte) string {
	sha := hash("blob", b)
	s.blobs[sha] = append([]byte(nil), b...)
	return sha
}

func (s *Server) putTree(entries map[string]string) string {
	paths := make([]string, 0, len(entries))
	for p := range entries {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var sb strings.Builder
	for _, p := range paths {
		sb.WriteString(p + "\x00" + entries[p] + "\n")
	}
	sha := hash("tree", []byte(sb.String()))
	cp := make(map[string]string, len(entries))
	for k, v := range entries {
		cp[k] = v
	}
	s.trees[sha] = cp
	return sha
}

func (s *Server) putCommit(msg, tree string, parents []string) string {
	sha := hash("commit", []byte(msg+"\x00"+tree+"\x00"+strings.Join(parents, ",")+"\x00"+strconv.Itoa(len(s.commits))))
	s.commits[sha] = Commit{SHA: sha, Message: msg, Tree: tree, Parents: parents}
	return sha
}

// File returns the content of path at the tip of branch, and whether it exists.
func (s *Server) File(branch, path string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.commits[s.refs["heads/"+branch]]
	if !ok {
		return "", false
	}
	b, ok := s.trees[c.Tree][path]
	if !ok {
		return "", false
	}
	return string(s.blobs[b]), true
}

// Branch returns the commit sha a branch points to ("" when absent).
func (s *Server) Branch(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refs["heads/"+name]
}

// Commit returns a stored commit.
func (s *Server) Commit(sha string) (Commit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.commits[sha]
	return c, ok
}

// Pulls returns a copy of all pull requests.
func (s *Server) Pulls() []Pull {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Pull, 0, len(s.pulls))
	for _, p := range s.pulls {
		cp := *p
		cp.Labels = append([]string(nil), p.Labels...)
		out = append(out, cp)
	}
	return out
}

// Calls returns "METHOD path" for every request received, in order.
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	p := "/api-v3/repos/{owner}/{repo}"
	mux.HandleFunc("GET "+p, s.getRepo)
	mux.HandleFunc("GET "+p+"/git/ref/{ref...}", s.getRef)
	mux.HandleFunc("POST "+p+"/git/refs", s.createRef)
	mux.HandleFunc("PATCH "+p+"/git/refs/{ref...}", s.updateRef)
	mux.HandleFunc("GET "+p+"/git/blobs/{sha}", s.getBlob)
	mux.HandleFunc("POST "+p+"/git/blobs", s.createBlob)
	mux.HandleFunc("GET "+p+"/git/trees/{sha}", s.getTree)
	mux.HandleFunc("POST "+p+"/git/trees", s.createTree)
	mux.HandleFunc("GET "+p+"/git/commits/{sha}", s.getCommit)
	mux.HandleFunc("POST "+p+"/git/commits", s.createCommit)
	mux.HandleFunc("GET "+p+"/pulls", s.listPulls)
	mux.HandleFunc("POST "+p+"/pulls", s.createPull)
	mux.HandleFunc("PATCH "+p+"/pulls/{number}", s.editPull)
	mux.HandleFunc("POST "+p+"/issues/{number}/labels", s.addLabels)
	s.issueRoutes(mux, p)
	mux.HandleFunc("GET /api-v3/user", s.getUser)
	s.artifactRoutes(mux, p)
	s.commentRoutes(mux, p)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.calls = append(s.calls, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		// The signed archive URLs carry their own credential.
		blob := strings.HasPrefix(r.URL.Path, blobPrefix)
		auth := r.Header.Get("Authorization")
		readOnly := s.ReadOnlyToken != "" && auth == "Bearer "+s.ReadOnlyToken
		s.mu.Lock()
		_, user := s.users[strings.TrimPrefix(auth, "Bearer ")]
		s.mu.Unlock()
		if !blob && s.Token != "" && auth != "Bearer "+s.Token && !readOnly && !user {
			writeErr(w, http.StatusUnauthorized, "Bad credentials", nil)
			return
		}
		if readOnly && r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeErr(w, http.StatusForbidden, "Resource not accessible by integration", nil)
			return
		}
		// An account without write access may comment and edit its own
		// comments (checked by editComment), nothing else.
		commenting := r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/comments") || r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/issues/comments/")
		if user && r.Method != http.MethodGet && r.Method != http.MethodHead && !commenting {
			writeErr(w, http.StatusForbidden, "Must have admin rights to Repository.", nil)
			return
		}
		if _, pattern := mux.Handler(r); pattern == "" {
			writeErr(w, http.StatusNotFound, "Not Found", nil)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

type fieldErr struct {
	Resource string `json:"resource,omitempty"`
	Field    string `json:"field,omitempty"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

func writeErr(w http.ResponseWriter, code int, msg string, errs []fieldErr) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	body := map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest"}
	if len(errs) > 0 {
		body["errors"] = errs
	}
	json.NewEncoder(w).Encode(body)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// repoOK answers 404 for any repository other than the fake's own.
func (s *Server) repoOK(w http.ResponseWriter, r *http.Request) bool {
	if r.PathValue("owner") != s.Owner || r.PathValue("repo") != s.Repo {
		writeErr(w, http.StatusNotFound, "Not Found", nil)
		return false
	}
	return true
}

// decode reads a strict JSON body: unknown fields are a 422, as a payload
// GitHub would not understand must not pass silently.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeErr(w, http.StatusUnprocessableEntity, "Problems parsing JSON: "+err.Error(), nil)
		return false
	}
	return true
}

func (s *Server) url(r *http.Request, rest string) string {
	return "http://" + r.Host + "/api-v3/repos/" + s.Owner + "/" + s.Repo + "/" + rest
}

func (s *Server) getRepo(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	writeJSON(w, 200, map[string]any{
		"name": s.Repo, "full_name": s.Owner + "/" + s.Repo,
		"owner":          map[string]any{"login": s.Owner},
		"default_branch": s.DefaultBranch,
	})
}

func (s *Server) refJSON(r *http.Request, ref, sha string) map[string]any {
	return map[string]any{
		"ref": "refs/" + ref, "url": s.url(r, "git/refs/"+ref),
		"object": map[string]any{"type": "commit", "sha": sha, "url": s.url(r, "git/commits/"+sha)},
	}
}

func (s *Server) getRef(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	ref := r.PathValue("ref")
	s.mu.Lock()
	sha, ok := s.refs[ref]
	s.mu.Unlock()
	if !ok {
		writeErr(w, http.StatusNotFound, "Not Found", nil)
		return
	}
	writeJSON(w, 200, s.refJSON(r, ref, sha))
}

func (s *Server) createRef(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	var req struct {
		Ref *string `json:"ref"`
		SHA *string `json:"sha"`
	}
	if !decode(w, r, &req) {
		return
	}
	if req.Ref == nil || req.SHA == nil {
		writeErr(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"ref\" and \"sha\" are required.", nil)
		return
	}
	if !strings.HasPrefix(*req.Ref, "refs/") || strings.Count(*req.Ref, "/") < 2 {
		writeErr(w, http.StatusUnprocessableEntity, "Reference name must start with 'refs/' and have at least two slashes.", nil)
		return
	}
	ref := strings.TrimPrefix(*req.Ref, "refs/")
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.refs[ref]; ok {
		writeErr(w, http.StatusUnprocessableEntity, "Reference already exists", nil)
		return
	}
	if _, ok := s.commits[*req.SHA]; !ok {
		writeErr(w, http.StatusUnprocessableEntity, "Object does not exist", nil)
		return
	}
	s.refs[ref] = *req.SHA
	writeJSON(w, http.StatusCreated, s.refJSON(r, ref, *req.SHA))
}

// isAncestor reports whether anc is reachable from tip. Called with mu held.
func (s *Server) isAncestor(anc, tip string) bool {
	seen := map[string]bool{}
	stack := []string{tip}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c == anc {
			return true
		}
		if seen[c] {
			continue
		}
		seen[c] = true
		stack = append(stack, s.commits[c].Parents...)
	}
	return false
}

func (s *Server) updateRef(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	var req struct {
		SHA   *string `json:"sha"`
		Force *bool   `json:"force"`
	}
	if !decode(w, r, &req) {
		return
	}
	ref := r.PathValue("ref")
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.refs[ref]
	if !ok {
		writeErr(w, http.StatusUnprocessableEntity, "Reference does not exist", nil)
		return
	}
	if req.SHA == nil {
		writeErr(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"sha\" wasn't supplied.", nil)
		return
	}
	if _, ok := s.commits[*req.SHA]; !ok {
		writeErr(w, http.StatusUnprocessableEntity, "Object does not exist", nil)
		return
	}
	force := req.Force != nil && *req.Force
	if !force && !s.isAncestor(old, *req.SHA) {
		writeErr(w, http.StatusUnprocessableEntity, "Update is not a fast forward", nil)
		return
	}
	s.refs[ref] = *req.SHA
	writeJSON(w, 200, s.refJSON(r, ref, *req.SHA))
}

func (s *Server) getBlob(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	s.mu.Lock()
	b, ok := s.blobs[r.PathValue("sha")]
	s.mu.Unlock()
	if !ok {
		writeErr(w, http.StatusNotFound, "Not Found", nil)
		return
	}
	writeJSON(w, 200, map[string]any{"sha": r.PathValue("sha"), "content": string(b), "encoding": "utf-8", "size": len(b)})
}

func (s *Server) createBlob(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	var req struct {
		Content  *string `json:"content"`
		Encoding *string `json:"encoding"`
	}
	if !decode(w, r, &req) {
		return
	}
	if req.Content == nil {
		writeErr(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"content\" wasn't supplied.", nil)
		return
	}
	if req.Encoding != nil && *req.Encoding != "utf-8" {
		writeErr(w, http.StatusUnprocessableEntity, "only utf-8 blobs are supported by this fake", nil)
		return
	}
	s.mu.Lock()
	sha := s.putBlob([]byte(*req.Content))
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"sha": sha, "url": s.url(r, "git/blobs/"+sha)})
}

func (s *Server) treeJSON(r *http.Request, sha string, entries map[string]string) map[string]any {
	paths := make([]string, 0, len(entries))
	for p := range entries {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	list := make([]map[string]any, 0, len(paths))
	for _, p := range paths {
		list = append(list, map[string]any{"path": p, "mode": "100644", "type": "blob", "sha": entries[p], "size": len(s.blobs[entries[p]])})
	}
	return map[string]any{"sha": sha, "url": s.url(r, "git/trees/"+sha), "tree": list, "truncated": false}
}

func (s *Server) getTree(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.trees[r.PathValue("sha")]
	if !ok {
		writeErr(w, http.StatusNotFound, "Not Found", nil)
		return
	}
	writeJSON(w, 200, s.treeJSON(r, r.PathValue("sha"), t))
}

func (s *Server) createTree(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	var req struct {
		BaseTree string `json:"base_tree"`
		Tree     []struct {
			Path    *string `json:"path"`
			Mode    *string `json:"mode"`
			Type    *string `json:"type"`
			SHA     *string `json:"sha"`
			Content *string `json:"content"`
			Size    *int    `json:"size"`
			URL     *string `json:"url"`
		} `json:"tree"`
	}
	if !decode(w, r, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	entries := map[string]string{}
	if req.BaseTree != "" {
		base, ok := s.trees[req.BaseTree]
		if !ok {
			writeErr(w, http.StatusUnprocessableEntity, "Invalid tree info", []fieldErr{{Resource: "Tree", Field: "base_tree", Code: "invalid", Message: "base_tree is not a tree sha"}})
			return
		}
		for k, v := range base {
			entries[k] = v
		}
	}
	if req.Tree == nil {
		writeErr(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"tree\" wasn't supplied.", nil)
		return
	}
	for i, e := range req.Tree {
		if e.Path == nil || *e.Path == "" || strings.HasPrefix(*e.Path, "/") {
			writeErr(w, http.StatusUnprocessableEntity, fmt.Sprintf("tree.%d.path is invalid", i), nil)
			return
		}
		if e.Mode == nil || *e.Mode != "100644" && *e.Mode != "100755" {
			writeErr(w, http.StatusUnprocessableEntity, fmt.Sprintf("tree.%d.mode must be a file mode", i), nil)
			return
		}
		if e.Type == nil || *e.Type != "blob" {
			writeErr(w, http.StatusUnprocessableEntity, fmt.Sprintf("tree.%d.type must be blob", i), nil)
			return
		}
		switch {
		case e.Content != nil && e.SHA != nil:
			writeErr(w, http.StatusUnprocessableEntity, fmt.Sprintf("tree.%d: content and sha are exclusive", i), nil)
			return
		case e.Content != nil:
			entries[*e.Path] = s.putBlob([]byte(*e.Content))
		case e.SHA != nil:
			if _, ok := s.blobs[*e.SHA]; !ok {
				writeErr(w, http.StatusUnprocessableEntity, fmt.Sprintf("tree.%d.sha %s is not a blob", i, *e.SHA), nil)
				return
			}
			entries[*e.Path] = *e.SHA
		default:
			delete(entries, *e.Path)
		}
	}
	sha := s.putTree(entries)
	writeJSON(w, http.StatusCreated, s.treeJSON(r, sha, entries))
}

func (s *Server) commitJSON(r *http.Request, c Commit) map[string]any {
	parents := make([]map[string]any, 0, len(c.Parents))
	for _, p := range c.Parents {
		parents = append(parents, map[string]any{"sha": p, "url": s.url(r, "git/commits/"+p)})
	}
	return map[string]any{
		"sha": c.SHA, "url": s.url(r, "git/commits/"+c.SHA), "message": c.Message,
		"tree":    map[string]any{"sha": c.Tree, "url": s.url(r, "git/trees/"+c.Tree)},
		"parents": parents,
	}
}

func (s *Server) getCommit(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	s.mu.Lock()
	c, ok := s.commits[r.PathValue("sha")]
	s.mu.Unlock()
	if !ok {
		writeErr(w, http.StatusNotFound, "Not Found", nil)
		return
	}
	writeJSON(w, 200, s.commitJSON(r, c))
}

func (s *Server) createCommit(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	type person struct {
		Name  *string `json:"name"`
		Email *string `json:"email"`
		Date  *string `json:"date"`
		Login *string `json:"username"`
	}
	var req struct {
		Message   *string  `json:"message"`
		Tree      *string  `json:"tree"`
		Parents   []string `json:"parents"`
		Author    *person  `json:"author"`
		Committer *person  `json:"committer"`
		Signature *string  `json:"signature"`
	}
	if !decode(w, r, &req) {
		return
	}
	if req.Message == nil || req.Tree == nil {
		writeErr(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"message\" and \"tree\" are required.", nil)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.trees[*req.Tree]; !ok {
		writeErr(w, http.StatusUnprocessableEntity, "Tree SHA does not exist", nil)
		return
	}
	for _, p := range req.Parents {
		if _, ok := s.commits[p]; !ok {
			writeErr(w, http.StatusUnprocessableEntity, "Parent SHA does not exist or is not a commit object", nil)
			return
		}
	}
	sha := s.putCommit(*req.Message, *req.Tree, req.Parents)
	writeJSON(w, http.StatusCreated, s.commitJSON(r, s.commits[sha]))
}

func (s *Server) pullJSON(r *http.Request, p *Pull) map[string]any {
	labels := make([]map[string]any, 0, len(p.Labels))
	for _, l := range p.Labels {
		labels = append(labels, map[string]any{"name": l})
	}
	return map[string]any{
		"number": p.Number, "state": p.State, "title": p.Title, "body": p.Body,
		"html_url": "https://github.com/" + s.Owner + "/" + s.Repo + "/pull/" + strconv.Itoa(p.Number),
		"url":      s.url(r, "pulls/"+strconv.Itoa(p.Number)),
		"head":     map[string]any{"ref": p.Head, "label": s.Owner + ":" + p.Head, "sha": orRef(p.HeadSHA, s.refs["heads/"+p.Head])},
		"base":     map[string]any{"ref": p.Base, "label": s.Owner + ":" + p.Base},
		"labels":   labels,
	}
}

func (s *Server) listPulls(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	head := q.Get("head")
	if head != "" && !strings.Contains(head, ":") {
		writeErr(w, http.StatusUnprocessableEntity, "head must be in the format user:ref-name", nil)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []map[string]any{}
	for _, p := range s.pulls {
		if state != "all" && p.State != state {
			continue
		}
		if head != "" && head != s.Owner+":"+p.Head {
			continue
		}
		if b := q.Get("base"); b != "" && b != p.Base {
			continue
		}
		out = append(out, s.pullJSON(r, p))
	}
	writeJSON(w, 200, out)
}

func (s *Server) createPull(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	var req struct {
		Title               *string `json:"title"`
		Head                *string `json:"head"`
		HeadRepo            *string `json:"head_repo"`
		Base                *string `json:"base"`
		Body                *string `json:"body"`
		Issue               *int    `json:"issue"`
		MaintainerCanModify *bool   `json:"maintainer_can_modify"`
		Draft               *bool   `json:"draft"`
	}
	if !decode(w, r, &req) {
		return
	}
	if req.Title == nil || req.Head == nil || req.Base == nil {
		writeErr(w, http.StatusUnprocessableEntity, "Validation Failed", []fieldErr{{Resource: "PullRequest", Field: "title", Code: "missing_field"}})
		return
	}
	head := strings.TrimPrefix(*req.Head, s.Owner+":")
	s.mu.Lock()
	defer s.mu.Unlock()
	hs, ok := s.refs["heads/"+head]
	if !ok {
		writeErr(w, http.StatusUnprocessableEntity, "Validation Failed", []fieldErr{{Resource: "PullRequest", Field: "head", Code: "invalid"}})
		return
	}
	bs, ok := s.refs["heads/"+*req.Base]
	if !ok {
		writeErr(w, http.StatusUnprocessableEntity, "Validation Failed", []fieldErr{{Resource: "PullRequest", Field: "base", Code: "invalid"}})
		return
	}
	if hs == bs {
		writeErr(w, http.StatusUnprocessableEntity, "Validation Failed", []fieldErr{{Resource: "PullRequest", Code: "custom", Message: "No commits between " + *req.Base + " and " + head}})
		return
	}
	for _, p := range s.pulls {
		if p.State == "open" && p.Head == head && p.Base == *req.Base {
			writeErr(w, http.StatusUnprocessableEntity, "Validation Failed", []fieldErr{{Resource: "PullRequest", Code: "custom", Message: "A pull request already exists for " + s.Owner + ":" + head + "."}})
			return
		}
	}
	p := &Pull{Number: s.nextNumber(), Title: *req.Title, Head: head, Base: *req.Base, State: "open"}
	if req.Body != nil {
		p.Body = *req.Body
	}
	s.pulls = append(s.pulls, p)
	writeJSON(w, http.StatusCreated, s.pullJSON(r, p))
}

// pull finds a pull request by the {number} path value. Called with mu held.
func (s *Server) pull(w http.ResponseWriter, r *http.Request) *Pull {
	n, err := strconv.Atoi(r.PathValue("number"))
	for _, p := range s.pulls {
		if err == nil && p.Number == n {
			return p
		}
	}
	writeErr(w, http.StatusNotFound, "Not Found", nil)
	return nil
}

// nextNumber is the number of the next pull request or issue: on
// GitHub the two share one sequence. Called with mu held.
func (s *Server) nextNumber() int { return len(s.pulls) + len(s.issues) + 1 }

func (s *Server) editPull(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	var req struct {
		Title               *string `json:"title"`
		Body                *string `json:"body"`
		State               *string `json:"state"`
		Base                *string `json:"base"`
		MaintainerCanModify *bool   `json:"maintainer_can_modify"`
	}
	if !decode(w, r, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pull(w, r)
	if p == nil {
		return
	}
	if req.Title != nil {
		p.Title = *req.Title
	}
	if req.Body != nil {
		p.Body = *req.Body
	}
	if req.State != nil {
		if *req.State != "open" && *req.State != "closed" {
			writeErr(w, http.StatusUnprocessableEntity, "state must be open or closed", nil)
			return
		}
		p.State = *req.State
	}
	if req.Base != nil {
		p.Base = *req.Base
	}
	writeJSON(w, 200, s.pullJSON(r, p))
}

func (s *Server) addLabels(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	var labels []string
	if !decode(w, r, &labels) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pull(w, r)
	if p == nil {
		return
	}
	for _, l := range labels {
		found := false
		for _, have := range p.Labels {
			found = found || have == l
		}
		if !found {
			p.Labels = append(p.Labels, l)
		}
	}
	out := []map[string]any{}
	for _, l := range p.Labels {
		out = append(out, map[string]any{"name": l})
	}
	writeJSON(w, 200, out)
}

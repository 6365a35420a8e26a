package ghfake

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// IssueComment is a comment on an issue or pull request as the fake
// keeps it.
type IssueComment struct {
	ID      int64
	Issue   int
	Body    string
	Created time.Time
	Updated time.Time
	// Edits counts the times the body was changed.
	Edits int
	// Author is the login of the account that wrote it.
	Author string
}

// ActionsBot is the author of what a workflow's installation token
// (GITHUB_TOKEN) writes.
const ActionsBot = "github-actions[bot]"

// AddUser accepts token as the token of login, an account without write
// access to the repository: it may read, comment on pull requests, and
// edit its own comments; GET /user answers its login.
func (s *Server) AddUser(token, login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users[token] = login
}

// login is who a request's token belongs to, and whether it may write to
// the repository (and so edit anyone's comment, as a collaborator can).
func (s *Server) login(r *http.Request) (login string, write bool) {
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if u, ok := s.users[tok]; ok {
		return u, false
	}
	if s.ReadOnlyToken != "" && tok == s.ReadOnlyToken {
		return ActionsBot, false
	}
	if s.TokenLogin != "" {
		return s.TokenLogin, true
	}
	return ActionsBot, true
}

// getUser is "Get the authenticated user": a user's token gets its
// login; an installation token may not read it (403), as on GitHub.
func (s *Server) getUser(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	login, _ := s.login(r)
	s.mu.Unlock()
	if login == ActionsBot {
		writeErr(w, http.StatusForbidden, "Resource not accessible by integration", nil)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"login": login, "type": "User"})
}

func userType(login string) string {
	if strings.HasSuffix(login, "[bot]") {
		return "Bot"
	}
	return "User"
}

func orRef(sha, ref string) string {
	if sha != "" {
		return sha
	}
	return ref
}

// AddPull adds a pull request as if opened on GitHub (a fork's has a
// HeadSHA and a head branch the fake does not hold) and returns its
// number.
func (s *Server) AddPull(p Pull) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	p.Number = s.nextNumber()
	if p.State == "" {
		p.State = "open"
	}
	s.pulls = append(s.pulls, &p)
	return p.Number
}

// Comments returns the comments of issue or pull request n, oldest
// first.
func (s *Server) Comments(n int) []IssueComment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []IssueComment
	for _, c := range s.comments {
		if c.Issue == n {
			out = append(out, *c)
		}
	}
	return out
}

// AddComment adds a comment someone else (octocat) wrote to issue or
// pull request n and returns its ID.
func (s *Server) AddComment(n int, body string) int64 {
	return s.AddCommentBy(n, "octocat", body)
}

// AddCommentBy adds a comment login wrote to issue or pull request n and
// returns its ID.
func (s *Server) AddCommentBy(n int, login, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	c := &IssueComment{ID: int64(1000 + len(s.comments) + s.deletedComments), Issue: n, Body: body, Created: now, Updated: now, Author: login}
	s.comments = append(s.comments, c)
	return c.ID
}

// DeleteComment removes comment id, as a user who deletes it on the pull
// request does; a later comment never reuses its ID.
func (s *Server) DeleteComment(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range s.comments {
		if c.ID == id {
			s.comments = append(s.comments[:i], s.comments[i+1:]...)
			s.deletedComments++
			return
		}
	}
}

func (s *Server) commentRoutes(mux *http.ServeMux, p string) {
	mux.HandleFunc("GET "+p+"/pulls/{number}", s.getPull)
	mux.HandleFunc("GET "+p+"/issues/{number}/comments", s.listComments)
	mux.HandleFunc("POST "+p+"/issues/{number}/comments", s.createComment)
	mux.HandleFunc("PATCH "+p+"/issues/comments/{id}", s.editComment)
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pull(w, r); p != nil {
		writeJSON(w, http.StatusOK, s.pullJSON(r, p))
	}
}

func (s *Server) commentJSON(r *http.Request, c *IssueComment) map[string]any {
	return map[string]any{
		"id": c.ID, "body": c.Body,
		"html_url":   fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", s.Owner, s.Repo, c.Issue, c.ID),
		"url":        s.url(r, "issues/comments/"+strconv.FormatInt(c.ID, 10)),
		"issue_url":  s.url(r, "issues/"+strconv.Itoa(c.Issue)),
		"created_at": c.Created.UTC().Format(time.RFC3339), "updated_at": c.Updated.UTC().Format(time.RFC3339),
		"user": map[string]any{"login": c.Author, "type": userType(c.Author)},
	}
}

// listComments pages as GitHub does: per_page (default 30, at most
// 100), page from 1, and a Link header naming the next and last pages.
func (s *Server) listComments(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	q := r.URL.Query()
	per, page := 30, 1
	if v := q.Get("per_page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			writeErr(w, http.StatusUnprocessableEntity, "per_page must be a positive integer", nil)
			return
		}
		per = min(n, 100)
	}
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			writeErr(w, http.StatusUnprocessableEntity, "page must be a positive integer", nil)
			return
		}
		page = n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pull(w, r) == nil {
		return
	}
	n, _ := strconv.Atoi(r.PathValue("number"))
	var all []*IssueComment
	for _, c := range s.comments {
		if c.Issue == n {
			all = append(all, c)
		}
	}
	last := max(1, (len(all)+per-1)/per)
	out := []map[string]any{}
	for i := (page - 1) * per; i < len(all) && i < page*per; i++ {
		out = append(out, s.commentJSON(r, all[i]))
	}
	link := func(p int, rel string) string {
		return fmt.Sprintf(`<http://%s%s?per_page=%d&page=%d>; rel="%s"`, r.Host, r.URL.Path, per, p, rel)
	}
	if page < last {
		w.Header().Set("Link", link(page+1, "next")+", "+link(last, "last"))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	var req struct {
		Body *string `json:"body"`
	}
	if !decode(w, r, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pull(w, r) == nil {
		return
	}
	if !validBody(w, req.Body) {
		return
	}
	n, _ := strconv.Atoi(r.PathValue("number"))
	now := s.now()
	login, _ := s.login(r)
	c := &IssueComment{ID: int64(1000 + len(s.comments) + s.deletedComments), Issue: n, Body: *req.Body, Created: now, Updated: now, Author: login}
	s.comments = append(s.comments, c)
	writeJSON(w, http.StatusCreated, s.commentJSON(r, c))
}

func (s *Server) editComment(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	var req struct {
		Body *string `json:"body"`
	}
	if !decode(w, r, &req) {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	var c *IssueComment
	for _, x := range s.comments {
		if err == nil && x.ID == id {
			c = x
		}
	}
	if c == nil {
		writeErr(w, http.StatusNotFound, "Not Found", nil)
		return
	}
	if login, write := s.login(r); !write && login != c.Author {
		writeErr(w, http.StatusForbidden, "Resource not accessible by integration", nil)
		return
	}
	if !validBody(w, req.Body) {
		return
	}
	c.Body, c.Updated = *req.Body, s.now()
	c.Edits++
	writeJSON(w, http.StatusOK, s.commentJSON(r, c))
}

// validBody answers 422 as GitHub does for a comment body that is missing,
// empty or over 65,536 characters, and reports whether body is fine.
func validBody(w http.ResponseWriter, body *string) bool {
	switch {
	case body == nil || *body == "":
		writeErr(w, http.StatusUnprocessableEntity, "Validation Failed", []fieldErr{{Resource: "IssueComment", Field: "body", Code: "missing_field"}})
		return false
	case len([]rune(*body)) > 65536:
		writeErr(w, http.StatusUnprocessableEntity, "Validation Failed", []fieldErr{{Resource: "IssueComment", Field: "body", Code: "custom", Message: "Body is too long (maximum is 65536 characters)"}})
		return false
	}
	return true
}

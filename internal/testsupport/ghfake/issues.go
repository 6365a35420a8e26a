package ghfake

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Issue is an issue as the fake keeps it.
type Issue struct {
	Number int
	Title  string
	Body   string
	Labels []string
	// State is open or closed; StateReason is completed, not_planned or
	// reopened once set.
	State       string
	StateReason string
	Author      string
	Created     time.Time
	Updated     time.Time
	// Edits counts the changes of the body after creation.
	Edits int
}

// Issues returns a copy of every issue, by number.
func (s *Server) Issues() []Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Issue, 0, len(s.issues))
	for _, is := range s.issues {
		cp := *is
		cp.Labels = append([]string(nil), is.Labels...)
		out = append(out, cp)
	}
	return out
}

// AddIssue adds an issue as if someone (octocat, unless Author is set)
// opened it on GitHub, and returns its number.
func (s *Server) AddIssue(is Issue) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	is.Number = s.nextNumber()
	if is.State == "" {
		is.State = "open"
	}
	if is.Author == "" {
		is.Author = "octocat"
	}
	is.Created, is.Updated = s.now(), s.now()
	s.issues = append(s.issues, &is)
	return is.Number
}

// CloseIssue closes issue n as a person does on GitHub.
func (s *Server) CloseIssue(n int, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, is := range s.issues {
		if is.Number == n {
			is.State, is.StateReason, is.Updated = "closed", reason, s.now()
		}
	}
}

func (s *Server) issueRoutes(mux *http.ServeMux, p string) {
	mux.HandleFunc("GET "+p+"/issues", s.listIssues)
	mux.HandleFunc("POST "+p+"/issues", s.createIssue)
	mux.HandleFunc("GET "+p+"/issues/{number}", s.getIssue)
	mux.HandleFunc("PATCH "+p+"/issues/{number}", s.editIssue)
}

func (s *Server) issueJSON(r *http.Request, is *Issue) map[string]any {
	labels := make([]map[string]any, 0, len(is.Labels))
	for _, l := range is.Labels {
		labels = append(labels, map[string]any{"name": l})
	}
	out := map[string]any{
		"number": is.Number, "title": is.Title, "body": is.Body, "state": is.State, "labels": labels,
		"html_url":   fmt.Sprintf("https://github.com/%s/%s/issues/%d", s.Owner, s.Repo, is.Number),
		"url":        s.url(r, "issues/"+strconv.Itoa(is.Number)),
		"created_at": is.Created.UTC().Format(time.RFC3339), "updated_at": is.Updated.UTC().Format(time.RFC3339),
		"user": map[string]any{"login": is.Author, "type": userType(is.Author)},
	}
	if is.StateReason != "" {
		out["state_reason"] = is.StateReason
	}
	return out
}

// listIssues is "List repository issues": state open (the default),
// closed or all; labels a comma-separated list the issue must all carry;
// newest first; paged as GitHub pages (per_page default 30, at most
// 100, a Link header naming the next and last pages). Pull requests are
// issues too and are listed with a pull_request key, as GitHub lists
// them: a client must tell them apart.
func (s *Server) listIssues(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	q := r.URL.Query()
	state := q.Get("state")
	switch state {
	case "":
		state = "open"
	case "open", "closed", "all":
	default:
		writeErr(w, http.StatusUnprocessableEntity, "Validation Failed", []fieldErr{{Resource: "Issue", Field: "state", Code: "invalid"}})
		return
	}
	per, page, ok := paging(w, q.Get("per_page"), q.Get("page"))
	if !ok {
		return
	}
	var want []string
	if v := q.Get("labels"); v != "" {
		want = strings.Split(v, ",")
	}
	has := func(labels []string) bool {
		for _, l := range want {
			found := false
			for _, x := range labels {
				found = found || strings.EqualFold(x, strings.TrimSpace(l))
			}
			if !found {
				return false
			}
		}
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	type item struct {
		n    int
		json map[string]any
	}
	var all []item
	for _, is := range s.issues {
		if (state == "all" || is.State == state) && has(is.Labels) {
			all = append(all, item{is.Number, s.issueJSON(r, is)})
		}
	}
	for _, p := range s.pulls {
		if (state == "all" || p.State == state) && has(p.Labels) {
			j := s.pullJSON(r, p)
			j["pull_request"] = map[string]any{"url": s.url(r, "pulls/"+strconv.Itoa(p.Number))}
			delete(j, "head")
			delete(j, "base")
			all = append(all, item{p.Number, j})
		}
	}
	// Newest first, as GitHub sorts by default.
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && all[j].n > all[j-1].n; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	last := max(1, (len(all)+per-1)/per)
	out := []map[string]any{}
	for i := (page - 1) * per; i < len(all) && i < page*per; i++ {
		out = append(out, all[i].json)
	}
	if page < last {
		link := func(p int, rel string) string {
			v := r.URL.Query()
			v.Set("per_page", strconv.Itoa(per))
			v.Set("page", strconv.Itoa(p))
			return fmt.Sprintf(`<http://%s%s?%s>; rel="%s"`, r.Host, r.URL.Path, v.Encode(), rel)
		}
		w.Header().Set("Link", link(page+1, "next")+", "+link(last, "last"))
	}
	writeJSON(w, http.StatusOK, out)
}

// paging reads per_page and page as GitHub does.
func paging(w http.ResponseWriter, perS, pageS string) (per, page int, ok bool) {
	per, page = 30, 1
	if perS != "" {
		n, err := strconv.Atoi(perS)
		if err != nil || n < 1 {
			writeErr(w, http.StatusUnprocessableEntity, "per_page must be a positive integer", nil)
			return 0, 0, false
		}
		per = min(n, 100)
	}
	if pageS != "" {
		n, err := strconv.Atoi(pageS)
		if err != nil || n < 1 {
			writeErr(w, http.StatusUnprocessableEntity, "page must be a positive integer", nil)
			return 0, 0, false
		}
		page = n
	}
	return per, page, true
}

// issueRequest is the body of "Create an issue" and "Update an issue".
type issueRequest struct {
	Title       *string   `json:"title"`
	Body        *string   `json:"body"`
	Labels      *[]string `json:"labels"`
	Assignee    *string   `json:"assignee"`
	Assignees   *[]string `json:"assignees"`
	Milestone   *int      `json:"milestone"`
	State       *string   `json:"state"`
	StateReason *string   `json:"state_reason"`
	Type        *string   `json:"type"`
}

func (s *Server) createIssue(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	var req issueRequest
	if !decode(w, r, &req) {
		return
	}
	if req.Title == nil || strings.TrimSpace(*req.Title) == "" {
		writeErr(w, http.StatusUnprocessableEntity, "Validation Failed", []fieldErr{{Resource: "Issue", Field: "title", Code: "missing_field"}})
		return
	}
	if req.State != nil || req.StateReason != nil {
		writeErr(w, http.StatusUnprocessableEntity, "Problems parsing JSON: state is not a field of a new issue", nil)
		return
	}
	if !issueBodyOK(w, req.Body) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	login, _ := s.login(r)
	is := &Issue{Number: s.nextNumber(), Title: *req.Title, State: "open", Author: login, Created: s.now(), Updated: s.now()}
	if req.Body != nil {
		is.Body = *req.Body
	}
	if req.Labels != nil {
		is.Labels = append([]string(nil), *req.Labels...)
	}
	s.issues = append(s.issues, is)
	writeJSON(w, http.StatusCreated, s.issueJSON(r, is))
}

// issue finds an issue by the {number} path value. Called with mu held.
func (s *Server) issue(w http.ResponseWriter, r *http.Request) *Issue {
	n, err := strconv.Atoi(r.PathValue("number"))
	for _, is := range s.issues {
		if err == nil && is.Number == n {
			return is
		}
	}
	writeErr(w, http.StatusNotFound, "Not Found", nil)
	return nil
}

func (s *Server) getIssue(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if is := s.issue(w, r); is != nil {
		writeJSON(w, http.StatusOK, s.issueJSON(r, is))
	}
}

// editIssue is "Update an issue": the title, body and labels are
// replaced when given; state open or closed, state_reason completed,
// not_planned or reopened (and only with the state it fits).
func (s *Server) editIssue(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	var req issueRequest
	if !decode(w, r, &req) {
		return
	}
	if req.Title != nil && strings.TrimSpace(*req.Title) == "" {
		writeErr(w, http.StatusUnprocessableEntity, "Validation Failed", []fieldErr{{Resource: "Issue", Field: "title", Code: "missing_field"}})
		return
	}
	if req.Body != nil && !issueBodyOK(w, req.Body) {
		return
	}
	if req.State != nil && *req.State != "open" && *req.State != "closed" {
		writeErr(w, http.StatusUnprocessableEntity, "Validation Failed", []fieldErr{{Resource: "Issue", Field: "state", Code: "invalid"}})
		return
	}
	if req.StateReason != nil {
		ok := req.State != nil && (*req.State == "closed" && (*req.StateReason == "completed" || *req.StateReason == "not_planned") ||
			*req.State == "open" && *req.StateReason == "reopened")
		if !ok {
			writeErr(w, http.StatusUnprocessableEntity, "Validation Failed", []fieldErr{{Resource: "Issue", Field: "state_reason", Code: "invalid"}})
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.issue(w, r)
	if is == nil {
		return
	}
	if login, write := s.login(r); !write && login != is.Author {
		writeErr(w, http.StatusForbidden, "Resource not accessible by integration", nil)
		return
	}
	if req.Title != nil {
		is.Title = *req.Title
	}
	if req.Body != nil && *req.Body != is.Body {
		is.Body = *req.Body
		is.Edits++
	}
	if req.Labels != nil {
		is.Labels = append([]string(nil), *req.Labels...)
	}
	if req.State != nil {
		is.State = *req.State
		is.StateReason = ""
		if req.StateReason != nil {
			is.StateReason = *req.StateReason
		}
	}
	is.Updated = s.now()
	writeJSON(w, http.StatusOK, s.issueJSON(r, is))
}

// issueBodyOK answers 422 for a body over 65,536 characters, as GitHub
// does, and reports whether the body is fine (an issue may have none).
func issueBodyOK(w http.ResponseWriter, body *string) bool {
	if body != nil && len([]rune(*body)) > 65536 {
		writeErr(w, http.StatusUnprocessableEntity, "Validation Failed", []fieldErr{{Resource: "Issue", Field: "body", Code: "custom", Message: "body is too long (maximum is 65536 characters)"}})
		return false
	}
	return true
}

// Package driftissue keeps one GitHub issue per open change point of a
// drift analysis (package drift): opened when a change point is found,
// its body kept up to date as later runs refine the levels and the
// interval, and closed when a later change point of the same series
// undoes it. Each issue carries a hidden marker naming its change point,
// so a weekly run finds the issue an earlier run opened instead of
// opening a second one.
//
// The issue's text comes from benchmark data (scenario IDs, run IDs,
// commits read from artifacts): everything from the data is shown inert
// (no link, mention or HTML survives); the only links are the ones built
// here from commits that look like commits and the repository's own URL.
package driftissue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/benchgate/benchgate/internal/drift"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// DefaultLabel marks the issues this package keeps: they are listed by
// it, so it must stay on them.
const DefaultLabel = "benchgate-drift"

// maxBody keeps a body under GitHub's 65,536 characters.
const maxBody = 60000

// maxPages bounds the listing of labelled issues (100 a page).
const maxPages = 50

// markerPattern reads an issue's marker: the hash of its change point's
// ID, of its series (metric, mode, scenario) and its direction.
var markerPattern = regexp.MustCompile(`<!-- benchgate-drift id=([0-9a-f]{32}) series=([0-9a-f]{32}) dir=(worse|better) -->`)

// commitPattern is what a commit must look like to be linked.
var commitPattern = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

// Options say where the issues go.
type Options struct {
	Owner, Repo string
	// Label is the label every issue carries (DefaultLabel when empty).
	Label string
	// RepoURL is the repository's page ("https://github.com/owner/name"),
	// for links to commits; RunURL is this run's page.
	RepoURL, RunURL string
	// Now stamps the bodies; nil is time.Now.
	Now func() time.Time
}

// Action says what was done with one change point's issue.
type Action string

// What Sync does with an issue.
const (
	Opened    Action = "opened"
	Updated   Action = "updated"
	Unchanged Action = "unchanged"
	Closed    Action = "closed"
	// LeftClosed: the change point is still open, but a person closed its
	// issue; it is not reopened.
	LeftClosed Action = "left closed"
)

// Outcome is one change point's issue after Sync.
type Outcome struct {
	ChangePoint string // the change point's ID
	Number      int
	URL         string
	Action      Action
	// Moved names the change point the issue was about before, when a
	// later analysis placed the same change a run or two away.
	Moved string
}

// Result is what Sync did, newest change point first.
type Result struct {
	Issues []Outcome
	// Warnings say what could not be done for one issue; the others were
	// still kept.
	Warnings []string
}

// URLs are the issues opened or kept open, one per change point.
func (r *Result) URLs() []string {
	var out []string
	for _, o := range r.Issues {
		if o.Action == Opened || o.Action == Updated || o.Action == Unchanged {
			out = append(out, o.URL)
		}
	}
	return out
}

// For is the outcome of change point id, nil when it has no issue.
func (r *Result) For(id string) *Outcome {
	for i := range r.Issues {
		if r.Issues[i].ChangePoint == id {
			return &r.Issues[i]
		}
	}
	return nil
}

// kept is one issue Sync found with a marker.
type kept struct {
	issue          *github.Issue
	id, series     string
	worse, claimed bool
}

func hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:16])
}

func seriesKey(c drift.ChangePoint) string {
	return hash(c.Metric + "\x00" + c.Mode + "\x00" + c.Scenario)
}

// Marker is the hidden first line of a change point's issue.
func Marker(c drift.ChangePoint) string {
	dir := "better"
	if c.Worse {
		dir = "worse"
	}
	return fmt.Sprintf("<!-- benchgate-drift id=%s series=%s dir=%s -->", hash(c.ID), seriesKey(c), dir)
}

// Sync brings the labelled issues of the repository in line with rep:
//
//   - an open change point with no issue gets one;
//   - an open change point's issue gets the current figures (it is edited
//     only when they changed); one a person closed stays closed;
//   - a change point undone by a later one has its issue closed;
//   - a change point with no issue of its own takes over the open issue
//     of the same series and direction whose change point this analysis
//     no longer has (a provisional change placed again a run away, or the
//     same change seen from a history that starts later), instead of
//     opening a second issue for the same change; one a person closed
//     while its change was provisional stays closed and takes it over
//     too, rather than the change getting a second issue;
//
// Issues whose change point is not in rep and was not taken over are left
// as they are: the history may simply no longer reach back to them.
func Sync(ctx context.Context, gh *github.Client, rep *drift.Report, o Options) (*Result, error) {
	if o.Label == "" {
		o.Label = DefaultLabel
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	issues, err := list(ctx, gh, o)
	if err != nil {
		return nil, err
	}
	inReport := map[string]bool{}
	for _, c := range rep.ChangePoints {
		inReport[hash(c.ID)] = true
	}
	byID := map[string]*kept{}
	var orphans, closedOrphans []*kept
	for _, is := range issues {
		m := markerPattern.FindStringSubmatch(is.GetBody())
		if m == nil {
			continue
		}
		k := &kept{issue: is, id: m[1], series: m[2], worse: m[3] == "worse"}
		if _, dup := byID[k.id]; !dup {
			byID[k.id] = k
		}
		// An issue whose change point this analysis no longer has may be
		// about the same change placed again: an open one, or one a
		// person closed while it was provisional (closed by benchgate, it
		// says undone instead), which then stays closed rather than
		// giving the same change a second issue.
		switch {
		case inReport[k.id]:
		case is.GetState() == "open":
			orphans = append(orphans, k)
		case strings.Contains(is.GetBody(), provisionalText):
			closedOrphans = append(closedOrphans, k)
		}
	}
	orphans = append(orphans, closedOrphans...) // an open issue first
	res := &Result{}
	for _, c := range rep.ChangePoints {
		k := byID[hash(c.ID)]
		moved := ""
		if k == nil && c.Open {
			// The same change, placed elsewhere by this analysis.
			for _, x := range orphans {
				if !x.claimed && x.series == seriesKey(c) && x.worse == c.Worse {
					x.claimed, k = true, x
					moved = previousID(x.issue.GetBody())
					break
				}
			}
		}
		shownMoved := moved
		if k != nil && moved == "" {
			// Keep saying where an issue's change was placed before.
			shownMoved = placedBefore(k.issue.GetBody())
		}
		body := Body(c, rep, o, shownMoved)
		if !c.Open {
			if by := undoneBy(c, rep); by != nil {
				body = strings.Replace(body, undoneText, undoneText+" (from "+shortRun(by.After)+", "+by.Metric+" back to "+by.LevelWithUnit(by.AfterLevel)+")", 1)
			}
		}
		var out Outcome
		var err error
		switch {
		case k == nil && !c.Open:
			continue // undone before it ever had an issue
		case k == nil && undoes(c, rep) != nil:
			continue // a return to the level before: the issue it closes says so
		case k == nil:
			out, err = create(ctx, gh, c, body, o)
		case !c.Open && k.issue.GetState() == "open":
			out, err = edit(ctx, gh, k.issue, c, body, "closed", o)
			out.Action = Closed
		case !c.Open:
			continue // closed already
		case k.issue.GetState() != "open":
			out = Outcome{Number: k.issue.GetNumber(), URL: k.issue.GetHTMLURL(), Action: LeftClosed}
		default:
			out, err = edit(ctx, gh, k.issue, c, body, "", o)
		}
		out.ChangePoint, out.Moved = c.ID, moved
		if err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("change point %s: %v", c.ID, err))
			continue
		}
		res.Issues = append(res.Issues, out)
	}
	return res, nil
}

// list reads every issue carrying the label, open and closed, leaving
// out pull requests (which GitHub lists among issues).
func list(ctx context.Context, gh *github.Client, o Options) ([]*github.Issue, error) {
	opts := &github.IssueListByRepoOptions{State: "all", Labels: []string{o.Label}, ListOptions: github.ListOptions{PerPage: 100}}
	var out []*github.Issue
	for page := 0; page < maxPages; page++ {
		got, resp, err := gh.Issues.ListByRepo(ctx, o.Owner, o.Repo, opts)
		if err != nil {
			return nil, fmt.Errorf("list issues labelled %s in %s/%s: %w", o.Label, o.Owner, o.Repo, apiError(err))
		}
		for _, is := range got {
			if !is.IsPullRequest() {
				out = append(out, is)
			}
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
	return out, nil
}

func create(ctx context.Context, gh *github.Client, c drift.ChangePoint, body string, o Options) (Outcome, error) {
	title, labels := Title(c), []string{o.Label}
	is, _, err := gh.Issues.Create(ctx, o.Owner, o.Repo, &github.IssueRequest{Title: &title, Body: &body, Labels: &labels})
	if err != nil {
		return Outcome{}, fmt.Errorf("open an issue: %w", apiError(err))
	}
	out := Outcome{Number: is.GetNumber(), URL: is.GetHTMLURL(), Action: Opened}
	for _, l := range is.Labels {
		if strings.EqualFold(l.GetName(), o.Label) {
			return out, nil
		}
	}
	// GitHub drops the labels of a token that may not set them: the next
	// run could not find the issue and would open another.
	return out, fmt.Errorf("issue #%d was opened without the label %s (the token may not set labels), so a later run cannot find it; give the job issues: write", is.GetNumber(), o.Label)
}

// edit writes body (and the title) into the issue when they changed, and
// closes it when state is "closed".
func edit(ctx context.Context, gh *github.Client, is *github.Issue, c drift.ChangePoint, body, state string, o Options) (Outcome, error) {
	out := Outcome{Number: is.GetNumber(), URL: is.GetHTMLURL(), Action: Unchanged}
	title := Title(c)
	req := &github.IssueRequest{}
	if sameBody(is.GetBody(), body) && is.GetTitle() == title && state == "" {
		return out, nil
	}
	req.Title, req.Body = &title, &body
	if state != "" {
		reason := "completed"
		req.State, req.StateReason = &state, &reason
	}
	got, _, err := gh.Issues.Edit(ctx, o.Owner, o.Repo, is.GetNumber(), req)
	if err != nil {
		return out, fmt.Errorf("update issue #%d: %w", is.GetNumber(), apiError(err))
	}
	out.URL, out.Action = got.GetHTMLURL(), Updated
	return out, nil
}

// sameBody compares two bodies but for the line saying when and by which
// run they were written, so that a run that found the same figures
// leaves the issue untouched.
func sameBody(a, b string) bool { return stripStamp(a) == stripStamp(b) }

const stampPrefix = "Checked "

func stripStamp(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(l, stampPrefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// previousPattern reads the change point an issue was about.
var previousPattern = regexp.MustCompile(`(?m)^Change point: ` + "`" + `([^` + "`" + `\n]*)` + "`")

func previousID(body string) string { return unInert(previousPattern, body) }

// placedPattern reads where an issue's change point was placed before.
var placedPattern = regexp.MustCompile(`(?m)^Placed before at ` + "`" + `([^` + "`" + `\n]*)` + "`")

func placedBefore(body string) string { return unInert(placedPattern, body) }

func unInert(re *regexp.Regexp, body string) string {
	if m := re.FindStringSubmatch(body); m != nil {
		// Shown inert; the word joiners Inert adds show nothing.
		return strings.ReplaceAll(m[1], "\u2060", "")
	}
	return ""
}

// provisionalText starts the state of a provisional change point.
const provisionalText = "**Open, provisional**"

// undoneText says a change was undone.
const undoneText = "a later change point of the same series brought the level back"

// sameSeries says a and b are change points of one series.
func sameSeries(a, b drift.ChangePoint) bool {
	return a.Metric == b.Metric && a.Mode == b.Mode && a.Scenario == b.Scenario
}

// brings says later brings the level back from e, as drift decides a
// change point is undone: to within half of e's change from the level
// before e.
func brings(later, e drift.ChangePoint) bool {
	d := e.AfterLevel - e.BeforeLevel
	back := later.AfterLevel - e.BeforeLevel
	return later.After.Index > e.After.Index && math.Abs(back) <= math.Abs(d)/2
}

// undoes is the undone change point that c brings the level back from,
// nil when c is a change of its own.
func undoes(c drift.ChangePoint, rep *drift.Report) *drift.ChangePoint {
	for i, e := range rep.ChangePoints {
		if !e.Open && sameSeries(c, e) && brings(c, e) {
			return &rep.ChangePoints[i]
		}
	}
	return nil
}

// undoneBy is the first later change point of the series that brings the
// level back from c.
func undoneBy(c drift.ChangePoint, rep *drift.Report) *drift.ChangePoint {
	var by *drift.ChangePoint
	for i, l := range rep.ChangePoints {
		if sameSeries(c, l) && brings(l, c) && (by == nil || l.After.Index < by.After.Index) {
			by = &rep.ChangePoints[i]
		}
	}
	return by
}

// Title names the change: metric, mode, scenario, direction and size.
func Title(c drift.ChangePoint) string {
	scen := "suite"
	if c.Scenario != "" {
		scen = "scenario " + textfmt.Truncate(textfmt.OneLine(c.Scenario), 60)
	}
	shift := ""
	if c.ShiftPct != nil {
		shift = fmt.Sprintf(" %+.1f%%", *c.ShiftPct)
	}
	dir := "better"
	if c.Worse {
		dir = "worse"
	}
	return fmt.Sprintf("Benchmark drift: %s of %s (%s)%s, for the %s, from %s", c.Metric, textfmt.OneLine(c.Mode), scen, shift, dir, shortRun(c.After))
}

func shortRun(r drift.RunRef) string {
	if commitPattern.MatchString(r.Commit) {
		return r.Commit[:7]
	}
	if r.RunID != "" {
		return "run " + textfmt.Truncate(textfmt.OneLine(r.RunID), 24)
	}
	return "run " + strconv.Itoa(r.Index+1)
}

// Body is the issue's text: the marker, the change in a sentence, the
// runs on either side with their commits, where to look, its state, and
// how it was found.
func Body(c drift.ChangePoint, rep *drift.Report, o Options, moved string) string {
	var b strings.Builder
	b.WriteString(Marker(c) + "\n")
	scen := "the suite"
	if c.Scenario != "" {
		scen = "scenario " + textfmt.Code(textfmt.Inert(textfmt.Truncate(textfmt.OneLine(c.Scenario), 200)))
	}
	dir := "for the better"
	if c.Worse {
		dir = "for the worse"
	}
	shift := "a change from 0"
	if c.ShiftPct != nil {
		shift = fmt.Sprintf("**%+.1f%%**", *c.ShiftPct)
		if c.LowPct != nil && c.HighPct != nil {
			shift += fmt.Sprintf(" (95%% interval %+.1f%% to %+.1f%%)", *c.LowPct, *c.HighPct)
		}
	}
	fmt.Fprintf(&b, "**%s** of **%s** over %s moved %s: %s → %s, %s, p = %s.\n\n", c.Metric, textfmt.Inert(textfmt.OneLine(c.Mode)), scen, dir,
		c.LevelWithUnit(c.BeforeLevel), c.LevelWithUnit(c.AfterLevel), shift, strconv.FormatFloat(c.PValue, 'g', 2, 64))
	b.WriteString("| | run | commit | started |\n|---|---|---|---|\n")
	for _, r := range []struct {
		name string
		ref  drift.RunRef
	}{{"last run at the old level", c.Before}, {"first run at the new level", c.After}} {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.name, runCell(r.ref), commitCell(r.ref.Commit, o.RepoURL), textfmt.CodeCell(textfmt.Inert(textfmt.Truncate(textfmt.OneLine(r.ref.StartedAt), 40))))
	}
	b.WriteString("\n")
	switch a, z := c.Before.Commit, c.After.Commit; {
	case commitPattern.MatchString(a) && commitPattern.MatchString(z) && a == z:
		b.WriteString("Both runs ran the same commit: look at the environment (model, runner, dependencies) rather than the code.\n\n")
	case commitPattern.MatchString(a) && commitPattern.MatchString(z) && o.RepoURL != "":
		fmt.Fprintf(&b, "Look at the commits between them: [`%s...%s`](%s/compare/%s...%s).\n\n", a[:7], z[:7], o.RepoURL, a, z)
	case commitPattern.MatchString(a) && commitPattern.MatchString(z):
		fmt.Fprintf(&b, "Look at the commits between them: `git log %s..%s`.\n\n", a[:7], z[:7])
	}
	switch {
	case !c.Open:
		b.WriteString("**Undone**: " + undoneText + "; closed by benchgate.\n\n")
	case c.Provisional:
		b.WriteString(provisionalText + ": the history ends soon after the change, so its place may still move by a run or two; this issue follows it.\n\n")
	default:
		b.WriteString("**Open**: benchgate closes this issue when a later change point of the same series undoes it.\n\n")
	}
	if moved != "" && moved != c.ID {
		fmt.Fprintf(&b, "Placed before at %s; the same change, placed again with the runs known now.\n\n", textfmt.Code(textfmt.Inert(moved)))
	}
	fmt.Fprintf(&b, "Change point: %s\n\n", textfmt.Code(textfmt.Inert(c.ID)))
	span := ""
	if rep.FirstRun != nil && rep.LastRun != nil {
		span = fmt.Sprintf(" from %s to %s", shortRun(*rep.FirstRun), shortRun(*rep.LastRun))
	}
	fmt.Fprintf(&b, "Found by `benchgate drift` over %s%s (%s, α %g per look, at least %d runs each side; see docs/drift.md in benchgate).\n\n",
		textfmt.Count(rep.Runs, "run", "runs"), textfmt.Inert(span), rep.Method.Name, rep.Method.Alpha, rep.Method.MinSize)
	stamp := stampPrefix + o.Now().UTC().Format("2006-01-02 15:04 UTC")
	if o.RunURL != "" {
		stamp += " by [this run](" + o.RunURL + ")"
	}
	b.WriteString(stamp + ".\n")
	return textfmt.Truncate(b.String(), maxBody)
}

func runCell(r drift.RunRef) string {
	s := strconv.Itoa(r.Index + 1)
	if r.RunID != "" {
		s += " " + textfmt.CodeCell(textfmt.Inert(textfmt.Truncate(textfmt.OneLine(r.RunID), 40)))
	}
	return s
}

func commitCell(commit, repoURL string) string {
	switch {
	case commitPattern.MatchString(commit) && repoURL != "":
		return fmt.Sprintf("[`%s`](%s/commit/%s)", commit[:7], repoURL, commit)
	case commitPattern.MatchString(commit):
		return "`" + commit[:7] + "`"
	case commit == "":
		return "-"
	}
	return textfmt.CodeCell(textfmt.Inert(textfmt.Truncate(textfmt.OneLine(commit), 40)))
}

// apiError shortens go-github's errors to the status and message.
func apiError(err error) error {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return fmt.Errorf("%s: %s", er.Response.Status, er.Message)
	}
	return err
}

package driftissue

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/benchgate/benchgate/internal/drift"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
)

const token = "ghs_drift"

func client(t *testing.T, gh *ghfake.Server) *github.Client {
	t.Helper()
	c := github.NewClient(nil).WithAuthToken(token)
	u, err := url.Parse(gh.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	c.BaseURL = u
	return c
}

func pct(v float64) *float64 { return &v }

func commit(i int) string { return fmt.Sprintf("%07x%033d", 0xabc000+i, i) }

// cp is a change point of a series between runs after-1 and after.
func cp(metric, mode, scenario string, after int, shift float64, open bool) drift.ChangePoint {
	ref := func(i int) drift.RunRef {
		return drift.RunRef{Index: i, RunID: fmt.Sprintf("run-%d", i), Commit: commit(i), StartedAt: time.Date(2026, 1, 1+i, 3, 0, 0, 0, time.UTC).Format(time.RFC3339)}
	}
	c := drift.ChangePoint{Metric: metric, Mode: mode, Scenario: scenario, Before: ref(after - 1), After: ref(after),
		BeforeLevel: 1000, AfterLevel: 1000 * (1 + shift/100), ShiftPct: pct(shift), LowPct: pct(shift - 4), HighPct: pct(shift + 4),
		PValue: 0.0003, Worse: shift > 0, Open: open, Points: 40}
	c.ID = metric + "/" + mode + "/" + scenario + "@" + c.After.Commit
	return c
}

func report(cps ...drift.ChangePoint) *drift.Report {
	f, l := drift.RunRef{Index: 0, Commit: commit(0)}, drift.RunRef{Index: 39, Commit: commit(39)}
	return &drift.Report{Schema: drift.Schema, Runs: 40, FirstRun: &f, LastRun: &l, Series: 60, ChangePoints: cps,
		Method: drift.Method{Name: "E-divisive means", Alpha: 0.0003, MinSize: 5}}
}

func opts(now time.Time) Options {
	return Options{Owner: "octo", Repo: "bench", RepoURL: "https://github.com/octo/bench", RunURL: "https://github.com/octo/bench/actions/runs/7",
		Now: func() time.Time { return now }}
}

func sync(t *testing.T, gh *ghfake.Server, rep *drift.Report, o Options) *Result {
	t.Helper()
	res, err := Sync(context.Background(), client(t, gh), rep, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		t.Errorf("warning: %s", w)
	}
	return res
}

func actions(res *Result) string {
	var out []string
	for _, o := range res.Issues {
		out = append(out, fmt.Sprintf("#%d %s", o.Number, o.Action))
	}
	return strings.Join(out, ", ")
}

// TestSyncOpensOneIssuePerOpenChangePointAndNeverASecond: two open
// change points get one issue each, labelled and marked; an undone one
// gets none. A second run over the same report, a day later, opens
// nothing and edits nothing (only the stamp line would differ).
func TestSyncOpensOneIssuePerOpenChangePointAndNeverASecond(t *testing.T) {
	gh := ghfake.New("octo", "bench", "main", token, nil)
	defer gh.Close()
	rep := report(cp("latency_ms", "ghx", "", 25, 13.4, true), cp("active_tokens", "agent_direct", "s-001", 20, -20, true),
		cp("tool_calls", "ghx", "", 10, 30, false))
	day := time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)
	res := sync(t, gh, rep, opts(day))
	if got := actions(res); got != "#1 opened, #2 opened" {
		t.Fatalf("first run: %s, want #1 opened, #2 opened", got)
	}
	issues := gh.Issues()
	if len(issues) != 2 {
		t.Fatalf("%d issues, want 2", len(issues))
	}
	for i, is := range issues {
		if is.State != "open" || len(is.Labels) != 1 || is.Labels[0] != DefaultLabel || !strings.HasPrefix(is.Body, Marker(rep.ChangePoints[i])+"\n") {
			t.Errorf("issue #%d: state %s, labels %v, body starts %.80q; want open, [%s], the marker", is.Number, is.State, is.Labels, is.Body, DefaultLabel)
		}
	}
	if want := "Benchmark drift: latency_ms of ghx (suite) +13.4%, for the worse, from " + commit(25)[:7]; issues[0].Title != want {
		t.Errorf("title %q, want %q", issues[0].Title, want)
	}
	for _, want := range []string{"**latency_ms** of **ghx** over the suite moved for the worse: 1000 ms → 1134 ms, **+13.4%** (95% interval +9.4% to +17.4%), p = 0.0003.",
		"| first run at the new level | 26 `run-25` | [`" + commit(25)[:7] + "`](https://github.com/octo/bench/commit/" + commit(25) + ") |",
		"[`" + commit(24)[:7] + "..." + commit(25)[:7] + "`](https://github.com/octo/bench/compare/" + commit(24) + "..." + commit(25) + ")",
		"**Open**: benchgate closes this issue"} {
		if !strings.Contains(issues[0].Body, want) {
			t.Errorf("body lacks %q:\n%s", want, issues[0].Body)
		}
	}

	res = sync(t, gh, rep, opts(day.AddDate(0, 0, 7)))
	if got := actions(res); got != "#1 unchanged, #2 unchanged" {
		t.Errorf("second run: %s, want both unchanged", got)
	}
	for _, is := range gh.Issues() {
		if is.Edits != 0 {
			t.Errorf("issue #%d edited %d times by a run that found the same figures", is.Number, is.Edits)
		}
	}
	if n := len(gh.Issues()); n != 2 {
		t.Errorf("%d issues after the second run, want 2", n)
	}
}

// TestSyncClosesTheIssueOfAnUndoneChangePoint: a later analysis in which
// a new change point brought the level back marks the first undone: its
// issue is closed as completed, and the new change (for the better) gets
// an issue of its own.
func TestSyncClosesTheIssueOfAnUndoneChangePoint(t *testing.T) {
	gh := ghfake.New("octo", "bench", "main", token, nil)
	defer gh.Close()
	now := time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)
	up := cp("latency_ms", "ghx", "", 25, 13.4, true)
	sync(t, gh, report(up), opts(now))
	up.Open = false
	down := cp("latency_ms", "ghx", "", 45, -12, true)
	down.BeforeLevel, down.AfterLevel = 1134, 1000
	res := sync(t, gh, report(down, up), opts(now.AddDate(0, 0, 7)))
	if got := actions(res); got != "#1 closed" {
		t.Fatalf("%s, want #1 closed (and no issue for the return to the old level)", got)
	}
	is := gh.Issues()
	if len(is) != 1 || is[0].State != "closed" || is[0].StateReason != "completed" ||
		!strings.Contains(is[0].Body, "**Undone**: "+undoneText+" (from "+commit(45)[:7]+", latency_ms back to 1000 ms); closed by benchgate.") {
		t.Errorf("issues %+v; want #1 closed as completed, saying what undid it", is)
	}
	// A third run with the same history: nothing to do.
	res = sync(t, gh, report(down, up), opts(now.AddDate(0, 0, 14)))
	if got := actions(res); got != "" {
		t.Errorf("third run: %s, want nothing done", got)
	}
	// A change of its own after the return gets its issue.
	again := cp("latency_ms", "ghx", "", 60, 30, true)
	again.BeforeLevel, again.AfterLevel = 1000, 1300
	res = sync(t, gh, report(again, down, up), opts(now.AddDate(0, 0, 21)))
	if got := actions(res); got != "#2 opened" {
		t.Errorf("fourth run: %s, want #2 opened", got)
	}
}

// TestSyncFollowsAChangePointPlacedAgain: a provisional change point that
// a later analysis places a run away has a new ID; the open issue of the
// same series and direction takes it over instead of a second issue. One
// of another direction does not.
func TestSyncFollowsAChangePointPlacedAgain(t *testing.T) {
	gh := ghfake.New("octo", "bench", "main", token, nil)
	defer gh.Close()
	now := time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)
	first := cp("latency_ms", "ghx", "", 35, 13.4, true)
	first.Provisional = true
	sync(t, gh, report(first), opts(now))
	again := cp("latency_ms", "ghx", "", 34, 12.9, true)
	res := sync(t, gh, report(again), opts(now.AddDate(0, 0, 7)))
	if got := actions(res); got != "#1 updated" || res.Issues[0].Moved != first.ID {
		t.Fatalf("%s (moved from %q), want #1 updated, moved from %s", got, res.Issues[0].Moved, first.ID)
	}
	is := gh.Issues()
	if len(is) != 1 || !strings.HasPrefix(is[0].Body, Marker(again)) || !strings.Contains(is[0].Body, "Placed before at `latency_ms/ghx/@\u2060"+commit(35)+"`") {
		t.Errorf("%d issues; body %q; want one, marked for the change placed again", len(is), is[0].Body)
	}
	better := cp("latency_ms", "ghx", "", 36, -15, true)
	res = sync(t, gh, report(better, again), opts(now.AddDate(0, 0, 14)))
	if got := actions(res); got != "#2 opened, #1 unchanged" {
		t.Errorf("%s, want #2 opened (another direction), #1 unchanged", got)
	}
}

// TestSyncLeavesAnIssueAPersonClosedClosed: a maintainer who closed the
// issue of a change point still open has decided; the next run neither
// reopens it nor opens another.
func TestSyncLeavesAnIssueAPersonClosedClosed(t *testing.T) {
	gh := ghfake.New("octo", "bench", "main", token, nil)
	defer gh.Close()
	now := time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)
	rep := report(cp("latency_ms", "ghx", "", 25, 13.4, true))
	sync(t, gh, rep, opts(now))
	gh.CloseIssue(1, "not_planned")
	res := sync(t, gh, rep, opts(now.AddDate(0, 0, 7)))
	if got := actions(res); got != "#1 left closed" {
		t.Errorf("%s, want #1 left closed", got)
	}
	if is := gh.Issues(); len(is) != 1 || is[0].State != "closed" || is[0].StateReason != "not_planned" {
		t.Errorf("issues %+v, want the one, closed as not planned", is)
	}
	if urls := res.URLs(); len(urls) != 0 {
		t.Errorf("URLs %v, want none (no issue kept open)", urls)
	}
}

// TestSyncFindsItsIssueBeyondTheFirstPage: with 150 other labelled
// issues and a labelled pull request newer than it, the change point's
// issue is on the second page of the listing; it is found there and no
// second one is opened. Issues without the label, or with a marker in a
// pull request, are never taken for it.
func TestSyncFindsItsIssueBeyondTheFirstPage(t *testing.T) {
	gh := ghfake.New("octo", "bench", "main", token, nil)
	defer gh.Close()
	now := time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)
	c := cp("latency_ms", "ghx", "", 25, 13.4, true)
	sync(t, gh, report(c), opts(now))
	for i := 0; i < 150; i++ {
		gh.AddIssue(ghfake.Issue{Title: fmt.Sprint("other ", i), Body: "unrelated", Labels: []string{DefaultLabel}})
	}
	gh.AddIssue(ghfake.Issue{Title: "copy without the label", Body: Marker(c)})
	gh.AddPull(ghfake.Pull{Title: "a pull request", Body: Marker(c), Labels: []string{DefaultLabel}, Head: "x", Base: "main"})
	res := sync(t, gh, report(c), opts(now.AddDate(0, 0, 7)))
	if got := actions(res); got != "#1 unchanged" {
		t.Errorf("%s, want #1 unchanged", got)
	}
	if n := len(gh.Issues()); n != 152 {
		t.Errorf("%d issues, want 152 (none opened)", n)
	}
	pages := 0
	for _, call := range gh.Calls() {
		if call == "GET /api-v3/repos/octo/bench/issues" {
			pages++
		}
	}
	if pages != 1+2 {
		t.Errorf("%d listings of issues, want 3 (one page in the first run, two in the second)", pages)
	}
}

// TestIssueBodyIsInert: a scenario ID, a run ID and a commit from the
// data that try to mention, link, embed and write HTML show as text in
// the rendered issue; the only links are the commits and the run.
func TestIssueBodyIsInert(t *testing.T) {
	c := cp("latency_ms", "ghx", "@octocat [x](https://evil.example) <img src=x> ![i](https://evil.example/i.png) #12 https://evil.example", 25, 13.4, true)
	c.Before.RunID = "@admins <script>x</script>"
	c.Before.Commit = "[c](javascript:alert(1))"
	c.After.StartedAt = "@team https://evil.example"
	md := Body(c, report(c), opts(time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)), "@octocat moved [y](https://evil.example)")
	gfm.RequireInert(t, "issue body", md, "https://github.com/octo/bench/commit/", "https://github.com/octo/bench/actions/runs/7")
	if strings.Contains(md, "compare/") {
		t.Errorf("a compare link was built from a commit that is not one:\n%s", md)
	}
	if title := Title(c); strings.ContainsAny(title, "\n") {
		t.Errorf("title spans lines: %q", title)
	}
}

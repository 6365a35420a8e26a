package action

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/drift"
	"github.com/benchgate/benchgate/internal/drift/changepoint"
	"github.com/benchgate/benchgate/internal/driftissue"
	"github.com/benchgate/benchgate/internal/jobsummary"
	"github.com/benchgate/benchgate/internal/prcomment"
	"github.com/benchgate/benchgate/internal/suggest"
	"github.com/benchgate/benchgate/internal/textfmt"
	"github.com/benchgate/benchgate/internal/verdict"
)

// DriftHistoryRuns is how many runs drift's base-branch history
// downloads unless history-runs says otherwise: the scan's window.
const DriftHistoryRuns = 40

// maxDriftHistoryRuns is as far back as the run listing reaches
// (maxRunPages pages of 30 runs).
const maxDriftHistoryRuns = maxRunPages * 30

var driftModes = []string{"drift"}

// defaultAlpha is drift's default significance as the inputs' words show
// it, taken from the one place that decides it.
var defaultAlpha = strconv.FormatFloat(changepoint.DefaultAlpha, 'f', -1, 64)

// driftFailOn are the values of fail-on for drift, the command line's.
var driftFailOn = []string{"none", "worse", "any"}

// driftInputs are drift's own inputs, the command line's flags; history,
// history-runs, history-workflow, fail-on and repo are shared with other
// modes.
var driftInputs = []Input{
	{Name: "alpha", Kind: Text, Flag: "--alpha", Modes: driftModes, Check: checkAlpha, Description: "drift: significance of one look of the scan (default " + defaultAlpha + "; docs/drift.md gives the false alarms it makes per series and per history)."},
	{Name: "min-runs", Kind: Int, Flag: "--min-runs", Modes: driftModes, Description: "drift: fewest runs on each side of a change point (default " + strconv.Itoa(changepoint.DefaultMinSize) + "; 2 to 50)."},
	{Name: "seed", Kind: Int, Flag: "--seed", Modes: driftModes, Description: "drift: seed of the permutations and bootstrap; the same seed and runs give the same answer."},
	{Name: "suite-only", Kind: Bool, Flag: "--suite-only", Modes: driftModes, Description: "drift: follow the suite's figures only, not each scenario's (fewer series, so fewer false alarms) (true/false)."},
	{Name: "issues", Kind: Adapter, Description: "drift: keep one GitHub issue per open change point, found again by a hidden marker in its body, updated as later runs refine it and closed when a later change point undoes it (true, the default, or false). The job needs issues: write."},
	{Name: "issue-label", Kind: Adapter, Description: "drift: the label of those issues (default benchgate-drift): they are found again by it, so leave it on them."},
}

// driftOutputs are drift's outputs.
var driftOutputs = []Output{
	{"drift-json", "drift: path of drift.json."},
	{"drift-md", "drift: path of drift.md."},
	{"open-change-points", "drift: number of change points still open (not undone by a later one)."},
	{"worse-change-points", "drift: number of open change points for the worse."},
	{"drift-issues", "drift: URLs of the issues kept open for the open change points, one per line, newest change first."},
}

// checkAlpha: a significance between 0 and 0.5, as drift takes it.
func checkAlpha(v string) string {
	if a, err := strconv.ParseFloat(v, 64); err == nil && a > 0 && a < 0.5 {
		return ""
	}
	return "a number between 0 and 0.5 such as " + defaultAlpha
}

// workflowFilePattern is a workflow file's name, as history-workflow
// takes it.
var workflowFilePattern = regexp.MustCompile(`^[A-Za-z0-9._-]+\.ya?ml$`)

// checkWorkflowFile: history-workflow names a file of .github/workflows.
func checkWorkflowFile(get func(string) string) *InputError {
	v := get("history-workflow")
	if v == "" || workflowFilePattern.MatchString(v) {
		return nil
	}
	return &InputError{Input: "history-workflow", Value: v, Expected: "the file name of a workflow in .github/workflows, such as bench.yml"}
}

// labelPattern is a label the issue listing can filter by (a comma
// would split it).
var labelPattern = regexp.MustCompile(`^[^,\n]{1,50}$`)

// driftArgs adds drift's flags the adapter reads itself and checks its
// inputs.
func (p *Plan) driftArgs(get func(string) string) []*InputError {
	var bad []*InputError
	p.Args = append(p.Args, "--out-dir", p.OutDir)
	switch h := get("history"); {
	case h == "":
		bad = append(bad, &InputError{Input: "history", Value: h, Expected: "a value (required by mode drift): base-branch, or a folder of earlier runs"})
	case h != BaseBranch:
		if _, err := os.Stat(resolve(p.WorkDir, h)); err != nil {
			bad = append(bad, &InputError{Input: "history", Value: h, Expected: "an existing folder (" + resolve(p.WorkDir, h) + " does not exist), or " + BaseBranch})
		}
	}
	if v := get("history-runs"); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 1 || n > maxDriftHistoryRuns {
			bad = append(bad, &InputError{Input: "history-runs", Value: v, Expected: fmt.Sprintf("a whole number from 1 to %d", maxDriftHistoryRuns)})
		}
	}
	if e := checkWorkflowFile(get); e != nil {
		bad = append(bad, e)
	}
	if _, err := lookbackEvents(get("baseline-events")); err != nil {
		bad = append(bad, err.(*InputError))
	}
	failOn := orDefault(get("fail-on"), "none")
	if !slices.Contains(driftFailOn, failOn) {
		bad = append(bad, &InputError{Input: "fail-on", Value: failOn, Expected: "none, worse or any", Meant: suggest.Closest(failOn, driftFailOn)})
	}
	p.Args = append(p.Args, "--fail-on", failOn)
	if _, err := parseBool("issues", orDefault(get("issues"), "true")); err != nil {
		bad = append(bad, err.(*InputError))
	}
	if v := get("issue-label"); v != "" && !labelPattern.MatchString(v) {
		bad = append(bad, &InputError{Input: "issue-label", Value: v, Expected: "a label of 1 to 50 characters without a comma"})
	}
	return bad
}

// driftMode is drift: change points of the runs kept.
type driftMode struct {
	plainStatus
	noArguments
}

func (driftMode) collect(_ *Plan, m *Result) *results {
	return &results{Drift: m.Drift}
}

// judge: a change point is information; fail-on makes the open ones (or
// those for the worse) decide.
func (driftMode) judge(v *verdict.Verdict, in judgeInput) {
	d := in.Res.Drift
	if d == nil || d.Report == nil {
		return
	}
	open, worse := driftCounts(d.Report)
	failOn := orDefault(d.FailOn, "none")
	v.Enforced = failOn != "none"
	if !v.Enforced {
		v.Switch = "fail-on: none"
	}
	v.Checks = append(v.Checks,
		countCheck("change points", "open_worse_change_points", "open change points for the worse", worse, failOn != "worse"),
		countCheck("change points", "open_change_points", "open change points", open, failOn != "any"))
}

func (driftMode) outputs(r *reporter, res *results, _ *Result) {
	d := res.Drift
	if d == nil || d.Report == nil {
		return
	}
	open, worse := driftCounts(d.Report)
	r.output("drift-json", r.rel(d.JSON))
	r.output("drift-md", r.rel(d.MD))
	r.output("open-change-points", strconv.Itoa(open))
	r.output("worse-change-points", strconv.Itoa(worse))
	if res.DriftIssues != nil {
		r.output("drift-issues", strings.Join(res.DriftIssues.URLs(), "\n"))
	}
}

func driftCounts(rep *drift.Report) (open, worse int) {
	for _, c := range rep.ChangePoints {
		if c.Open {
			open++
			if c.Worse {
				worse++
			}
		}
	}
	return open, worse
}

// views: one line per change point, newest first, with its issue; then
// the charts of the changed series.
func (driftMode) views(r *reporter, doc *jobsummary.Doc, head *jobsummary.Section, _ *Plan, res *results) {
	d := res.Drift
	if d == nil || d.Report == nil {
		return
	}
	rep := d.Report
	sec := doc.Section("Drift")
	sec.Note = head.Note
	open, worse := driftCounts(rep)
	span := ""
	if rep.FirstRun != nil && rep.LastRun != nil {
		span = fmt.Sprintf(" from %s to %s", driftRun(*rep.FirstRun, d.RepoURL), driftRun(*rep.LastRun, d.RepoURL))
	}
	sec.Para("%s of %s%s: %s, %d open (%d for the worse).", textfmt.Count(rep.Series, "series", "series"), textfmt.Count(rep.Runs, "run", "runs"), span,
		textfmt.Count(len(rep.ChangePoints), "change point", "change points"), open, worse)
	var lines []string
	for _, c := range rep.ChangePoints {
		lines = append(lines, driftLine(c, d.RepoURL, res.DriftIssues))
	}
	if len(lines) > 0 {
		sec.List(lines)
	}
	for _, w := range res.DriftIssueWarnings {
		sec.Para("Issues: %s", textfmt.InertCell(w))
	}
	for _, c := range d.Charts {
		sec.Mermaid(c)
	}
	if len(d.Charts) < d.Changed {
		sec.Para("Charts of the %d newest changed series of %d; %s lists every change point.", len(d.Charts), d.Changed, textfmt.Code(r.shown(d.JSON)))
	}
	sec.Para("Method: %s (α %g per look, at least %d runs each side, seed %d); see docs/drift.md.", rep.Method.Name, rep.Method.Alpha, rep.Method.MinSize, rep.Method.Seed)
}

// commitLike is what a commit must look like to be linked.
var commitLike = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

// driftRun names a run: its short commit (linked), else its run ID,
// else its place, with the day it started.
func driftRun(ref drift.RunRef, repoURL string) string {
	name := "run " + strconv.Itoa(ref.Index+1)
	switch {
	case commitLike.MatchString(ref.Commit) && repoURL != "":
		name = fmt.Sprintf("[`%s`](%s/commit/%s)", ref.Commit[:7], repoURL, ref.Commit)
	case commitLike.MatchString(ref.Commit):
		name = "`" + ref.Commit[:7] + "`"
	case ref.RunID != "":
		name = textfmt.CodeCell(textfmt.Inert(textfmt.Truncate(textfmt.OneLine(ref.RunID), 24)))
	}
	if t, err := time.Parse(time.RFC3339, ref.StartedAt); err == nil {
		name += " " + t.UTC().Format("2006-01-02")
	}
	return name
}

// driftLine is one change point in a line: where, what, how much, where
// to look and its issue.
func driftLine(c drift.ChangePoint, repoURL string, issues *driftissue.Result) string {
	scen := "suite"
	if c.Scenario != "" {
		scen = textfmt.CodeCell(textfmt.Inert(textfmt.Truncate(textfmt.OneLine(c.Scenario), 80)))
	}
	shift := "n/a"
	if c.ShiftPct != nil {
		shift = fmt.Sprintf("%+.1f%%", *c.ShiftPct)
		if c.LowPct != nil && c.HighPct != nil {
			shift += fmt.Sprintf(" (%+.1f%% to %+.1f%%)", *c.LowPct, *c.HighPct)
		}
	}
	dir := "better"
	if c.Worse {
		dir = "**worse**"
	}
	state := "open"
	switch {
	case !c.Open:
		state = "undone later"
	case c.Provisional:
		state = "open, provisional"
	}
	line := fmt.Sprintf("%s: **%s** %s, %s: %s → %s, %s, p %s, %s, %s", driftRun(c.After, repoURL), c.Metric, textfmt.InertCell(textfmt.OneLine(c.Mode)), scen,
		c.LevelWithUnit(c.BeforeLevel), c.LevelWithUnit(c.AfterLevel), shift, strconv.FormatFloat(c.PValue, 'g', 2, 64), dir, state)
	if a, z := c.Before.Commit, c.After.Commit; commitLike.MatchString(a) && commitLike.MatchString(z) && a != z {
		if repoURL != "" {
			line += fmt.Sprintf("; look at [`%s...%s`](%s/compare/%s...%s)", a[:7], z[:7], repoURL, a, z)
		} else {
			line += fmt.Sprintf("; look at `%s..%s`", a[:7], z[:7])
		}
	}
	if issues != nil {
		if o := issues.For(c.ID); o != nil {
			line += fmt.Sprintf("; issue [#%d](%s) %s", o.Number, o.URL, o.Action)
		}
	}
	return line
}

// driftIssues keeps the issues of drift's change points, as the issues
// input asks (by default it does). Nothing here fails the step: a token
// that may not write issues is a warning, and the summary says so.
func (r *reporter) driftIssues(ctx context.Context, p *Plan, res *results) {
	if p.Mode != "drift" {
		for _, in := range []string{"issues", "issue-label"} {
			if r.a.GetInput(in) != "" {
				r.a.Warningf("input %q is not used by mode %s and was ignored", in, p.Mode)
			}
		}
		return
	}
	if res.Drift == nil || res.Drift.Report == nil {
		return
	}
	if on, _ := parseBool("issues", orDefault(r.a.GetInput("issues"), "true")); !on {
		return
	}
	warn := func(format string, a ...any) {
		msg := fmt.Sprintf(format, a...)
		res.DriftIssueWarnings = append(res.DriftIssueWarnings, msg)
		r.a.WithFieldsMap(map[string]string{"title": "benchgate drift issues"}).Warningf("%s", textfmt.LogLine(msg))
	}
	owner, repo, ok := strings.Cut(r.cfg.Getenv("GITHUB_REPOSITORY"), "/")
	if !ok {
		warn("GITHUB_REPOSITORY is not set: no issues kept")
		return
	}
	token := p.Env["GITHUB_TOKEN"]
	if token == "" {
		warn("no github-token: no issues kept")
		return
	}
	gh, err := prcomment.NewClient(r.cfg.Getenv("GITHUB_API_URL"), token)
	if err != nil {
		warn("%v", err)
		return
	}
	runURL, _ := runURL(r.cfg.Getenv)
	// Commits are linked where drift linked them (the repo input), else
	// in this repository.
	repoURL := orDefault(res.Drift.RepoURL, strings.TrimRight(orDefault(r.cfg.Getenv("GITHUB_SERVER_URL"), "https://github.com"), "/")+"/"+owner+"/"+repo)
	out, err := driftissue.Sync(ctx, gh, res.Drift.Report, driftissue.Options{Owner: owner, Repo: repo,
		Label: orDefault(r.a.GetInput("issue-label"), driftissue.DefaultLabel), RepoURL: repoURL, RunURL: runURL, Now: r.cfg.Now})
	if err != nil {
		warn("%v (the job needs issues: write)", err)
		return
	}
	res.DriftIssues = out
	for _, w := range out.Warnings {
		warn("%s", w)
	}
	for _, o := range out.Issues {
		r.a.Infof("drift issue #%d %s: %s", o.Number, o.Action, textfmt.LogLine(o.ChangePoint))
	}
}

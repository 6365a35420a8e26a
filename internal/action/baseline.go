package action

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/baseline"
	"github.com/benchgate/benchgate/internal/history"
	"github.com/benchgate/benchgate/internal/jobsummary"
	"github.com/benchgate/benchgate/internal/lookback"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// BaseBranch is the value of the baseline and history inputs that asks
// the adapter to download earlier runs' artifacts of this workflow.
const BaseBranch = "base-branch"

// RunRecordName is the run record the adapter has report write into its
// results folder, so that the uploaded artifact is a baseline for later
// runs with the scenarios, not just the summary.
const RunRecordName = "run-record.json"

// maxFlakyNotices bounds the notices for flaky scenarios: the runner
// shows ten notices per step.
const maxFlakyNotices = 10

// Lookback is what a mode found looking beyond this run, as package
// lookback produces it.
type Lookback = lookback.Result

// lookbackPlan is what the adapter did before the mode ran: where the
// baseline and history came from, and why one is missing.
type lookbackPlan struct {
	// BaselineFrom and HistoryFrom describe the sources for the summary.
	BaselineFrom, HistoryFrom string
	// BaselineRun names the baseline in a few words ("run 345 at
	// abc1234", or its folder) and BaselineURL links its run.
	BaselineRun, BaselineURL string
	// Missing says why a requested baseline or history is not used.
	Missing []string
	// Passed says which runs the download passed over and why (a fork's
	// run on a branch of the same name, an expired artifact): text from
	// the API, shown escaped.
	Passed []string
	events []string
	// cleanup removes downloads made outside RUNNER_TEMP.
	cleanup func()
}

// lookbackModes take the baseline and history inputs.
var lookbackModes = []string{"report", "set"}

// prepareLookback turns the baseline and history inputs into flags: a
// folder is passed as it is; base-branch downloads this workflow's
// artifact from the newest completed runs on the pull request's base
// branch (on other events: the run's own branch). A baseline that cannot
// be had is a notice and the mode runs without it: a first run on a
// branch has nothing to compare with, and that is not a failure. For
// report, the run record is written into the results folder too.
func (r *reporter) prepareLookback(ctx context.Context, p *Plan) *lookbackPlan {
	lp := &lookbackPlan{cleanup: func() {}}
	get := r.a.GetInput
	if !slices.Contains(lookbackModes, p.Mode) && p.Mode != "drift" {
		for _, in := range []string{"baseline", "baseline-artifact", "history", "history-runs", "history-workflow"} {
			if get(in) != "" {
				r.a.Warningf("input %q is not used by mode %s and was ignored", in, p.Mode)
			}
		}
		return lp
	}
	if p.Mode == "report" {
		p.Args = append(p.Args, "--run-record", filepath.Join(p.OutDir, RunRecordName))
	}
	want := history.DefaultWindow
	if p.Mode == "drift" {
		want = DriftHistoryRuns
	}
	if v := get("history-runs"); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 1 {
			r.a.WithFieldsMap(map[string]string{"title": "benchgate: input history-runs"}).Warningf("input \"history-runs\": expected a whole number >= 1, got %q; using %d", v, want)
		} else {
			want = n
		}
	}
	// Both inputs from base-branch read the same list of runs with the
	// same artifact name, so the baseline is the history's newest run:
	// one download serves both.
	var fetched *fetchedRuns
	var whyNot string
	download := func(kind string) (string, string) {
		if fetched == nil && whyNot == "" {
			fetched, whyNot = r.fetchLookback(ctx, p, lp, want)
		}
		if fetched == nil {
			return "", whyNot
		}
		return fetched.pick(kind == "baseline")
	}
	for _, in := range []struct {
		input, flag string
		from        *string
	}{{"baseline", "--baseline", &lp.BaselineFrom}, {"history", "--history", &lp.HistoryFrom}} {
		v := get(in.input)
		if p.Mode == "drift" && in.input == "baseline" {
			if v != "" {
				r.a.Warningf("input %q is not used by mode %s and was ignored", in.input, p.Mode)
			}
			continue
		}
		switch {
		case v == "":
			continue
		case v == BaseBranch:
			dir, from := download(in.input)
			if dir == "" {
				lp.Missing = append(lp.Missing, fmt.Sprintf("no %s: %s", in.input, from))
				then := "the run is judged without one"
				if p.Mode == "drift" {
					then = "drift has no runs to read"
				}
				r.a.WithFieldsMap(map[string]string{"title": "benchgate " + in.input}).Noticef("no %s: %s; %s", in.input, from, then)
				continue
			}
			*in.from = from
			if in.input == "baseline" && fetched != nil && len(fetched.runs) > 0 {
				g := fetched.runs[0]
				lp.BaselineRun = fmt.Sprintf("run %d at %.7s", g.RunID, g.HeadSHA)
				if repo := r.cfg.Getenv("GITHUB_REPOSITORY"); repo != "" {
					lp.BaselineURL = fmt.Sprintf("%s/%s/actions/runs/%d", strings.TrimRight(orDefault(r.cfg.Getenv("GITHUB_SERVER_URL"), "https://github.com"), "/"), repo, g.RunID)
				}
			}
			p.Args = append(p.Args, in.flag, dir)
			if in.input == "history" && p.Mode != "drift" {
				p.Args = append(p.Args, "--history-window", strconv.Itoa(want))
			}
		default:
			dir := resolve(p.WorkDir, v)
			if _, err := os.Stat(dir); err != nil {
				lp.Missing = append(lp.Missing, fmt.Sprintf("no %s: %s does not exist", in.input, r.shown(dir)))
				r.a.WithFieldsMap(map[string]string{"title": "benchgate " + in.input}).Noticef("no %s: %s does not exist; the run is judged without one", in.input, r.rel(dir))
				continue
			}
			*in.from = "`" + r.shown(dir) + "`"
			if in.input == "baseline" {
				lp.BaselineRun = "folder " + r.shown(dir)
			}
			p.Args = append(p.Args, in.flag, dir)
			if in.input == "history" && p.Mode != "drift" {
				p.Args = append(p.Args, "--history-window", strconv.Itoa(want))
			}
		}
	}
	return lp
}

// fetchLookback downloads the runs the first base-branch input needs
// into a folder under $RUNNER_TEMP (or a temporary folder removed after
// the step): one run for a baseline alone, the window's earlier runs for
// a history or for both inputs.
func (r *reporter) fetchLookback(ctx context.Context, p *Plan, lp *lookbackPlan, want int) (*fetchedRuns, string) {
	n := 1
	switch {
	case p.Mode == "drift":
		// The runs of another workflow: this run is not among them.
		n = want
	case r.a.GetInput("history") == BaseBranch:
		n = max(want-1, 1)
	}
	var dest string
	var err error
	if base := r.cfg.Getenv("RUNNER_TEMP"); base != "" {
		dest = filepath.Join(base, "benchgate-lookback-"+strconv.FormatInt(int64(os.Getpid()), 10))
		err = os.MkdirAll(dest, 0o755)
	} else if dest, err = os.MkdirTemp("", "benchgate-lookback-"); err == nil {
		d := dest
		lp.cleanup = func() { os.RemoveAll(d) }
	}
	if err != nil {
		return nil, "cannot create a folder for the download: " + err.Error()
	}
	return r.downloadLookback(ctx, p, lp, filepath.Join(dest, "runs"), n)
}

// fetchedRuns are the runs whose artifacts a base-branch input
// downloaded, newest first, each unpacked in its own folder under dir.
type fetchedRuns struct {
	dir, workflow, branch string
	runs                  []downloadedRun
}

// pick returns the folder to pass and where it came from: the newest
// run's folder alone (a baseline), or the folder of all of them (a
// history); "" for none.
func (f *fetchedRuns) pick(newestOnly bool) (string, string) {
	if f == nil || len(f.runs) == 0 {
		return "", ""
	}
	runs, dir := f.runs, f.dir
	if newestOnly {
		runs, dir = runs[:1], runs[0].Dir
	}
	var names []string
	for _, g := range runs {
		names = append(names, fmt.Sprintf("#%d (run %d, %s)", g.RunNumber, g.RunID, textfmt.Truncate(g.HeadSHA, 12)))
	}
	return dir, fmt.Sprintf("artifact `%s` of %s on `%s`: %s", runs[0].Artifact, f.workflow, f.branch, strings.Join(names, ", "))
}

// downloadLookback fetches up to n runs' artifacts into dir, or says why
// nothing could be had.
func (r *reporter) downloadLookback(ctx context.Context, p *Plan, lp *lookbackPlan, dir string, n int) (*fetchedRuns, string) {
	env := r.cfg.Getenv
	owner, repo, ok := strings.Cut(env("GITHUB_REPOSITORY"), "/")
	if !ok {
		return nil, "GITHUB_REPOSITORY is not set"
	}
	wf := r.a.GetInput("history-workflow") // checked by BuildPlan
	if wf == "" {
		wf = workflowFile(env("GITHUB_WORKFLOW_REF"))
	}
	if wf == "" {
		return nil, "GITHUB_WORKFLOW_REF does not name a workflow file (name one with history-workflow)"
	}
	branch := env("GITHUB_BASE_REF")
	if branch == "" {
		branch = env("GITHUB_REF_NAME")
	}
	if branch == "" {
		return nil, "neither GITHUB_BASE_REF nor GITHUB_REF_NAME names a branch"
	}
	token := p.Env["GITHUB_TOKEN"]
	if token == "" {
		return nil, "no github-token to read the artifacts with"
	}
	current, _ := strconv.ParseInt(env("GITHUB_RUN_ID"), 10, 64)
	name := r.a.GetInput("baseline-artifact")
	match := func(s string) bool { return s == name }
	what := name
	if name == "" {
		match, what = r.ownArtifact(p)
	}
	api := orDefault(env("GITHUB_API_URL"), "https://api.github.com")
	events, _ := lookbackEvents(r.a.GetInput("baseline-events")) // checked by BuildPlan
	got, notes, err := downloadArtifacts(ctx, artifactSource{API: api, Token: token, Owner: owner, Repo: repo, Workflow: wf,
		Branch: branch, Events: events, SkipRunID: current, Match: match, Want: n, Dest: dir})
	for _, note := range notes {
		r.a.Infof("baseline search: %s", textfmt.LogLine(note))
	}
	lp.Passed, lp.events = append(lp.Passed, notes...), events
	if err != nil {
		return nil, err.Error()
	}
	if len(got) == 0 {
		return nil, fmt.Sprintf("no completed %s run of %s on branch %s of %s/%s kept an unexpired artifact %s", strings.Join(events, " or "), wf, branch, owner, repo, what)
	}
	return &fetchedRuns{dir: dir, workflow: wf, branch: branch, runs: got}, ""
}

// lookbackEvents reads the baseline-events input: events separated by
// commas or line breaks, each one of LookbackEvents; empty is
// DefaultLookbackEvents.
func lookbackEvents(v string) ([]string, error) {
	var out []string
	for _, e := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if !slices.Contains(LookbackEvents, e) {
			return nil, &InputError{Input: "baseline-events", Value: v, Expected: "events among " + strings.Join(LookbackEvents, ", ") +
				" (pull_request_target and workflow_run runs carry the base branch's name while they may run a fork's code)"}
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return DefaultLookbackEvents, nil
	}
	return out, nil
}

// ownArtifact matches the name this step gives its results artifact
// (report: <prefix>-<job>-run, set: <prefix>-<job>-<set>), in any run
// attempt, and says what it looks for.
func (r *reporter) ownArtifact(p *Plan) (func(string) bool, string) {
	part := "run"
	if p.Mode == "set" {
		part = r.a.GetInput("set")
	}
	clean := func(s string) string { return badArtifactChars.ReplaceAllString(s, "-") }
	if p.Mode == "drift" {
		// The runs of another job: report's results of any job.
		re := regexp.MustCompile("^" + regexp.QuoteMeta(clean(p.ArtifactPrefix)) + `-.+-run$`)
		return re.MatchString, clean(p.ArtifactPrefix) + "-<job>-run"
	}
	head := p.ArtifactPrefix
	if job := r.cfg.Getenv("GITHUB_JOB"); job != "" {
		head += "-" + job
	}
	re := regexp.MustCompile("^" + regexp.QuoteMeta(clean(head)) + `(-attempt[0-9]+)?-` + regexp.QuoteMeta(clean(part)) + "$")
	return re.MatchString, clean(head + "-" + part)
}

// workflowFile is the file name of GITHUB_WORKFLOW_REF
// ("owner/repo/.github/workflows/bench.yml@refs/pull/7/merge").
func workflowFile(ref string) string {
	p, _, _ := strings.Cut(ref, "@")
	if !strings.Contains(p, "/.github/workflows/") {
		return ""
	}
	return path.Base(p)
}

// reportLookback annotates what the mode found: a notice per new failure
// ("new failure: passed all 5 earlier runs") and per flaky scenario
// ("flaky: passed 4 of 6 earlier runs"), failing ones first, and
// a regression against the baseline (an error when it failed the step,
// a warning otherwise); and sets the outputs baseline-verdict and
// flaky-scenarios. It returns the number of error annotations written.
func (r *reporter) reportLookback(lb *Lookback, code int) (errs int) {
	if lb == nil {
		return 0
	}
	verdict := ""
	if c := lb.Comparison; c != nil {
		verdict = c.Verdict
		if c.Regressed() {
			a := r.a.WithFieldsMap(map[string]string{"title": "benchgate: regressed against the baseline"})
			msg := "regressed against the baseline: " + strings.Join(regressions(c), "; ")
			if code != exitOK {
				a.Errorf("%s", msg)
				errs++
			} else {
				a.Warningf("%s", msg)
			}
		}
	}
	r.output("baseline-verdict", verdict)
	var flaky []string
	if h := lb.History; h != nil {
		// New failures first: the scenarios this change most likely broke.
		for i, s := range h.NewFailures {
			if i < maxFlakyNotices {
				r.a.WithFieldsMap(map[string]string{"title": s.Mode + ": " + s.ID}).Noticef("%s", s.Label())
			}
		}
		for i, s := range h.Flaky {
			flaky = append(flaky, s.Mode+"/"+s.ID)
			if i < maxFlakyNotices {
				msg := s.Label()
				if s.FailingNow {
					msg += "; it fails in this run, which still counts as a failure"
				}
				r.a.WithFieldsMap(map[string]string{"title": s.Mode + ": " + s.ID}).Noticef("%s", msg)
			}
		}
	}
	r.output("flaky-scenarios", strings.Join(flaky, "\n"))
	return errs
}

// regressions names each failed metric of each mode with its change.
func regressions(c *baseline.Comparison) []string {
	var out []string
	for _, m := range c.Modes {
		if m.Success.Verdict == baseline.Fail {
			out = append(out, fmt.Sprintf("%s: %d scenarios fail that passed (%s)", m.Mode, len(m.Success.NewlyFailing), strings.Join(m.Success.NewlyFailing, ", ")))
		}
		for _, e := range m.Efficiency {
			if string(e.Verdict) == baseline.Fail {
				out = append(out, fmt.Sprintf("%s %s %s, tolerance +%.0f%%", m.Mode, e.Name, baseline.ChangeInterval(e.Result), c.TolerancePct))
			}
		}
	}
	return out
}

// lookbackSummary adds the baseline and flaky-scenario sections to the
// job summary, with where the baseline came from or why there is none.
func (r *reporter) lookbackSummary(doc *jobsummary.Doc, lp *lookbackPlan, lb *Lookback) {
	if lp == nil || (lp.BaselineFrom == "" && lp.HistoryFrom == "" && len(lp.Missing) == 0 && lb == nil) {
		return
	}
	sec := doc.Section("Baseline and history")
	// The table of checks at the top has the verdict; this is the
	// detail behind it.
	sec.Collapsed = true
	if lb != nil && lb.StatsMD != "" {
		sec.Note = "see " + r.shown(lb.StatsMD)
	}
	if lp.BaselineFrom != "" {
		sec.Para("Baseline: %s.", lp.BaselineFrom)
	}
	if lp.HistoryFrom != "" {
		sec.Para("History: %s.", lp.HistoryFrom)
	}
	for _, m := range lp.Missing {
		sec.Para("%s; the run was judged without it.", textfmt.Cell(m))
	}
	if len(lp.Passed) > 0 {
		sec.Para("Runs passed over (only this repository's own %s runs of the branch are used):", "`"+strings.Join(lp.events, "`, `")+"`")
		sec.Para("%s", passedList(lp.Passed))
	}
	if lb == nil {
		return
	}
	if lb.Comparison != nil {
		sec.Para("%s", r.scrub(nest(lb.Comparison.Markdown())))
	}
	if lb.History != nil {
		sec.Para("%s", r.scrub(nest(lb.History.Markdown())))
		if line := trendLine(lb.History); line != "" {
			sec.Para("%s", line)
		}
		trendCharts(sec, lb.History)
	}
}

// maxPassedShown bounds the passed-over runs the summary lists.
const maxPassedShown = 20

// passedList is a Markdown list of the passed-over runs, the first
// maxPassedShown of them.
func passedList(passed []string) string {
	var b strings.Builder
	for i, n := range passed {
		if i == maxPassedShown {
			fmt.Fprintf(&b, "- and %d more (in the step log)\n", len(passed)-i)
			break
		}
		fmt.Fprintf(&b, "- %s\n", textfmt.Cell(n))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// nest pushes Markdown headings two levels down, under the summary's own.
func nest(md string) string {
	lines := strings.Split(strings.TrimSpace(md), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "#") {
			lines[i] = "##" + l
		}
	}
	return strings.Join(lines, "\n")
}

package action

import (
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/benchgate/benchgate/internal/jobsummary"
	"github.com/benchgate/benchgate/internal/textfmt"
	"github.com/benchgate/benchgate/internal/verdict"
)

// modeAdapter is what differs between the modes the step runs. Run is
// the same list of calls for every mode; each mode's adapter says what
// its command line takes beyond the inputs, how what it returned becomes
// the step's results and verdict, which outputs are its own and which
// sections of the job summary it adds. Nothing else in the step knows
// one mode from another.
type modeAdapter interface {
	// arguments adds what only this mode's command line takes.
	arguments(p *Plan, ev *githubactions.GitHubContext, getenv func(string) string)
	// collect gathers what the mode returned for the views.
	collect(p *Plan, m *Result) *results
	// status is the code the status output carries for the mode's exit
	// code (they differ for a batch whose instances failed).
	status(code int, m *Result) int
	// judge adds the mode's checks, failing scenarios and sets to v.
	judge(v *verdict.Verdict, in judgeInput)
	// outputs sets the mode's own step outputs.
	outputs(r *reporter, res *results, m *Result)
	// views adds the mode's sections to the job summary; head is the
	// section with the command.
	views(r *reporter, doc *jobsummary.Doc, head *jobsummary.Section, p *Plan, res *results)
}

// adapterFor is the adapter of a mode BuildPlan accepted.
func adapterFor(mode string) modeAdapter {
	switch mode {
	case "report":
		return reportMode{}
	case "set", "ordered":
		return setsMode{}
	case "swebench-batch":
		return batchMode{}
	case "qa-audit":
		return auditMode{}
	case "drift":
		return driftMode{}
	}
	return commentMode{}
}

// plainStatus is the status of modes whose exit code is their status.
type plainStatus struct{}

func (plainStatus) status(code int, _ *Result) int { return code }

// noArguments is for modes whose command line is the inputs alone.
type noArguments struct{}

func (noArguments) arguments(*Plan, *githubactions.GitHubContext, func(string) string) {}

// noOutputs is for modes with no outputs of their own.
type noOutputs struct{}

func (noOutputs) outputs(*reporter, *results, *Result) {}

// plainMode is a mode whose command line is its inputs, whose exit code
// is its status and which has no outputs of its own.
type plainMode struct {
	plainStatus
	noArguments
	noOutputs
}

// reportMode is report: gate v2 and the statistical gate over suite rows.
type reportMode struct{ plainMode }

func (reportMode) collect(p *Plan, m *Result) *results {
	r := &results{}
	collectReport(r, p, m.Report)
	return r
}

func (reportMode) judge(v *verdict.Verdict, in judgeInput) {
	gateOn := hasArg(in.Plan.Args, "--gate")
	v.Enforced = gateOn
	if !gateOn {
		v.Switch = "gate: false"
	}
	checks := reportChecks(in.Mode.Report)
	if lb := in.Mode.Lookback; lb != nil {
		checks = append(checks, baselineChecks(lb.Comparison)...)
	}
	// An undecided check fails the step only when it is one of the
	// statistical gate's efficiency checks and undecided checks are not
	// allowed to pass; a baseline check fails it only when it regressed.
	undecidedFails := false
	if rep := in.Mode.Report; rep != nil && rep.Stats != nil {
		undecidedFails = !rep.Stats.AllowUndecided
	}
	for i := range checks {
		c := &checks[i]
		c.Recorded = !gateOn
		switch c.Status {
		case verdict.Pass:
			c.Decided = gateOn && in.Code == exitOK
		case verdict.Fail:
			c.Decided = gateOn
		default:
			c.Decided = gateOn && in.Code != exitOK && undecidedFails && c.Group == "efficiency"
		}
	}
	v.Checks = checks
	v.Failing = failingOf("", in.Res.Suites, in.Res.SuiteOrder, in)
}

func (reportMode) views(r *reporter, doc *jobsummary.Doc, head *jobsummary.Section, p *Plan, res *results) {
	sec := doc.Section("Report")
	sec.Note = head.Note
	if len(res.SuiteOrder) > 0 {
		chartSection(sec, res.Suites)
		failureTable(sec, r, "report", res.Suites, res.SuiteOrder)
	}
	// The report's own Markdown repeats the figures at length: below,
	// collapsed, and the first thing left out of a summary too large.
	if res.SummaryMD != "" {
		md := doc.Section("Report's own summary")
		md.Note, md.Collapsed, md.Drop = head.Note, true, 3
		includeMarkdown(md, res.SummaryMD, r)
	}
}

// setsMode is set and ordered: sets decided by their rows.
type setsMode struct{ plainMode }

func (setsMode) collect(p *Plan, m *Result) *results {
	r := &results{}
	if s := m.Set; s != nil && p.Mode == "set" {
		r.Sets = []*setResult{newSetResult(s)}
		r.SummaryJSON, r.SummaryMD = existing(s.SummaryJSON), existing(s.SummaryMD)
	}
	if o := m.Ordered; o != nil && p.Mode == "ordered" {
		for _, s := range o.Sets {
			r.Sets = append(r.Sets, newSetResult(s))
		}
		if o.Summary != nil {
			for _, s := range o.Summary.Sets {
				if s.Status == "not_run" {
					r.NotRun = append(r.NotRun, s.Set)
				}
			}
		}
		r.SummaryJSON, r.SummaryMD = existing(o.SummaryJSON), existing(o.SummaryMD)
	}
	return r
}

func (setsMode) judge(v *verdict.Verdict, in judgeInput) {
	v.Checks, v.Failing, v.Sets = setsOf(in.Plan, in.Res, in.Mode, in)
}

func (setsMode) views(r *reporter, doc *jobsummary.Doc, head *jobsummary.Section, p *Plan, res *results) {
	if p.Mode != "ordered" {
		for _, s := range res.Sets {
			r.setSection(doc, s, false)
		}
		return
	}
	if len(res.Sets) > 0 {
		// One table of all sets opens the summary; each set's details
		// follow, collapsed, and the table links to them.
		var secs []*jobsummary.Section
		for _, s := range res.Sets {
			secs = append(secs, r.setSection(doc, s, true))
		}
		rows := r.setsTable(res.Sets, secs)
		// The sets after a stop are rows too: what did not run is part
		// of the answer.
		for _, name := range res.NotRun {
			rows = append(rows, []string{strconv.Itoa(len(rows) + 1), textfmt.Cell(name), "**not run**", "-", "-", "-", "-"})
		}
		head.RawTable([]string{"#", "set", "status", "gate", "stats", "failing scenarios", "reruns"}, rows)
	}
	if res.SummaryMD != "" {
		sec := doc.Section("Consolidated summary")
		sec.Collapsed, sec.Drop = true, 3
		includeMarkdown(sec, res.SummaryMD, r)
	}
}

// batchMode is swebench-batch: instance outcomes are results.
type batchMode struct{}

func (batchMode) arguments(p *Plan, _ *githubactions.GitHubContext, getenv func(string) string) {
	p.Args = withProgressMD(p.Mode, p.Args, getenv("GITHUB_STEP_SUMMARY"))
}

func (batchMode) collect(_ *Plan, m *Result) *results {
	return &results{Batch: newBatchResult(m.Batch)}
}

// status: with fail-on never (the default) the step passes whenever the
// batch ran, and status still says what its instances did.
func (batchMode) status(code int, m *Result) int {
	if b := m.Batch; b != nil && code == exitOK && b.Stopped == "" {
		return b.Counts.ExitCode()
	}
	return code
}

func (batchMode) judge(v *verdict.Verdict, in judgeInput) {
	b := in.Res.Batch
	if b == nil {
		return
	}
	bad := 0
	for _, inst := range b.Instances {
		if inst.Status == "success" {
			continue
		}
		bad++
		// The instance's outcome first: failed and incomplete are both
		// instances that did not succeed.
		code := string(inst.FailureReasonCode)
		if code == inst.Status {
			code = ""
		}
		first := strings.Join(nonEmpty(inst.Status, code, inst.FailureReasonDetail), ": ")
		if in.Scrub != nil {
			first = in.Scrub(first)
		}
		v.Failing = append(v.Failing, verdict.Scenario{ID: inst.InstanceID, FirstError: first, Where: in.Rel(inst.StatusPath)})
	}
	v.Judged = len(b.Instances)
	if m := in.Mode.Batch; m != nil && m.Counts.Total >= v.Judged {
		v.Judged = m.Counts.Total
	}
	failOn := orDefault(argValue(in.Plan.Args, "--fail-on"), "never")
	v.Enforced = failOn != "never"
	if !v.Enforced {
		v.Switch = "fail-on: never"
	}
	v.Checks = append(v.Checks, countCheck("instances", "instances_not_success", "instances that did not succeed", bad, !v.Enforced))
}

func (batchMode) outputs(r *reporter, res *results, m *Result) {
	if b := res.Batch; b != nil {
		r.output("out-dir", r.rel(b.Root))
		r.output("predictions", r.rel(b.Predictions))
		r.output("run-manifest", r.rel(b.Manifest))
	}
	r.batchCounts(m.Batch)
}

func (batchMode) views(r *reporter, doc *jobsummary.Doc, head *jobsummary.Section, p *Plan, res *results) {
	if res.Batch != nil {
		r.batchSection(doc, res.Batch)
		return
	}
	head.Para("No run_manifest.json was written under %s.", r.shown(p.OutDir))
}

// auditMode is qa-audit: a verdict per benchmark question.
type auditMode struct {
	plainStatus
	noArguments
}

func (auditMode) collect(_ *Plan, m *Result) *results {
	return &results{Audit: newAuditResult(m.Audit)}
}

func (auditMode) judge(v *verdict.Verdict, in judgeInput) {
	a := in.Res.Audit
	if a == nil || len(a.Cases) == 0 {
		return
	}
	bad := 0
	for _, c := range a.Cases {
		if c.Verdict == "Valid" {
			continue
		}
		bad++
		where := in.Rel(c.File)
		if c.Line > 0 {
			where += ":" + strconv.Itoa(c.Line)
		}
		v.Failing = append(v.Failing, verdict.Scenario{ID: c.ID, FirstError: strings.TrimSpace(c.Verdict + ": " + c.Reason), Where: where})
	}
	v.Judged = len(a.Cases)
	v.Checks = append(v.Checks, countCheck("questions", "questions_not_valid", "questions not Valid", bad, false))
}

func (auditMode) outputs(r *reporter, res *results, _ *Result) {
	if a := res.Audit; a != nil {
		r.output("quality-report", r.rel(a.Report))
		r.output("pr-urls", strings.Join(a.PRURLs, "\n"))
		if a.SummaryMD != "" {
			r.output("summary-md", r.rel(a.SummaryMD))
		}
	}
}

func (auditMode) views(r *reporter, doc *jobsummary.Doc, _ *jobsummary.Section, _ *Plan, res *results) {
	if res.Audit != nil {
		r.auditSection(doc, res.Audit)
	}
}

// commentMode is pr-comment: the second stage posts a kept comment.
type commentMode struct {
	plainStatus
	noOutputs
}

// arguments bind the file to the workflow_run event: it must be about
// the first run's head commit, is posted only while the pull request's
// head is that commit, and under the marker of that run's workflow.
// Outside a workflow_run nothing binds it, and the mode refuses to post.
func (commentMode) arguments(p *Plan, ev *githubactions.GitHubContext, _ func(string) string) {
	if ev == nil || ev.EventName != "workflow_run" {
		return
	}
	if wr, ok := ev.Event["workflow_run"].(map[string]any); ok {
		if sha, _ := wr["head_sha"].(string); sha != "" {
			p.Args = append(p.Args, "--head-sha", sha)
		}
		if name, _ := wr["name"].(string); name != "" {
			p.Args = append(p.Args, "--workflow", name)
		}
	}
}

func (commentMode) collect(*Plan, *Result) *results { return &results{} }

// judge takes the verdict the step posted: the step's views then say
// what it posted and for which head commit, not the event's commit
// (the base branch's, in a workflow_run) with nothing judged.
func (commentMode) judge(v *verdict.Verdict, in judgeInput) {
	c := in.Mode.Comment
	if c == nil || c.File == nil || c.File.Verdict == nil {
		return
	}
	posted := *c.File.Verdict
	posted.Links, posted.Posted = nil, nil
	v.Posted = &posted
	v.Compared = posted.Compared
}

func (commentMode) views(*reporter, *jobsummary.Doc, *jobsummary.Section, *Plan, *results) {}

// countCheck is a check that n things failed, which needs none.
func countCheck(group, id, name string, n int, recorded bool) verdict.Check {
	c := verdict.Check{Group: group, ID: id, Name: name, Value: float64(n), Unit: group, Direction: verdict.AtMost,
		Status: verdict.Pass, Recorded: recorded, Decided: !recorded}
	if n > 0 {
		c.Status = verdict.Fail
	}
	return c
}

// nonEmpty are the strings of ss that are not empty, in order.
func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

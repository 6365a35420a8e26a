package action

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/benchgate/benchgate/internal/baseline"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/stats"
	"github.com/benchgate/benchgate/internal/verdict"
)

// gateCheck turns one of gate v2's checks into a verdict check, in the
// words and unit of its report.Checks entry.
func gateCheck(c report.Check) verdict.Check {
	spec, ok := report.CheckByID(c.Name)
	if !ok {
		spec.ID, spec.Name = c.Name, strings.ReplaceAll(c.Name, "_", " ")
	}
	out := verdict.Check{Group: spec.Group(), ID: c.Name, Name: spec.Name, Value: c.Value, Threshold: c.Threshold, Unit: spec.Unit,
		Direction: verdict.Direction(c.Operator), Status: verdict.Fail}
	if c.Passed {
		out.Status = verdict.Pass
	}
	return out
}

// statsStatus maps the statistical gate's four verdicts to three.
func statsStatus(v stats.Verdict) verdict.Status {
	switch v {
	case stats.Pass:
		return verdict.Pass
	case stats.Fail:
		return verdict.Fail
	}
	return verdict.Undecided
}

// reportChecks are report's checks: with the statistical gate, its
// reliability checks, paired success and efficiency intervals (each
// efficiency row names gate v2's own figure beside it, since the two
// reduce the same rows differently); without, gate v2's nine checks.
func reportChecks(rep *report.Result) []verdict.Check {
	if rep == nil {
		return nil
	}
	var out []verdict.Check
	if st := rep.Stats; st != nil {
		for _, c := range st.Reliability {
			out = append(out, gateCheck(c))
		}
		if s := st.Success; s.Scenarios > 0 {
			// A paired test, not a threshold: its value says what it
			// counted, and its reason how it judged.
			text := fmt.Sprintf("%d scenarios lost, %d gained", s.OnlyAgentDirect, s.OnlyGhx)
			if s.Scope == stats.ScopeSuite {
				text = fmt.Sprintf("runs compared within %d scenarios, p=%.4g", s.Scenarios, s.PValue)
			}
			out = append(out, verdict.Check{Group: "success", ID: "success_paired", Name: "paired success, ghx against agent_direct",
				Value: float64(s.OnlyAgentDirect), Text: text,
				Status: statsStatus(s.Verdict), Method: s.Reason})
		}
		for _, e := range st.Efficiency {
			n, _ := report.CheckByID(e.Check)
			lo, hi := e.LowPct, e.HighPct
			c := verdict.Check{Group: "efficiency", ID: e.Check, Name: orDefault(n.Name, e.Metric), Value: e.EstimatePct, Low: &lo, High: &hi,
				Threshold: e.MinReductionPct, Unit: "%", Direction: verdict.AtLeast, Status: statsStatus(e.Verdict),
				Method: statsMethod(e),
				Also:   "gate v2's median of per-scenario reductions: " + report.Percent(e.V2Value),
				More:   e.PlanSentence()}
			if n := report.V2Disagreement(e); n != "" {
				// v2's value and the gate's estimate on opposite sides
				// of the threshold: the note says why.
				c.Also = n
			}
			if e.Scenarios == 0 {
				c.Low, c.High, c.Text, c.Method = nil, nil, "not measured", "no scenario has values in both modes"
			} else if e.NoInterval {
				c.Low, c.High = nil, nil
			}
			out = append(out, c)
		}
		return out
	}
	if rep.Summary == nil {
		return nil
	}
	for _, c := range rep.Gate.Checks {
		out = append(out, gateCheck(c))
	}
	return out
}

// baselineChecks are the comparison with an earlier run: per mode, the
// scenarios that passed there and fail now, and each efficiency change
// against the tolerance.
func baselineChecks(c *baseline.Comparison) []verdict.Check {
	if c == nil {
		return nil
	}
	// A comparison's verdicts are the statistical gate's words.
	status := func(v string) verdict.Status { return statsStatus(stats.Verdict(v)) }
	var out []verdict.Check
	for _, m := range c.Modes {
		if m.Success.Verdict != "" {
			out = append(out, verdict.Check{Group: "baseline", ID: "baseline_success_" + m.Mode, Name: m.Mode + ": scenarios that passed in the baseline and fail now",
				Value: float64(len(m.Success.NewlyFailing)), Unit: "scenarios", Direction: verdict.AtMost, Status: status(m.Success.Verdict), Method: m.Success.Reason})
		}
		for _, e := range m.Efficiency {
			lo, hi := -e.HighPct+0, -e.LowPct+0
			out = append(out, verdict.Check{Group: "baseline", ID: "baseline_" + m.Mode + "_" + e.Name, Name: m.Mode + ": " + e.Name + " change against the baseline",
				Value: -e.EstimatePct + 0, Low: &lo, High: &hi, Threshold: c.TolerancePct, Unit: "%", Direction: verdict.AtMost, Status: status(string(e.Verdict)),
				Method: e.Reason})
		}
	}
	return out
}

// judgeInput is what judge reads: the plan, what the mode returned, how
// it exited, and the event.
type judgeInput struct {
	Plan *Plan
	Res  *results
	Mode *Result
	// Code is the mode's exit code; Status the step's status word (they
	// differ for a batch whose instances failed under fail-on never).
	Code   int
	Status string
	Event  *githubactions.GitHubContext
	Getenv func(string) string
	// Rel shows a path relative to the workspace; Scrub removes the
	// runner's folders and the Docker engine's socket from a text.
	Rel       func(string) string
	Scrub     func(string) string
	Workspace string
	Lookback  *lookbackPlan
	// committed caches, per suite file, whether git tracks it (one git
	// call per file, however many rows fail in it).
	committed map[string]bool
}

// judge builds the run's one verdict.
func judge(in judgeInput) *verdict.Verdict {
	p, res, m := in.Plan, in.Res, in.Mode
	if m == nil {
		m = &Result{}
	}
	v := &verdict.Verdict{Schema: verdict.Schema, Mode: p.Mode, Status: in.Status, ExitCode: in.Code, Enforced: true, Checks: []verdict.Check{}, Failing: []verdict.Scenario{}}
	v.Compared = compared(in.Event, in.Getenv, in.Lookback)
	in.Mode = m
	in.committed = map[string]bool{}
	adapterFor(p.Mode).judge(v, in)
	if v.Checks == nil {
		v.Checks = []verdict.Check{}
	}
	if lb := m.Lookback; lb != nil {
		markNew(v, lb)
	}
	switch {
	case in.Code == exitUsage:
		v.Stopped = "bad input or setup"
		if res.ModeError != "" {
			v.Stopped += ": " + res.ModeError
		}
	case in.Code != exitOK && len(v.Deciding()) == 0 && res.ModeError != "":
		v.Stopped = res.ModeError
	case in.Code != exitOK && len(v.Deciding()) == 0 && len(v.Checks) == 0:
		v.Stopped = "the mode ended before it judged anything; the log tells why"
	}
	v.Next, v.Rerun = nextSteps(v, in)
	return v
}

// markNew marks the failing scenarios that passed before and names
// those that failed before and pass now, against one reference so that
// the first line gives one count of what broke: the baseline when its
// scenarios were compared (what the baseline checks count), else the
// history (passed, or failed, in every earlier run). New failures go
// first; the history's flaky scenarios are listed either way.
func markNew(v *verdict.Verdict, lb *Lookback) {
	isNew := map[string]bool{}
	// A scenario the history calls flaky (it passed in some earlier runs
	// and failed in others) that failed in the baseline and passes now
	// has not recovered: it is flaky, and listed so with a note.
	flaky, baselineFailed := map[string]bool{}, map[string]bool{}
	if h := lb.History; h != nil {
		for _, s := range h.Flaky {
			flaky[s.Mode+"/"+s.ID] = true
		}
	}
	if c := lb.Comparison; c != nil && comparedScenarios(c) {
		v.NewAgainst = "baseline"
		for _, m := range c.Modes {
			for _, id := range m.Success.NewlyFailing {
				isNew[m.Mode+"/"+id] = true
			}
			for _, id := range m.Success.NewlyPassing {
				if flaky[m.Mode+"/"+id] {
					baselineFailed[m.Mode+"/"+id] = true
					continue
				}
				v.Recovered = append(v.Recovered, verdict.Recovered{Mode: m.Mode, ID: id})
			}
		}
	} else if h := lb.History; h != nil {
		v.NewAgainst = "history"
		for _, s := range h.NewFailures {
			isNew[s.Mode+"/"+s.ID] = true
		}
		for _, s := range h.Scenarios {
			if s.InCurrent && !s.FailingNow && s.EarlierSeen > 0 && s.EarlierPassed == 0 {
				v.Recovered = append(v.Recovered, verdict.Recovered{Mode: s.Mode, ID: s.ID, EarlierRuns: s.EarlierSeen})
			}
		}
	} else {
		return
	}
	for i := range v.Failing {
		for _, mode := range v.Failing[i].Modes {
			if isNew[mode+"/"+v.Failing[i].ID] {
				v.Failing[i].New = true
			}
		}
	}
	sort.SliceStable(v.Failing, func(i, j int) bool { return v.Failing[i].New && !v.Failing[j].New })
	if h := lb.History; h != nil {
		for _, s := range h.Flaky {
			v.Flaky = append(v.Flaky, verdict.Flaky{Mode: s.Mode, ID: s.ID, RunsPassed: s.EarlierPassed, RunsSeen: s.EarlierSeen, FailingNow: s.FailingNow,
				BaselineFailed: baselineFailed[s.Mode+"/"+s.ID]})
		}
	}
}

// comparedScenarios says the baseline held scenarios to compare (not a
// summary alone, whose success is untested).
func comparedScenarios(c *baseline.Comparison) bool {
	for _, m := range c.Modes {
		if m.Success.Verdict != "" && m.Success.Verdict != baseline.Untested {
			return true
		}
	}
	return false
}

// setsOf judges set and ordered: per set, the row check that decides
// it, and the gates it only records; the failing scenarios; the sets
// in order, those that did not run included.
func setsOf(p *Plan, res *results, m *Result, in judgeInput) (checks []verdict.Check, failing []verdict.Scenario, sets []verdict.Set) {
	checks, failing = []verdict.Check{}, []verdict.Scenario{}
	for _, s := range res.Sets {
		t := s.Tracking
		rows := 0
		for _, st := range s.Suites {
			rows += failingRows(st)
		}
		c := verdict.Check{Set: t.Set, Group: "rows", ID: "rows", Name: "failing rows after reruns (success, output_valid, error null)",
			Value: float64(rows), Unit: "rows", Direction: verdict.AtMost, Status: verdict.Pass, Decided: true}
		if t.FinalStatus != "pass" {
			c.Status = verdict.Fail
			if t.Error != "" {
				c.Method = "stopped: " + t.Error
			}
			if rows == 0 {
				// No failing row to count: the set failed on what it did
				// not write (zero rows, a stop before its rows).
				expected, actual := 0, 0
				for _, n := range t.RowsExpected {
					expected += n
				}
				for _, n := range t.RowsActual {
					actual += n
				}
				c.Direction, c.Text = "", fmt.Sprintf("%s, %d of %d rows written", orDefault(t.FinalStatus, "unknown"), actual, expected)
				if t.Error != "" {
					c.Text += ": " + t.Error
					c.Method = ""
				}
			}
		}
		checks = append(checks, c)
		if g := t.Gate; g != nil && g.Ran {
			gc := verdict.Check{Set: t.Set, Group: "gate", ID: "gate_" + orDefault(g.Profile, "verify_pr"), Name: "gate " + orDefault(g.Profile, "verify_pr"),
				Text: passFail(g.Passed), Status: verdict.Pass, Recorded: true, Method: "kept in tracking.json; rows decide a set"}
			if !g.Passed {
				gc.Status = verdict.Fail
			}
			checks = append(checks, gc)
			if st := g.Stats; st != nil {
				sc := verdict.Check{Set: t.Set, Group: "gate", ID: "statistical_gate", Name: "statistical gate", Text: strings.ToUpper(st.Verdict),
					Status: statsStatus(stats.Verdict(st.Verdict)), Recorded: true, Method: "kept in tracking.json; rows decide a set"}
				checks = append(checks, sc)
			}
		}
		failing = append(failing, failingOf(t.Set, s.Suites, s.SuiteOrder, in)...)
	}
	if o := m.Ordered; o != nil && o.Summary != nil {
		for _, s := range o.Summary.Sets {
			st := s.Status
			if st == "not_run" {
				st = verdict.NotRun
			}
			sets = append(sets, verdict.Set{Name: s.Set, Status: st, Failing: len(s.FailingScenarios)})
		}
	} else {
		for _, s := range res.Sets {
			sets = append(sets, verdict.Set{Name: s.Tracking.Set, Status: orDefault(s.Tracking.FinalStatus, "unknown"), Failing: len(s.Tracking.FailingScenarios)})
		}
	}
	return checks, failing, sets
}

// failingOf gathers the failing rows of suites into scenarios: the modes
// a scenario fails in, the repetitions that failed of those that ran, the
// first failing row's reason and where it is.
func failingOf(set string, suites map[string]*suiteStats, order []string, in judgeInput) []verdict.Scenario {
	byID := map[string]*verdict.Scenario{}
	var ids []string
	rowsSeen := map[string]bool{}
	for _, mode := range order {
		st := suites[mode]
		for _, d := range st.Violations {
			s := byID[d.ScenarioID]
			if s == nil {
				s = &verdict.Scenario{Set: set, ID: d.ScenarioID, FirstError: d.Rule(), Where: fmt.Sprintf("%s:%d", in.Rel(d.File), d.Line), URL: rowURL(in, d.File, d.Line)}
				byID[d.ScenarioID] = s
				ids = append(ids, d.ScenarioID)
			}
			if !slices.Contains(s.Modes, mode) {
				s.Modes = append(s.Modes, mode)
				s.Iterations += st.Iterations[d.ScenarioID]
			}
			key := fmt.Sprintf("%s:%s:%d", d.ScenarioID, d.File, d.Line)
			if !rowsSeen[key] {
				rowsSeen[key] = true
				s.Failed++
			}
		}
	}
	out := make([]verdict.Scenario, 0, len(ids))
	for _, id := range ids {
		out = append(out, *byID[id])
	}
	return out
}

// rowURL links a suite row at the pull request's head commit when the
// file is committed there; "" otherwise (the row is in the artifact).
func rowURL(in judgeInput, file string, line int) string {
	c := compared(in.Event, in.Getenv, nil)
	if c.Head == "" || c.Repository == "" || in.Workspace == "" {
		return ""
	}
	rel, err := filepath.Rel(in.Workspace, file)
	if err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	tracked, ok := in.committed[rel]
	if !ok {
		cmd := exec.Command("git", "ls-files", "--error-unmatch", "--", rel)
		cmd.Dir = in.Workspace
		tracked = cmd.Run() == nil
		if in.committed != nil {
			in.committed[rel] = tracked
		}
	}
	if !tracked {
		return ""
	}
	server := strings.TrimRight(orDefault(in.Getenv("GITHUB_SERVER_URL"), "https://github.com"), "/")
	return fmt.Sprintf("%s/%s/blob/%s/%s#L%d", server, c.Repository, c.Head, filepath.ToSlash(rel), line)
}

// compared says what was judged: the pull request's head commit (the
// event's pull_request.head.sha, not GITHUB_SHA, which is the merge
// commit GitHub builds for the run), the base commit, and the baseline
// run when one was downloaded.
func compared(ev *githubactions.GitHubContext, getenv func(string) string, lp *lookbackPlan) verdict.Compared {
	var c verdict.Compared
	if ev == nil {
		return c
	}
	c.Repository = ev.Repository
	c.Head = ev.SHA
	if pr, ok := ev.Event["pull_request"].(map[string]any); ok {
		if n, ok := pr["number"].(float64); ok {
			c.PullRequest = int(n)
		}
		if head, ok := pr["head"].(map[string]any); ok {
			if sha, _ := head["sha"].(string); sha != "" {
				c.Head = sha
			}
		}
		if base, ok := pr["base"].(map[string]any); ok {
			c.Base, _ = base["sha"].(string)
		}
	}
	server := strings.TrimRight(orDefault(getenv("GITHUB_SERVER_URL"), "https://github.com"), "/")
	if c.Repository != "" {
		if c.Head != "" {
			c.HeadURL = server + "/" + c.Repository + "/commit/" + c.Head
		}
		if c.Base != "" {
			c.BaseURL = server + "/" + c.Repository + "/commit/" + c.Base
		}
	}
	if lp != nil && lp.BaselineRun != "" {
		c.Baseline, c.BaselineURL = lp.BaselineRun, lp.BaselineURL
	}
	return c
}

// nextSteps says which of benchgate's next steps apply to the verdict,
// and names the set whose failing scenarios a rerun reruns (the first
// failing set, with the workflow_dispatch example of docs/action.md,
// rerun-scenarios.yml) and the pull request's branch. The sentences and
// the command are the verdict's to render.
func nextSteps(v *verdict.Verdict, in judgeInput) ([]verdict.Step, *verdict.Rerun) {
	var next []verdict.Step
	if v.Stopped != "" {
		if v.ExitCode == exitUsage {
			next = append(next, verdict.FixInput)
		}
		return next, nil
	}
	if v.Counts().NewFailures > 0 {
		next = append(next, verdict.NewFailures)
	}
	for _, s := range v.Failing {
		if len(s.Modes) > 1 {
			next = append(next, verdict.BothModes)
			break
		}
	}
	for _, ch := range v.Checks {
		if ch.Group == "reliability" && ch.Status == verdict.Fail {
			next = append(next, verdict.ReliabilityFailed)
			break
		}
	}
	// Undecided checks that failed the step, and those allowed to pass:
	// the advice differs, and must not contradict the first line.
	for _, ch := range v.Deciding() {
		if ch.Status == verdict.Undecided {
			next = append(next, verdict.UndecidedCheck)
			break
		}
	}
	if len(v.UndecidedAllowed()) > 0 {
		next = append(next, verdict.UndecidedAllowed)
	}
	notRun, stopped := false, false
	for _, s := range v.Sets {
		notRun = notRun || s.Status == verdict.NotRun
		stopped = stopped || (s.Status != verdict.NotRun && s.Status != "pass")
	}
	if notRun && stopped {
		next = append(next, verdict.StoppedAtSet)
	}
	if (v.Mode != "set" && v.Mode != "ordered") || len(v.Failing) == 0 {
		return next, nil
	}
	r := &verdict.Rerun{Set: v.Failing[0].Set}
	if in.Event != nil {
		if pr, ok := in.Event.Event["pull_request"].(map[string]any); ok {
			if head, ok := pr["head"].(map[string]any); ok {
				r.Ref, _ = head["ref"].(string)
			}
		}
	}
	return next, r
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

func hasArg(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// statsMethod says how an efficiency check was judged and what its
// verdict is about, in the statistics' words: "on these 2 scenarios (4
// repetitions per arm), beyond the noise of the repetitions; it claims
// nothing about scenarios outside this suite".
func statsMethod(e report.EfficiencyCheck) string {
	if e.Scope == stats.ScopeSuite {
		return e.ScopeText
	}
	m := fmt.Sprintf("paired estimate over %d scenarios, %s interval", e.Scenarios, report.Percent(e.Confidence*100))
	if e.ScopeText != "" {
		m += "; " + e.ScopeText
	}
	return m
}

// Package verdict is the one judgement of a run: the checks with their
// values and thresholds, the failing scenarios, what was compared, and
// what to do next. A mode's adapter builds one Verdict; the pull-request
// comment, the job summary's opening, the annotations, the step outputs
// and the log line all render that one value, so they cannot disagree.
//
// The type is plain data with a JSON form (Schema), so that a run that
// cannot post its comment (a pull request from a fork) can hand the
// verdict to a trusted run, which validates it and renders the comment
// itself.
package verdict

import (
	"fmt"
	"regexp"
	"strings"
)

// Schema is the version of the JSON form; a reader refuses another.
// Version 2: the next steps are step kinds and the rerun its set and
// branch, no longer sentences and a command.
const Schema = 2

// Status is a check's outcome.
type Status string

// The outcomes of a check.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	// Undecided: the data do not decide it either way (inconclusive,
	// underpowered, or not measured).
	Undecided Status = "undecided"
)

// Direction says which side of the threshold passes.
type Direction string

// The directions of a threshold.
const (
	AtLeast Direction = ">="
	AtMost  Direction = "<="
)

// Verdict is the judgement of one run of one mode.
type Verdict struct {
	Schema int `json:"schema"`
	// Mode is the benchgate mode that ran (report, set, ordered,
	// swebench-batch, qa-audit).
	Mode string `json:"mode"`
	// Status is the step's status word (pass, fail, incomplete, error)
	// and ExitCode its exit code.
	Status   string `json:"status"`
	ExitCode int    `json:"exitCode"`
	// Enforced is false when the user turned the gate off: the checks
	// were computed and recorded, and did not decide the exit code.
	// Switch names the input that did it ("gate: false").
	Enforced bool   `json:"enforced"`
	Switch   string `json:"switch,omitempty"`
	// Judged is how many instances (swebench-batch) or questions
	// (qa-audit) were judged, so that a count of failures reads "1 of 2
	// instances"; 0 where the failing units are scenarios found by rows.
	Judged int `json:"judged,omitempty"`
	// Stopped says why the mode ended before judging (bad input, a
	// crash, an engine it could not reach); "" when it judged.
	Stopped string `json:"stopped,omitempty"`
	// Checks are every check that ran, deciding ones first within
	// their group.
	Checks []Check `json:"checks"`
	// Failing are the failing scenarios, new failures first.
	Failing []Scenario `json:"failing"`
	// Flaky are scenarios that both passed and failed in earlier runs.
	Flaky []Flaky `json:"flaky,omitempty"`
	// Recovered are scenarios that failed where New is measured (every
	// earlier run of the history, or the baseline) and pass now.
	Recovered []Recovered `json:"recovered,omitempty"`
	// NewAgainst says where a failing scenario's New was measured:
	// "history" (it passed in every earlier run) or "baseline" (it
	// passed in the baseline); "" when neither was compared.
	NewAgainst string `json:"newAgainst,omitempty"`
	// Sets are set and ordered's sets, in order, those not run included.
	Sets []Set `json:"sets,omitempty"`
	// Compared is what was judged against what.
	Compared Compared `json:"compared"`
	// Next are what to do next, as kinds of step: the sentences are
	// benchgate's own (Step.Sentence), with values taken from the
	// verdict, so that a verdict another process wrote can choose which
	// steps are shown but not what they say.
	Next []Step `json:"next,omitempty"`
	// Rerun names the failing scenarios' set and branch to rerun; the
	// command is built from them and the failing scenarios' IDs by
	// RerunCommand, never kept as text.
	Rerun *Rerun `json:"rerun,omitempty"`
	// Posted is the verdict a pr-comment step posted (the run of a pull
	// request from a fork): that step's views describe it, its head
	// commit and its failures, rather than an empty judgement of their
	// own. It never holds a Posted of its own.
	Posted *Verdict `json:"posted,omitempty"`
	// Links are where to read more (the job summary, artifacts).
	Links []Link `json:"links,omitempty"`
}

// Check is one check, with what it measured and what it needed.
type Check struct {
	// Set names the set the check belongs to (set, ordered); "" for
	// report.
	Set string `json:"set,omitempty"`
	// Group is reliability, efficiency, success, baseline, rows,
	// instances or questions.
	Group string `json:"group"`
	// ID is the machine name ("efficiency_tool_call_reduction"); Name
	// says it in words ("tool-call reduction").
	ID   string `json:"id"`
	Name string `json:"name"`
	// Value and Threshold are in Unit ("%", "points", "rows", ...);
	// Low and High bound the value's interval when it has one.
	Value     float64  `json:"value"`
	Low       *float64 `json:"low,omitempty"`
	High      *float64 `json:"high,omitempty"`
	Threshold float64  `json:"threshold"`
	Unit      string   `json:"unit"`
	// Direction is "" for a check with no threshold of its own (a gate
	// recorded as PASS or FAIL); Text then says its value.
	Direction Direction `json:"direction"`
	Text      string    `json:"text,omitempty"`
	Status    Status    `json:"status"`
	// Recorded: the check ran and is kept, but could not set the exit
	// code (the gate was turned off, or the mode is decided by rows).
	Recorded bool `json:"recorded"`
	// Decided: this check decided the exit code (a failing enforced
	// check of a failed run; every enforced check of a passing one).
	Decided bool `json:"decided"`
	// Method says what the value is when two figures could answer the
	// same question ("paired estimate, 95% interval"); Also gives the
	// other figure with its label.
	Method string `json:"method,omitempty"`
	Also   string `json:"also,omitempty"`
	// More is how much more data would decide an undecided check, as the
	// statistics state it.
	More string `json:"more,omitempty"`
}

// Scenario is one failing scenario.
type Scenario struct {
	Set string `json:"set,omitempty"`
	ID  string `json:"id"`
	// Modes are the benchmark modes it fails in.
	Modes []string `json:"modes"`
	// Failed of Iterations repetitions failed.
	Failed     int `json:"failed"`
	Iterations int `json:"iterations"`
	// FirstError is the first failing row's reason.
	FirstError string `json:"firstError,omitempty"`
	// Where is the first failing row ("suites/ghx-suite.jsonl:12"),
	// relative to the workspace or inside the artifact; URL links it.
	Where string `json:"where,omitempty"`
	URL   string `json:"url,omitempty"`
	// New: it passed where the verdict's NewAgainst says (every earlier
	// run of the history, or the baseline) and fails now.
	New bool `json:"new,omitempty"`
}

// Flaky is a scenario that both passed and failed in earlier runs.
type Flaky struct {
	Mode       string `json:"mode"`
	ID         string `json:"id"`
	RunsPassed int    `json:"runsPassed"`
	RunsSeen   int    `json:"runsSeen"`
	FailingNow bool   `json:"failingNow"`
	// BaselineFailed: it failed in the baseline and passes now, which
	// would make it recovered, but its history says it is flaky: it is
	// listed here with a note, never as recovered.
	BaselineFailed bool `json:"baselineFailed,omitempty"`
}

// Recovered is a scenario that failed before and passes now.
type Recovered struct {
	Mode string `json:"mode"`
	ID   string `json:"id"`
	// EarlierRuns is how many earlier runs of the history it failed in
	// (all of them); 0 when it failed in the baseline.
	EarlierRuns int `json:"earlierRuns"`
}

// Set is one set of set or ordered.
type Set struct {
	Name string `json:"name"`
	// Status is the set's final status (pass, fail, terminal_fail) or
	// "not run".
	Status  string `json:"status"`
	Failing int    `json:"failing"`
}

// NotRun is the Status of a set that never ran.
const NotRun = "not run"

// Compared is what the run judged against what.
type Compared struct {
	Repository  string `json:"repository,omitempty"`
	PullRequest int    `json:"pullRequest,omitempty"`
	// Head is the commit judged: the pull request's head commit (not
	// the merge commit GitHub builds), else the run's commit.
	Head    string `json:"head,omitempty"`
	HeadURL string `json:"headUrl,omitempty"`
	// Base is the commit the pull request targets.
	Base    string `json:"base,omitempty"`
	BaseURL string `json:"baseUrl,omitempty"`
	// Baseline names the earlier run compared with ("run 345 at
	// abc1234"), "" without one.
	Baseline    string `json:"baseline,omitempty"`
	BaselineURL string `json:"baselineUrl,omitempty"`
}

// Link is a titled URL.
type Link struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

// Counts are the figures of the headline.
type Counts struct {
	ChecksFailed, ChecksUndecided, ScenariosFailing, NewFailures int
	// RecordedFailed are failed checks that are only recorded (a set's
	// gate) under an enforced verdict: in the table, not in ChecksFailed.
	RecordedFailed int
}

// Counts counts the failed checks (those that could decide the step;
// with the gate turned off, those that would have), the failing
// scenarios and the new failures.
func (v *Verdict) Counts() Counts {
	var c Counts
	for _, ch := range v.Checks {
		if ch.Recorded && v.Enforced {
			if ch.Status == Fail {
				c.RecordedFailed++
			}
			continue
		}
		switch ch.Status {
		case Fail:
			c.ChecksFailed++
		case Undecided:
			c.ChecksUndecided++
		}
	}
	c.ScenariosFailing = len(v.Failing)
	for _, s := range v.Failing {
		if s.New {
			c.NewFailures++
		}
	}
	return c
}

// Deciding are the checks that decided the exit code; when none is
// marked, the failing or undecided checks that would have decided it
// had they been enforced.
func (v *Verdict) Deciding() []Check {
	var out []Check
	for _, c := range v.Checks {
		if c.Decided && c.Status != Pass {
			out = append(out, c)
		}
	}
	return out
}

// UndecidedAllowed are the undecided checks of a passing, enforced
// verdict that did not decide its exit code: the step passed with them.
func (v *Verdict) UndecidedAllowed() []Check {
	var out []Check
	if !v.Enforced || v.ExitCode != 0 {
		return nil
	}
	for _, c := range v.Checks {
		if c.Status == Undecided && !c.Decided && !c.Recorded {
			out = append(out, c)
		}
	}
	return out
}

// WouldFail are the recorded checks that failed or are undecided: what
// an enforced gate would have failed on.
func (v *Verdict) WouldFail() []Check {
	var out []Check
	for _, c := range v.Checks {
		if c.Recorded && c.Status != Pass {
			out = append(out, c)
		}
	}
	return out
}

// NotEnforced says the step passed only because its failures were not
// enforced (gate: false, fail-on: never): something failed, or is
// undecided, that would have failed an enforced step. Every view says
// so in the same words (StatusWord), never "fail" beside a passing step.
func (v *Verdict) NotEnforced() bool {
	return !v.Enforced && v.ExitCode == 0 && v.Stopped == "" && len(v.WouldFail()) > 0
}

// StatusWord is the status the headline gives: "not enforced" for a
// verdict whose failures were not enforced, else Status.
func (v *Verdict) StatusWord() string {
	if v.NotEnforced() {
		return "not enforced"
	}
	return v.Status
}

// Mark is the headline's status mark: ✅ a pass with nothing failing or
// undecided, ❌ a failed step, ⚠️ a pass with something to look at (a
// check that failed but was only recorded, an undecided check, a failing
// scenario) or an incomplete run.
func (v *Verdict) Mark() string {
	switch {
	case v.ExitCode != 0 && v.Status != "incomplete":
		return "❌"
	case v.Status != "pass":
		return "⚠️"
	}
	for _, c := range v.Checks {
		// A gate a set only records is in the table; the mark is about
		// what could decide the step, or would have with the gate on.
		if c.Status != Pass && (!c.Recorded || !v.Enforced) {
			return "⚠️"
		}
	}
	if len(v.Failing) > 0 {
		return "⚠️"
	}
	return "✅"
}

// ValueText is the check's value with its unit and interval:
// "16.67%", "31.61% [-7.81%, 57.25%]", "-30.00 points", "3 rows".
func (c Check) ValueText() string {
	if c.Text != "" {
		return c.Text
	}
	s := number(c.Value, c.Unit)
	if c.Low != nil && c.High != nil {
		s += fmt.Sprintf(" [%s, %s]", number(*c.Low, c.Unit), number(*c.High, c.Unit))
	}
	return s
}

// NeedsText is the threshold with its direction: "≥ 20.00%".
func (c Check) NeedsText() string {
	if c.Direction == "" {
		return "–"
	}
	d := "≥"
	if c.Direction == AtMost {
		d = "≤"
	}
	return d + " " + number(c.Threshold, c.Unit)
}

// Sentence says the check in words with its value against its
// threshold: "tool-call reduction 16.67%, needs ≥ 20.00%".
func (c Check) Sentence() string {
	who := c.Name
	if c.Set != "" {
		who = c.Set + ": " + who
	}
	s := fmt.Sprintf("%s %s, needs %s", who, c.ValueText(), c.NeedsText())
	if c.Direction == "" {
		s = who + ": " + c.ValueText()
	}
	if c.Status == Undecided {
		s += " (undecided)"
	}
	return s
}

// number prints a value in its unit: percentages and points with two
// decimals, counts as whole numbers.
func number(v float64, unit string) string {
	switch unit {
	case "%":
		return fmt.Sprintf("%.2f%%", v)
	case "points":
		return fmt.Sprintf("%+.2f points", v)
	case "":
		return trimFloat(v)
	}
	if v == 1 {
		unit = strings.TrimSuffix(unit, "s")
	}
	return trimFloat(v) + " " + unit
}

func trimFloat(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.2f", v)
}

// Mark is a check's mark in the table: ✅ pass, ❌ fail, ⚠️ undecided.
func (c Check) Mark() string {
	switch c.Status {
	case Pass:
		return "✅"
	case Fail:
		return "❌"
	}
	return "⚠️"
}

// isRate says a check's value is a share of rows or scenarios (a
// success, validity, failure or coverage rate), which cannot leave 0 to
// 100%; reductions and changes can.
func isRate(c Check) bool {
	if c.Unit != "%" {
		return false
	}
	for _, w := range []string{"_rate", "validity", "coverage"} {
		if strings.Contains(c.ID, w) {
			return true
		}
	}
	return false
}

var (
	shaPattern    = regexp.MustCompile(`^[0-9a-f]{7,64}$`)
	statusPattern = regexp.MustCompile(`^(pass|fail|incomplete|error)$`)
)

// Validate checks a verdict read from elsewhere before it is rendered:
// the schema, the status words, commit IDs and link schemes.
func (v *Verdict) Validate() error {
	if v.Schema != Schema {
		return fmt.Errorf("verdict schema %d, expected %d", v.Schema, Schema)
	}
	if !statusPattern.MatchString(v.Status) {
		return fmt.Errorf("verdict status %q, expected pass, fail, incomplete or error", v.Status)
	}
	if v.Posted != nil {
		if v.Posted.Posted != nil {
			return fmt.Errorf("verdict posted: holds a posted verdict of its own")
		}
		if err := v.Posted.Validate(); err != nil {
			return fmt.Errorf("verdict posted: %w", err)
		}
	}
	if v.Judged < 0 || (v.Judged > 0 && len(v.Failing) > v.Judged) {
		return fmt.Errorf("verdict judged %d, with %d failing", v.Judged, len(v.Failing))
	}
	switch v.NewAgainst {
	case "", "history", "baseline":
	default:
		return fmt.Errorf("verdict newAgainst %q, expected history, baseline or nothing", v.NewAgainst)
	}
	for _, sha := range []string{v.Compared.Head, v.Compared.Base} {
		if sha != "" && !shaPattern.MatchString(sha) {
			return fmt.Errorf("verdict commit %q is not a commit ID", sha)
		}
	}
	for i, c := range v.Checks {
		switch c.Status {
		case Pass, Fail, Undecided:
		default:
			return fmt.Errorf("check %d (%s): status %q, expected pass, fail or undecided", i+1, c.ID, c.Status)
		}
		if c.Direction != AtLeast && c.Direction != AtMost && (c.Direction != "" || c.Text == "") {
			return fmt.Errorf("check %d (%s): direction %q, expected >= or <=", i+1, c.ID, c.Direction)
		}
		if isRate(c) && (c.Value < 0 || c.Value > 100) {
			return fmt.Errorf("check %d (%s): a rate of %v%%, expected 0 to 100", i+1, c.ID, c.Value)
		}
	}
	for i, st := range v.Next {
		if !st.known() {
			return fmt.Errorf("next step %d: %q, expected one of %s", i+1, string(st), strings.Join(stepNames(), ", "))
		}
	}
	for _, s := range v.Failing {
		if s.Failed < 0 || (s.Iterations > 0 && s.Failed > s.Iterations) {
			return fmt.Errorf("scenario %s: %d of %d repetitions failed", s.ID, s.Failed, s.Iterations)
		}
	}
	urls := []string{v.Compared.HeadURL, v.Compared.BaseURL, v.Compared.BaselineURL}
	for _, l := range v.Links {
		urls = append(urls, l.URL)
	}
	for _, s := range v.Failing {
		urls = append(urls, s.URL)
	}
	for _, u := range urls {
		if u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
			return fmt.Errorf("verdict link %q is not an http(s) URL", u)
		}
	}
	return nil
}

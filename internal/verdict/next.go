package verdict

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/benchgate/benchgate/internal/ident"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// Step is a kind of next step. Its sentence is benchgate's own, and the
// values it names (counts, scenario IDs, a set) are read from the
// verdict when it is rendered, so a step says nothing its verdict does
// not.
type Step string

// The next steps benchgate knows.
const (
	// FixInput: the mode stopped on bad input or setup.
	FixInput Step = "fix-input"
	// FixNamedInput: the step refused one of its inputs before the
	// mode ran.
	FixNamedInput Step = "fix-named-input"
	// NewFailures: some failing scenarios passed in every earlier run.
	NewFailures Step = "new-failures"
	// BothModes: some scenarios fail in both benchmark modes.
	BothModes Step = "fails-in-both-modes"
	// ReliabilityFailed: a reliability check failed.
	ReliabilityFailed Step = "reliability-failed"
	// UndecidedCheck: the data do not decide a deciding check.
	UndecidedCheck Step = "undecided"
	// UndecidedAllowed: checks the data do not decide were allowed to
	// pass, and the step passed.
	UndecidedAllowed Step = "undecided-allowed"
	// StoppedAtSet: an ordered run stopped at a set before later ones.
	StoppedAtSet Step = "stopped-at-set"
)

var stepKnown = map[Step]bool{FixInput: true, FixNamedInput: true, NewFailures: true, BothModes: true, ReliabilityFailed: true, UndecidedCheck: true, UndecidedAllowed: true, StoppedAtSet: true}

func (s Step) known() bool { return stepKnown[s] }

func stepNames() []string {
	var out []string
	for s := range stepKnown {
		out = append(out, string(s))
	}
	sort.Strings(out)
	return out
}

// maxBothModes is how many scenarios failing in both modes the step
// names; the rest are counted.
const maxBothModes = 3

// sentence is the step in benchgate's words with the verdict's values,
// as Markdown whose values are code spans; "" when the verdict has
// nothing for it (no new failure, no set that stopped), or the step is
// unknown. It is called on an Inert copy.
func (v *Verdict) sentence(s Step) string {
	switch s {
	case FixInput:
		return "Fix the input or the setup named above and run again; nothing was judged."
	case FixNamedInput:
		return "Fix the input named above and run again; nothing was judged."
	case NewFailures:
		if n := v.Counts().NewFailures; n > 0 {
			where := "in every earlier run"
			if v.NewAgainst == "baseline" {
				where = "in the baseline"
			}
			return fmt.Sprintf("%d failing scenario(s) passed %s: this change is the first suspect.", n, where)
		}
	case BothModes:
		var ids []string
		for _, f := range v.Failing {
			if len(f.Modes) > 1 {
				ids = append(ids, idCode(f.ID))
			}
		}
		if len(ids) == 0 {
			return ""
		}
		if len(ids) > maxBothModes {
			ids = append(ids[:maxBothModes:maxBothModes], fmt.Sprintf("%d more", len(ids)-maxBothModes))
		}
		return strings.Join(ids, ", ") + " fail(s) in both agent_direct and ghx: a fixture or scenario problem rather than ghx."
	case ReliabilityFailed:
		return "A reliability check failed: read the first errors of the failing scenarios before the efficiency figures."
	case UndecidedCheck:
		var names []string
		for _, c := range v.Deciding() {
			if c.Status == Undecided {
				names = append(names, c.Name)
			}
		}
		if len(names) > 0 {
			return "The data do not decide " + checkNames(names) + ": the table says how much more would (or set stats-allow-undecided: true to let undecided checks pass)."
		}
	case UndecidedAllowed:
		var names []string
		for _, c := range v.UndecidedAllowed() {
			names = append(names, c.Name)
		}
		if len(names) > 0 {
			return "The data do not decide " + checkNames(names) + ", which did not fail the step: the table says how much more would."
		}
	case StoppedAtSet:
		stoppedAt, notRun := "", 0
		for _, st := range v.Sets {
			switch {
			case st.Status == NotRun:
				notRun++
			case st.Status != "pass" && stoppedAt == "":
				stoppedAt = st.Name
			}
		}
		if stoppedAt != "" && notRun > 0 {
			name := idCode(stoppedAt)
			return fmt.Sprintf("The run stopped at set %s; %d later sets did not run. Fix %s first.", name, notRun, name)
		}
	}
	return ""
}

// maxNamedChecks is how many checks a next step names; the rest are
// counted.
const maxNamedChecks = 2

// checkNames are check names in a sentence: the first two, on one line
// each, then how many more.
func checkNames(names []string) string {
	var out []string
	for i, n := range names {
		if i == maxNamedChecks {
			out = append(out, fmt.Sprintf("%d more", len(names)-maxNamedChecks))
			break
		}
		out = append(out, textfmt.Cell(textfmt.Truncate(n, 100)))
	}
	return strings.Join(out, ", ")
}

// idCode shows an identifier from data as a code span, cut to a length
// a sentence can carry.
func idCode(id string) string {
	return textfmt.Code(textfmt.Truncate(id, 100))
}

// RerunWorkflow is the workflow_dispatch workflow a rerun command starts
// (docs/action.md, rerun-scenarios.yml).
const RerunWorkflow = "rerun-scenarios.yml"

// Rerun says which failing scenarios a rerun command reruns: those of
// Set, on the branch Ref ("" for the default branch).
type Rerun struct {
	Set string `json:"set"`
	Ref string `json:"ref,omitempty"`
}

// refPattern is the branch names a rerun command names: letters,
// digits and . _ / + -, no ".." or "//", as git allows them and a shell
// reads them plainly.
var refPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/+-]{0,199}$`)

// RerunCommand is the command that reruns the failing scenarios of
// Rerun's set, built here from parts each checked against its rule (the
// set name, every scenario ID, the branch) and shell-quoted; "" when
// there is no rerun or any part breaks its rule, so that no command
// holds text the rules do not allow.
func (v *Verdict) RerunCommand() string {
	r := v.Rerun
	if r == nil || !ident.SetName.Match(r.Set) {
		return ""
	}
	if r.Ref != "" && (!refPattern.MatchString(r.Ref) || strings.Contains(r.Ref, "..") || strings.Contains(r.Ref, "//")) {
		return ""
	}
	var ids []string
	seen := map[string]bool{}
	for _, s := range v.Failing {
		if s.Set != r.Set || seen[s.ID] {
			continue
		}
		if !ident.ScenarioID.Match(s.ID) {
			return ""
		}
		seen[s.ID] = true
		ids = append(ids, s.ID)
	}
	if len(ids) == 0 {
		return ""
	}
	cmd := "gh workflow run " + RerunWorkflow
	if r.Ref != "" {
		cmd += " --ref " + shellQuote(r.Ref)
	}
	return cmd + " -f set=" + shellQuote(r.Set) + " -f scenario_ids=" + shellQuote(strings.Join(ids, " "))
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and - _ . / = : ,.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// nextText is the next-step paragraph: the steps' sentences, then the
// rerun command to copy. It is called on an Inert copy.
func (v *Verdict) nextText() string {
	var ss []string
	for _, st := range v.Next {
		if s := v.sentence(st); s != "" {
			ss = append(ss, s)
		}
	}
	cmd := v.RerunCommand()
	if cmd != "" {
		ss = append(ss, "Rerun the failing scenarios of "+idCode(v.Rerun.Set)+" with the workflow_dispatch workflow (docs/action.md):")
	}
	if len(ss) == 0 {
		return ""
	}
	s := "**Next**: " + strings.Join(ss, " ")
	if cmd != "" {
		s += "\n\n" + strings.TrimRight(textfmt.Fence("sh", cmd), "\n")
	}
	return s
}

// Inert is a copy of the verdict with every text in it made inert
// (textfmt.Inert): what the Markdown renderers show, so that text from
// rows, a model or another process's file can name things but never
// become a link, an image, a mention or HTML. Links are kept: they are
// built by benchgate (a reader of another's verdict filters them).
func (v *Verdict) Inert() *Verdict {
	c := *v
	c.Checks = append([]Check(nil), v.Checks...)
	c.Failing = append([]Scenario(nil), v.Failing...)
	c.Flaky = append([]Flaky(nil), v.Flaky...)
	c.Recovered = append([]Recovered(nil), v.Recovered...)
	if v.Posted != nil {
		c.Posted = v.Posted.Inert()
	}
	c.Sets = append([]Set(nil), v.Sets...)
	c.Next = append([]Step(nil), v.Next...)
	c.Links = append([]Link(nil), v.Links...)
	if v.Rerun != nil {
		r := *v.Rerun
		c.Rerun = &r
	}
	for i := range c.Failing {
		c.Failing[i].Modes = append([]string(nil), c.Failing[i].Modes...)
	}
	for _, t := range c.Texts() {
		*t = textfmt.Inert(*t)
	}
	return &c
}

// Texts are the free texts of a verdict, which its renderers print as
// Markdown (a table cell, a sentence) or in code spans. The rerun's set
// and branch are not among them: RerunCommand checks them by rule.
func (v *Verdict) Texts() []*string {
	out := []*string{&v.Mode, &v.Switch, &v.Stopped, &v.Compared.Repository, &v.Compared.Baseline}
	for i := range v.Checks {
		c := &v.Checks[i]
		out = append(out, &c.Set, &c.Group, &c.ID, &c.Name, &c.Unit, &c.Text, &c.Method, &c.Also, &c.More)
	}
	for i := range v.Failing {
		s := &v.Failing[i]
		out = append(out, &s.Set, &s.ID, &s.FirstError, &s.Where)
		for j := range s.Modes {
			out = append(out, &s.Modes[j])
		}
	}
	for i := range v.Flaky {
		out = append(out, &v.Flaky[i].Mode, &v.Flaky[i].ID)
	}
	for i := range v.Recovered {
		out = append(out, &v.Recovered[i].Mode, &v.Recovered[i].ID)
	}
	for i := range v.Sets {
		out = append(out, &v.Sets[i].Name, &v.Sets[i].Status)
	}
	for i := range v.Links {
		out = append(out, &v.Links[i].Title)
	}
	return out
}

package verdict

import (
	"fmt"
	"math"
	"strings"

	"github.com/benchgate/benchgate/internal/textfmt"
)

// maxHeadlineChecks is how many deciding checks the headline names; the
// rest are counted.
const maxHeadlineChecks = 2

// MaxListed is how many failing or flaky scenarios a comment names.
const MaxListed = 10

// Headline is the first line of the comment and of the job summary, as
// Markdown: the status mark, the mode and its status, the deciding
// checks in words with value against threshold (or why nothing was
// judged), the counts, and the commits compared.
func (v *Verdict) Headline() string {
	return v.Inert().headline(true)
}

// PlainHeadline is the headline as plain text, for the log and
// annotations.
func (v *Verdict) PlainHeadline() string {
	return v.headline(false)
}

func (v *Verdict) headline(md bool) string {
	cell, code := textfmt.Cell, textfmt.Code
	if !md {
		cell, code = textfmt.OneLine, textfmt.OneLine
	}
	parts := []string{}
	// A step whose mode input was refused has no mode to name.
	title := strings.TrimSpace("benchgate "+v.Mode) + ": " + v.StatusWord()
	if md {
		title = "**" + title + "**"
	}
	first := v.Mark() + " " + title
	if why := v.Why(); why != "" {
		first += ": " + cell(why)
	}
	// A step that posted another run's verdict says what it posted:
	// that verdict's mark, mode, status and reason, its counts and the
	// commits it judged.
	about := v
	if p := v.Posted; p != nil && v.Stopped == "" {
		about = p
		first += ": posted " + p.Mark() + " " + strings.TrimSpace(p.Mode+" "+p.StatusWord())
		if why := p.Why(); why != "" {
			first += ": " + cell(why)
		}
	}
	parts = append(parts, first)
	if about.Stopped == "" {
		if c := about.countsText(); c != "" {
			parts = append(parts, c)
		}
	}
	if c := about.comparedText(md, code); c != "" {
		parts = append(parts, c)
	}
	return strings.Join(parts, " · ")
}

// Why is the reason in words: the deciding checks with value against
// threshold, what an unenforced gate would have failed on, or why the
// mode stopped.
func (v *Verdict) Why() string {
	if v.Stopped != "" {
		return "stopped before judging: " + v.Stopped
	}
	if v.NotEnforced() {
		// The title says "not enforced"; the reason is what failed, as a
		// count of the mode's own units where it judges units, else the
		// checks that would have failed, and the input that let it pass.
		sw := ""
		if v.Switch != "" {
			sw = " (" + v.Switch + ")"
		}
		if u, ok := v.unitCheck(); ok {
			_, many := v.Nouns()
			return fmt.Sprintf("%d of %d %s %s%s", int(u.Value), v.Judged, many, v.failedWords(), sw)
		}
		wf := v.WouldFail()
		return fmt.Sprintf("%d of %d checks would have failed%s: %s", len(wf), len(v.Checks), sw, sentences(wf))
	}
	d := v.Deciding()
	if v.ExitCode != 0 && len(d) > 0 {
		return sentences(d)
	}
	n, undecided := 0, []Check{}
	for _, c := range v.Checks {
		if c.Recorded && v.Enforced {
			continue
		}
		n++
		if c.Status == Undecided {
			undecided = append(undecided, c)
		}
	}
	switch {
	case len(undecided) > 0 && v.ExitCode == 0:
		// They did not decide the exit code: the step passed with them.
		return fmt.Sprintf("%d of %d checks pass; undecided, and allowed to pass: %s", n-len(undecided), n, sentences(undecided))
	case len(d) > 0:
		return sentences(d)
	}
	s := ""
	switch {
	case n == 1:
		s = "the check passes"
	case n > 1:
		s = fmt.Sprintf("all %d checks pass", n)
	}
	if s != "" && !v.Enforced {
		s += " (not enforced"
		if v.Switch != "" {
			s += ": " + v.Switch
		}
		s += ")"
	}
	if v.unchanged() {
		// Nothing moved: the check nearest its threshold is where it was.
		return s + "; unchanged against the baseline"
	}
	if c, ok := v.closest(); ok && n > 1 {
		s += "; closest to its threshold: " + c.Sentence()
	}
	return s
}

// unchanged says the baseline was compared and nothing moved: no
// scenario fails that passed there, and every change against it is
// 0.00% with an interval of [0.00%, 0.00%].
func (v *Verdict) unchanged() bool {
	n := 0
	for _, c := range v.Checks {
		if c.Group != "baseline" {
			continue
		}
		n++
		if c.Status != Pass || c.Value != 0 {
			return false
		}
		if c.Unit == "%" && (c.Low == nil || c.High == nil || *c.Low != 0 || *c.High != 0) {
			return false
		}
	}
	return n > 0
}

// closest is the passing check nearest its threshold, relative to the
// threshold's size (an interval's near edge for a check with one): the
// one a maintainer of a passing run would watch.
func (v *Verdict) closest() (Check, bool) {
	var best Check
	found, bestMargin := false, 0.0
	for _, c := range v.Checks {
		// A count that needs none (no scenario failing that passed in the
		// baseline) sits on its threshold whenever it passes: no margin.
		if c.Direction == "" || c.Status != Pass || (c.Recorded && v.Enforced) || (c.Unit != "%" && c.Unit != "points") {
			continue
		}
		val := c.Value
		if c.Direction == AtLeast && c.Low != nil {
			val = *c.Low
		}
		if c.Direction == AtMost && c.High != nil {
			val = *c.High
		}
		m := val - c.Threshold
		if c.Direction == AtMost {
			m = -m
		}
		m /= max(math.Abs(c.Threshold), 1)
		if !found || m < bestMargin {
			best, bestMargin, found = c, m, true
		}
	}
	return best, found
}

func sentences(cs []Check) string {
	shown := cs
	if len(shown) > maxHeadlineChecks {
		shown = shown[:maxHeadlineChecks]
	}
	out := make([]string, len(shown))
	for i, c := range shown {
		out[i] = c.Sentence()
	}
	s := strings.Join(out, "; ")
	if n := len(cs) - len(shown); n > 0 {
		s += fmt.Sprintf("; and %d more", n)
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// unitCheck is the check that counts the mode's failing units
// (instances that did not succeed, questions not Valid) when the
// verdict knows how many were judged.
func (v *Verdict) unitCheck() (Check, bool) {
	if v.Judged <= 0 {
		return Check{}, false
	}
	_, many := v.Nouns()
	for _, c := range v.Checks {
		if c.Group == many && c.Unit == many {
			return c, true
		}
	}
	return Check{}, false
}

// countsText is the headline's counts: checks failed and undecided, the
// units failing ("1 of 2 instances" where the verdict knows how many
// were judged), new failures and sets not run. A verdict whose failures
// were not enforced has said what failed already: its counts are what
// the reason does not say.
func (v *Verdict) countsText() string {
	c := v.Counts()
	var parts []string
	notEnforced := v.NotEnforced()
	if !notEnforced {
		s := plural(c.ChecksFailed, "check failed", "checks failed")
		if c.RecordedFailed > 0 {
			s += fmt.Sprintf(" (and %d recorded only)", c.RecordedFailed)
		}
		if c.ChecksUndecided > 0 {
			s += fmt.Sprintf(", %d undecided", c.ChecksUndecided)
		}
		parts = append(parts, s)
	}
	one, many := v.Nouns()
	units := plural(c.ScenariosFailing, one+" failing", many+" failing")
	if v.Judged > 0 {
		units = fmt.Sprintf("%d of %d %s failing", c.ScenariosFailing, v.Judged, many)
	}
	if _, counted := v.unitCheck(); !notEnforced || !counted || c.NewFailures > 0 {
		parts = append(parts, units)
	}
	s := strings.Join(parts, ", ")
	if c.NewFailures > 0 {
		s += fmt.Sprintf(" (%d new", c.NewFailures)
		if v.NewAgainst != "" {
			s += " against the " + v.NewAgainst
		}
		s += ")"
	}
	notRun := 0
	for _, st := range v.Sets {
		if st.Status == NotRun {
			notRun++
		}
	}
	if notRun > 0 {
		s += fmt.Sprintf(", %d of %d sets not run", notRun, len(v.Sets))
	}
	return strings.TrimPrefix(s, ", ")
}

func (v *Verdict) comparedText(md bool, code func(string) string) string {
	c := v.Compared
	link := func(sha, url string) string {
		s := code(short(sha))
		if md && url != "" {
			s = "[" + s + "](" + url + ")"
		}
		return s
	}
	s := ""
	if c.Head != "" {
		s = "head " + link(c.Head, c.HeadURL)
	}
	var against []string
	if c.Base != "" {
		against = append(against, "base "+link(c.Base, c.BaseURL))
	}
	if c.Baseline != "" {
		b := "baseline " + textfmt.OneLine(c.Baseline)
		if md {
			b = "baseline " + textfmt.Cell(c.Baseline)
			if c.BaselineURL != "" {
				b = "[" + b + "](" + c.BaselineURL + ")"
			}
		}
		against = append(against, b)
	}
	if len(against) > 0 {
		s = strings.TrimSpace(s + " against " + strings.Join(against, " and "))
	}
	return s
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// TableHeader and TableRows are the table of every check: mark, check
// in words, value, threshold, and a note (what decided, what was only
// recorded, what the figure is, how much more data would decide it).
var TableHeader = []string{"", "check", "value", "needs", "note"}

// TableRows are the rows of the checks table, as Markdown cells.
func (v *Verdict) TableRows() [][]string {
	return v.Inert().tableRows()
}

func (v *Verdict) tableRows() [][]string {
	var rows [][]string
	for _, c := range v.Checks {
		name := c.Name
		if c.Set != "" {
			name = c.Set + ": " + name
		}
		var notes []string
		switch {
		case c.Decided && c.Status != Pass:
			notes = append(notes, "**decided the exit code**")
		case c.Status == Undecided && !c.Decided && !c.Recorded && v.Enforced && v.ExitCode == 0:
			notes = append(notes, "undecided, allowed to pass")
		case c.Recorded && !v.Enforced && v.Switch != "":
			notes = append(notes, "not enforced ("+v.Switch+")")
		case c.Recorded:
			notes = append(notes, "recorded only")
		}
		if c.Method != "" {
			notes = append(notes, c.Method)
		}
		if c.Also != "" {
			notes = append(notes, c.Also)
		}
		if c.More != "" {
			notes = append(notes, c.More)
		}
		rows = append(rows, []string{c.Mark(), textfmt.Cell(name), textfmt.Cell(c.ValueText()), textfmt.Cell(c.NeedsText()), textfmt.Cell(strings.Join(notes, "; "))})
	}
	return rows
}

// ScenarioLine is one failing scenario as a Markdown list item:
// "**new** `ghx/issue-list` (set pr-core): 3 of 5 iterations failed in
// ghx; first error: …; [row](url)".
func (s Scenario) ScenarioLine() string {
	var b strings.Builder
	if s.New {
		b.WriteString("**new** ")
	}
	id := s.ID
	if s.Set != "" {
		id = s.Set + "/" + id
	}
	b.WriteString(textfmt.Code(id))
	b.WriteString(": ")
	switch {
	case s.Iterations > 0:
		fmt.Fprintf(&b, "%d of %d iterations failed", s.Failed, s.Iterations)
	case s.FirstError != "":
		// An instance or a question: its outcome is its one reason
		// ("incomplete", "failed: patch_check", "Incorrect: ...").
		b.WriteString(textfmt.Code(textfmt.Truncate(s.FirstError, 200)))
	default:
		b.WriteString("failed")
	}
	if len(s.Modes) > 0 {
		b.WriteString(" in " + textfmt.Cell(strings.Join(s.Modes, " and ")))
	}
	if s.FirstError != "" && s.Iterations > 0 {
		b.WriteString("; first error: " + textfmt.Code(textfmt.Truncate(s.FirstError, 200)))
	}
	switch {
	case s.URL != "" && s.Where != "":
		b.WriteString("; [" + textfmt.Cell(s.Where) + "](" + s.URL + ")")
	case s.Where != "":
		b.WriteString("; " + textfmt.Code(s.Where))
	}
	return b.String()
}

// Blocks are the comment's parts after the headline, as Markdown
// paragraphs: the checks table, the sets, the failing scenarios (new
// failures first), the flaky ones, the next step and the links. Every
// text of the verdict is made inert first (Inert).
func (v *Verdict) Blocks() []string {
	v = v.Inert()
	var out []string
	if len(v.Checks) > 0 {
		out = append(out, table(TableHeader, v.tableRows()))
	}
	if s := v.setsText(); s != "" {
		out = append(out, s)
	}
	if len(v.Failing) > 0 {
		items := []string{}
		for i, s := range v.Failing {
			if i == MaxListed {
				items = append(items, fmt.Sprintf("- and %d more (job summary)", len(v.Failing)-MaxListed))
				break
			}
			items = append(items, "- "+s.ScenarioLine())
		}
		_, many := v.Nouns()
		out = append(out, fmt.Sprintf("**Failing %s** (%d):\n\n%s", many, len(v.Failing), strings.Join(items, "\n")))
	}
	if len(v.Recovered) > 0 {
		out = append(out, v.recoveredText())
	}
	if len(v.Flaky) > 0 {
		var ids []string
		for i, f := range v.Flaky {
			if i == MaxListed {
				ids = append(ids, fmt.Sprintf("and %d more", len(v.Flaky)-MaxListed))
				break
			}
			note := ""
			if f.BaselineFailed && !f.FailingNow {
				note = "; it failed in the baseline and passes now, flaky rather than recovered"
			}
			ids = append(ids, fmt.Sprintf("%s (passed %d of %d earlier runs%s)", textfmt.Code(f.Mode+"/"+f.ID), f.RunsPassed, f.RunsSeen, note))
		}
		out = append(out, fmt.Sprintf("**Flaky in earlier runs** (%d): %s.", len(v.Flaky), strings.Join(ids, ", ")))
	}
	if s := v.nextText(); s != "" {
		out = append(out, s)
	}
	if len(v.Links) > 0 {
		var ls []string
		for _, l := range v.Links {
			ls = append(ls, "["+textfmt.Cell(l.Title)+"]("+l.URL+")")
		}
		out = append(out, strings.Join(ls, " · "))
	}
	return out
}

// recoveredText names the scenarios that failed before and pass now:
// good news, after the failures.
func (v *Verdict) recoveredText() string {
	var ids []string
	for i, r := range v.Recovered {
		if i == MaxListed {
			ids = append(ids, fmt.Sprintf("and %d more", len(v.Recovered)-MaxListed))
			break
		}
		where := "failed in the baseline"
		switch {
		case r.EarlierRuns == 1:
			where = "failed in the earlier run"
		case r.EarlierRuns > 1:
			where = fmt.Sprintf("failed in all %d earlier runs", r.EarlierRuns)
		}
		ids = append(ids, fmt.Sprintf("%s (%s)", textfmt.Code(r.Mode+"/"+r.ID), where))
	}
	return fmt.Sprintf("**Recovered, passing now** (%d): %s.", len(v.Recovered), strings.Join(ids, ", "))
}

// failedWords say what a failing unit did: an instance did not
// succeed (it failed or ended incomplete), a question is not Valid.
func (v *Verdict) failedWords() string {
	switch v.Mode {
	case "swebench-batch":
		return "did not succeed"
	case "qa-audit":
		return "are not Valid"
	}
	return "failed"
}

// Nouns are what the mode's failing units are called: scenarios,
// instances (swebench-batch) or questions (qa-audit).
func (v *Verdict) Nouns() (one, many string) {
	switch v.Mode {
	case "swebench-batch":
		return "instance", "instances"
	case "qa-audit":
		return "question", "questions"
	}
	return "scenario", "scenarios"
}

func (v *Verdict) setsText() string {
	var notRun, failed []string
	for _, s := range v.Sets {
		switch s.Status {
		case NotRun:
			notRun = append(notRun, textfmt.Code(s.Name))
		case "pass":
		default:
			failed = append(failed, textfmt.Code(s.Name)+" "+textfmt.Cell(s.Status))
		}
	}
	if len(failed) == 0 && len(notRun) == 0 {
		return ""
	}
	var parts []string
	if len(failed) > 0 {
		parts = append(parts, "failed: "+strings.Join(failed, ", "))
	}
	if len(notRun) > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d not run: %s", len(notRun), len(v.Sets), strings.Join(notRun, ", ")))
	}
	return "**Sets**: " + strings.Join(parts, "; ") + "."
}

// table renders a Markdown table whose cells are Markdown already.
func table(header []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for range header {
		b.WriteString("---|")
	}
	for _, r := range rows {
		b.WriteString("\n| " + strings.Join(r, " | ") + " |")
	}
	return b.String()
}

// Comment is the pull-request comment's body, without its marker line:
// the headline, then Blocks, cut to limit bytes by leaving out the
// parts at the end first.
func (v *Verdict) Comment(limit int) string {
	parts := append([]string{v.Headline()}, v.Blocks()...)
	for len(parts) > 1 {
		s := strings.Join(parts, "\n\n") + "\n"
		if len(s) <= limit {
			return s
		}
		parts = parts[:len(parts)-1]
	}
	return textfmt.Truncate(parts[0], limit-1) + "\n"
}

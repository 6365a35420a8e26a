package qreport

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// Markdown renders the summary: totals, then the cases that need
// attention (Incorrect, Ambiguous, Inconclusive, errors, skipped) with the
// evidence for each option, then the list of Valid cases.
func (r *Report) Markdown() []byte {
	var out bytes.Buffer
	_ = r.WriteMarkdownTo(&out)
	return out.Bytes()
}

// WriteMarkdownTo writes the Markdown summary to w in pieces of about
// 64 KiB, so that a report of many cases is never held whole in memory.
func (r *Report) WriteMarkdownTo(w io.Writer) error {
	r.Finalize()
	var b bytes.Buffer
	var werr error
	flush := func(force bool) {
		if werr == nil && (force || b.Len() >= 64<<10) {
			_, werr = w.Write(b.Bytes())
			b.Reset()
		}
	}
	t := r.Totals
	b.WriteString("# Benchmark question audit\n\n")
	fmt.Fprintf(&b, "%d cases in %d files", t.Cases, len(r.Files))
	if r.Model != "" {
		fmt.Fprintf(&b, ", model `%s`", r.Model)
	}
	fmt.Fprintf(&b, ", %d pytest runs in %.1f s, %d model calls.\n\n", t.TestRuns, float64(t.TestDuration)/1e9, t.ModelCalls)
	if r.Sandbox != "" {
		fmt.Fprintf(&b, "Sandbox: %s.\n\n", textfmt.InertCell(r.Sandbox))
	}
	b.WriteString("| Valid | Ambiguous | Incorrect | Inconclusive | Skipped | Errors | Fixed | Needs human review |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %d | %d | %d |\n", t.Valid, t.Ambiguous, t.Incorrect, t.Inconclusive, t.Skipped, t.Errors, t.Fixed, t.NeedsHumanReview)
	if t.Fixed > 0 {
		b.WriteString("\nThe verdicts are those of the questions as written; Fixed counts the ones whose proposed fix was verified Valid.\n")
	}

	groups := []struct {
		title string
		match func(Case) bool
	}{
		{"Incorrect", func(c Case) bool { return c.Error == "" && c.Skipped == "" && c.Verdict == verdict.Incorrect }},
		{"Ambiguous", func(c Case) bool { return c.Error == "" && c.Skipped == "" && c.Verdict == verdict.Ambiguous }},
		{"Inconclusive", func(c Case) bool {
			return c.Error == "" && c.Skipped == "" && c.Verdict != verdict.Valid && c.Verdict != verdict.Incorrect && c.Verdict != verdict.Ambiguous
		}},
		{"Fixed (proposal verified Valid)", func(c Case) bool {
			return c.Error == "" && c.Skipped == "" && c.Verdict == verdict.Valid && c.ProposedFix != nil
		}},
		{"Audit errors", func(c Case) bool { return c.Error != "" }},
	}
	for _, g := range groups {
		var cases []Case
		for _, c := range r.Cases {
			if g.match(c) {
				cases = append(cases, c)
			}
		}
		if len(cases) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s (%d)\n", g.title, len(cases))
		if g.title == "Audit errors" {
			// One dead endpoint fails every remaining case with the same
			// words: say them once, with the cases they stopped.
			writeErrorGroups(&b, cases, func() { flush(false) })
			continue
		}
		for _, c := range cases {
			writeCase(&b, c)
			flush(false)
		}
	}

	var skipped, valid []Case
	for _, c := range r.Cases {
		switch {
		case c.Error != "":
		case c.Skipped != "":
			skipped = append(skipped, c)
		case c.Verdict == verdict.Valid && c.ProposedFix == nil:
			valid = append(valid, c)
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "\n## Skipped (%d)\n\n", len(skipped))
		for _, c := range skipped {
			fmt.Fprintf(&b, "- %s (%s:%d): %s\n", caseID(c.ID), textfmt.InertCell(c.File), c.Line, textfmt.InertCell(c.Skipped))
			for _, p := range c.Problems {
				fmt.Fprintf(&b, "  - line %d, `%s`: %s\n", p.Line, p.Field, textfmt.InertCell(p.Message))
			}
			flush(false)
		}
	}
	writeLimits(&b, r.Cases)
	if len(valid) > 0 {
		fmt.Fprintf(&b, "\n## Valid (%d)\n\n", len(valid))
		for _, c := range valid {
			fmt.Fprintf(&b, "- %s (%s:%d)\n", caseID(c.ID), textfmt.InertCell(c.File), c.Line)
			flush(false)
		}
	}
	flush(true)
	return werr
}

// Markdown renders one case with its evidence table and proposed fix, for
// pull-request bodies that show the proof of each changed case.
func (c Case) Markdown() []byte {
	var b bytes.Buffer
	writeCase(&b, c)
	return bytes.TrimLeft(b.Bytes(), "\n")
}

func writeCase(b *bytes.Buffer, c Case) {
	fmt.Fprintf(b, "\n### %s\n\n", caseID(c.ID))
	fmt.Fprintf(b, "%s:%d", textfmt.InertCell(c.File), c.Line)
	if c.CorrectAnswer != "" {
		fmt.Fprintf(b, " · key **%s**", textfmt.InertCell(c.CorrectAnswer))
	}
	if c.OriginalVerdict != "" && c.OriginalVerdict != c.Verdict {
		fmt.Fprintf(b, " · was %s", c.OriginalVerdict)
	}
	fmt.Fprintf(b, " · %d attempt(s)", len(c.Attempts))
	if c.NeedsHumanReview {
		b.WriteString(" · **needs human review**")
	}
	b.WriteString("\n\n")
	if c.Question != "" {
		fmt.Fprintf(b, "> %s\n\n", textfmt.InertCell(c.Question))
	}
	if c.Error != "" {
		fmt.Fprintf(b, "Error: %s\n", textfmt.InertCell(c.Error))
		return
	}
	if c.Reason != "" {
		fmt.Fprintf(b, "%s.\n\n", capitalize(textfmt.InertCell(strings.TrimSuffix(c.Reason, "."))))
	}
	for _, p := range c.Problems {
		fmt.Fprintf(b, "- line %d, `%s`: %s\n", p.Line, p.Field, textfmt.InertCell(p.Message))
	}
	for _, p := range c.Warnings {
		fmt.Fprintf(b, "- warning, line %d, `%s`: %s\n", p.Line, p.Field, textfmt.InertCell(p.Message))
	}
	if len(c.Problems)+len(c.Warnings) > 0 {
		b.WriteString("\n")
	}
	if len(c.Options) > 0 {
		b.WriteString("| Option | Text | Outcome | Proves | Message | Test |\n|---|---|---|---|---|---|\n")
		for _, o := range c.Options {
			outcome := string(o.Outcome)
			if o.Derived {
				outcome = "derived"
			}
			test := ""
			if o.TestPath != "" {
				test = textfmt.CodeCell(o.TestPath)
			}
			// The failure, error or skip reason: why the outcome proves
			// what it proves, or why it proves nothing.
			msg := ""
			if o.Message != "" && o.Outcome != sandbox.StatusPassed {
				msg = textfmt.InertCell(textfmt.Truncate(textfmt.OneLine(o.Message), 240))
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", textfmt.InertCell(o.Key), textfmt.InertCell(o.Text), textfmt.InertCell(outcome), textfmt.InertCell(string(o.Truth)), msg, test)
		}
	}
	if c.ProposedFix != nil {
		b.WriteString("\nProposed fix:\n\n")
		if c.ProposedFix.Question != nil {
			fmt.Fprintf(b, "- question: %s\n", textfmt.InertCell(*c.ProposedFix.Question))
		}
		for _, k := range slices.Sorted(maps.Keys(c.ProposedFix.Options)) {
			fmt.Fprintf(b, "- option %s: %s\n", textfmt.InertCell(k), textfmt.InertCell(c.ProposedFix.Options[k]))
		}
		if c.ProposedFix.CorrectAnswer != nil {
			fmt.Fprintf(b, "- correct_answer: %s\n", textfmt.InertCell(*c.ProposedFix.CorrectAnswer))
		}
		if c.ProposedFix.Explanation != nil {
			fmt.Fprintf(b, "- explanation: %s\n", textfmt.InertCell(*c.ProposedFix.Explanation))
		}
	}
	// Every remediation attempt, with the engineer's rationale and what
	// the verification of its proposal decided.
	var rem []Attempt
	for _, a := range c.Attempts {
		if a.Number > 0 {
			rem = append(rem, a)
		}
	}
	if len(rem) > 0 {
		b.WriteString("\nRemediation attempts:\n\n")
		for _, a := range rem {
			verdict := string(a.Verdict)
			if verdict == "" {
				verdict = "-"
			}
			fmt.Fprintf(b, "- %d: %s", a.Number, verdict)
			if a.Reason != "" {
				fmt.Fprintf(b, " (%s)", textfmt.InertCell(a.Reason))
			}
			if a.Rationale != "" {
				fmt.Fprintf(b, "; rationale: %s", textfmt.InertCell(a.Rationale))
			}
			if a.Error != "" {
				fmt.Fprintf(b, "; error: %s", textfmt.InertCell(a.Error))
			}
			b.WriteString("\n")
		}
	}
}

// caseID shows a case's ID, which the question file chose (and which
// may be malformed), as an inert code span on one line.
func caseID(id string) string { return textfmt.Code(textfmt.Inert(id)) }

func capitalize(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// writeErrorGroups lists cases by identical error, in first-seen order.
func writeErrorGroups(b *bytes.Buffer, cases []Case, flush func()) {
	var order []string
	byErr := map[string][]Case{}
	for _, c := range cases {
		if _, ok := byErr[c.Error]; !ok {
			order = append(order, c.Error)
		}
		byErr[c.Error] = append(byErr[c.Error], c)
	}
	for _, e := range order {
		group := byErr[e]
		fmt.Fprintf(b, "\n### %d case(s): %s\n\n", len(group), textfmt.InertCell(e))
		for _, c := range group {
			fmt.Fprintf(b, "- %s (%s:%d)\n", caseID(c.ID), textfmt.InertCell(c.File), c.Line)
			flush()
		}
	}
}

// writeLimits lists every test a sandbox limit stopped (memory, CPU time,
// file size, processes), whatever its case's verdict: a runaway test is
// named even where its case came out Valid (unfixed code that grows
// without bound fails, as it should).
func writeLimits(b *bytes.Buffer, cases []Case) {
	var lines []string
	for _, c := range cases {
		for _, at := range c.Attempts {
			for _, o := range at.Options {
				if o.Limit != "" {
					lines = append(lines, fmt.Sprintf("- %s attempt %d, %s: %s\n", caseID(c.ID), at.Number, textfmt.Code(textfmt.Inert(o.Key)), textfmt.Truncate(textfmt.InertCell(o.Message), 240)))
				}
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Stopped by a sandbox limit (%d)\n\n", len(lines))
	for _, l := range lines {
		b.WriteString(l)
	}
}

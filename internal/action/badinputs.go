package action

import (
	"errors"
	"os"
	"sort"
	"strconv"

	"github.com/benchgate/benchgate/internal/jobsummary"
	"github.com/benchgate/benchgate/internal/suggest"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// badInputs ends a step whose inputs are wrong before anything ran: one
// error annotation per bad input (each names the input, the value and
// what was expected), status error, exit code 2, and a job summary that
// lists them all in one table, so one edit of the workflow fixes them
// all. Nothing was judged, so there are no rows, charts or gates to show.
func (r *reporter) badInputs(err error) int {
	var all InputErrors
	var one *InputError
	switch {
	case errors.As(err, &all):
	case errors.As(err, &one):
		all = InputErrors{one}
	}
	for _, ie := range all {
		r.a.WithFieldsMap(map[string]string{"title": "benchgate: input " + ie.Input}).Errorf("%s", ie)
	}
	if len(all) == 0 {
		r.a.WithFieldsMap(map[string]string{"title": "benchgate: bad input"}).Errorf("%s", err)
	}
	r.output("status", "error")
	r.output("exit-code", strconv.Itoa(exitUsage))
	var doc jobsummary.Doc
	sec := doc.Section("benchgate: bad input")
	if len(all) == 0 {
		sec.Para("The step did not run (exit code %d): %s", exitUsage, textfmt.Cell(err.Error()))
	} else {
		noun := "input is"
		if len(all) > 1 {
			noun = "inputs are"
		}
		sec.Para("The step did not run (exit code %d): %d %s wrong. Nothing was judged.", exitUsage, len(all), noun)
		rows := make([][]string, len(all))
		for i, ie := range all {
			value := "(empty)"
			switch {
			case ie.Unknown:
				// It may be a secret meant for a mistyped secret input.
				value = "(not shown)"
			case ie.Value != "":
				value = textfmt.CodeCell(ie.Value)
			}
			want := textfmt.Cell(ie.Expected)
			if ie.Unknown {
				want = "no such input"
			}
			if ie.Meant != "" {
				want += "; did you mean " + textfmt.CodeCell(ie.Meant) + "?"
			}
			rows[i] = []string{textfmt.CodeCell(ie.Input), value, want}
		}
		sec.RawTable([]string{"input", "value", "expected"}, rows)
	}
	r.summary(&doc)
	return r.fileCommandFailure(exitUsage)
}

// unknownInputs are the names given under with: that are not inputs of
// benchgate (names comes from the composite action's toJSON(inputs);
// the runner only warns of them, and the input meant would silently
// keep its default), each with the input most likely meant.
func unknownInputs(names []string) InputErrors {
	known := make([]string, 0, len(Inputs()))
	for _, in := range Inputs() {
		known = append(known, in.Name)
	}
	sort.Strings(names)
	var bad InputErrors
	for _, n := range names {
		if !contains(known, n) {
			// The value is not kept: it may be a secret meant for a
			// mistyped secret input.
			bad = append(bad, &InputError{Input: n, Unknown: true, Meant: suggest.Closest(n, known)})
		}
	}
	return bad
}

// planStep reads and checks every input before anything runs: names
// that are not inputs, the values BuildPlan refuses and a working
// directory that does not exist are all returned together. With none,
// the plan claims its output folder.
func planStep(get func(string) string, names []string, workspace, runTag string) (*Plan, error) {
	plan, err := BuildPlan(get, workspace, runTag)
	bad := unknownInputs(names)
	if other := bad.add(err); other != nil {
		return nil, other
	}
	wd := get("working-directory")
	if info, err := os.Stat(resolve(workspace, wd)); err != nil || !info.IsDir() {
		bad = append(bad, &InputError{Input: "working-directory", Value: wd, Expected: "an existing folder under the workspace"})
	}
	if len(bad) > 0 {
		return nil, bad
	}
	return plan, plan.ClaimOutDir()
}

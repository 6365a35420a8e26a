package action

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"

	"github.com/benchgate/benchgate/internal/jobsummary"
	"github.com/benchgate/benchgate/internal/suggest"
	"github.com/benchgate/benchgate/internal/textfmt"
	"github.com/benchgate/benchgate/internal/verdict"
)

// badInputs ends a step whose inputs are wrong before anything ran: one
// error annotation per bad input (each names the input, the value and
// what was expected), status error, exit code 2, and a job summary that
// opens with the verdict's first line and lists them all in one table,
// so one edit of the workflow fixes them all. Nothing was judged, so
// there are no rows, charts or gates to show. The pull request's comment
// says error too: a pass an earlier run of the same head posted must not
// stand beside a step that failed. Paths are shown relative to the
// workspace.
func (r *reporter) badInputs(ctx context.Context, err error) int {
	var all InputErrors
	var one *InputError
	switch {
	case errors.As(err, &all):
	case errors.As(err, &one):
		all = InputErrors{one}
	}
	var msgs []string
	for _, ie := range all {
		msg := r.scrub(ie.Error())
		msgs = append(msgs, msg)
		r.a.WithFieldsMap(map[string]string{"title": "benchgate: input " + ie.Input}).Errorf("%s", msg)
	}
	if len(all) == 0 {
		msgs = append(msgs, r.scrub(err.Error()))
		r.a.WithFieldsMap(map[string]string{"title": "benchgate: bad input"}).Errorf("%s", msgs[0])
	}
	r.output("status", "error")
	r.output("exit-code", strconv.Itoa(exitUsage))
	// An error fails the step whatever fail-on or gate say.
	r.output("enforced", "true")
	p := fallbackPlan(r.a.GetInput)
	ev, _ := r.a.Context()
	v := &verdict.Verdict{Schema: verdict.Schema, Mode: p.Mode, Status: Status(exitUsage), ExitCode: exitUsage, Enforced: true,
		Checks: []verdict.Check{}, Failing: []verdict.Scenario{}, Stopped: badInputText(msgs),
		Next: []verdict.Step{verdict.FixNamedInput}}
	v.Compared = compared(ev, r.cfg.Getenv, nil)
	runURL, _ := runURL(r.cfg.Getenv)
	if runURL != "" {
		v.Links = append(v.Links, verdict.Link{Title: "job summary", URL: runURL})
	}
	var doc jobsummary.Doc
	doc.Lead = []string{v.Headline()}
	sec := doc.Section("benchgate: bad input")
	if len(all) == 0 {
		sec.Para("The step did not run (exit code %d): %s", exitUsage, textfmt.Cell(msgs[0]))
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
				value = textfmt.CodeCell(r.scrub(ie.Value))
			}
			want := textfmt.Cell(r.scrub(ie.Expected))
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
	r.a.Infof("%s", textfmt.LogLine(v.PlainHeadline()))
	r.prComment(ctx, &stepResult{Plan: p, Res: &results{}, Code: exitUsage, Verdict: v})
	return r.fileCommandFailure(exitUsage)
}

// badInputText is why a step with bad inputs stopped, in one line: the
// one message, or the first and how many more the summary lists.
func badInputText(msgs []string) string {
	switch len(msgs) {
	case 0:
		return "bad input"
	case 1:
		return "bad input: " + msgs[0]
	}
	return fmt.Sprintf("%d bad inputs: %s; and %d more (the job summary lists them)", len(msgs), msgs[0], len(msgs)-1)
}

// fallbackPlan is what a step whose inputs were refused still knows of
// its plan, for its pull-request comment: the mode when it is one (""
// otherwise), the token, and whether and under what name the comment may
// be kept as an artifact.
func fallbackPlan(get func(string) string) *Plan {
	p := &Plan{Env: map[string]string{}, ArtifactPrefix: orDefault(get("artifact-prefix"), "benchgate")}
	if m := get("mode"); slices.Contains(Modes, m) {
		p.Mode = m
	}
	if t := get("github-token"); t != "" {
		p.Env["GITHUB_TOKEN"] = t
	}
	up, err := parseBool("upload-artifacts", orDefault(get("upload-artifacts"), "true"))
	p.Upload = err == nil && up
	return p
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
		if !slices.Contains(known, n) {
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

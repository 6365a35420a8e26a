package action

import (
	"sort"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/textfmt"
)

// rowFailure groups the violations of one row into one annotation.
type rowFailure struct {
	Set  string
	File string
	Line int
	ID   string
	Msgs []string
}

func allFailures(res *results) []rowFailure {
	var out []rowFailure
	add := func(set string, st *suiteStats) {
		for _, v := range st.Violations {
			if n := len(out); n > 0 && out[n-1].File == v.File && out[n-1].Line == v.Line {
				out[n-1].Msgs = append(out[n-1].Msgs, v.Rule())
				continue
			}
			out = append(out, rowFailure{Set: set, File: v.File, Line: v.Line, ID: v.ScenarioID, Msgs: []string{v.Rule()}})
		}
	}
	for _, s := range res.Sets {
		for _, m := range s.SuiteOrder {
			add(s.Tracking.Set, s.Suites[m])
		}
	}
	for _, m := range res.SuiteOrder {
		add("report", res.Suites[m])
	}
	return out
}

// annotateOthers annotates failed SWE-bench instances (on their status
// file) and audited questions that are not Valid (on the case's line), up
// to budget annotations, and returns how many it wrote. On a step that
// passed (a batch under fail-on: never) they are warnings: an error
// beside a green step would say it failed.
func (r *reporter) annotateOthers(res *results, budget int, asWarnings bool) int {
	n := 0
	emit := func(props map[string]string, msg string) {
		if n < budget {
			if asWarnings {
				r.a.WithFieldsMap(props).Warningf("%s", msg)
			} else {
				r.a.WithFieldsMap(props).Errorf("%s", msg)
			}
			n++
		}
	}
	if b := res.Batch; b != nil {
		for _, in := range b.Instances {
			if in.Status == "success" {
				continue
			}
			msg := in.Status
			if in.FailureReasonCode != "" {
				msg += ": " + string(in.FailureReasonCode)
			}
			if in.FailureReasonDetail != "" {
				msg += ": " + textfmt.Truncate(in.FailureReasonDetail, 500)
			}
			emit(map[string]string{"file": r.rel(in.StatusPath), "title": "SWE-bench " + in.InstanceID}, r.scrub(msg))
		}
	}
	if a := res.Audit; a != nil {
		// The worst first, since the runner shows ten: questions whose
		// key was wrong (fixed or not), then ambiguous ones, then those
		// the audit could not decide.
		cases := append([]auditCase(nil), a.Cases...)
		sort.SliceStable(cases, func(i, j int) bool { return auditSeverity(cases[i]) < auditSeverity(cases[j]) })
		for _, c := range cases {
			if auditSeverity(c) == severityNone {
				continue
			}
			props := map[string]string{"file": r.rel(c.File), "title": "qa-audit " + c.ID}
			if c.Line > 0 {
				props["line"] = strconv.Itoa(c.Line)
			}
			verdict := orDefault(c.Verdict, "not audited")
			if c.Fixed && c.Original != "" && c.Original != c.Verdict {
				verdict = c.Original + ", fixed (the fix was verified " + c.Verdict + ")"
			}
			emit(props, strings.TrimSpace(verdict+": "+textfmt.Truncate(c.Reason, 500)))
		}
	}
	return n
}

// Severity ranks of an audited case's annotation, worst first.
const (
	severityWrong = iota
	severityAmbiguous
	severityUndecided
	severityNone
)

func auditSeverity(c auditCase) int {
	v := c.Verdict
	if c.Original != "" && c.Original != "Valid" {
		v = c.Original // a fixed case was wrong as written
	}
	switch {
	case v == "Incorrect":
		return severityWrong
	case v == "Ambiguous":
		return severityAmbiguous
	case v == "Valid" || (v == "" && c.Reason == ""):
		return severityNone
	}
	return severityUndecided
}

// annotate puts an error annotation on the first failing rows (the runner
// shows at most ten per step) and returns how many it annotated and how
// many there were.
func (r *reporter) annotate(res *results, asWarnings bool, budget int) (annotated, total int) {
	fails := allFailures(res)
	for i, f := range fails {
		if i == budget {
			break
		}
		id := f.ID
		if id == "" {
			id = "row " + strconv.Itoa(f.Line)
		}
		a := r.a.WithFieldsMap(map[string]string{
			"file":  r.rel(f.File),
			"line":  strconv.Itoa(f.Line),
			"title": f.Set + ": " + id,
		})
		if asWarnings {
			a.Warningf("%s", strings.Join(f.Msgs, "; "))
			continue
		}
		a.Errorf("%s", strings.Join(f.Msgs, "; "))
		annotated++
	}
	return annotated, len(fails)
}

// annotateStep writes the one annotation of a failed step that has
// nothing row-shaped to point at (a crash, zero rows, a refused flag), so
// the failure still shows on the run page; modeErr is the mode's last
// own error line.
func (r *reporter) annotateStep(plan *Plan, res *results, code int, modeErr string) {
	why := ""
	for _, st := range res.Sets {
		if st.Tracking.Error != "" {
			why = ": set " + st.Tracking.Set + ": " + textfmt.Truncate(st.Tracking.Error, 500)
			break
		}
	}
	if why == "" && modeErr != "" {
		why = ": " + textfmt.Truncate(modeErr, 500)
	}
	if code == exitUsage {
		// Nothing was judged: the error is the whole story.
		r.a.WithFieldsMap(map[string]string{"title": "benchgate " + plan.Mode}).Errorf("%s (exit code %d)%s; nothing was judged", Status(code), code, why)
		return
	}
	r.a.WithFieldsMap(map[string]string{"title": "benchgate " + plan.Mode}).Errorf("%s (exit code %d)%s; the job summary and %s tell why", Status(code), code, why, r.scrub(r.rel(plan.OutDir)))
}

package action

import (
	"fmt"
	"strings"
)

// verdict is the step's one verdict: what decided its exit code, and
// the gates that ran without deciding it. The job summary's headline and
// the pull-request comment both state it, so they never disagree.
type verdict struct {
	Status string
	Code   int
	// DecidedBy says what set the exit code, in one sentence.
	DecidedBy string
	// NotEnforced lists the gates that ran and were only recorded
	// ("gate verify_pr: FAIL"); they did not decide the step.
	NotEnforced []string
	// Hint says how to make a recorded gate decide, when one was not.
	Hint string
}

// judge states the verdict of a finished step from what the mode
// returned.
func judge(p *Plan, res *results, stats []statsEntry, lb *Lookback, code int) verdict {
	v := verdict{Status: Status(code), Code: code}
	baselineVerdict := ""
	if lb != nil && lb.Comparison != nil {
		baselineVerdict = lb.Comparison.Verdict
	}
	switch {
	case code == exitUsage:
		v.DecidedBy = "the mode stopped on bad input before judging anything"
		if res.ModeError != "" {
			v.DecidedBy += ": " + res.ModeError
		}
		return v
	case p.Mode == "report":
		gateOn, statsOn := hasArg(p.Args, "--gate"), hasArg(p.Args, "--stats")
		switch {
		case gateOn && statsOn && len(stats) > 0:
			v.DecidedBy = fmt.Sprintf("the statistical gate (gate: true, stats: true): %s", strings.ToUpper(stats[0].Verdict))
		case gateOn && res.Gate != nil:
			v.DecidedBy = fmt.Sprintf("the gate %s (gate: true): %s", res.Gate.Profile, passFail(res.Gate.Passed))
		case code != exitOK:
			v.DecidedBy = "the report could not be written"
			if res.ModeError != "" {
				v.DecidedBy += ": " + res.ModeError
			}
		default:
			v.DecidedBy = "writing the summaries (report exits 0 once they are written; only gate: true lets a gate fail the step)"
		}
		if gateOn && baselineVerdict != "" {
			v.DecidedBy += fmt.Sprintf("; against the baseline: %s", strings.ToUpper(baselineVerdict))
		}
		if !gateOn {
			if res.Gate != nil {
				v.NotEnforced = append(v.NotEnforced, fmt.Sprintf("gate %s: %s", res.Gate.Profile, passFail(res.Gate.Passed)))
			}
			for _, s := range stats {
				v.NotEnforced = append(v.NotEnforced, "statistical gate: "+strings.ToUpper(s.Verdict))
			}
			if baselineVerdict != "" {
				v.NotEnforced = append(v.NotEnforced, "against the baseline: "+strings.ToUpper(baselineVerdict))
			}
			v.Hint = "set gate: true to let them fail the step"
		} else if statsOn && res.Gate != nil {
			v.NotEnforced = append(v.NotEnforced, fmt.Sprintf("gate %s: %s (the statistical gate decides instead)", res.Gate.Profile, passFail(res.Gate.Passed)))
		}
	case p.Mode == "set" || p.Mode == "ordered":
		var failed, passed []string
		for _, s := range res.Sets {
			if s.Tracking.FinalStatus == "pass" {
				passed = append(passed, s.Tracking.Set)
			} else {
				failed = append(failed, s.Tracking.Set+" "+orDefault(s.Tracking.FinalStatus, "unknown"))
			}
		}
		switch {
		case p.Mode == "set" && len(res.Sets) == 1:
			v.DecidedBy = "the row checks (success, output_valid, error null) after reruns: final status " + orDefault(res.Sets[0].Tracking.FinalStatus, "unknown")
		case p.Mode == "ordered":
			v.DecidedBy = fmt.Sprintf("the row checks of the sets in order: %d passed", len(passed))
			if len(failed) > 0 {
				v.DecidedBy += ", " + strings.Join(failed, ", ")
			}
		default:
			v.DecidedBy = "the mode stopped before a set was judged"
		}
		if len(res.Sets) == 0 && res.ModeError != "" {
			v.DecidedBy += ": " + res.ModeError
		}
		for _, s := range res.Sets {
			who := ""
			if p.Mode == "ordered" {
				who = s.Tracking.Set + " "
			}
			if g := s.Tracking.Gate; g != nil && g.Ran {
				v.NotEnforced = append(v.NotEnforced, fmt.Sprintf("%sgate %s: %s", who, orDefault(g.Profile, "verify_pr"), passFail(g.Passed)))
			}
		}
		for _, s := range stats {
			who := ""
			if p.Mode == "ordered" {
				who = s.Set + " "
			}
			v.NotEnforced = append(v.NotEnforced, who+"statistical gate: "+strings.ToUpper(s.Verdict))
		}
		if baselineVerdict != "" {
			v.NotEnforced = append(v.NotEnforced, "against the baseline: "+strings.ToUpper(baselineVerdict))
		}
		if len(v.NotEnforced) > 0 {
			v.Hint = "sets are decided by their rows; gates are recorded in tracking.json"
		}
	case p.Mode == "swebench-batch":
		v.DecidedBy = "the instances' statuses"
		if res.Batch != nil {
			counts := map[string]int{}
			for _, in := range res.Batch.Instances {
				counts[in.Status]++
			}
			var parts []string
			for _, s := range batchStatuses {
				parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
			}
			v.DecidedBy += ": " + strings.Join(parts, ", ")
		} else if res.ModeError != "" {
			v.DecidedBy = "the batch stopped: " + res.ModeError
		}
	case p.Mode == "pr-comment":
		v.DecidedBy = "posting the comment file"
		if res.ModeError != "" {
			v.DecidedBy += ": " + res.ModeError
		}
	case p.Mode == "qa-audit":
		v.DecidedBy = "the verdicts of the audited questions"
		if res.Audit != nil && len(res.Audit.Cases) > 0 {
			counts := map[string]int{}
			var order []string
			for _, c := range res.Audit.Cases {
				if counts[c.Verdict] == 0 {
					order = append(order, c.Verdict)
				}
				counts[c.Verdict]++
			}
			var parts []string
			for _, o := range order {
				parts = append(parts, fmt.Sprintf("%d %s", counts[o], o))
			}
			v.DecidedBy += ": " + strings.Join(parts, ", ")
		} else if res.ModeError != "" {
			v.DecidedBy = "the audit stopped: " + res.ModeError
		}
	}
	return v
}

// Title is the headline: the mode and its status, and "gate not
// enforced" when a gate ran without deciding the step.
func (v verdict) Title(mode string) string {
	t := fmt.Sprintf("benchgate %s: %s", mode, v.Status)
	if len(v.NotEnforced) > 0 {
		t += " (gate not enforced)"
	}
	return t
}

// Sentence says what decided the exit code and what was only recorded,
// as Markdown.
func (v verdict) Sentence(cell func(string) string) string {
	s := fmt.Sprintf("**%s** (exit code %d), decided by %s.", strings.ToUpper(v.Status), v.Code, cell(v.DecidedBy))
	if len(v.NotEnforced) > 0 {
		s += " Gate not enforced: " + cell(strings.Join(v.NotEnforced, "; ")) + " (recorded only"
		if v.Hint != "" {
			s += "; " + cell(v.Hint)
		}
		s += ")."
	}
	return s
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

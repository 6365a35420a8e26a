package execproof

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/ident"
	"github.com/benchgate/benchgate/internal/qaaudit/caseresult"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
)

// FQNTestFile is the generated test of an api_understanding case.
const FQNTestFile = "test_fqn.py"

// fqnPrelude resolves a dotted name the way Python code would reach it
// (import the top-level package, walk attributes, import a submodule when
// a module lacks the attribute) and decides whether an answer is a member
// of what the names resolve to. Only a name that provably does not exist
// fails a test; whatever the environment or the object leaves open skips
// it with the reason. See fqn_prelude.py for the rules.
//
//go:embed fqn_prelude.py
var fqnPrelude string

// apiCheck is one check of an api_understanding case and its test function.
type apiCheck struct {
	key, text, claim, fn string
	bad                  string // why the check fails without running (not a dotted name)
	// answer marks the check of the answer itself (its kind, value,
	// exception or absence), as opposed to a name's existence.
	answer bool
	// openClaim is the claim as a prover is asked it when the rules do
	// not decide it: in the open world (a name may belong to what a
	// function returns or decorates).
	openClaim string
}

// apiChecks plans one check per fully qualified name and one per
// identifier answer, writes them as one pytest file and runs it.
func (a *Auditor) apiChecks(ctx context.Context, c *questions.Case) ([]caseresult.OptionResult, []questions.Problem, error) {
	var checks []apiCheck
	var problems []questions.Problem
	var src strings.Builder
	src.WriteString(fqnPrelude)
	for i, ans := range c.Answers {
		if len(ans.FullyQualifiedClassName) == 0 {
			line := c.Line
			if l, ok := c.FieldLines["answers"]; ok {
				line = l
			}
			problems = append(problems, questions.Problem{CaseID: c.ID, File: c.File, Line: line,
				Field: fmt.Sprintf("answers[%d].fully_qualified_class_name", i), Message: "missing or empty; nothing proves the answer without it"})
		}
		shape := ReadShape(c.Question, ans.Answer)
		var good []string
		for j, fqn := range ans.FullyQualifiedClassName {
			ck := apiCheck{
				key:   fmt.Sprintf("answers[%d].fully_qualified_class_name[%d]", i, j),
				text:  fqn,
				claim: "the name " + fqn + " resolves in the configured Python",
				fn:    fmt.Sprintf("test_fqn_%d_%d", i, j),
			}
			fqn = strings.TrimSpace(fqn)
			if !ident.FQN.Match(fqn) {
				ck.bad = fmt.Sprintf("%q is not a dotted Python name", ck.text)
				checks = append(checks, ck)
				continue
			}
			if _, last, _ := cutLast(fqn); shape.Polarity == Negative && last == strings.TrimSpace(ans.Answer) {
				ck.claim = "the name " + fqn + " does not exist in the configured Python, as the question says"
			}
			ck.openClaim = ck.claim
			if parent, last, ok := cutLast(fqn); ok {
				ck.openClaim = fmt.Sprintf("%s names something in the installed library: %s is an attribute of %s, or of what %s returns or decorates", fqn, last, parent, parent)
			}
			good = append(good, fqn)
			fmt.Fprintf(&src, "\n\ndef %s():\n    run_check(check_name, %s, %s, %s)\n", ck.fn, strconv.Quote(fqn), strconv.Quote(strings.TrimSpace(ans.Answer)), strconv.Quote(string(shape.Polarity)))
			checks = append(checks, ck)
		}
		if answer := strings.TrimSpace(ans.Answer); len(good) > 0 && answer != "" && (ans.AnswerTemplate == "" || ans.AnswerTemplate == "StringMatchAnswer") {
			ck := apiCheck{
				key:       fmt.Sprintf("answers[%d].answer", i),
				text:      answer,
				claim:     answerClaim(answer, good, shape),
				openClaim: openAnswerClaim(answer, good, shape),
				fn:        fmt.Sprintf("test_answer_%d", i),
				answer:    true,
			}
			quoted := make([]string, len(good))
			for k, g := range good {
				quoted[k] = strconv.Quote(g)
			}
			js, _ := json.Marshal(shape)
			fmt.Fprintf(&src, "\n\ndef %s():\n    run_check(check_answer, %s, [%s], json.loads(%s))\n", ck.fn, strconv.Quote(answer), strings.Join(quoted, ", "), strconv.Quote(string(js)))
			checks = append(checks, ck)
		}
	}
	if len(checks) == 0 {
		return nil, problems, nil
	}
	var out sandbox.Outcome
	if runnable(checks) {
		dir := a.caseDir(c.ID)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, problems, err
		}
		r := a.Runner
		r.WorkDir, r.Keep = dir, true
		var err error
		out, err = r.RunTest(ctx, sandbox.TestSpec{CaseID: c.ID, Option: "fqn", FileName: FQNTestFile, Source: []byte(src.String()),
			SupportFiles: stubFiles(a.typeshed(), allNames(c))})
		if err != nil {
			return nil, problems, fmt.Errorf("running %s: %w", FQNTestFile, err)
		}
	}
	byName := map[string]sandbox.TestCase{}
	for _, tc := range out.Cases {
		byName[tc.Name] = tc
	}
	var results []caseresult.OptionResult
	for _, ck := range checks {
		o := caseresult.OptionResult{Option: ck.key, Text: ck.text, Claim: ck.claim, Truth: verdict.Unknown, AnswerCheck: ck.answer}
		switch tc, ok := byName[ck.fn]; {
		case ck.bad != "":
			o.Outcome, o.Evidence, o.Truth, o.Message = string(sandbox.StatusFailed), true, verdict.False, ck.bad
		case ok:
			o.TestPath, o.Runs, o.DurationMS = out.TestPath, 1, out.Duration.Milliseconds()
			o.Outcome, o.Message, o.Truth = string(tc.Status), tc.Message, truthOf(tc.Status)
			if out.Limit != "" {
				o.Limit, o.Message, o.Truth = out.Limit, out.Message, verdict.Unknown
			}
			o.Evidence = o.Truth != verdict.Unknown
			if o.Undecided = undecided(tc); o.Undecided != "" {
				o.Claim = ck.openClaim
			}
		default:
			// The file as a whole did not run (collection error, timeout):
			// every check carries the file's outcome and proves nothing.
			o.TestPath, o.Runs, o.DurationMS = out.TestPath, 1, out.Duration.Milliseconds()
			o.Outcome, o.Message = string(out.Status), out.Message
			if o.Message == "" {
				o.Message = out.Output
			}
		}
		results = append(results, o)
	}
	return results, problems, nil
}

func runnable(checks []apiCheck) bool {
	for _, ck := range checks {
		if ck.bad == "" {
			return true
		}
	}
	return false
}

// undecidedMark starts the skip reason of a check the rules did not
// decide (fqn_prelude.py's UNDECIDED).
const undecidedMark = "undecided: "

// undecided is what a skipped check left undecided, or "" when it was
// decided or skipped for the environment's sake (a package that is not
// installed), which no prover can change.
func undecided(tc sandbox.TestCase) string {
	if tc.Status != sandbox.StatusSkipped {
		return ""
	}
	msg := strings.TrimSpace(tc.Message)
	if i := strings.Index(msg, undecidedMark); i >= 0 {
		return strings.TrimSpace(msg[i+len(undecidedMark):])
	}
	return ""
}

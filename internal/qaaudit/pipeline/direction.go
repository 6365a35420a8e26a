package pipeline

import (
	"regexp"
	"strings"
)

// The direction check. Every option's test must pass if and only if the
// option, as stated, is true (research/qa-audit.md §5.3): the verdict reads
// a pass as "true". The upstream design wrote distractor tests the other
// way round (a test that passes when the distractor is false, with
// pytest.raises), and a model that learnt that pattern writes such tests
// here too; run as evidence, each would prove the opposite of what it
// tested. So before a test runs, these signs of a test written against its
// option refuse it, and the engineer is told why and may write it again:
//
//   - its name or a comment says it proves the option false or invalid
//     (test_option_B_invalidity, "# distractor: prove it does not work");
//   - the option says the code runs without an error, and the test
//     expects one (pytest.raises);
//   - the option says an error is raised, and the test neither expects
//     nor catches one, so it could only pass when none is raised;
//   - the option says nothing of an error, a failure or an absence (it
//     claims that something exists or works: "json.parse parses a
//     string"), and the test expects an error: pytest.raises(AttributeError)
//     passes exactly when the name does not exist, the claim's opposite.
//
// These are signs, not proof: a test that passes the check can still be
// wrong, but one that fails it is wrong in the way that flips a verdict.

var (
	negatedName = regexp.MustCompile(`(?i)\bdef\s+test\w*?(invalid|not_valid|is_false|false_claim|disprov|distractor|incorrect|is_wrong|fails_to)\w*\s*\(`)
	negatedNote = regexp.MustCompile(`(?i)(#|"""|''')[^\n]*(\bdistractor\b|prove[sd]?\s+(that\s+)?(it|this|the\s+(option|claim|distractor))\s+(is\s+)?(false|invalid|wrong|does\s+not|doesn't)|passes\s+(only\s+)?(if|when)\s+(the\s+)?(option|claim|distractor)\s+(is\s+)?(false|invalid|wrong))`)
	saysNoError = regexp.MustCompile(`(?i)\b(no\s+(error|exception)s?\b|without\s+(an?\s+|any\s+)?(error|exception)|does\s*n[o']t\s+raise|raises\s+no(thing)?\b|never\s+raises|runs\s+successfully|succeeds\b|completes\s+successfully|works\s+(fine|correctly|as\s+expected))`)
	saysError   = regexp.MustCompile(`\b(raises?|raised|throws?|thrown)\b|\b[A-Z]\w*(Error|Exception|Warning|Exit|Interrupt)\b|\bStop(Async)?Iteration\b`)
	// quotedOption is an option that is a string in quotes: the message
	// of an exception when the question asks one ('division by zero').
	quotedOption = regexp.MustCompile(`^(?s)([rbuf]?'[^']*'|[rbuf]?"[^"]*")\.?$`)
	// checksMessage is a test that compares an exception's message, not
	// only its type.
	checksMessage = regexp.MustCompile(`\bmatch\s*=|\bstr\(\s*\w+(\.value)?\s*\)|\.value\.args\b|\.args\[0\]|\.exception\.args\b|\bassertRaisesRegex\b`)
	expectsErr    = regexp.MustCompile(`\bpytest\.raises\s*\(|\braises\s*\(|\bassertRaises\w*\s*\(`)
	catchesErr    = regexp.MustCompile(`\bexcept\b|\bpytest\.raises\s*\(|\braises\s*\(|\bassertRaises\w*\s*\(`)
	// saysFailure covers options that claim a failure, a refusal or an
	// absence in other words than "raises": a test may expect an error
	// for them.
	saysFailure = regexp.MustCompile(`(?i)\b(errors?|exceptions?|fails?|failed|failing|failure|rejects?|rejected|refuses?|refused|invalid|not\s+allowed|disallowed|forbidden|crash(es)?|cannot|can't|no|not|never|none|neither|nor|without|missing|absent|lacks?|doesn't|does\s+not|isn't|is\s+not|aren't|won't|deprecated|removed|undefined|only|must|required|requires|mandatory|unique|duplicates?|at\s+most|at\s+least|exactly|restrict\w*|prevent\w*|validat\w*|enforc\w*|conflict\w*|mutually\s+exclusive)\b|n't\b`)
	expectedErr = regexp.MustCompile(`(?:pytest\.raises|assertRaises\w*)\s*\(\s*\(?\s*([A-Za-z_][\w.]*)`)
)

// directionProblem returns why the test looks written to pass when the
// option is false, or "" when it shows no such sign.
func directionProblem(option, code string) string {
	if m := negatedName.FindString(code); m != "" {
		return "its name (" + strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(m), "def"), "(")) + ") says it proves the option false"
	}
	if m := negatedNote.FindString(code); m != "" {
		return "a comment says it proves the option false (" + strings.TrimSpace(m) + ")"
	}
	if quotedOption.MatchString(strings.TrimSpace(option)) && expectsErr.MatchString(code) {
		// An exception's message as the option: the honest test expects
		// the error and compares its message.
		if checksMessage.MatchString(code) {
			return ""
		}
		return "the option is a message, but the test expects an error without comparing its message (pytest.raises(..., match=...) or str(excinfo.value) == ...), so it passes whatever the message is"
	}
	switch {
	case saysNoError.MatchString(option):
		if expectsErr.MatchString(code) {
			return "the option says no error is raised, but the test expects one (pytest.raises), so it passes only when the option is false"
		}
	case saysError.MatchString(option):
		if !catchesErr.MatchString(code) {
			return "the option says an error is raised, but the test neither expects (pytest.raises) nor catches one, so it can pass only when no error is raised"
		}
	case !saysFailure.MatchString(option) && expectsErr.MatchString(code):
		exc := "an error"
		if m := expectedErr.FindStringSubmatch(code); m != nil {
			exc = m[1]
		}
		return "the option says something exists or works, but the test expects " + exc + " (pytest.raises), so it passes when the option is false"
	}
	return ""
}

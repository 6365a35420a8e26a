package execproof

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
)

// fixRun is what one run of a fix_error case's test showed.
type fixRun struct {
	// Status is the run's outcome; "" when the run could not start.
	Status sandbox.Status
	// Limit names the sandbox limit the run ran into, or "".
	Limit string
	// Message is pytest's message, with the output's tail when the run
	// is no evidence (the skip reason alone for a skipped run).
	Message string
	// Output is pytest's message and output, where a compile error of
	// the code under test is looked for.
	Output string
	// Skipped lists "test: reason" for each skipped test of a run that
	// otherwise passed; Tests counts the tests.
	Skipped []string
	Tests   int
}

// fixEvidence is everything the decision of a fix_error case rests on:
// the run against the unfixed code, the run against the fixed code, and
// the compile probe when it ran.
type fixEvidence struct {
	Unfixed, Fixed fixRun
	// Compile is the probe's result; nil when it did not run.
	Compile *compileResult
	// FixedSource is the fixed code: a package it imports too is the
	// environment's lack, not the unfixed code's fault.
	FixedSource []byte
	// FixedModule is the fixed code's file name, which a compile error
	// in a run's output names.
	FixedModule string
}

// checkDecision is the truth of one check and what says why.
type checkDecision struct {
	Truth   verdict.Truth
	Message string
}

// needsCompileProbe reports whether the compile probe can change the
// decision: the fixed run did not pass (the fixed code may not compile),
// or the unfixed run ended in an error (its own syntax error may be why).
func needsCompileProbe(un, fx fixRun) bool {
	if un.Status == "" || fx.Status == "" {
		return false
	}
	return fx.Status != sandbox.StatusPassed || errored(un)
}

func errored(r fixRun) bool {
	return r.Status == sandbox.StatusError || r.Status == sandbox.StatusCollectionError
}

// decideFix is the decision of a fix_error case's two checks, "the test
// fails against the unfixed code" and "the test passes against the fixed
// code", from the evidence alone. Each run decides its own check first;
// then what one run leaves open is settled by the other and the compile
// probe:
//
//   - the fixed code does not compile: fixed is false, whatever its run
//     said (a reference solution that cannot be imported fixes nothing);
//   - the unfixed run ended in the unfixed code's own syntax error: the
//     test fails against it, unfixed is true;
//   - the unfixed run hung while the fixed run passed: unfixed is true;
//   - the fixed run passed cleanly and the unfixed run did not pass for
//     any other reason (an exception at import, an exit, a limit, a
//     module only the unfixed code imports): unfixed is true. A package
//     the fixed code imports too is the environment's lack: unknown.
//
// A run that could not start decides nothing, nor do the rules that need
// both runs.
func decideFix(ev fixEvidence) (un, fx checkDecision) {
	un, fx = ownRun(ev.Unfixed, true), ownRun(ev.Fixed, false)
	// A failure the machine causes (a locale or a time zone it lacks)
	// proves nothing about the code: another machine runs it.
	for _, d := range []*checkDecision{&un, &fx} {
		if d.Truth == verdict.Unknown {
			continue
		}
		if m := envFailure.FindString(d.Message); m != "" && !strings.HasPrefix(d.Message, "every test passed") {
			d.Truth = verdict.Unknown
			d.Message = fmt.Sprintf("depends on the environment: this machine lacks what the test asks for (%s), so the run proves nothing about the code: %s", m, failureLine(d.Message))
		}
	}
	if ev.Unfixed.Status == "" || ev.Fixed.Status == "" {
		return un, fx
	}
	if p := ev.Compile; p != nil && p.ran {
		if p.fixed != "" {
			fx = checkDecision{verdict.False, describeCompile("fixed", p.fixed)}
		}
		if p.unfixed != "" && errored(ev.Unfixed) && failedOnSyntax(ev.Unfixed.Output, p.unfixed, ev.FixedModule) {
			un = checkDecision{verdict.True, "the test fails against the unfixed code: " + describeCompile("unfixed", p.unfixed)}
		}
	}
	fixedClean := ev.Fixed.Status == sandbox.StatusPassed && fx.Truth == verdict.True
	if un.Truth != verdict.Unknown || !fixedClean {
		return un, fx
	}
	if ev.Unfixed.Status == sandbox.StatusTimeout {
		return checkDecision{verdict.True, "the test hung against the unfixed code (killed after the timeout) and passes against the fixed code"}, fx
	}
	if m := notInstalled.FindAllStringSubmatch(un.Message, -1); m != nil {
		for _, g := range m {
			if imports(ev.FixedSource, g[1]) {
				un.Message = fmt.Sprintf("%s (the fixed code imports %s too, so the environment lacks it)", un.Message, g[1])
				return un, fx
			}
		}
		return checkDecision{verdict.True, fmt.Sprintf("the test does not pass against the unfixed code, which needs %s; the fixed code does without it and passes: %s", m[0][1], firstLine(un.Message))}, fx
	}
	if ev.Unfixed.Status == sandbox.StatusPassed {
		return un, fx
	}
	return checkDecision{verdict.True, fmt.Sprintf("the test does not pass against the unfixed code (%s) and passes against the fixed code: %s", ev.Unfixed.Status, failureLine(un.Message))}, fx
}

// ownRun is what a run alone says of its check.
func ownRun(r fixRun, unfixed bool) checkDecision {
	d := checkDecision{verdict.Unknown, r.Message}
	switch {
	case r.Status == sandbox.StatusPassed && len(r.Skipped) > 0:
		// A skipped test (a package that is not installed) proves nothing.
		d.Message = fmt.Sprintf("%d of %d tests skipped: %s", len(r.Skipped), r.Tests, strings.Join(r.Skipped, "; "))
	case r.Status == sandbox.StatusPassed && unfixed:
		d = checkDecision{verdict.False, "every test passed against the unfixed code"}
	case r.Status == sandbox.StatusPassed:
		d.Truth = verdict.True
	case r.Status == sandbox.StatusFailed && r.Limit != "" && !unfixed:
		// The fixed code stopped by a limit: the limit may be too low
		// for it; that is no proof the fix is wrong.
	case r.Status == sandbox.StatusFailed && unfixed:
		d.Truth = verdict.True
	case r.Status == sandbox.StatusFailed:
		d.Truth = verdict.False
	}
	return d
}

// envFailure is an error the machine's setup causes, not the code: a
// locale or a time zone that is not installed.
var envFailure = regexp.MustCompile(`unsupported locale setting|ZoneInfoNotFoundError|No time zone found with key|UnknownTimeZoneError`)

var notInstalled = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.]*) is not installed in this Python`)

// imports reports whether src imports module (or a submodule of it, or the
// package it is a portion of) by an import statement at any indentation.
func imports(src []byte, module string) bool {
	top, _, _ := strings.Cut(module, ".")
	re := regexp.MustCompile(`(?m)^\s*(?:import|from)\s+` + regexp.QuoteMeta(top) + `(?:[\s.,]|$)`)
	return re.Match(src)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return line
}

var errorLine = regexp.MustCompile(`(?m)^E\s+([A-Za-z_][A-Za-z0-9_.]*(?:Error|Exception|Exit|Interrupt)\b.*)$`)

// failureLine picks the exception pytest reported ("E   RuntimeError:
// ...", the last one: the cause comes first in a chain) from a run's
// message, or its first line.
func failureLine(s string) string {
	if m := errorLine.FindAllStringSubmatch(s, -1); m != nil {
		return strings.TrimSpace(m[len(m)-1][1])
	}
	return firstLine(s)
}

package execproof

import (
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
)

// TestDecideFix: the decision of a fix_error case over the evidence of its
// runs, one row per way the two runs and the compile probe can end.
func TestDecideFix(t *testing.T) {
	const (
		passed  = sandbox.StatusPassed
		failed  = sandbox.StatusFailed
		timeout = sandbox.StatusTimeout
		collErr = sandbox.StatusCollectionError
		setup   = sandbox.StatusError
		skipped = sandbox.StatusSkipped
	)
	syntax := &compileResult{ran: true, unfixed: "SyntaxError: expected ':' (cases/01/unfixed.py, line 1)"}
	fixedBroken := &compileResult{ran: true, fixed: "SyntaxError: invalid syntax (cases/01/fixed.py, line 3)"}
	notRan := &compileResult{}
	tests := []struct {
		name           string
		un, fx         fixRun
		probe          *compileResult
		fixedSource    string
		wantUn, wantFx verdict.Truth
		unMsg, fxMsg   string
	}{
		{"fails unfixed, passes fixed", fixRun{Status: failed, Message: "assert 1 == 2"}, fixRun{Status: passed}, nil, "", verdict.True, verdict.True, "assert 1 == 2", ""},
		{"passes unfixed", fixRun{Status: passed}, fixRun{Status: passed}, nil, "", verdict.False, verdict.True, "every test passed against the unfixed code", ""},
		{"fails fixed", fixRun{Status: failed}, fixRun{Status: failed, Message: "test_a: ZeroDivisionError"}, nil, "", verdict.True, verdict.False, "", "ZeroDivisionError"},
		{"fixed stopped by a limit", fixRun{Status: failed}, fixRun{Status: failed, Limit: "memory"}, nil, "", verdict.True, verdict.Unknown, "", ""},
		{"fixed passes with a skip", fixRun{Status: failed}, fixRun{Status: passed, Tests: 2, Skipped: []string{"test_b: numpy is not installed in this Python"}}, nil, "", verdict.True, verdict.Unknown, "", "1 of 2 tests skipped: test_b"},
		{"unfixed hangs, fixed passes", fixRun{Status: timeout, Message: "killed after the timeout"}, fixRun{Status: passed}, nil, "", verdict.True, verdict.True, "hung against the unfixed code", ""},
		{"unfixed hangs, fixed fails", fixRun{Status: timeout}, fixRun{Status: failed}, notRan, "", verdict.Unknown, verdict.False, "", ""},
		{"both hang", fixRun{Status: timeout}, fixRun{Status: timeout}, notRan, "", verdict.Unknown, verdict.Unknown, "", ""},
		{"unfixed syntax error at collection", fixRun{Status: collErr, Output: "E   SyntaxError: expected ':' in fixed.py"}, fixRun{Status: passed}, syntax, "", verdict.True, verdict.True, "the unfixed code does not compile", ""},
		{"fixed does not compile, its run passed", fixRun{Status: collErr, Output: "RuntimeError"}, fixRun{Status: passed}, fixedBroken, "", verdict.Unknown, verdict.False, "", "the fixed code does not compile"},
		{"unfixed raises at import, fixed passes", fixRun{Status: collErr, Message: "E   RuntimeError: broken at import"}, fixRun{Status: passed}, notRan, "", verdict.True, verdict.True, "(collection_error) and passes against the fixed code: RuntimeError: broken at import", ""},
		{"unfixed setup error, fixed passes", fixRun{Status: setup, Message: "fixture 'db' not found"}, fixRun{Status: passed}, notRan, "", verdict.True, verdict.True, "(error)", ""},
		{"unfixed needs a package the fix does without", fixRun{Status: skipped, Message: "simplejson is not installed in this Python"}, fixRun{Status: passed}, nil, "import json\n", verdict.True, verdict.True, "which needs simplejson", ""},
		{"both need a missing package", fixRun{Status: skipped, Message: "yaml is not installed in this Python"}, fixRun{Status: passed}, nil, "import yaml\n", verdict.Unknown, verdict.True, "the fixed code imports yaml too", ""},
		{"unfixed run never started", fixRun{}, fixRun{Status: passed}, nil, "", verdict.Unknown, verdict.True, "", ""},
		{"fixed run never started", fixRun{Status: timeout}, fixRun{}, nil, "", verdict.Unknown, verdict.Unknown, "", ""},
		// A locale or a time zone the machine lacks is the machine's
		// failure, not the code's: no proof either way.
		{"fixed needs a locale not installed", fixRun{Status: failed, Message: "test_price: AssertionError"}, fixRun{Status: failed, Message: "test_price: locale.Error: unsupported locale setting"}, notRan, "", verdict.True, verdict.Unknown, "", "depends on the environment"},
		{"fixed needs a time zone not installed", fixRun{Status: failed, Message: "assert 1 == 2"}, fixRun{Status: failed, Message: "zoneinfo._common.ZoneInfoNotFoundError: 'No time zone found with key Mars/Olympus'"}, notRan, "", verdict.True, verdict.Unknown, "", "depends on the environment"},
		{"unfixed fails for a locale, fixed fails too", fixRun{Status: failed, Message: "locale.Error: unsupported locale setting"}, fixRun{Status: failed, Message: "locale.Error: unsupported locale setting"}, notRan, "", verdict.Unknown, verdict.Unknown, "depends on the environment", "depends on the environment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			un, fx := decideFix(fixEvidence{Unfixed: tt.un, Fixed: tt.fx, Compile: tt.probe, FixedSource: []byte(tt.fixedSource), FixedModule: "fixed.py"})
			if un.Truth != tt.wantUn || fx.Truth != tt.wantFx || !strings.Contains(un.Message, tt.unMsg) || !strings.Contains(fx.Message, tt.fxMsg) {
				t.Errorf("unfixed %s (%s), fixed %s (%s); want %s with %q, %s with %q", un.Truth, un.Message, fx.Truth, fx.Message, tt.wantUn, tt.unMsg, tt.wantFx, tt.fxMsg)
			}
		})
	}
	for _, tt := range []struct {
		un, fx sandbox.Status
		want   bool
	}{
		{failed, passed, false}, {collErr, passed, true}, {setup, passed, true}, {failed, failed, true}, {timeout, timeout, true}, {"", failed, false}, {failed, "", false},
	} {
		if got := needsCompileProbe(fixRun{Status: tt.un}, fixRun{Status: tt.fx}); got != tt.want {
			t.Errorf("needsCompileProbe(%q, %q) = %v, want %v", tt.un, tt.fx, got, tt.want)
		}
	}
}

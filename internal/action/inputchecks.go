package action

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/baseline"
	"github.com/benchgate/benchgate/internal/ghpr"
	"github.com/benchgate/benchgate/internal/llm"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/swebench"
)

// The checks of input values the modes would otherwise refuse one at a
// time after the step started. Each asks the package that owns the rule,
// so the Action and the command line cannot disagree on what is valid.

// checkConfidence: the statistical gate's family-wise confidence. A
// percentage (95) is the usual slip, so the fraction it meant is named.
func checkConfidence(v string) string {
	c, err := strconv.ParseFloat(v, 64)
	if err == nil && report.ConfidenceOK(c) {
		return ""
	}
	want := report.ConfidenceExpected
	if pct, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64); err == nil && report.ConfidenceOK(pct/100) {
		want += fmt.Sprintf(" (a fraction, not a percentage: %s means %s%%)", strconv.FormatFloat(pct/100, 'f', -1, 64), strings.TrimSuffix(v, "%"))
	}
	return want
}

// checkTolerance: the growth allowed against the baseline, in percent.
func checkTolerance(v string) string {
	if pct, err := strconv.ParseFloat(v, 64); err == nil && baseline.ToleranceOK(pct) {
		return ""
	}
	return baseline.ToleranceExpected + " such as 10"
}

// checkProfile: a gate profile report knows.
func checkProfile(v string) string {
	if _, err := report.ParseProfile(v); err == nil {
		return ""
	}
	return "verify_pr or verify_release (pr_fast is an alias of verify_pr)"
}

// checkDuration: a Go duration above zero, as the swebench flags take.
func checkDuration(v string) string {
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return ""
	}
	return "a duration above zero such as 90s, 30m or 2h"
}

// checkShard: i/n with 1 <= i <= n.
func checkShard(v string) string {
	if _, err := swebench.ParseShard(v); err == nil {
		return ""
	}
	return "i/n with 1 <= i <= n, such as 2/4"
}

// checkGrouping: how qa-audit splits its pull requests.
func checkGrouping(v string) string {
	if _, err := ghpr.ParseGrouping(v); err == nil {
		return ""
	}
	return fmt.Sprintf("%s (one pull request per fixed file) or %s (one per run)", ghpr.PerFile, ghpr.PerRun)
}

// checkBackend: the model backends qa-audit speaks to.
func checkBackend(v string) string {
	switch llm.Backend(v) {
	case llm.Gemini, llm.OpenAI:
		return ""
	}
	return fmt.Sprintf("%s or %s (an OpenAI-compatible endpoint)", llm.Gemini, llm.OpenAI)
}

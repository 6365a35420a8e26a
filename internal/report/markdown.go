package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/suite"
)

// ToFixed formats x with d decimals the way JavaScript's
// Number.prototype.toFixed does, so that summaries are byte-identical to
// the benchmark's: the exact binary value is rounded half away from zero
// (34072.5 gives "34073", where Go's strconv rounds half to even and gives
// "34072"), and a negative value keeps its sign even when it rounds to
// zero (-0.001 gives "-0.00").
func ToFixed(x float64, d int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) >= 1e21 {
		// JavaScript falls back to its number-to-string conversion here.
		return jsNumberString(x)
	}
	neg := x < 0
	if neg {
		x = -x
	}
	x = math.Abs(x) // -0 prints as 0
	// The exact decimal expansion of a float64 has at most 1074
	// fractional digits, so this string is the value itself.
	exact := strconv.FormatFloat(x, 'f', 1074, 64)
	dot := strings.IndexByte(exact, '.')
	digits := []byte(exact[:dot] + exact[dot+1:dot+1+d])
	if exact[dot+1+d] >= '5' {
		i := len(digits) - 1
		for ; i >= 0; i-- {
			if digits[i] == '9' {
				digits[i] = '0'
				continue
			}
			digits[i]++
			break
		}
		if i < 0 {
			digits = append([]byte{'1'}, digits...)
		}
	}
	intLen := len(digits) - d
	out := string(digits[:intLen])
	if d > 0 {
		out += "." + string(digits[intLen:])
	}
	if neg {
		out = "-" + out
	}
	return out
}

func jsNumberString(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	s := strconv.FormatFloat(x, 'g', -1, 64)
	return strings.Replace(s, "e+0", "e+", 1)
}

// Markdown renders the summary in the benchmark's latest-summary.md
// layout, byte for byte, including the final newline.
func Markdown(s *Summary) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("# Benchmark Validation Summary")
	line("")
	line("Generated: %s", s.GeneratedAt)
	line("")
	line("## Mode Metrics")
	line("")
	line("| Mode | Model | Runs | Success %% | Output Valid %% | Runner Error %% | Timeout/Stall %% | Retry %% | Median Latency (ms) | Median Tokens (Total) | Median Tokens (Active) | Median Tool Calls |")
	line("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, mode := range []string{suite.ModeAgentDirect, suite.ModeMCP, suite.ModeGhx} {
		m := s.Modes.Get(mode)
		if m == nil {
			continue
		}
		line("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |", m.Mode, m.ModelSignature, m.Runs,
			ToFixed(m.SuccessRate, 2), ToFixed(m.OutputValidityRate, 2), ToFixed(m.RunnerFailureRate, 2),
			ToFixed(m.TimeoutStallRate, 2), ToFixed(m.RetryRate, 2), ToFixed(m.MedianLatencyMs, 0),
			ToFixed(m.MedianTokensTotal, 0), ToFixed(m.MedianTokensActive, 0), ToFixed(m.MedianToolCalls, 1))
	}
	line("")
	line("## Profiling Snapshot")
	line("")
	line("| Mode | Profiled Runs | Assistant Total (ms) | Reasoning (ms) | Between Reasoning->Tool (ms) | Tool Total (ms) | Bash Tool (ms) | Post-Tool (ms) |")
	line("|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, mode := range []string{suite.ModeAgentDirect, suite.ModeMCP, suite.ModeGhx} {
		p := s.Profiling.Get(mode)
		if p == nil {
			continue
		}
		line("| %s | %d | %s | %s | %s | %s | %s | %s |", mode, p.RunsWithProfiling,
			ToFixed(p.MedianAssistantTotalMs, 0), ToFixed(p.MedianAssistantReasoningMs, 0),
			ToFixed(p.MedianAssistantBetweenReasoningAndToolMs, 0), ToFixed(p.MedianToolTotalMs, 0),
			ToFixed(p.MedianToolBashMs, 0), ToFixed(p.MedianAssistantPostToolMs, 0))
	}
	line("")
	line("## Gate V2")
	line("")
	line("Profile: %s", s.GateV2.Profile)
	line("Overall Gate: **%s**", passFail(s.GateV2.Passed))
	line("")
	rel, eff := s.GateV2.Reliability, s.GateV2.Efficiency
	if rel == nil || eff == nil {
		line("Insufficient data: need both agent_direct and ghx runs to evaluate gate v2.")
		return b.String()
	}
	line("| Check | Value | Rule | Pass |")
	line("|---|---:|---:|:---:|")
	for _, c := range s.GateV2.Checks {
		yn := "N"
		if c.Passed {
			yn = "Y"
		}
		line("| %s | %s | %s %s | %s |", c.Name, ToFixed(c.Value, 2), c.Operator, ToFixed(c.Threshold, 2), yn)
	}
	line("")
	// One line per check of the group, in the gate's order.
	snapshot := func(group string) {
		for _, c := range Checks() {
			if c.Group() != group {
				continue
			}
			detail := ""
			if c.detail != nil {
				detail = c.detail(eff)
			}
			line("- "+c.Snapshot+"%s", ToFixed(c.value(rel, eff), 2), detail)
		}
	}
	line("### Reliability Snapshot")
	line("")
	snapshot("reliability")
	line("")
	line("### Efficiency Snapshot (Stable Sample)")
	line("")
	snapshot("efficiency")
	line("- scenario win-rate (active tokens): %s%% (%d comparable scenarios)", ToFixed(eff.ScenarioWinRateTokensActivePct, 2), eff.TokensComparableScenarioCount)
	return b.String()
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

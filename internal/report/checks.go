package report

import (
	"fmt"
	"strings"
)

// CheckSpec declares one of gate v2's checks: everything the gate, the
// statistical gate, the Markdown and the Action's verdict need to know
// about it. Checks returns them all, in the order the gate lists them;
// nothing else in benchgate lists the checks, so a new check is one more
// entry here plus the computation of its value (a field of Reliability or
// Efficiency) and its tests.
type CheckSpec struct {
	// ID names the check: gateV2.checks[].name in the summary, the check
	// of the stats file, the verdict's check ID. Its prefix up to the
	// first "_" is its group and the section of gateV2 that holds its
	// value ("reliability" or "efficiency").
	ID string
	// Key is the JSON key of the check's value in that section:
	// gateV2.<group>.<Key>.
	Key string
	// value reads the check's value from the section's figures; it
	// returns the field Key names.
	value func(rel *Reliability, eff *Efficiency) float64
	// Operator is ">=" (the value must reach the threshold) or "<=" (it
	// must not exceed it).
	Operator string
	// ThresholdKey is the expectations key (a JSON key of Thresholds)
	// whose number the threshold is made of.
	ThresholdKey string
	// threshold computes the check's threshold from the profile's
	// numbers; it reads the field ThresholdKey names.
	threshold func(th Thresholds) float64
	// StatsMetric is the metric the statistical gate judges instead of
	// the check's v2 value ("" for a check the statistical gate keeps as
	// v2 judges it). Its per-scenario values are sample's.
	StatsMetric string
	// sample picks a scenario's stable values of the metric (nil
	// without StatsMetric).
	sample func(sc *scenarioAcc) *values
	// Name and Unit are the check in a reader's words, for the
	// Action's verdict ("tool-call reduction", "%").
	Name, Unit string
	// Snapshot is the line of the summary Markdown's snapshot, a format
	// whose one %s is the value with two decimals; detail, when set,
	// adds what follows it.
	Snapshot string
	detail   func(eff *Efficiency) string
}

// Group is the check's group and the section of gateV2 that holds its
// value: "reliability" or "efficiency".
func (c CheckSpec) Group() string {
	g, _, _ := strings.Cut(c.ID, "_")
	return g
}

// Checks are gate v2's checks in the order the gate judges and lists
// them. The slice is new at each call: callers may not change the table.
func Checks() []CheckSpec {
	return []CheckSpec{
		{
			ID: "reliability_success_rate_non_inferior", Key: "successRateDeltaPct",
			value:    func(rel *Reliability, _ *Efficiency) float64 { return rel.SuccessRateDeltaPct },
			Operator: ">=", ThresholdKey: "maxSuccessRateDropPct",
			// The largest drop allowed is the lowest change: 0 - drop,
			// so that a drop of 0 gives 0, not -0.
			threshold: func(th Thresholds) float64 { return 0 - th.MaxSuccessRateDropPct },
			Name:      "success rate change, ghx against agent_direct", Unit: "points",
			Snapshot: "success delta: %s pp",
		},
		{
			ID: "reliability_output_validity", Key: "outputValidityRatePct",
			value:    func(rel *Reliability, _ *Efficiency) float64 { return rel.OutputValidityRatePct },
			Operator: ">=", ThresholdKey: "minOutputValidityRatePct",
			threshold: func(th Thresholds) float64 { return th.MinOutputValidityRatePct },
			Name:      "output validity (ghx)", Unit: "%",
			Snapshot: "output validity: %s%%",
		},
		{
			ID: "reliability_runner_failure_rate", Key: "runnerFailureRatePct",
			value:    func(rel *Reliability, _ *Efficiency) float64 { return rel.RunnerFailureRatePct },
			Operator: "<=", ThresholdKey: "maxRunnerFailureRatePct",
			threshold: func(th Thresholds) float64 { return th.MaxRunnerFailureRatePct },
			Name:      "runner failure rate (ghx)", Unit: "%",
			Snapshot: "runner failures: %s%%",
		},
		{
			ID: "reliability_timeout_stall_rate", Key: "timeoutStallRatePct",
			value:    func(rel *Reliability, _ *Efficiency) float64 { return rel.TimeoutStallRatePct },
			Operator: "<=", ThresholdKey: "maxTimeoutStallRatePct",
			threshold: func(th Thresholds) float64 { return th.MaxTimeoutStallRatePct },
			Name:      "timeout and stall rate (ghx)", Unit: "%",
			Snapshot: "timeout/stalls: %s%%",
		},
		{
			ID: "reliability_retry_rate", Key: "retryRatePct",
			value:    func(rel *Reliability, _ *Efficiency) float64 { return rel.RetryRatePct },
			Operator: "<=", ThresholdKey: "maxRetryRatePct",
			threshold: func(th Thresholds) float64 { return th.MaxRetryRatePct },
			Name:      "retry rate (ghx)", Unit: "%",
			Snapshot: "external retries: %s%%",
		},
		{
			ID: "efficiency_coverage", Key: "coveragePct",
			value:    func(_ *Reliability, eff *Efficiency) float64 { return eff.CoveragePct },
			Operator: ">=", ThresholdKey: "minEfficiencyCoveragePct",
			threshold: func(th Thresholds) float64 { return th.MinEfficiencyCoveragePct },
			Name:      "scenarios with enough stable rows", Unit: "%",
			Snapshot: "scenario coverage: %s%%",
			detail: func(eff *Efficiency) string {
				return fmt.Sprintf(" (%d/%d)", eff.EligibleScenarioCount, eff.TotalScenarioCount)
			},
		},
		{
			ID: "efficiency_tokens_active_reduction", Key: "tokensActiveReductionPct",
			value:    func(_ *Reliability, eff *Efficiency) float64 { return eff.TokensActiveReductionPct },
			Operator: ">=", ThresholdKey: "minTokensActiveReductionPct",
			threshold:   func(th Thresholds) float64 { return th.MinTokensActiveReductionPct },
			StatsMetric: StatsTokensActive,
			sample:      func(sc *scenarioAcc) *values { return &sc.active },
			Name:        "active-token reduction", Unit: "%",
			Snapshot: "median active-token reduction: %s%%",
		},
		{
			ID: "efficiency_latency_reduction", Key: "latencyReductionPct",
			value:    func(_ *Reliability, eff *Efficiency) float64 { return eff.LatencyReductionPct },
			Operator: ">=", ThresholdKey: "minLatencyReductionPct",
			threshold:   func(th Thresholds) float64 { return th.MinLatencyReductionPct },
			StatsMetric: StatsLatency,
			sample:      func(sc *scenarioAcc) *values { return &sc.latency },
			Name:        "latency reduction", Unit: "%",
			Snapshot: "median latency reduction: %s%%",
		},
		{
			ID: "efficiency_tool_call_reduction", Key: "toolCallReductionPct",
			value:    func(_ *Reliability, eff *Efficiency) float64 { return eff.ToolCallReductionPct },
			Operator: ">=", ThresholdKey: "minToolCallReductionPct",
			threshold:   func(th Thresholds) float64 { return th.MinToolCallReductionPct },
			StatsMetric: StatsToolCalls,
			sample:      func(sc *scenarioAcc) *values { return &sc.tools },
			Name:        "tool-call reduction", Unit: "%",
			Snapshot: "median tool-call reduction: %s%%",
		},
	}
}

// CheckByID returns the check named id.
func CheckByID(id string) (CheckSpec, bool) {
	for _, c := range Checks() {
		if c.ID == id {
			return c, true
		}
	}
	return CheckSpec{}, false
}

// judge evaluates the check on the summary's figures.
func (c CheckSpec) judge(rel *Reliability, eff *Efficiency, th Thresholds) Check {
	v, t := c.value(rel, eff), c.threshold(th)
	passed := v >= t
	if c.Operator == "<=" {
		passed = v <= t
	}
	return Check{Name: c.ID, Passed: passed, Value: v, Threshold: t, Operator: c.Operator}
}

package report

import (
	"fmt"
	"io"

	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/stats"
	"github.com/benchgate/benchgate/internal/suite"
)

// StatsOptions turn on the statistical gate beside gate v2 (report
// --stats). The v2 summary is written exactly as without them.
type StatsOptions struct {
	Enabled bool
	// Confidence is the family-wise level of the efficiency intervals
	// (default 0.95).
	Confidence float64
	// AllowUndecided lets inconclusive and underpowered checks pass the
	// gate; by default they fail it, since the data did not show the
	// reduction the profile asks for.
	AllowUndecided bool
	// UndecidedHint, when set, follows the reason of an undecided
	// verdict: what lets it pass where the gate decides (report says
	// "--stats-allow-undecided lets this pass"). set and ordered only
	// record the gate and offer no such option, so they leave it empty.
	UndecidedHint string
	// JSON and MD are the outputs; empty means latest-stats.json and
	// latest-stats.md in the directory of the summary JSON.
	JSON, MD string
	// Seed is the bootstrap seed (default stats.DefaultSeed) and
	// Replicates its number of resamples (default
	// stats.DefaultReplicates).
	Seed       uint64
	Replicates int
	// Plan prints the power planner (PlanLines) after the files are
	// written; the plan itself is in latest-stats.{json,md} either way.
	Plan bool
	// Scope is stats.ScopeSuite (default: these scenarios, beyond the
	// noise of their repetitions) or stats.ScopeScenarios (scenarios
	// like these, for large suites).
	Scope string
	// BenchmarkScenarios is how many scenarios the benchmark has in all,
	// the most the scenario scope's planner may ask for; 0 when unknown.
	BenchmarkScenarios int
}

// Metric names of the efficiency checks, as they appear in the stats
// file, the job summary and step outputs.
const (
	StatsTokensActive = "tokens_active"
	StatsLatency      = "latency"
	StatsToolCalls    = "tool_calls"
)

// StatsReport is latest-stats.json: the statistical gate's verdict and
// every figure behind it.
type StatsReport struct {
	GeneratedAt    string  `json:"generatedAt"`
	Profile        string  `json:"profile"`
	Confidence     float64 `json:"confidence"`
	AllowUndecided bool    `json:"allowUndecided"`
	// Scope is the scope every check was decided in, ScopeText what
	// that means for this run, in words.
	Scope     string `json:"scope"`
	ScopeText string `json:"scopeText"`
	// GatePower is the predicted chance that the efficiency checks all
	// pass if the true reductions are the observed ones: the product of
	// each check's predicted power (nil without a plan for every check).
	GatePower *float64      `json:"gatePower"`
	Verdict   stats.Verdict `json:"verdict"`
	Passed    bool          `json:"passed"`
	Reason    string        `json:"reason"`
	// TotalScenarioCount and EligibleScenarioCount are v2's: the stats
	// use the eligible scenarios, as v2's efficiency checks do.
	TotalScenarioCount    int               `json:"totalScenarioCount"`
	EligibleScenarioCount int               `json:"eligibleScenarioCount"`
	Reliability           []Check           `json:"reliability"`
	Success               SuccessCheck      `json:"success"`
	Efficiency            []EfficiencyCheck `json:"efficiency"`
	SummaryJSON           string            `json:"summaryJson"`

	undecidedHint string
}

// EfficiencyCheck is one three-way efficiency check with the v2 check it
// stands beside.
type EfficiencyCheck struct {
	Metric   string  `json:"metric"`
	Check    string  `json:"check"`
	V2Value  float64 `json:"v2Value"`
	V2Passed bool    `json:"v2Passed"`
	stats.Result
}

// SuccessCheck is the exact paired test of success. In the suite scope
// it is van Elteren's stratified test of the rows' outcomes (succeeded
// or not) within each scenario, exact with its ties; in the scenario
// scope the exact McNemar test of per-scenario success, a scenario
// succeeding in a mode when at least half of its rows did.
type SuccessCheck struct {
	Scope           string        `json:"scope"`
	Scenarios       int           `json:"scenarios"`
	BothSucceeded   int           `json:"bothSucceeded"`
	OnlyAgentDirect int           `json:"onlyAgentDirectSucceeded"`
	OnlyGhx         int           `json:"onlyGhxSucceeded"`
	BothFailed      int           `json:"bothFailed"`
	PValue          float64       `json:"pValue"`
	Verdict         stats.Verdict `json:"verdict"`
	Reason          string        `json:"reason"`
}

// float64s copies the values out as float64s.
func (v *values) float64s() []float64 {
	if v.floats != nil {
		return append([]float64(nil), v.floats...)
	}
	out := make([]float64, len(v.ints))
	for i, x := range v.ints {
		out[i] = float64(x)
	}
	return out
}

// buildStats judges the run statistically. ad and ghx must both be
// present; s is the v2 summary of the same rows.
func buildStats(ad, ghx *modeAcc, s *Summary, th Thresholds, opts StatsOptions, summaryJSON string) (*StatsReport, error) {
	conf := opts.Confidence
	if conf == 0 {
		conf = 0.95
	}
	r := &StatsReport{GeneratedAt: s.GeneratedAt, Profile: s.GateV2.Profile, Confidence: conf, AllowUndecided: opts.AllowUndecided, SummaryJSON: summaryJSON,
		undecidedHint: opts.UndecidedHint}
	eff := s.GateV2.Efficiency
	r.TotalScenarioCount, r.EligibleScenarioCount = eff.TotalScenarioCount, eff.EligibleScenarioCount
	v2 := map[string]Check{}
	for _, c := range s.GateV2.Checks {
		v2[c.Name] = c
	}
	// The statistical gate judges the checks with a metric by their
	// intervals and keeps the others as v2 judged them.
	eligible := eligibleScenarios(ad, ghx, th.MinSamplesPerScenarioPerMode)
	var metrics []stats.Metric
	var judged []CheckSpec
	for _, c := range Checks() {
		if c.StatsMetric == "" {
			r.Reliability = append(r.Reliability, v2[c.ID])
			continue
		}
		m := stats.Metric{Name: c.StatsMetric, MinReductionPct: c.threshold(th)}
		for _, id := range eligible {
			m.Scenarios = append(m.Scenarios, stats.Scenario{ID: id, Base: c.sample(ad.scenarios[id]).float64s(), Target: c.sample(ghx.scenarios[id]).float64s()})
		}
		metrics = append(metrics, m)
		judged = append(judged, c)
	}
	res, err := stats.Judge(metrics, stats.Options{Confidence: conf, Seed: opts.Seed, Replicates: opts.Replicates, Scope: opts.Scope, AvailableScenarios: opts.BenchmarkScenarios})
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	for i, c := range judged {
		r.Efficiency = append(r.Efficiency, EfficiencyCheck{Metric: res[i].Name, Check: c.ID, V2Value: v2[c.ID].Value, V2Passed: v2[c.ID].Passed, Result: res[i]})
	}
	r.Scope, _ = stats.ParseScope(opts.Scope)
	r.ScopeText = scopeText(r.Scope, res)
	r.GatePower = gatePower(res)
	if r.Scope == stats.ScopeSuite {
		r.Success = suiteSuccessCheck(ad, ghx, ad.scenarioOrder, conf)
	} else {
		r.Success = successCheck(ad, ghx, conf)
	}
	r.Verdict, r.Passed, r.Reason = overall(r)
	return r, nil
}

// scopeText says in a maintainer's words what the gate's verdict is
// about: the checks' scope sentence, with the number of scenarios.
func scopeText(scope string, res []stats.Result) string {
	for _, r := range res {
		if r.ScopeText != "" {
			return r.ScopeText
		}
	}
	if scope == stats.ScopeSuite {
		return "on the scenarios of this suite, beyond the noise of the repetitions"
	}
	return "on scenarios like these"
}

// gatePower is the product of the checks' predicted powers at the
// observed reductions; nil when a check has no plan.
func gatePower(res []stats.Result) *float64 {
	p := 1.0
	for _, r := range res {
		switch {
		case r.SuitePlan != nil && r.SuitePlan.WithinKnown:
			p *= r.SuitePlan.CurrentPower
		case r.Plan != nil:
			p *= r.Plan.Observed.CurrentPower
		default:
			return nil
		}
	}
	return &p
}

// suiteSuccessCheck compares the rows' outcomes within each scenario
// both modes ran (every row, as v2's success rate counts them, not only
// the stable sample the efficiency checks use): a significant loss of ghx (its rows succeed less often than
// agent_direct's, van Elteren's exact test at 1 − conf) fails it.
func suiteSuccessCheck(ad, ghx *modeAcc, ids []string, conf float64) SuccessCheck {
	c := SuccessCheck{Scope: stats.ScopeSuite}
	var base, target [][]float64
	var adOK, adRuns, gOK, gRuns int
	for _, id := range ids {
		a, g := ad.scenarios[id], ghx.scenarios[id]
		if a == nil || g == nil || a.runs == 0 || g.runs == 0 {
			continue
		}
		c.Scenarios++
		base = append(base, outcomes(a.succeeded, a.runs))
		target = append(target, outcomes(g.succeeded, g.runs))
		adOK, adRuns, gOK, gRuns = adOK+a.succeeded, adRuns+a.runs, gOK+g.succeeded, gRuns+g.runs
	}
	st := stats.StratifiedOutcomes(base, target)
	c.PValue = st.P
	where := fmt.Sprintf("on these %d scenarios: ghx succeeded in %d of %d runs, agent_direct in %d of %d", c.Scenarios, gOK, gRuns, adOK, adRuns)
	switch {
	case st.P <= 1-conf && st.Lower:
		c.Verdict = stats.Fail
		c.Reason = fmt.Sprintf("%s, a significant loss (exact stratified test p=%.4g)", where, st.P)
	case st.MinP > 1-conf:
		c.Verdict = stats.Pass
		c.Reason = fmt.Sprintf("%s; no outcome of this many runs could show a loss at %s confidence, so v2's success-rate check is what guards it", where, Percent(conf*100))
	default:
		c.Verdict = stats.Pass
		c.Reason = fmt.Sprintf("%s, no significant loss (exact stratified test p=%.4g)", where, st.P)
	}
	return c
}

// outcomes are runs values, 1 for each of the succeeded ones, 0 for the
// rest.
func outcomes(succeeded, runs int) []float64 {
	out := make([]float64, runs)
	for i := 0; i < succeeded && i < runs; i++ {
		out[i] = 1
	}
	return out
}

// eligibleScenarios are the scenarios v2's efficiency uses: both modes
// have at least minSamples stable rows; sorted like v2's.
func eligibleScenarios(ad, ghx *modeAcc, minSamples int) []string {
	ids := map[string]struct{}{}
	for _, id := range ad.scenarioOrder {
		ids[id] = struct{}{}
	}
	for _, id := range ghx.scenarioOrder {
		ids[id] = struct{}{}
	}
	var out []string
	for _, id := range sortedSet(ids) {
		a, g := ad.scenarios[id], ghx.scenarios[id]
		if a == nil || g == nil || a.latency.len() < minSamples || g.latency.len() < minSamples {
			continue
		}
		out = append(out, id)
	}
	return out
}

// successCheck pairs the scenarios both modes ran. It fails only on a
// significant loss of ghx: no difference found is not proof of none, but
// v2's success-rate check still guards the rate itself.
func successCheck(ad, ghx *modeAcc, conf float64) SuccessCheck {
	c := SuccessCheck{Scope: stats.ScopeScenarios}
	for _, id := range ad.scenarioOrder {
		a, g := ad.scenarios[id], ghx.scenarios[id]
		if g == nil || a.runs == 0 || g.runs == 0 {
			continue
		}
		c.Scenarios++
		as, gs := 2*a.succeeded >= a.runs, 2*g.succeeded >= g.runs
		switch {
		case as && gs:
			c.BothSucceeded++
		case as:
			c.OnlyAgentDirect++
		case gs:
			c.OnlyGhx++
		default:
			c.BothFailed++
		}
	}
	c.PValue = stats.McNemarExact(c.OnlyAgentDirect, c.OnlyGhx)
	alpha := 1 - conf
	disc := c.OnlyAgentDirect + c.OnlyGhx
	switch {
	case c.PValue <= alpha && c.OnlyAgentDirect > c.OnlyGhx:
		c.Verdict = stats.Fail
		c.Reason = fmt.Sprintf("ghx failed %d scenarios agent_direct passed and passed %d it failed: a loss unlikely to be chance (exact test of the changed scenarios, p = %.4f)", c.OnlyAgentDirect, c.OnlyGhx, c.PValue)
	case disc < stats.MinPairs(conf):
		c.Verdict = stats.Pass
		c.Reason = fmt.Sprintf("%d scenarios differ in success (%d lost, %d gained); at least %d would be needed to show a loss, so v2's success-rate check is what guards it", disc, c.OnlyAgentDirect, c.OnlyGhx, stats.MinPairs(conf))
	default:
		c.Verdict = stats.Pass
		c.Reason = fmt.Sprintf("no loss beyond chance: %d scenarios lost, %d gained (exact test of the changed scenarios, p = %.4f)", c.OnlyAgentDirect, c.OnlyGhx, c.PValue)
	}
	return c
}

// overall combines the checks: any failure fails; otherwise an
// underpowered check makes the run underpowered, an inconclusive one
// inconclusive; both fail the gate unless undecided results are allowed.
func overall(r *StatsReport) (stats.Verdict, bool, string) {
	var failed, under, incon []string
	for _, c := range r.Reliability {
		if !c.Passed {
			failed = append(failed, c.Name)
		}
	}
	if r.Success.Verdict == stats.Fail {
		failed = append(failed, "success")
	}
	for _, e := range r.Efficiency {
		switch e.Verdict {
		case stats.Fail:
			failed = append(failed, e.Check)
		case stats.Underpowered:
			under = append(under, e.Check)
		case stats.Inconclusive:
			incon = append(incon, e.Check)
		}
	}
	undecided := func(v stats.Verdict, names []string) (stats.Verdict, bool, string) {
		if r.AllowUndecided {
			return v, true, fmt.Sprintf("%s: %s; allowed by --stats-allow-undecided", v, strings.Join(names, ", "))
		}
		hint := ""
		if r.undecidedHint != "" {
			hint = " (" + r.undecidedHint + ")"
		}
		return v, false, fmt.Sprintf("%s: %s; the data does not show the reductions the profile asks for%s", v, strings.Join(names, ", "), hint)
	}
	switch {
	case len(failed) > 0:
		return stats.Fail, false, "failed: " + strings.Join(failed, ", ")
	case len(under) > 0:
		return undecided(stats.Underpowered, append(under, incon...))
	case len(incon) > 0:
		return undecided(stats.Inconclusive, incon)
	}
	return stats.Pass, true, "every check passed"
}

// statsPaths resolves the stats outputs: the given paths, else
// latest-stats.{json,md} beside the summary JSON.
func statsPaths(opts StatsOptions, dir, summaryJSON string) (string, string) {
	base := filepath.Dir(summaryJSON)
	j, m := filepath.Join(base, "latest-stats.json"), filepath.Join(base, "latest-stats.md")
	if opts.JSON != "" {
		j = resolvePath(dir, opts.JSON)
	}
	if opts.MD != "" {
		m = resolvePath(dir, opts.MD)
	}
	return j, m
}

// statsFor is the hook Run calls: nil without --stats or without both
// agent_direct and ghx (the statistical gate then fails like v2's with
// "Insufficient data").
func statsFor(accs []*modeAcc, s *Summary, th Thresholds, opts StatsOptions, summaryJSON string) (*StatsReport, error) {
	var ad, ghx *modeAcc
	for _, a := range accs {
		switch a.mode {
		case suite.ModeAgentDirect:
			ad = a
		case suite.ModeGhx:
			ghx = a
		}
	}
	if ad == nil || ghx == nil {
		return &StatsReport{GeneratedAt: s.GeneratedAt, Profile: s.GateV2.Profile, Confidence: orConf(opts.Confidence), AllowUndecided: opts.AllowUndecided,
			Verdict: stats.Fail, Reason: "Insufficient data: the statistical gate needs both agent_direct and ghx rows",
			Reliability: []Check{}, Efficiency: []EfficiencyCheck{}, SummaryJSON: summaryJSON,
			Success: SuccessCheck{Verdict: stats.Fail, Reason: "no paired scenarios"}}, nil
	}
	return buildStats(ad, ghx, s, th, opts, summaryJSON)
}

func orConf(c float64) float64 {
	if c == 0 {
		return 0.95
	}
	return c
}

// writeStats writes latest-stats.{json,md} atomically when the run has
// a statistical gate, and prints their "Wrote" lines.
func writeStats(res *Result, opts Options, summaryJSON string, out io.Writer) error {
	if res.Stats == nil {
		return nil
	}
	jsonPath, mdPath := statsPaths(opts.Stats, opts.Dir, summaryJSON)
	data, err := res.Stats.MarshalIndent()
	if err != nil {
		return fmt.Errorf("encode stats: %w", err)
	}
	if err := fsutil.WriteFileAtomic(jsonPath, data, 0o644); err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(mdPath, []byte(StatsMarkdown(res.Stats)), 0o644); err != nil {
		return err
	}
	res.StatsJSON, res.StatsMD = jsonPath, mdPath
	fmt.Fprintf(out, "Wrote %s\n", jsonPath)
	fmt.Fprintf(out, "Wrote %s\n", mdPath)
	if opts.Stats.Plan {
		fmt.Fprintf(out, "Benchmark stats plan: %s\n", res.Stats.PlanHeading())
		for _, l := range res.Stats.PlanLines() {
			fmt.Fprintln(out, l)
		}
	}
	return nil
}

// statsGate prints the statistical gate after v2's lines and decides the
// gate: with --stats it replaces v2's verdict.
func statsGate(r *StatsReport, out io.Writer) error {
	fmt.Fprintf(out, "Benchmark stats result: %s (%s)\n", VerdictLabel(r.Verdict), r.Reason)
	for _, l := range r.StatsLines() {
		fmt.Fprintf(out, " - %s\n", l)
	}
	fmt.Fprintf(out, " - success       %s: %s\n", VerdictLabel(r.Success.Verdict), r.Success.Reason)
	if !r.Passed {
		return fmt.Errorf("%w for profile %s: statistical gate %s", ErrGateFailed, r.Profile, r.Verdict)
	}
	return nil
}

// ConfidenceExpected says which family-wise confidences the statistical
// gate takes; the command line and the Action's inputs both say it.
const ConfidenceExpected = "a number from 0.5 to 0.999"

// ConfidenceOK says whether c is a confidence the statistical gate takes:
// below 0.5 an interval means nothing, and at 0.999 and above no
// benchmark's few scenarios could ever decide a check.
func ConfidenceOK(c float64) bool { return c >= 0.5 && c <= 0.999 }

// CheckStatsOptions returns what is wrong with the statistical gate's
// options, nil when nothing: a confidence outside [0.5, 0.999], or an
// output path that is another output's. Each option is named by its key
// (stats_confidence, stats_json, stats_md, summary_json, summary_md) in an
// exitcode.OptionError; the command line names its flags.
func CheckStatsOptions(dir string, opts Options) error {
	st := opts.Stats
	if !st.Enabled {
		return nil
	}
	if !ConfidenceOK(st.Confidence) {
		return exitcode.Optionf("stats_confidence", ": expected %s, got %v", ConfidenceExpected, st.Confidence)
	}
	if st.BenchmarkScenarios < 0 {
		return exitcode.Optionf("stats_benchmark_scenarios", ": expected a number of scenarios of at least 0, got %d", st.BenchmarkScenarios)
	}
	if _, ok := stats.ParseScope(st.Scope); !ok {
		return exitcode.Optionf("stats_scope", ": expected %s or %s, got %q", stats.ScopeSuite, stats.ScopeScenarios, st.Scope)
	}
	summaryJSON := resolvePath(dir, orDefault(opts.SummaryJSON, "reports/latest-summary.json"))
	summaryMD := resolvePath(dir, orDefault(opts.SummaryMD, "reports/latest-summary.md"))
	j, m := statsPaths(st, dir, summaryJSON)
	paths := map[string]string{filepath.Clean(summaryJSON): "summary_json", filepath.Clean(summaryMD): "summary_md"}
	for _, p := range []struct{ key, path string }{{"stats_json", j}, {"stats_md", m}} {
		if other, ok := paths[filepath.Clean(p.path)]; ok {
			return exitcode.Optionf(p.key, " and %w are the same file (%s); give two different paths", exitcode.Optionf(other, ""), p.path)
		}
		paths[filepath.Clean(p.path)] = p.key
	}
	return nil
}

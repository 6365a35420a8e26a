package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/benchgate/benchgate/internal/suite"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// Summary is the Metric System v2 summary, with the keys and shape of the
// benchmark's latest-summary.json.
type Summary struct {
	GeneratedAt        string     `json:"generatedAt"`
	Modes              ModeMap    `json:"modes"`
	Profiling          ProfileMap `json:"profiling"`
	DeltaVsAgentDirect *Delta     `json:"deltaVsAgentDirect"`
	GateV2             GateV2     `json:"gateV2"`
}

// ModeSummary describes all rows of one mode.
type ModeSummary struct {
	Mode               string  `json:"mode"`
	ModelSignature     string  `json:"modelSignature"`
	Runs               int     `json:"runs"`
	SuccessRate        float64 `json:"successRate"`
	OutputValidityRate float64 `json:"outputValidityRate"`
	RunnerFailureRate  float64 `json:"runnerFailureRate"`
	TimeoutStallRate   float64 `json:"timeoutStallRate"`
	RetryRate          float64 `json:"retryRate"`
	MedianLatencyMs    float64 `json:"medianLatencyMs"`
	MedianTokensTotal  float64 `json:"medianTokensTotal"`
	MedianTokensActive float64 `json:"medianTokensActive"`
	MedianToolCalls    float64 `json:"medianToolCalls"`
}

// ProfilingSummary gives the medians of the timing breakdown of the rows
// that have one. The pre-reasoning phase is left out: it behaves like
// queueing noise, not like work the mode does.
type ProfilingSummary struct {
	Mode                                     string  `json:"-"`
	RunsWithProfiling                        int     `json:"runsWithProfiling"`
	MedianAssistantTotalMs                   float64 `json:"medianAssistantTotalMs"`
	MedianAssistantReasoningMs               float64 `json:"medianAssistantReasoningMs"`
	MedianAssistantBetweenReasoningAndToolMs float64 `json:"medianAssistantBetweenReasoningAndToolMs"`
	MedianToolTotalMs                        float64 `json:"medianToolTotalMs"`
	MedianToolBashMs                         float64 `json:"medianToolBashMs"`
	MedianAssistantPostToolMs                float64 `json:"medianAssistantPostToolMs"`
}

// Delta compares suite-level medians of ghx with agent_direct. It is
// informational; the gate uses scenario-stratified medians instead.
type Delta struct {
	TokensReductionPct       float64 `json:"tokensReductionPct"`
	TokensActiveReductionPct float64 `json:"tokensActiveReductionPct"`
	LatencyReductionPct      float64 `json:"latencyReductionPct"`
	ToolCallReductionPct     float64 `json:"toolCallReductionPct"`
	SuccessRateDeltaPct      float64 `json:"successRateDeltaPct"`
	OutputValidityRatePct    float64 `json:"outputValidityRatePct"`
}

// GateV2 is the dual reliability/efficiency gate.
type GateV2 struct {
	Profile     string       `json:"profile"`
	Passed      bool         `json:"passed"`
	Reliability *Reliability `json:"reliability"`
	Efficiency  *Efficiency  `json:"efficiency"`
	Checks      []Check      `json:"checks"`
}

// Reliability holds the raw-row rates the gate judges: the ghx mode's
// rates and the success-rate difference to agent_direct in points.
type Reliability struct {
	SuccessRateDeltaPct   float64 `json:"successRateDeltaPct"`
	OutputValidityRatePct float64 `json:"outputValidityRatePct"`
	RunnerFailureRatePct  float64 `json:"runnerFailureRatePct"`
	TimeoutStallRatePct   float64 `json:"timeoutStallRatePct"`
	RetryRatePct          float64 `json:"retryRatePct"`
}

// Efficiency holds the stable-sample, scenario-stratified reductions.
type Efficiency struct {
	MinSamplesPerScenarioPerMode   int     `json:"minSamplesPerScenarioPerMode"`
	EligibleScenarioCount          int     `json:"eligibleScenarioCount"`
	TotalScenarioCount             int     `json:"totalScenarioCount"`
	CoveragePct                    float64 `json:"coveragePct"`
	TokensComparableScenarioCount  int     `json:"tokensComparableScenarioCount"`
	TokensActiveReductionPct       float64 `json:"tokensActiveReductionPct"`
	LatencyReductionPct            float64 `json:"latencyReductionPct"`
	ToolCallReductionPct           float64 `json:"toolCallReductionPct"`
	ScenarioWinRateTokensActivePct float64 `json:"scenarioWinRateTokensActivePct"`
}

// Check is the result of one of the gate checks (see Checks).
type Check struct {
	Name      string  `json:"name"`
	Passed    bool    `json:"passed"`
	Value     float64 `json:"value"`
	Threshold float64 `json:"threshold"`
	Operator  string  `json:"operator"` // ">=" or "<="
}

// ModeMap keeps modes in the order they first appear in the rows, which is
// the key order of the summary JSON.
type ModeMap []ModeSummary

// Get returns the summary of mode, or nil.
func (m ModeMap) Get(mode string) *ModeSummary {
	for i := range m {
		if m[i].Mode == mode {
			return &m[i]
		}
	}
	return nil
}

// MarshalJSON writes the modes as an object keyed by mode name.
func (m ModeMap) MarshalJSON() ([]byte, error) {
	return orderedObject(len(m), func(i int) (string, any) { return m[i].Mode, m[i] })
}

// ProfileMap is ModeMap for profiling summaries.
type ProfileMap []ProfilingSummary

// Get returns the profiling summary of mode, or nil.
func (m ProfileMap) Get(mode string) *ProfilingSummary {
	for i := range m {
		if m[i].Mode == mode {
			return &m[i]
		}
	}
	return nil
}

// MarshalJSON writes the profiles as an object keyed by mode name.
func (m ProfileMap) MarshalJSON() ([]byte, error) {
	return orderedObject(len(m), func(i int) (string, any) { return m[i].Mode, m[i] })
}

func orderedObject(n int, item func(int) (string, any)) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		k, v := item(i)
		kb, err := marshalNoEscape(k)
		if err != nil {
			return nil, err
		}
		vb, err := marshalNoEscape(v)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// MarshalIndent renders the summary as the benchmark does: two-space
// indentation, '<' and '>' kept as they are, and a final newline.
func (s *Summary) MarshalIndent() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// timeoutWords marks a runner_error message as a timeout or stall.
var timeoutWords = regexp.MustCompile(`(?i)\b(timeout|timed out|stalled?|stall)\b`)

// isRunnerFailure counts runner_error and, unlike the benchmark's own
// report, the runner_timeout_* types: those runs failed in the runner
// just the same.
func isRunnerFailure(r *suite.Row) bool {
	t := r.ErrorType()
	return t == suite.ErrorRunner || strings.HasPrefix(t, suite.ErrorRunnerTimeoutPrefix)
}

// isTimeoutStall is a runner_timeout_* row or a runner_error whose message
// speaks of a timeout or stall.
func isTimeoutStall(r *suite.Row) bool {
	t := r.ErrorType()
	if strings.HasPrefix(t, suite.ErrorRunnerTimeoutPrefix) {
		return true
	}
	return t == suite.ErrorRunner && timeoutWords.MatchString(r.Error.Message)
}

// isStable says whether a row may enter the efficiency sample: only runs
// that succeeded with valid output and no runner failure say anything
// about how efficient a mode is.
func isStable(r *suite.Row) bool {
	return r.Success && r.OutputValid && !isRunnerFailure(r)
}

// modeAcc accumulates one mode: counters, the values of the suite-level
// medians, and per-scenario stable values. Nothing else of a row is kept.
type modeAcc struct {
	mode                                      string
	runs, success, valid, runnerFail, timeout int
	retried                                   int
	signatures                                map[string]struct{}
	models                                    map[string]struct{} // provider/model, for expectations
	scenarioSets, commits                     map[string]struct{}
	latency, tokensTotal, tokensActive, tools values
	profiled                                  int
	prof                                      [6]values
	scenarios                                 map[string]*scenarioAcc
	scenarioOrder                             []string
}

type scenarioAcc struct {
	latency, active, tools values
	// runs and succeeded count all rows, for the paired success test of
	// the statistical gate (stats.go).
	runs, succeeded int
}

func newModeAcc(mode string) *modeAcc {
	return &modeAcc{
		mode:         mode,
		signatures:   map[string]struct{}{},
		models:       map[string]struct{}{},
		scenarioSets: map[string]struct{}{},
		commits:      map[string]struct{}{},
		scenarios:    map[string]*scenarioAcc{},
	}
}

func (a *modeAcc) add(r *suite.Row) {
	a.runs++
	if r.Success {
		a.success++
	}
	if r.OutputValid {
		a.valid++
	}
	if isRunnerFailure(r) {
		a.runnerFail++
	}
	if isTimeoutStall(r) {
		a.timeout++
	}
	if r.ExternalRetryCount > 0 {
		a.retried++
	}
	addSignature(a.signatures, r.Model.ProviderID, r.Model.ModelID, suite.Nullable(r.Model.Mode))
	addKey(a.models, r.Model.ProviderID, r.Model.ModelID, "")
	addKey(a.scenarioSets, suite.Nullable(r.ScenarioSet), "", "")
	addKey(a.commits, suite.Nullable(r.Git.Commit), "", "")
	a.latency.add(r.LatencyMsWall)
	a.tokensTotal.add(r.Tokens.Total)
	a.tokensActive.add(r.ActiveTokens())
	a.tools.add(r.ToolCalls)
	if tb := r.TimingBreakdown; tb != nil {
		a.profiled++
		a.prof[0].add(tb.AssistantTotalMs)
		a.prof[1].add(tb.AssistantReasoningMs)
		a.prof[2].add(tb.AssistantBetweenReasoningAndToolMs)
		a.prof[3].add(tb.ToolTotalMs)
		a.prof[4].add(tb.ToolBashMs)
		a.prof[5].add(tb.AssistantPostToolMs)
	}
	sc := a.scenarios[r.ScenarioID]
	if sc == nil {
		sc = &scenarioAcc{}
		a.scenarios[r.ScenarioID] = sc
		a.scenarioOrder = append(a.scenarioOrder, r.ScenarioID)
	}
	sc.runs++
	if r.Success {
		sc.succeeded++
	}
	if isStable(r) {
		sc.latency.add(r.LatencyMsWall)
		sc.active.add(r.ActiveTokens())
		sc.tools.add(r.ToolCalls)
	}
}

// addKey adds "a/b/c" (or "a/b", or "a") to set without allocating when
// the key is already there.
// addSignature adds "provider/model/mode" with both separators always,
// as the benchmark's modelSignature does: an empty mode gives "p/m/",
// which must not compare equal to another row's "p/m".
func addSignature(set map[string]struct{}, provider, model, mode string) {
	k := provider + "/" + model + "/" + mode
	if _, ok := set[k]; !ok {
		set[k] = struct{}{}
	}
}

func addKey(set map[string]struct{}, a, b, c string) {
	var buf [256]byte
	k := append(buf[:0], a...)
	if b != "" || c != "" {
		k = append(k, '/')
		k = append(k, b...)
	}
	if c != "" {
		k = append(k, '/')
		k = append(k, c...)
	}
	if _, ok := set[string(k)]; !ok {
		set[string(k)] = struct{}{}
	}
}

// merge folds o (the same mode, read from a later file) into a.
func (a *modeAcc) merge(o *modeAcc) {
	a.runs += o.runs
	a.success += o.success
	a.valid += o.valid
	a.runnerFail += o.runnerFail
	a.timeout += o.timeout
	a.retried += o.retried
	for _, pair := range [][2]map[string]struct{}{{a.signatures, o.signatures}, {a.models, o.models}, {a.scenarioSets, o.scenarioSets}, {a.commits, o.commits}} {
		for k := range pair[1] {
			pair[0][k] = struct{}{}
		}
	}
	a.latency.merge(&o.latency)
	a.tokensTotal.merge(&o.tokensTotal)
	a.tokensActive.merge(&o.tokensActive)
	a.tools.merge(&o.tools)
	a.profiled += o.profiled
	for i := range a.prof {
		a.prof[i].merge(&o.prof[i])
	}
	for _, id := range o.scenarioOrder {
		sc := o.scenarios[id]
		mine := a.scenarios[id]
		if mine == nil {
			a.scenarios[id] = sc
			a.scenarioOrder = append(a.scenarioOrder, id)
			continue
		}
		mine.latency.merge(&sc.latency)
		mine.active.merge(&sc.active)
		mine.tools.merge(&sc.tools)
		mine.runs += sc.runs
		mine.succeeded += sc.succeeded
	}
}

func sortedSet(set map[string]struct{}) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	textfmt.SortUTF16(out)
	return out
}

func (a *modeAcc) summary() ModeSummary {
	return ModeSummary{
		Mode:               a.mode,
		ModelSignature:     strings.Join(sortedSet(a.signatures), ","),
		Runs:               a.runs,
		SuccessRate:        pct(float64(a.success), float64(a.runs)),
		OutputValidityRate: pct(float64(a.valid), float64(a.runs)),
		RunnerFailureRate:  pct(float64(a.runnerFail), float64(a.runs)),
		TimeoutStallRate:   pct(float64(a.timeout), float64(a.runs)),
		RetryRate:          pct(float64(a.retried), float64(a.runs)),
		MedianLatencyMs:    a.latency.median(),
		MedianTokensTotal:  a.tokensTotal.median(),
		MedianTokensActive: a.tokensActive.median(),
		MedianToolCalls:    a.tools.median(),
	}
}

func (a *modeAcc) profiling() ProfilingSummary {
	return ProfilingSummary{
		Mode:                                     a.mode,
		RunsWithProfiling:                        a.profiled,
		MedianAssistantTotalMs:                   a.prof[0].median(),
		MedianAssistantReasoningMs:               a.prof[1].median(),
		MedianAssistantBetweenReasoningAndToolMs: a.prof[2].median(),
		MedianToolTotalMs:                        a.prof[3].median(),
		MedianToolBashMs:                         a.prof[4].median(),
		MedianAssistantPostToolMs:                a.prof[5].median(),
	}
}

func pct(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b * 100
}

func reduction(base, target float64) float64 {
	if base <= 0 {
		return 0
	}
	return (base - target) / base * 100
}

// buildSummary computes the summary from the per-mode accumulators, given
// in the order the modes first appeared.
func buildSummary(accs []*modeAcc, th Thresholds, profile, generatedAt string) *Summary {
	s := &Summary{GeneratedAt: generatedAt, Modes: ModeMap{}, Profiling: ProfileMap{}}
	var ad, ghx *modeAcc
	for _, a := range accs {
		s.Modes = append(s.Modes, a.summary())
		if a.profiled > 0 {
			s.Profiling = append(s.Profiling, a.profiling())
		}
		switch a.mode {
		case suite.ModeAgentDirect:
			ad = a
		case suite.ModeGhx:
			ghx = a
		}
	}
	s.GateV2 = GateV2{Profile: profile, Checks: []Check{}}
	if ad == nil || ghx == nil {
		return s
	}
	adS, ghxS := s.Modes.Get(suite.ModeAgentDirect), s.Modes.Get(suite.ModeGhx)
	s.DeltaVsAgentDirect = &Delta{
		TokensReductionPct:       reduction(adS.MedianTokensTotal, ghxS.MedianTokensTotal),
		TokensActiveReductionPct: reduction(adS.MedianTokensActive, ghxS.MedianTokensActive),
		LatencyReductionPct:      reduction(adS.MedianLatencyMs, ghxS.MedianLatencyMs),
		ToolCallReductionPct:     reduction(adS.MedianToolCalls, ghxS.MedianToolCalls),
		SuccessRateDeltaPct:      ghxS.SuccessRate - adS.SuccessRate,
		OutputValidityRatePct:    ghxS.OutputValidityRate,
	}
	rel := &Reliability{
		SuccessRateDeltaPct:   ghxS.SuccessRate - adS.SuccessRate,
		OutputValidityRatePct: ghxS.OutputValidityRate,
		RunnerFailureRatePct:  ghxS.RunnerFailureRate,
		TimeoutStallRatePct:   ghxS.TimeoutStallRate,
		RetryRatePct:          ghxS.RetryRate,
	}
	eff := efficiency(ad, ghx, th.MinSamplesPerScenarioPerMode)
	s.GateV2.Reliability, s.GateV2.Efficiency = rel, eff
	s.GateV2.Checks = make([]Check, 0, len(Checks()))
	for _, c := range Checks() {
		s.GateV2.Checks = append(s.GateV2.Checks, c.judge(rel, eff, th))
	}
	s.GateV2.Passed = true
	for _, c := range s.GateV2.Checks {
		s.GateV2.Passed = s.GateV2.Passed && c.Passed
	}
	return s
}

// efficiency computes the scenario-stratified comparison: the median per
// scenario of each mode's stable rows, then the median of the per-scenario
// reductions, over the scenarios both modes sampled often enough. One
// noisy scenario cannot move a median of scenarios much, and the coverage
// check keeps a reduction computed from a few scenarios from passing.
func efficiency(ad, ghx *modeAcc, minSamples int) *Efficiency {
	ids := map[string]struct{}{}
	for _, id := range ad.scenarioOrder {
		ids[id] = struct{}{}
	}
	for _, id := range ghx.scenarioOrder {
		ids[id] = struct{}{}
	}
	var tokens, latency, tools values
	eligible, comparable, wins := 0, 0, 0
	for _, id := range sortedSet(ids) {
		a, g := ad.scenarios[id], ghx.scenarios[id]
		if a == nil || g == nil || a.latency.len() < minSamples || g.latency.len() < minSamples {
			continue
		}
		eligible++
		if base := a.active.median(); base > 0 {
			r := reduction(base, g.active.median())
			tokens.add(r)
			comparable++
			if r > 0 {
				wins++
			}
		}
		if base := a.latency.median(); base > 0 {
			latency.add(reduction(base, g.latency.median()))
		}
		if base := a.tools.median(); base > 0 {
			tools.add(reduction(base, g.tools.median()))
		}
	}
	return &Efficiency{
		MinSamplesPerScenarioPerMode:   minSamples,
		EligibleScenarioCount:          eligible,
		TotalScenarioCount:             len(ids),
		CoveragePct:                    pct(float64(eligible), float64(len(ids))),
		TokensComparableScenarioCount:  comparable,
		TokensActiveReductionPct:       tokens.median(),
		LatencyReductionPct:            latency.median(),
		ToolCallReductionPct:           tools.median(),
		ScenarioWinRateTokensActivePct: pct(float64(wins), float64(comparable)),
	}
}

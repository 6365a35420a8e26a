// Package runrecord reduces one benchmark run to what later runs compare
// against: per mode and scenario, how many rows ran, how many passed the
// blocking rules, and the medians of the efficiency sample. A baseline
// comparison and a flakiness history both need exactly this and nothing
// more, so an earlier run can be kept as a small JSON file (run-record.json)
// instead of its suite files, and read back from either.
package runrecord

import (
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/suite"
)

// Schema names the format of a run-record.json file.
const Schema = "benchgate.run-record/v1"

// FileName is the name report gives the record it writes beside the
// summaries, and the name a folder reader looks for.
const FileName = "run-record.json"

// Record is one run: one entry per benchmark mode.
type Record struct {
	Schema string `json:"schema"`
	Modes  []Mode `json:"modes"`
}

// Mode is one run of one mode: the rows of one suite file (or of one
// record) for that mode.
type Mode struct {
	Mode string `json:"mode"`
	// Source is where the rows were read from, for messages.
	Source string `json:"source"`
	// RunIDs are the distinct run_id values of the rows, sorted, the
	// first MaxRunIDs of them; RunIDCount counts them all (up to
	// maxRunIDsTracked). Two sources with the same mode, run IDs and
	// StartedAt are the same run (a record and the suite file it was made
	// from, or one artifact downloaded twice) and count once.
	RunIDs     []string `json:"run_ids"`
	RunIDCount int      `json:"run_id_count"`
	// StartedAt is the earliest row timestamp; runs are ordered by it.
	StartedAt string `json:"started_at"`
	// ModelSignatures are the distinct provider/model/mode values.
	ModelSignatures []string `json:"model_signatures"`
	// GitCommits are the distinct non-null git commits.
	GitCommits []string   `json:"git_commits,omitempty"`
	Scenarios  []Scenario `json:"scenarios"`
	// Totals are the whole run's figures a trend over runs shows; nil in
	// records written before they were kept.
	Totals *Totals `json:"totals,omitempty"`
}

// Totals are one run of one mode in three numbers, as the summary
// computes them: the share of rows with success true, and the medians
// of active tokens and wall latency over the stable rows.
type Totals struct {
	Rows               int      `json:"rows"`
	Succeeded          int      `json:"succeeded"`
	MedianActiveTokens *float64 `json:"median_active_tokens"`
	MedianLatencyMs    *float64 `json:"median_latency_ms"`
}

// SuccessRatePct is the share of rows with success true, in percent;
// nil without rows.
func (t *Totals) SuccessRatePct() *float64 {
	if t == nil || t.Rows == 0 {
		return nil
	}
	v := 100 * float64(t.Succeeded) / float64(t.Rows)
	return &v
}

// RunTotals are the mode's totals, or for a record without them the
// nearest the scenarios give: the share of rows that passed and the
// medians of the scenarios' medians.
func (m *Mode) RunTotals() *Totals {
	if m.Totals != nil {
		return m.Totals
	}
	t := &Totals{}
	var active, latency []float64
	for _, s := range m.Scenarios {
		t.Rows += s.Rows
		t.Succeeded += s.Passed
		if s.MedianActiveTokens != nil {
			active = append(active, *s.MedianActiveTokens)
		}
		if s.MedianLatencyMs != nil {
			latency = append(latency, *s.MedianLatencyMs)
		}
	}
	t.MedianActiveTokens, t.MedianLatencyMs = Median(active), Median(latency)
	return t
}

// Scenario is what one run says about one scenario.
type Scenario struct {
	ID string `json:"id"`
	// Rows is every row of the scenario, the malformed ones included.
	Rows int `json:"rows"`
	// Passed counts rows that break no blocking rule (success true,
	// output_valid true, error null): what set judges.
	Passed int `json:"passed"`
	// Stable counts the rows of the efficiency sample (success, valid
	// output, no runner failure), the rows the medians are taken over,
	// as report's gate takes them.
	Stable int `json:"stable"`
	// The medians of the stable rows; null when there are none.
	MedianActiveTokens *float64 `json:"median_active_tokens"`
	MedianLatencyMs    *float64 `json:"median_latency_ms"`
	MedianToolCalls    *float64 `json:"median_tool_calls"`
	// The stable rows' values themselves, one per row (sorted), so that
	// a later comparison can judge the run-to-run noise as the
	// statistical gate does; absent in records written without them,
	// which are then compared by their medians.
	ActiveTokens []float64 `json:"active_tokens,omitempty"`
	LatencyMs    []float64 `json:"latency_ms,omitempty"`
	ToolCalls    []float64 `json:"tool_calls,omitempty"`
}

// MaxRecordValues is the most stable rows per mode whose values a
// record keeps (three numbers each); a larger run keeps only its
// medians, so that a record stays far below MaxRecordBytes.
const MaxRecordValues = 100000

// HasValues says whether the record keeps this scenario's stable rows'
// values (one per stable row in each metric), not only their medians.
func (s Scenario) HasValues() bool {
	return s.Stable > 0 && len(s.ActiveTokens) == s.Stable && len(s.LatencyMs) == s.Stable && len(s.ToolCalls) == s.Stable
}

// Pass reports whether every row of the scenario passed: set's verdict
// on the scenario in this run.
func (s Scenario) Pass() bool { return s.Rows > 0 && s.Passed == s.Rows }

// Scenario returns the scenario with id, or nil.
func (m *Mode) Scenario(id string) *Scenario {
	i, ok := slices.BinarySearchFunc(m.Scenarios, id, func(s Scenario, id string) int { return strings.Compare(s.ID, id) })
	if !ok {
		return nil
	}
	return &m.Scenarios[i]
}

// Key identifies the run of this mode: the mode, its run IDs and its
// first timestamp (a benchmark that derives run IDs from the scenario
// gives every run the same IDs; their timestamps still differ), or the
// source when the rows carry neither.
func (m *Mode) Key() string {
	if len(m.RunIDs) == 0 && m.StartedAt == "" {
		return m.Mode + "\x00source\x00" + m.Source
	}
	return m.Mode + "\x00" + m.StartedAt + "\x00" + strconv.Itoa(m.RunIDCount) + "\x00" + strings.Join(m.RunIDs, "\x00")
}

// MaxRunIDs is how many run IDs a record lists: a benchmark writes one
// per run, but a suite whose every row has its own must not make the
// record as large as the suite.
const MaxRunIDs = 20

// maxRunIDsTracked bounds the distinct run IDs counted while reading.
const maxRunIDsTracked = 10000

// Mode returns the entry of mode, or nil.
func (r *Record) Mode(mode string) *Mode {
	for i := range r.Modes {
		if r.Modes[i].Mode == mode {
			return &r.Modes[i]
		}
	}
	return nil
}

// Builder accumulates rows into a Record. Only counters and the values
// the medians need are kept.
type Builder struct {
	source string
	modes  map[string]*modeAcc
	order  []string
}

type modeAcc struct {
	runIDs, sigs, commits map[string]struct{}
	files                 []string
	// lastModel is the model of the previous row: rows of a run share
	// it, so its signature is built once, not per row.
	lastModel suite.Model
	hasModel  bool
	startedAt string
	scenarios map[string]*scenarioAcc
	// succeeded counts rows with success true.
	succeeded int
}

type scenarioAcc struct {
	rows, passed          int
	active, latency, tool []float64
}

// NewBuilder starts a record whose modes name source as their origin
// when their rows carry no file.
func NewBuilder(source string) *Builder {
	return &Builder{source: source, modes: map[string]*modeAcc{}}
}

func (b *Builder) mode(mode string) *modeAcc {
	m := b.modes[mode]
	if m == nil {
		m = &modeAcc{runIDs: map[string]struct{}{}, sigs: map[string]struct{}{}, commits: map[string]struct{}{}, scenarios: map[string]*scenarioAcc{}}
		b.modes[mode] = m
		b.order = append(b.order, mode)
	}
	return m
}

func sameModel(a, b suite.Model) bool {
	return a.ProviderID == b.ProviderID && a.ModelID == b.ModelID && (a.Mode == nil) == (b.Mode == nil) && (a.Mode == nil || *a.Mode == *b.Mode)
}

// merge adds what o accumulated (another file of the same run).
func (b *Builder) merge(o *Builder) {
	for _, name := range o.order {
		om := o.modes[name]
		m := b.mode(name)
		for _, f := range om.files {
			m.sawFile(f)
		}
		for k := range om.runIDs {
			if len(m.runIDs) < maxRunIDsTracked {
				m.runIDs[k] = struct{}{}
			}
		}
		for k := range om.sigs {
			m.sigs[k] = struct{}{}
		}
		for k := range om.commits {
			m.commits[k] = struct{}{}
		}
		m.succeeded += om.succeeded
		if om.startedAt != "" && (m.startedAt == "" || om.startedAt < m.startedAt) {
			m.startedAt = om.startedAt
		}
		for id, osc := range om.scenarios {
			s := m.scenario(id)
			s.rows += osc.rows
			s.passed += osc.passed
			s.active = append(s.active, osc.active...)
			s.latency = append(s.latency, osc.latency...)
			s.tool = append(s.tool, osc.tool...)
		}
	}
}

// sawFile notes a file the mode's rows came from (rows of one file
// arrive together, so comparing with the last is enough).
func (m *modeAcc) sawFile(f string) {
	if f != "" && (len(m.files) == 0 || m.files[len(m.files)-1] != f) && !slices.Contains(m.files, f) {
		m.files = append(m.files, f)
	}
}

func (m *modeAcc) scenario(id string) *scenarioAcc {
	s := m.scenarios[id]
	if s == nil {
		s = &scenarioAcc{}
		m.scenarios[id] = s
	}
	return s
}

// AddChecked adds one line judged leniently: a line that is not a valid
// row still counts as a failing row of the scenario it names, as set
// counts it; a line that names no mode or scenario, or names them in a
// form no record holds (an ID with a line break or a workflow command,
// from a downloaded artifact; RecordID), is left out.
func (b *Builder) AddChecked(c suite.Checked) {
	if c.Row != nil {
		b.AddRow(c.Row)
		return
	}
	if !suite.IsMode(c.Mode) || !RecordID(c.ScenarioID) {
		return
	}
	m := b.mode(c.Mode)
	m.sawFile(c.File)
	m.scenario(c.ScenarioID).rows++
}

// AddRow adds one valid row. A row with no mode or no scenario ID
// cannot be paired with anything and is left out.
func (b *Builder) AddRow(r *suite.Row) {
	if r.Mode == "" || r.ScenarioID == "" {
		return
	}
	m := b.mode(r.Mode)
	m.sawFile(r.File)
	if r.RunID != "" && len(m.runIDs) < maxRunIDsTracked {
		m.runIDs[r.RunID] = struct{}{}
	}
	if !m.hasModel || !sameModel(m.lastModel, r.Model) {
		m.sigs[r.Model.Signature()] = struct{}{}
		m.lastModel, m.hasModel = r.Model, true
	}
	if r.Git.Commit != nil && *r.Git.Commit != "" {
		m.commits[*r.Git.Commit] = struct{}{}
	}
	if r.Timestamp != "" && (m.startedAt == "" || r.Timestamp < m.startedAt) {
		m.startedAt = r.Timestamp
	}
	s := m.scenario(r.ScenarioID)
	s.rows++
	if r.Success {
		m.succeeded++
	}
	if len(r.Violations()) == 0 {
		s.passed++
	}
	if Stable(r) {
		s.active = append(s.active, r.ActiveTokens())
		s.latency = append(s.latency, r.LatencyMsWall)
		s.tool = append(s.tool, r.ToolCalls)
	}
}

// Stable says whether a row enters the efficiency sample: it succeeded,
// its output is valid and the runner did not fail (runner_error and
// runner_timeout_* rows are runner failures). This is report's rule.
func Stable(r *suite.Row) bool {
	if !r.Success || !r.OutputValid {
		return false
	}
	t := r.ErrorType()
	return t != suite.ErrorRunner && !strings.HasPrefix(t, suite.ErrorRunnerTimeoutPrefix)
}

// Record returns the accumulated record, modes in first-appearance order
// and scenarios sorted by ID.
func (b *Builder) Record() *Record {
	rec := &Record{Schema: Schema, Modes: []Mode{}}
	for _, name := range b.order {
		m := b.modes[name]
		src := b.source
		if len(m.files) > 0 {
			src = strings.Join(m.files, ", ")
		}
		runIDs := sortedList(m.runIDs)
		out := Mode{Mode: name, Source: src, RunIDs: runIDs[:min(len(runIDs), MaxRunIDs)], RunIDCount: len(runIDs), StartedAt: m.startedAt,
			ModelSignatures: sortedList(m.sigs), GitCommits: sortedList(m.commits), Scenarios: []Scenario{}}
		ids := slices.Sorted(maps.Keys(m.scenarios))
		tot := &Totals{Succeeded: m.succeeded}
		var active, latency []float64
		for _, id := range ids {
			s := m.scenarios[id]
			tot.Rows += s.rows
			active = append(active, s.active...)
			latency = append(latency, s.latency...)
			out.Scenarios = append(out.Scenarios, Scenario{ID: id, Rows: s.rows, Passed: s.passed, Stable: len(s.active),
				MedianActiveTokens: Median(s.active), MedianLatencyMs: Median(s.latency), MedianToolCalls: Median(s.tool),
				ActiveTokens: s.active, LatencyMs: s.latency, ToolCalls: s.tool})
		}
		tot.MedianActiveTokens, tot.MedianLatencyMs = Median(active), Median(latency)
		if len(active) > MaxRecordValues {
			// Too many to keep small: medians only (a comparison then
			// judges the scenarios' medians).
			for i := range out.Scenarios {
				sc := &out.Scenarios[i]
				sc.ActiveTokens, sc.LatencyMs, sc.ToolCalls = nil, nil, nil
			}
		}
		out.Totals = tot
		rec.Modes = append(rec.Modes, out)
	}
	return rec
}

// Median is the middle value (the mean of the two middle values for an
// even count), or nil for no values. It sorts v.
func Median(v []float64) *float64 {
	if len(v) == 0 {
		return nil
	}
	sort.Float64s(v)
	n := len(v)
	m := v[n/2]
	if n%2 == 0 {
		m = (v[n/2-1] + v[n/2]) / 2
	}
	m += 0 // no -0 in JSON
	return &m
}

// sortedList lists a set's members in order and never returns nil, so that
// an empty set is written as [] in the record, not null.
func sortedList(m map[string]struct{}) []string {
	return append([]string{}, slices.Sorted(maps.Keys(m))...)
}

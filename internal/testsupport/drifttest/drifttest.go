// Package drifttest makes histories of benchmark runs at the noise of the
// benchmark's real suites, for the tests and the calibration of drift:
// each run is, per mode, every real scenario repeated as often as the
// real suite repeats it, each row drawn log-normally around the real
// scenario's values with the real scenario's spread (active tokens,
// wall latency, tool calls rounded to whole calls), succeeding with
// probability SuccessRate. Changes multiply a metric of a mode's rows
// over a range of runs.
package drifttest

import (
	"bufio"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/runrecord"
	"github.com/benchgate/benchgate/internal/suite"
)

// SuccessRate is the chance that a simulated row succeeds. The real
// suites passed every row; a history where every run passes every row
// has no success-rate series to test, so the simulation fails one row in
// twenty.
const SuccessRate = 0.95

// Metrics a Change can scale.
const (
	ActiveTokens = "active_tokens"
	Latency      = "latency_ms"
	ToolCalls    = "tool_calls"
)

// Noise is what the real suites say about each mode and scenario.
type Noise struct {
	Modes []Mode
}

// Mode is one mode's scenarios.
type Mode struct {
	Name      string
	Scenarios []Scenario
}

// Scenario is a real scenario's rows: templates to copy, and the mean and
// standard deviation of the logs of each metric over its repetitions.
type Scenario struct {
	ID        string
	Templates []map[string]any
	Mean, SD  [3]float64 // active tokens, latency, tool calls
}

// Real reads the noise of the suite files at paths.
func Real(paths ...string) (*Noise, error) {
	n := &Noise{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		byID := map[string]*Scenario{}
		var order []string
		var mode string
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var raw map[string]any
			if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			mode = raw["mode"].(string)
			id := raw["scenario_id"].(string)
			s := byID[id]
			if s == nil {
				s = &Scenario{ID: id}
				byID[id] = s
				order = append(order, id)
			}
			s.Templates = append(s.Templates, raw)
		}
		f.Close()
		m := Mode{Name: mode}
		for _, id := range order {
			s := byID[id]
			var logs [3][]float64
			for _, t := range s.Templates {
				tok := t["tokens"].(map[string]any)
				logs[0] = append(logs[0], math.Log(math.Max(1, tok["total"].(float64)-tok["cache_read"].(float64))))
				logs[1] = append(logs[1], math.Log(math.Max(1, t["latency_ms_wall"].(float64))))
				logs[2] = append(logs[2], math.Log(math.Max(1, t["tool_calls"].(float64))))
			}
			for k := range logs {
				s.Mean[k], s.SD[k] = meanSD(logs[k])
			}
			m.Scenarios = append(m.Scenarios, *s)
		}
		n.Modes = append(n.Modes, m)
	}
	sort.Slice(n.Modes, func(i, j int) bool { return n.Modes[i].Name < n.Modes[j].Name })
	return n, nil
}

func meanSD(v []float64) (float64, float64) {
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return m, math.Sqrt(s / float64(len(v)-1))
}

// Change multiplies Metric of Mode's rows ("" for every mode) in runs
// From to To-1 (To 0: to the end) by Factor.
type Change struct {
	Metric   string
	Mode     string
	From, To int
	Factor   float64
}

// Commit is the commit simulated run i ran: 40 hex digits, differing
// from the first.
func Commit(i int) string { return fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprint("run ", i)))) }

// Start is when simulated run i started: one a day.
func Start(i int) time.Time {
	return time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC).Add(time.Duration(i) * 24 * time.Hour)
}

// draw is one simulated row: its mode and scenario, the template it
// copies and its values.
type draw struct {
	mode     string
	scenario *Scenario
	rep      int
	active   float64
	latency  float64
	tools    float64
	success  bool
}

// draws are the rows of run i of the history with seed.
func (n *Noise) draws(seed uint64, i int, changes []Change) []draw {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	var out []draw
	for _, m := range n.Modes {
		factor := [3]float64{1, 1, 1}
		for _, c := range changes {
			if (c.Mode == "" || c.Mode == m.Name) && i >= c.From && (c.To == 0 || i < c.To) {
				factor[map[string]int{ActiveTokens: 0, Latency: 1, ToolCalls: 2}[c.Metric]] *= c.Factor
			}
		}
		for si := range m.Scenarios {
			s := &m.Scenarios[si]
			for k := range s.Templates {
				var v [3]float64
				for j := range v {
					v[j] = math.Exp(s.Mean[j]+s.SD[j]*rng.NormFloat64()) * factor[j]
				}
				out = append(out, draw{mode: m.Name, scenario: s, rep: k, active: math.Round(v[0]), latency: math.Round(v[1]),
					tools: math.Round(v[2]), success: rng.Float64() < SuccessRate})
			}
		}
	}
	return out
}

func runID(seed uint64, i int) string { return fmt.Sprintf("sim-%d-%03d", seed, i) }

func stamp(i, k int) string {
	return Start(i).Add(time.Duration(k) * time.Second).Format("2006-01-02T15:04:05.000Z")
}

// SuiteFiles draws run i of a history with seed as the suite files a
// benchmark run keeps: "<mode>-suite.jsonl" to its JSON lines.
func (n *Noise) SuiteFiles(seed uint64, i int, changes ...Change) (map[string]string, error) {
	files := map[string]string{}
	for mode, rows := range n.Rows(seed, i, changes...) {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return nil, err
			}
		}
		files[mode+"-suite.jsonl"] = b.String()
	}
	return files, nil
}

// Rows draws the rows of run i of a history with seed, as JSON objects
// (copies of real rows with new values), by mode.
func (n *Noise) Rows(seed uint64, i int, changes ...Change) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	for _, d := range n.draws(seed, i, changes) {
		row := clone(d.scenario.Templates[d.rep])
		tok := row["tokens"].(map[string]any)
		cache := tok["cache_read"].(float64)
		tok["input"], tok["output"], tok["reasoning"], tok["cache_write"] = d.active, 0.0, 0.0, 0.0
		tok["total"] = d.active + cache
		row["latency_ms_wall"] = d.latency
		row["tool_calls"] = d.tools
		row["success"] = d.success
		row["run_id"] = runID(seed, i)
		row["timestamp"] = stamp(i, d.rep)
		row["git"] = map[string]any{"repo": nil, "commit": Commit(i)}
		out[d.mode] = append(out[d.mode], row)
	}
	return out
}

// Run draws run i as run records' modes, as drift reads them (the same
// values Rows draws).
func (n *Noise) Run(seed uint64, i int, changes ...Change) []runrecord.Mode {
	src := fmt.Sprintf("run-%03d/%s", i, runrecord.FileName)
	b := runrecord.NewBuilder(src)
	commit := Commit(i)
	for _, d := range n.draws(seed, i, changes) {
		b.AddRow(&suite.Row{Mode: d.mode, ScenarioID: d.scenario.ID, RunID: runID(seed, i), Timestamp: stamp(i, d.rep), Iteration: d.rep + 1,
			Success: d.success, OutputValid: true, LatencyMsWall: d.latency, ToolCalls: d.tools,
			Tokens: suite.Tokens{Input: d.active, Total: d.active}, Git: suite.Git{Commit: &commit}})
	}
	out := b.Record().Modes
	for k := range out {
		out[k].Source = src
	}
	return out
}

// WriteHistory writes runs 0 to runs-1 of a history under dir, one
// folder per run (run-000/), each with one suite file per mode as the
// benchmark names them.
func (n *Noise) WriteHistory(dir string, seed uint64, runs int, changes ...Change) error {
	for i := 0; i < runs; i++ {
		d := filepath.Join(dir, fmt.Sprintf("run-%03d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		stamp := Start(i).Format("2006-01-02T15-04-05")
		for mode, rows := range n.Rows(seed, i, changes...) {
			f, err := os.Create(filepath.Join(d, stamp+"-"+mode+"-suite.jsonl"))
			if err != nil {
				return err
			}
			enc := json.NewEncoder(f)
			for _, r := range rows {
				if err := enc.Encode(r); err != nil {
					f.Close()
					return err
				}
			}
			if err := f.Close(); err != nil {
				return err
			}
		}
	}
	return nil
}

func clone(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

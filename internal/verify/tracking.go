// Package verify implements benchgate's set and ordered modes: it runs a
// scenario set through the benchmark in paired modes, judges every row,
// reruns only the failing scenarios (at most twice), regenerates the
// summaries from the merged rows and always leaves a tracking.json that
// says what happened, including when it was stopped.
package verify

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/benchgate/benchgate/internal/fsutil"
)

// Final statuses of a set, as the seed allows them.
const (
	StatusPass         = "pass"
	StatusFail         = "fail"          // stopped before reruns were exhausted: cancelled or an infrastructure error
	StatusTerminalFail = "terminal_fail" // failures remain after the last rerun, or zero rows
)

// Tracking is tracking.json: the seed's example fields plus the run
// identity, the gate verdict and the located failures.
type Tracking struct {
	Set             string `json:"set"`
	Provider        string `json:"provider"`
	Model           string `json:"model"`
	Repetitions     int    `json:"repetitions"`
	RunID           string `json:"run_id"`
	SeedPolicy      string `json:"seed_policy"`
	SeedID          string `json:"seed_id,omitempty"`
	FixtureManifest string `json:"fixture_manifest,omitempty"`
	// FixtureManifestSHA256 and FixtureRepo identify the manifest the
	// runs bound from (its bytes and the repository it names), as it was
	// when the set started; the set fails if it changes before the
	// verdict.
	FixtureManifestSHA256 string         `json:"fixture_manifest_sha256,omitempty"`
	FixtureRepo           string         `json:"fixture_repo,omitempty"`
	ResolvedScenarios     []string       `json:"resolved_scenarios"`
	RowsExpected          map[string]int `json:"rows_expected"`
	RowsActual            map[string]int `json:"rows_actual"`
	Checks                Checks         `json:"checks"`
	FailingScenarios      []string       `json:"failing_scenarios"`
	Failures              []Problem      `json:"failures"`
	Reruns                []Rerun        `json:"reruns"`
	// Attempts lists every paired run with its raw suite files, which
	// are kept as the benchmark wrote them.
	Attempts []AttemptRecord `json:"attempts"`
	Commands []CommandRecord `json:"commands"`
	Gate     *GateRecord     `json:"gate"`
	// FlakyScenarios are the scenarios that both passed and failed in
	// the recent runs given with --history (set's own included).
	FlakyScenarios []FlakyScenario `json:"flaky_scenarios,omitempty"`
	// FinalStatus is absent until the set ends.
	FinalStatus string `json:"final_status,omitempty"`
	// State is "running" while the set runs and "done" once it ended; a
	// reader that finds "running" knows the process died without a word.
	State      string `json:"state"`
	Error      string `json:"error,omitempty"`
	StartedAt  string `json:"started_at"`
	FinishedAt string `json:"finished_at,omitempty"`
}

// Checks tallies the three row rules over both modes, in the seed's
// order.
type Checks struct {
	Success     Counts `json:"success"`
	OutputValid Counts `json:"output_valid"`
	ErrorNull   Counts `json:"error_null"`
}

func (c *Checks) add(o Checks) {
	c.Success.add(o.Success)
	c.OutputValid.add(o.OutputValid)
	c.ErrorNull.add(o.ErrorNull)
}

func (c *Counts) add(o Counts) {
	c.Pass += o.Pass
	c.Fail += o.Fail
}

func (c *Counts) tally(ok bool) {
	if ok {
		c.Pass++
	} else {
		c.Fail++
	}
}

// Counts is one row rule's pass/fail tally over both modes.
type Counts struct {
	Pass int `json:"pass"`
	Fail int `json:"fail"`
}

// Rerun is one scenario-level rerun attempt.
type Rerun struct {
	Attempt     int      `json:"attempt"`
	ScenarioIDs []string `json:"scenario_ids"`
	Result      string   `json:"result"`
}

// CommandRecord is one child command benchgate ran for the set.
type CommandRecord struct {
	Step     string   `json:"step"`
	Argv     []string `json:"argv"`
	ExitCode int      `json:"exit_code"`
	// Signal names the signal that ended the command, if one did.
	Signal   string `json:"signal,omitempty"`
	TimedOut bool   `json:"timed_out,omitempty"`
	// Timeout is the command's time limit ("10m0s"), if it had one.
	Timeout   string `json:"timeout,omitempty"`
	Cancelled bool   `json:"cancelled,omitempty"`
	// StopCause says why a cancelled command was stopped ("benchgate
	// received SIGTERM").
	StopCause  string `json:"stop_cause,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	Log        string `json:"log"`
	Error      string `json:"error,omitempty"`
}

// GateRecord is the report's gate verdict. It is recorded, never used to
// decide the set's status: row-level validation is authoritative.
type GateRecord struct {
	Profile     string `json:"profile"`
	Ran         bool   `json:"ran"`
	Passed      bool   `json:"passed"`
	SummaryJSON string `json:"summary_json,omitempty"`
	SummaryMD   string `json:"summary_md,omitempty"`
	Error       string `json:"error,omitempty"`
	// Stats is the statistical gate (set --stats), recorded like the
	// gate.
	Stats *StatsRecord `json:"stats,omitempty"`
}

// StatsRecord is the statistical gate of the set's report: its verdict
// (pass, fail, inconclusive, underpowered), one line per efficiency
// check (estimate, interval, n, verdict, a text bar) and its files.
type StatsRecord struct {
	Verdict string   `json:"verdict"`
	Passed  bool     `json:"passed"`
	Reason  string   `json:"reason"`
	Lines   []string `json:"lines"`
	JSON    string   `json:"stats_json"`
	MD      string   `json:"stats_md"`
}

func (t *Tracking) write(path string) error { return fsutil.WriteJSONAtomic(path, t) }

// ReadTracking reads a tracking.json back through the type that wrote
// it; errors name the file.
func ReadTracking(path string) (*Tracking, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t Tracking
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &t, nil
}

package verify

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/bench"
)

// Lookback compares a set's merged suite files with earlier runs and
// returns the flaky scenarios; outDir is the set folder, where it may
// write its own files (the stats files).
type Lookback func(ctx context.Context, suitePaths []string, outDir string) ([]FlakyScenario, error)

// FlakyScenario is a scenario that both passed and failed in the earlier
// runs of a mode (this set's run left out: a scenario that passed every
// earlier run and fails now is a new failure, not flaky).
type FlakyScenario struct {
	Mode       string `json:"mode"`
	ScenarioID string `json:"scenario_id"`
	// RunsSeen and RunsPassed count the earlier runs.
	RunsSeen   int `json:"runs_seen"`
	RunsPassed int `json:"runs_passed"`
	// FailingNow says it fails in this set's final rows: still a failure.
	FailingNow bool `json:"failing_now"`
	// Label is what a reader sees: "flaky: passed 4 of 6 earlier runs".
	Label string `json:"label"`
}

// lookback runs the caller's Lookback over the merged suite files and
// records what it found. Its failure is logged, never fatal: the set's
// verdict does not depend on it.
func (s *set) lookback(ctx context.Context, zero bool) {
	if s.opts.Lookback == nil || zero {
		return
	}
	var paths []string
	for _, m := range bench.Modes {
		paths = append(paths, filepath.Join(s.opts.OutDir, m+"-suite.jsonl"))
	}
	flaky, err := s.opts.Lookback(ctx, paths, s.opts.OutDir)
	if err != nil {
		fmt.Fprintf(s.log, "set %s: history: %v\n", s.opts.Set, err)
		return
	}
	s.t.FlakyScenarios = flaky
	for _, f := range flaky {
		now := ""
		if f.FailingNow {
			now = " (failing now: still a failure)"
		}
		fmt.Fprintf(s.log, "set %s: %s %s: %s%s\n", s.opts.Set, f.Mode, f.ScenarioID, f.Label, now)
	}
}

package verify

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/benchgate/benchgate/internal/bench"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// attempt is one paired benchmark run: attempt 0 runs the set (or the
// requested scenarios), attempt n >= 1 reruns the scenarios that failed in
// attempt n-1. Its suite files are the evidence: they are read as the
// benchmark wrote them, never rewritten by benchgate (only put back as
// judged when something else changed them, evidence.go), and every
// diagnostic points into them.
type attempt struct {
	n int
	// ids are the scenarios the attempt asked for, normalised.
	ids   []string
	asked map[string]bool
	// dir is the attempt's folder, which the benchmark writes into.
	dir string
	// files and rows are per mode: the raw suite file and every line
	// read from it, in file order.
	files map[string]string
	// copies are, per mode, benchgate's private copies of the judged
	// bytes (absent where none could be made).
	copies map[string]string
	rows   map[string][]Row
	// failing is failing_scenarios as judged when the attempt ended.
	failing []string
	// evidence identifies, per mode, the bytes the rows were read from.
	evidence map[string]Evidence
	// ended are the processes left running after the attempt's commands
	// exited, ended before its rows were read.
	ended []string
}

// AttemptRecord is tracking.json's account of one attempt: what it asked
// for, where its raw suite files are and how many lines each held.
type AttemptRecord struct {
	Attempt     int               `json:"attempt"`
	ScenarioIDs []string          `json:"scenario_ids"`
	SuiteFiles  map[string]string `json:"suite_files"`
	Rows        map[string]int    `json:"rows"`
	// FailingScenarios is the set's failing_scenarios as judged right
	// after this attempt: what the next rerun was drawn from.
	FailingScenarios []string `json:"failing_scenarios"`
	// Evidence gives, per mode, the size and SHA-256 of the suite file's
	// bytes the rows were judged from (the file and its folder are then
	// made read-only, and the bytes are hashed again before the verdict):
	// anyone can check that the file still holds what was judged.
	Evidence map[string]Evidence `json:"evidence,omitempty"`
	// EndedProcesses are the processes still running once the attempt's
	// benchmark commands had exited (started in a session or process
	// group of their own), ended before the rows were read.
	EndedProcesses []string `json:"ended_processes,omitempty"`
}

func newAttempt(n int, ids []string, dir string) *attempt {
	a := &attempt{n: n, ids: ids, asked: map[string]bool{}, dir: dir, files: map[string]string{}, copies: map[string]string{},
		rows: map[string][]Row{}, evidence: map[string]Evidence{}}
	for _, id := range ids {
		a.asked[id] = true
	}
	for _, m := range bench.Modes {
		a.files[m] = filepath.Join(dir, m+"-suite.jsonl")
	}
	return a
}

func (a *attempt) record() AttemptRecord {
	r := AttemptRecord{Attempt: a.n, ScenarioIDs: a.ids, SuiteFiles: a.files, Rows: map[string]int{}, FailingScenarios: a.failing,
		Evidence: a.evidence, EndedProcesses: a.ended}
	if r.FailingScenarios == nil {
		r.FailingScenarios = []string{}
	}
	for _, m := range bench.Modes {
		r.Rows[m] = len(a.rows[m])
	}
	return r
}

// name is how messages call the attempt.
func (a *attempt) name() string {
	if a.n == 0 {
		return "attempt 0"
	}
	return fmt.Sprintf("rerun %d", a.n)
}

// judgement is the set's state over all attempts so far.
type judgement struct {
	// merged holds, per mode, the rows that stand for each resolved
	// scenario: those of the latest attempt that asked for it.
	merged map[string]map[string][]Row
	// problems are every broken rule, located in the attempts' files.
	problems []Problem
	// failing are tracking.json's failing_scenarios entries.
	failing []string
	// rerun are the resolved scenarios a rerun may target: failing ones
	// that the latest attempt asked for.
	rerun  []string
	checks Checks
	actual map[string]int
}

// judge recomputes the set's state from every attempt's rows. A
// scenario's rows come from the latest attempt that asked for it, so a
// rerun replaces a scenario's rows as a whole and nothing else: a row a
// rerun did not ask for is an unexpected row of that attempt and never
// replaces an earlier one. A line without a scenario (a truncated or
// malformed line) belongs to its attempt; it stays a failure until a
// later attempt has rerun every scenario that attempt left without rows,
// one of which it was.
func (s *set) judge() judgement {
	j := judgement{merged: map[string]map[string][]Row{}, actual: map[string]int{}}
	reps := s.opts.Repetitions
	latest := map[string]int{}
	for _, a := range s.attempts {
		for _, id := range a.ids {
			latest[id] = a.n
		}
	}
	failing := map[string]bool{}
	for _, mode := range bench.Modes {
		group := map[string][]Row{}
		var fragments []Row
		for _, a := range s.attempts {
			for _, r := range a.rows[mode] {
				switch {
				case r.ScenarioID == "":
					if !s.superseded(a, mode) {
						fragments = append(fragments, r)
					}
				case !a.asked[r.ScenarioID]:
					j.problems = append(j.problems, Problem{Mode: mode, File: r.File, Line: r.Line, ScenarioID: r.ScenarioID,
						Iteration: r.Iteration, Field: "scenario_id", Expected: "one of the scenarios " + a.name() + " asked for (" + textfmt.List(a.ids, ", ", maxIDsShown) + ")",
						Got: r.ScenarioID + " (unexpected row, not merged)"})
					failing["unexpected:"+r.ScenarioID] = true
				case latest[r.ScenarioID] == a.n:
					group[r.ScenarioID] = append(group[r.ScenarioID], r)
				}
			}
		}
		j.merged[mode] = group
		for _, id := range s.resolved {
			rows := group[id]
			file := s.attempts[latest[id]].files[mode]
			first := map[int]Row{}
			for i, r := range rows {
				r.Problems = append([]Problem(nil), r.Problems...)
				switch {
				case r.Iteration > reps:
					r.Problems = append(r.Problems, Problem{Mode: mode, File: r.File, Line: r.Line, ScenarioID: id, Iteration: r.Iteration,
						Field: "iteration", Expected: fmt.Sprintf("an iteration from 1 to %d (--repetitions %d)", reps, reps),
						Got: fmt.Sprintf("%d (an extra iteration)", r.Iteration)})
				case r.Iteration >= 1:
					if prev, dup := first[r.Iteration]; dup {
						r.Problems = append(r.Problems, Problem{Mode: mode, File: r.File, Line: r.Line, ScenarioID: id, Iteration: r.Iteration,
							Field: "scenario_id/iteration", Expected: "one row per scenario and iteration",
							Got: fmt.Sprintf("two rows, lines %d and %d of %s", prev.Line, r.Line, r.File)})
					} else {
						first[r.Iteration] = r
					}
				}
				rows[i] = r
				j.checks.Success.tally(r.SuccessOK)
				j.checks.OutputValid.tally(r.OutputValidOK)
				j.checks.ErrorNull.tally(r.ErrorNullOK)
				j.problems = append(j.problems, r.Problems...)
				if len(r.Problems) > 0 {
					failing[id] = true
				}
			}
			for it := 1; it <= reps; it++ {
				if _, ok := first[it]; !ok {
					j.problems = append(j.problems, Problem{Mode: mode, File: file, ScenarioID: id, Iteration: it,
						Field: "row", Expected: "one row for this scenario and iteration", Got: "none"})
					failing[id] = true
				}
			}
			j.actual[mode] += len(rows)
		}
		for _, r := range fragments {
			j.checks.Success.tally(r.SuccessOK)
			j.checks.OutputValid.tally(r.OutputValidOK)
			j.checks.ErrorNull.tally(r.ErrorNullOK)
			j.problems = append(j.problems, r.Problems...)
			failing[fmt.Sprintf("unidentified-row:%s:%d", s.relFile(r.File), r.Line)] = true
		}
	}
	for id := range failing {
		j.failing = append(j.failing, id)
	}
	sort.Strings(j.failing)
	if last := s.last(); last != nil {
		for _, id := range s.resolved {
			if failing[id] && last.asked[id] {
				j.rerun = append(j.rerun, id)
			}
		}
	}
	return j
}

// superseded reports whether a later attempt has rerun every scenario
// that attempt a left incomplete in mode: a line of a that names no
// scenario then stands for nothing the set still judges. When a left no
// scenario incomplete, the line is a stray one no rerun can replace.
func (s *set) superseded(a *attempt, mode string) bool {
	have := map[string]map[int]bool{}
	for _, r := range a.rows[mode] {
		if a.asked[r.ScenarioID] && r.Iteration >= 1 && r.Iteration <= s.opts.Repetitions {
			if have[r.ScenarioID] == nil {
				have[r.ScenarioID] = map[int]bool{}
			}
			have[r.ScenarioID][r.Iteration] = true
		}
	}
	incomplete := 0
	for _, id := range a.ids {
		if len(have[id]) == s.opts.Repetitions {
			continue
		}
		incomplete++
		rerun := false
		for _, b := range s.attempts[a.n+1:] {
			rerun = rerun || b.asked[id]
		}
		if !rerun {
			return false
		}
	}
	return incomplete > 0
}

// relFile names a file relative to the set folder, for the short
// failing_scenarios entries.
func (s *set) relFile(path string) string {
	if rel, err := filepath.Rel(s.opts.OutDir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return filepath.Base(path)
}

func (s *set) last() *attempt {
	if len(s.attempts) == 0 {
		return nil
	}
	return s.attempts[len(s.attempts)-1]
}

// evaluate judges the attempts, records the result in tracking.json's
// fields and returns the scenarios the next rerun targets.
func (s *set) evaluate() []string {
	j := s.judge()
	s.j = j
	s.t.Checks = j.checks
	s.t.Failures = j.problems
	if s.t.Failures == nil {
		s.t.Failures = []Problem{}
	}
	for _, m := range bench.Modes {
		s.t.RowsActual[m] = j.actual[m]
	}
	ids := j.failing
	if !s.countsMatch() {
		parts := []string{fmt.Sprintf("expected=%d", s.t.RowsExpected[bench.Modes[0]])}
		for _, m := range bench.Modes {
			parts = append(parts, fmt.Sprintf("%s=%d", m, s.t.RowsActual[m]))
		}
		ids = append(ids, "row-count-mismatch: "+strings.Join(parts, " "))
	}
	if ids == nil {
		ids = []string{}
	}
	s.t.FailingScenarios = ids
	if last := s.last(); last != nil && last.failing == nil {
		last.failing = append([]string{}, ids...)
	}
	s.t.Attempts = s.t.Attempts[:0]
	for _, a := range s.attempts {
		s.t.Attempts = append(s.t.Attempts, a.record())
	}
	return j.rerun
}

// zeroRows says which mode wrote no line at all in attempt a, and
// whether it never created its file: "ghx wrote zero rows in attempt 0
// (it never created its suite file ...)". It is empty when every mode
// wrote a line.
func zeroRows(a *attempt) string {
	for _, m := range bench.Modes {
		if len(a.rows[m]) == 0 {
			msg := m + " wrote zero rows in " + a.name()
			if a.evidence[m].Missing {
				msg += " (it never created its suite file " + a.files[m] + ")"
			}
			return msg
		}
	}
	return ""
}

// writeMerged derives the set folder's suite files from the attempts:
// for each resolved scenario, in resolved order, the rows of the latest
// attempt that asked for it, duplicates and extra iterations included, so
// that a failing row stays visible beside the row that repeats it. The
// attempts' own files are left as the benchmark wrote them.
func (s *set) writeMerged() error {
	for _, mode := range bench.Modes {
		var buf bytes.Buffer
		for _, id := range s.resolved {
			rows := append([]Row(nil), s.j.merged[mode][id]...)
			sort.SliceStable(rows, func(a, b int) bool { return rows[a].Iteration < rows[b].Iteration })
			for _, r := range rows {
				buf.Write(r.Raw)
				buf.WriteByte('\n')
			}
		}
		if err := fsutil.WriteFileAtomic(s.suitePath(mode), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("set %s: %w", s.opts.Set, err)
		}
	}
	return nil
}

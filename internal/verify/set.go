package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/benchgate/benchgate/internal/bench"
	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/ident"
)

// LockFile is the file in a set folder a running set holds locked, so a
// second run into the same folder stops instead of mixing rows. It says
// nothing about the results: uploads leave it out.
const LockFile = ".benchgate.lock"

// MaxReruns is the seed's bound on scenario-level reruns per set.
const MaxReruns = 2

// DefaultGateProfile is the profile the set's report gate uses.
const DefaultGateProfile = "verify_pr"

// ErrBadInput marks errors in what the user asked for (unknown set, bad
// scenario ID, missing scenario-sets.json) as opposed to a failed run.
var ErrBadInput = exitcode.ErrUsage

// ReportRequest is what the set asks of the report: summaries of the
// final, merged suite files at explicit paths.
type ReportRequest struct {
	SuitePaths         []string
	Dir                string
	GateProfile        string
	ExpectationsConfig string
	SummaryJSON        string
	SummaryMD          string
	Stdout             io.Writer
	// Stats, when set, asks for the statistical gate; the reporter fills
	// it in (latest-stats.* beside the summaries).
	Stats *StatsRecord
}

// Reporter runs the report in-process and returns the gate verdict.
type Reporter func(ctx context.Context, req ReportRequest) (gatePassed bool, err error)

// SetOptions configures one set verification.
type SetOptions struct {
	Config      bench.Config
	Set         string
	Provider    string
	Model       string
	Repetitions int
	// ScenarioIDs restricts the run to these scenarios of the set.
	ScenarioIDs []string
	// OutDir is the set folder; every artifact is written straight into it.
	OutDir string
	// SkipPreflight is set by ordered, which checks fixtures once itself.
	SkipPreflight bool
	// FixtureManifest overrides the shared manifest of Config.
	FixtureManifest string
	GateProfile     string
	// Stats runs the report with the statistical gate and records it.
	Stats  bool
	Report Reporter
	// Lookback, when set, looks at the merged rows beside earlier runs
	// (the caller's history and baseline) and returns the scenarios that
	// were flaky there; they are recorded in tracking.json. It informs
	// only: a failing flaky scenario still fails the set.
	Lookback Lookback
	// Log receives progress and diagnostics for people.
	Log io.Writer
	Now func() time.Time
}

// SetResult is the outcome of RunSet.
type SetResult struct {
	Tracking     *Tracking
	TrackingPath string
	OutDir       string
	// SuitePaths are the set's suite files, one per benchmark mode in
	// bench.Modes order (a file the set did not get to write is absent on disk).
	SuitePaths []string
	// SummaryJSON and SummaryMD are the report files over the set's rows.
	SummaryJSON, SummaryMD string
}

// Passed reports whether the set passed row-level validation.
func (r *SetResult) Passed() bool { return r != nil && r.Tracking.FinalStatus == StatusPass }

// set is the state of one RunSet call.
type set struct {
	opts     SetOptions
	cfg      bench.Config
	t        *Tracking
	path     string
	runDir   string
	cmds     *commands
	resolved []string
	rows     map[string]*modeRows
	log      io.Writer
}

// modeRows is the merged row store of one mode: a rerun's row replaces
// the earlier row with the same scenario and iteration.
type modeRows struct {
	byKey map[string]Row
	order []string
}

// RunSet verifies one scenario set. It returns an error wrapping
// ErrBadInput for bad input; tracking.json is written in every case in
// which the set folder is known, including cancellation.
func RunSet(ctx context.Context, opts SetOptions) (*SetResult, error) {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.GateProfile == "" {
		opts.GateProfile = DefaultGateProfile
	}
	if opts.OutDir == "" {
		return nil, fmt.Errorf("%w: set %q: no output directory", ErrBadInput, opts.Set)
	}
	now := opts.Now()
	s := &set{
		opts: opts,
		cfg:  opts.Config,
		path: filepath.Join(opts.OutDir, "tracking.json"),
		cmds: &commands{grace: time.Duration(opts.Config.Grace)},
		rows: map[string]*modeRows{},
		log:  opts.Log,
	}
	s.t = &Tracking{
		Set: opts.Set, Provider: opts.Provider, Model: opts.Model, Repetitions: opts.Repetitions,
		RunID:             newRunID(now),
		SeedPolicy:        string(bench.PolicyFor(opts.Set)),
		ResolvedScenarios: []string{},
		RowsExpected:      map[string]int{},
		RowsActual:        map[string]int{},
		FailingScenarios:  []string{},
		Failures:          []Problem{},
		Reruns:            []Rerun{},
		Commands:          []CommandRecord{},
		Gate:              &GateRecord{Profile: opts.GateProfile},
		FinalStatus:       StatusFail,
		State:             "running",
		StartedAt:         now.UTC().Format(time.RFC3339Nano),
	}
	s.runDir = filepath.Join(opts.OutDir, "_run", s.t.RunID)
	for _, m := range bench.Modes {
		s.rows[m] = &modeRows{byKey: map[string]Row{}}
	}
	res := &SetResult{Tracking: s.t, TrackingPath: s.path, OutDir: opts.OutDir,
		SummaryJSON: s.summaryJSON(), SummaryMD: s.summaryMD()}
	for _, m := range bench.Modes {
		res.SuitePaths = append(res.SuitePaths, s.suitePath(m))
	}

	// One set run per folder: a second run would delete the first's
	// artifacts in prepare and interleave rows with it. The lock is taken
	// before anything in the folder is touched, and nothing is written
	// when it is held.
	lock, err := fsutil.TryLockFile(filepath.Join(opts.OutDir, LockFile))
	if errors.Is(err, fsutil.ErrLocked) {
		return nil, fmt.Errorf("%w: set %q: another benchgate run is writing to %s; wait for it to finish or give another out-dir", ErrBadInput, opts.Set, opts.OutDir)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: set %q: %w", ErrBadInput, opts.Set, err)
	}
	defer lock.Unlock()

	if err := s.prepare(); err != nil {
		return res, s.stop(StatusFail, fmt.Errorf("%w: %w", ErrBadInput, err))
	}
	if err := s.t.write(s.path); err != nil {
		return res, err
	}
	return res, s.execute(ctx)
}

// prepare validates the request and resolves the scenarios before
// anything runs, and removes the previous run's artifacts so that nothing
// stale can be read as this run's result.
func (s *set) prepare() error {
	if err := bench.CheckSetName(s.opts.Set); err != nil {
		return err
	}
	if s.opts.Provider == "" {
		return fmt.Errorf("provider: expected a provider ID such as openai, got none")
	}
	if s.opts.Repetitions < 1 {
		return fmt.Errorf("repetitions: expected an integer >= 1, got %d", s.opts.Repetitions)
	}
	sets, err := bench.LoadScenarioSets(s.cfg.Path(s.cfg.ScenarioSets))
	if err != nil {
		return err
	}
	s.resolved, err = sets.Resolve(s.opts.Set, s.opts.ScenarioIDs)
	if err != nil {
		return err
	}
	s.t.ResolvedScenarios = s.resolved
	for _, m := range bench.Modes {
		s.t.RowsExpected[m] = len(s.resolved) * s.opts.Repetitions
		s.t.RowsActual[m] = 0
	}
	for _, name := range append(suiteNames(), "latest-summary.json", "latest-summary.md") {
		if err := os.Remove(filepath.Join(s.opts.OutDir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove stale %s: %w", name, err)
		}
	}
	return nil
}

func suiteNames() []string {
	var n []string
	for _, m := range bench.Modes {
		n = append(n, m+"-suite.jsonl")
	}
	return n
}

// summaryJSON and summaryMD are the report files over the set's rows.
func (s *set) summaryJSON() string { return filepath.Join(s.opts.OutDir, "latest-summary.json") }
func (s *set) summaryMD() string   { return filepath.Join(s.opts.OutDir, "latest-summary.md") }

func (s *set) suitePath(mode string) string {
	return filepath.Join(s.opts.OutDir, mode+"-suite.jsonl")
}

func (s *set) execute(ctx context.Context) error {
	fmt.Fprintf(s.log, "set %s: %d scenario(s) x %d repetition(s), run %s, out %s\n",
		s.opts.Set, len(s.resolved), s.opts.Repetitions, s.t.RunID, s.opts.OutDir)
	shared := s.opts.FixtureManifest
	if shared == "" {
		shared = s.cfg.Path(s.cfg.FixtureManifest)
	}
	if !s.opts.SkipPreflight {
		if err := Preflight(ctx, s.cfg, shared, filepath.Join(s.runDir, "logs", "preflight.log"), s.cmds); err != nil {
			return s.stop(StatusFail, err)
		}
	}
	manifest := shared
	if bench.PolicyFor(s.opts.Set) == bench.WithSeed {
		s.t.SeedID = s.t.RunID + "-" + s.opts.Set + "-seed"
		manifest = filepath.Join(s.runDir, "fixtures", "latest.json")
		if err := s.seed(ctx, manifest); err != nil {
			return s.stop(StatusFail, err)
		}
	}
	s.t.FixtureManifest = manifest

	// Attempt 0: the whole set (or the requested scenarios), written
	// straight into the set folder.
	outs := map[string]string{}
	for _, m := range bench.Modes {
		outs[m] = s.suitePath(m)
	}
	var ids []string
	if len(s.opts.ScenarioIDs) > 0 {
		ids = s.resolved
	}
	if err := s.paired(ctx, "attempt-0", ids, manifest, outs); err != nil {
		s.evaluate()
		return s.stop(StatusFail, err)
	}
	failing := s.evaluate()
	zero := s.zeroRows()
	for attempt := 1; attempt <= MaxReruns && len(failing) > 0 && zero == "" && ctx.Err() == nil; attempt++ {
		fmt.Fprintf(s.log, "set %s: rerun %d of %d for %d failing scenario(s): %s\n",
			s.opts.Set, attempt, MaxReruns, len(failing), strings.Join(failing, " "))
		dir := filepath.Join(s.runDir, fmt.Sprintf("rerun-%d", attempt))
		outs := map[string]string{}
		for _, m := range bench.Modes {
			outs[m] = filepath.Join(dir, m+"-suite.jsonl")
		}
		if err := s.paired(ctx, fmt.Sprintf("rerun-%d", attempt), failing, manifest, outs); err != nil {
			s.evaluate()
			s.t.Reruns = append(s.t.Reruns, Rerun{Attempt: attempt, ScenarioIDs: failing, Result: "fail"})
			return s.stop(StatusFail, err)
		}
		rerunIDs := failing
		failing = s.evaluate()
		result := StatusPass
		if len(s.t.FailingScenarios) > 0 {
			result = "fail"
		}
		s.t.Reruns = append(s.t.Reruns, Rerun{Attempt: attempt, ScenarioIDs: rerunIDs, Result: result})
		s.t.Commands = s.cmds.snapshot()
		if err := s.t.write(s.path); err != nil {
			return s.stop(StatusFail, err)
		}
	}
	if err := s.writeMerged(); err != nil {
		return s.stop(StatusFail, err)
	}
	s.evaluate()
	if ctx.Err() != nil {
		return s.stop(StatusFail, fmt.Errorf("set %s: stopped: %w", s.opts.Set, context.Cause(ctx)))
	}
	s.report(ctx)
	s.lookback(ctx)
	switch {
	case zero != "":
		return s.stop(StatusTerminalFail, fmt.Errorf("set %s: %s wrote zero rows (a zero-row output is terminal)", s.opts.Set, zero))
	case len(s.t.FailingScenarios) > 0:
		return s.stop(StatusTerminalFail, fmt.Errorf("set %s failed blocking validation after %d rerun(s): %s",
			s.opts.Set, len(s.t.Reruns), strings.Join(s.t.FailingScenarios, ", ")))
	}
	return s.stop(StatusPass, nil)
}

// Preflight runs "fixtures status" on the shared manifest and requires
// exit 0 and a valid manifest file.
func Preflight(ctx context.Context, cfg bench.Config, manifest, logPath string, cmds *commands) error {
	argv := cfg.FixturesArgv("status", manifest, "")
	rec, err := cmds.run(ctx, "preflight", cfg.BenchDir, argv, cfg.Env, time.Duration(cfg.FixturesTimeout), logPath)
	if err != nil {
		return fmt.Errorf("fixture preflight: %w", err)
	}
	if rec.ExitCode != 0 {
		return fmt.Errorf("fixture preflight: fixtures status exited %d%s (log: %s)%s", rec.ExitCode, killed(rec), logPath, logTail(logPath, 3))
	}
	if err := bench.CheckManifest(manifest); err != nil {
		return fmt.Errorf("fixture preflight: %w", err)
	}
	return nil
}

func killed(r CommandRecord) string {
	switch {
	case r.TimedOut:
		return " after its timeout"
	case r.Cancelled:
		return " when cancelled"
	}
	return ""
}

func (s *set) seed(ctx context.Context, manifest string) error {
	argv := s.cfg.FixturesArgv("seed", manifest, s.t.SeedID)
	logPath := filepath.Join(s.runDir, "logs", "seed.log")
	rec, err := s.cmds.run(ctx, "seed", s.cfg.BenchDir, argv, s.cfg.Env, time.Duration(s.cfg.FixturesTimeout), logPath)
	if err != nil {
		return fmt.Errorf("set %s: fixture seed: %w", s.opts.Set, err)
	}
	if rec.ExitCode != 0 {
		return fmt.Errorf("set %s: fixture seed exited %d%s (log: %s)%s", s.opts.Set, rec.ExitCode, killed(rec), logPath, logTail(logPath, 3))
	}
	if err := bench.CheckManifest(manifest); err != nil {
		return fmt.Errorf("set %s: fixture seed: %w", s.opts.Set, err)
	}
	return nil
}

// paired runs both modes at once and merges their rows. The benchmark's
// exit code says nothing about the rows (it exits 0 when rows fail), so
// only a command that cannot start, or a cancel, is an error here.
func (s *set) paired(ctx context.Context, step string, ids []string, manifest string, outs map[string]string) error {
	var wg sync.WaitGroup
	errs := make([]error, len(bench.Modes))
	for i, mode := range bench.Modes {
		out := outs[mode]
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return fmt.Errorf("set %s: %w", s.opts.Set, err)
		}
		// The benchmark appends; start every attempt from an empty file.
		if err := os.Remove(out); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("set %s: %w", s.opts.Set, err)
		}
		spec := bench.RunSpec{Mode: mode, Repetitions: s.opts.Repetitions, Provider: s.opts.Provider,
			Model: s.opts.Model, OutputJSONL: out, Set: s.opts.Set, ScenarioIDs: ids, Manifest: manifest}
		wg.Add(1)
		go func() {
			defer wg.Done()
			logPath := filepath.Join(s.runDir, "logs", step+"-"+mode+".log")
			rec, err := s.cmds.run(ctx, step+"-"+mode, s.cfg.BenchDir, s.cfg.BenchmarkArgv(spec), s.cfg.BenchmarkEnv(spec),
				time.Duration(s.cfg.BenchmarkTimeout), logPath)
			if err != nil {
				errs[i] = fmt.Errorf("set %s: benchmark %s: %w", s.opts.Set, mode, err)
				return
			}
			if rec.ExitCode != 0 || rec.TimedOut {
				fmt.Fprintf(s.log, "set %s: benchmark %s exited %d%s; judging its rows (log: %s)%s\n",
					s.opts.Set, mode, rec.ExitCode, killed(rec), logPath, logTail(logPath, 3))
			}
		}()
	}
	wg.Wait()
	s.t.Commands = s.cmds.snapshot()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, mode := range bench.Modes {
		rows, err := ReadRows(outs[mode], mode)
		if err != nil {
			return fmt.Errorf("set %s: %w", s.opts.Set, err)
		}
		s.merge(mode, rows)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("set %s: stopped during %s: %w", s.opts.Set, step, context.Cause(ctx))
	}
	return nil
}

func (s *set) merge(mode string, rows []Row) {
	store := s.rows[mode]
	seen := map[string]int{}
	for _, r := range rows {
		key := fmt.Sprintf("%s:%d", r.ScenarioID, r.Iteration)
		if r.ScenarioID == "" || r.Iteration == 0 {
			key = fmt.Sprintf("unidentified:%s:%d", r.File, r.Line)
		}
		if prev, dup := seen[key]; dup {
			r.Problems = append(r.Problems, Problem{Mode: mode, File: r.File, Line: r.Line, ScenarioID: r.ScenarioID,
				Iteration: r.Iteration, Field: "scenario_id/iteration", Expected: "one row per scenario and iteration",
				Got: fmt.Sprintf("a second row (first at line %d)", prev)})
		}
		seen[key] = r.Line
		if _, ok := store.byKey[key]; !ok {
			store.order = append(store.order, key)
		}
		store.byKey[key] = r
	}
}

// evaluate recomputes counts, checks and failures from the merged rows and
// returns the failing resolved scenario IDs, which are what a rerun may
// target.
func (s *set) evaluate() []string {
	in := map[string]bool{}
	for _, id := range s.resolved {
		in[id] = true
	}
	failing := map[string]bool{}
	var problems []Problem
	var checks Checks
	for _, mode := range bench.Modes {
		store := s.rows[mode]
		s.t.RowsActual[mode] = len(store.byKey)
		for _, key := range store.order {
			r := store.byKey[key]
			checks.Success.tally(r.SuccessOK)
			checks.OutputValid.tally(r.OutputValidOK)
			checks.ErrorNull.tally(r.ErrorNullOK)
			problems = append(problems, r.Problems...)
			if r.ScenarioID != "" && !in[r.ScenarioID] {
				problems = append(problems, Problem{Mode: mode, File: r.File, Line: r.Line, ScenarioID: r.ScenarioID,
					Iteration: r.Iteration, Field: "scenario_id", Expected: "one of the set's resolved scenarios", Got: r.ScenarioID})
				failing["unexpected:"+r.ScenarioID] = true
			}
			if len(r.Problems) > 0 {
				if in[r.ScenarioID] {
					failing[r.ScenarioID] = true
				} else if r.ScenarioID == "" {
					failing[fmt.Sprintf("unidentified-row:%s:%d", filepath.Base(r.File), r.Line)] = true
				}
			}
		}
		for _, id := range s.resolved {
			for it := 1; it <= s.opts.Repetitions; it++ {
				if _, ok := store.byKey[fmt.Sprintf("%s:%d", id, it)]; !ok {
					problems = append(problems, Problem{Mode: mode, File: s.suitePath(mode), ScenarioID: id, Iteration: it,
						Field: "row", Expected: "one row for this scenario and iteration", Got: "none"})
					failing[id] = true
				}
			}
		}
	}
	s.t.Checks = checks
	s.t.Failures = problems
	if s.t.Failures == nil {
		s.t.Failures = []Problem{}
	}
	var ids, rerun []string
	for id := range failing {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range s.resolved {
		if failing[id] {
			rerun = append(rerun, id)
		}
	}
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
	if len(rerun) == 0 && len(ids) > 0 {
		// Failures no rerun can target (unidentified rows): rerunning
		// would change nothing, so the set ends now.
		return nil
	}
	return rerun
}

func (s *set) countsMatch() bool {
	for _, m := range bench.Modes {
		if s.t.RowsActual[m] != s.t.RowsExpected[m] {
			return false
		}
	}
	return true
}

// zeroRows names the first mode whose merged output holds no rows.
func (s *set) zeroRows() string {
	for _, m := range bench.Modes {
		if len(s.rows[m].byKey) == 0 {
			return m
		}
	}
	return ""
}

// writeMerged rewrites both suite files with the final rows, in resolved
// order, so that the set folder holds exactly what was judged.
func (s *set) writeMerged() error {
	pos := map[string]int{}
	for i, id := range s.resolved {
		pos[id] = i
	}
	for _, mode := range bench.Modes {
		store := s.rows[mode]
		keys := append([]string(nil), store.order...)
		sort.SliceStable(keys, func(a, b int) bool {
			ra, rb := store.byKey[keys[a]], store.byKey[keys[b]]
			pa, oka := pos[ra.ScenarioID]
			pb, okb := pos[rb.ScenarioID]
			if oka != okb {
				return oka
			}
			if pa != pb {
				return pa < pb
			}
			return ra.Iteration < rb.Iteration
		})
		var buf bytes.Buffer
		final := s.suitePath(mode)
		for i, k := range keys {
			r := store.byKey[k]
			buf.Write(r.Raw)
			buf.WriteByte('\n')
			// Diagnostics point at the file that is kept: the merged one.
			r.File, r.Line = final, i+1
			for j := range r.Problems {
				r.Problems[j].File, r.Problems[j].Line = final, i+1
			}
			store.byKey[k] = r
		}
		if err := fsutil.WriteFileAtomic(s.suitePath(mode), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("set %s: %w", s.opts.Set, err)
		}
	}
	return nil
}

// report regenerates the summaries from the merged final rows. Its gate
// is recorded only; a report error is recorded and reported, never
// allowed to stop tracking.json from being written.
func (s *set) report(ctx context.Context) {
	g := s.t.Gate
	if s.opts.Report == nil {
		g.Error = "no report configured"
		return
	}
	if s.zeroRows() != "" {
		g.Error = "skipped: a mode wrote zero rows"
		return
	}
	var paths []string
	for _, m := range bench.Modes {
		paths = append(paths, s.suitePath(m))
	}
	req := ReportRequest{
		SuitePaths:         paths,
		Dir:                s.cfg.BenchDir,
		GateProfile:        s.opts.GateProfile,
		ExpectationsConfig: s.cfg.Path(s.cfg.ExpectationsConfig),
		SummaryJSON:        s.summaryJSON(),
		SummaryMD:          s.summaryMD(),
		Stdout:             io.Discard,
	}
	if s.opts.Stats {
		req.Stats = &StatsRecord{}
	}
	passed, err := s.opts.Report(ctx, req)
	g.Ran = err == nil
	g.Passed = passed
	if err != nil {
		g.Error = err.Error()
		fmt.Fprintf(s.log, "set %s: report: %v\n", s.opts.Set, err)
		return
	}
	g.SummaryJSON, g.SummaryMD = req.SummaryJSON, req.SummaryMD
	verdict := "PASS"
	if !passed {
		verdict = "FAIL (recorded; row validation decides the set)"
	}
	fmt.Fprintf(s.log, "set %s: gate %s %s\n", s.opts.Set, s.opts.GateProfile, verdict)
	if st := req.Stats; st != nil && st.Verdict != "" {
		g.Stats = st
		fmt.Fprintf(s.log, "set %s: stats %s (recorded; row validation decides the set)\n", s.opts.Set, strings.ToUpper(st.Verdict))
		for _, l := range st.Lines {
			fmt.Fprintf(s.log, "set %s:   %s\n", s.opts.Set, l)
		}
	}
}

// stop records the final status, writes tracking.json and prints the
// failing rows. It returns cause (or the write error) for the caller.
func (s *set) stop(status string, cause error) error {
	s.t.FinalStatus = status
	s.t.State = "done"
	s.t.FinishedAt = s.opts.Now().UTC().Format(time.RFC3339Nano)
	s.t.Commands = s.cmds.snapshot()
	if cause != nil {
		s.t.Error = cause.Error()
	}
	if status != StatusPass {
		const maxShown = 20
		for i, p := range s.t.Failures {
			if i == maxShown {
				fmt.Fprintf(s.log, "set %s: ... and %d more failing row(s) in %s\n", s.opts.Set, len(s.t.Failures)-maxShown, s.path)
				break
			}
			fmt.Fprintf(s.log, "set %s: %s\n", s.opts.Set, p)
		}
	}
	werr := s.t.write(s.path)
	fmt.Fprintf(s.log, "set %s: %s (tracking: %s)\n", s.opts.Set, status, s.path)
	if werr != nil {
		return errors.Join(cause, fmt.Errorf("set %s: write tracking: %w", s.opts.Set, werr))
	}
	return cause
}

// ModelSlug makes a model name safe for a path segment, as upstream does.
func ModelSlug(model string) string { return ident.Sanitize(model, "-") }

// BaseDir is the seed's run-level folder:
// <bench dir>/reports/verification-<date>-<model>-by-set.
func BaseDir(benchDir string, now time.Time, model string) string {
	return filepath.Join(benchDir, "reports", "verification-"+now.Format("2006-01-02")+"-"+ModelSlug(model)+"-by-set")
}

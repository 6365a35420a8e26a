package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/benchgate/benchgate/internal/bench"
	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/ident"
	"github.com/benchgate/benchgate/internal/proc"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// LockFile is the file in a set folder a running set holds locked, so a
// second run into the same folder stops instead of mixing rows. It says
// nothing about the results: uploads leave it out.
const LockFile = ".benchgate.lock"

// maxIDsShown bounds the scenario IDs a message lists; tracking.json
// holds them all.
const maxIDsShown = 20

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
	// InRun is set by ordered, which holds the run folder for the whole
	// run; a set of its own holds its run folder shared.
	InRun bool
	// FixtureManifest overrides the shared manifest of Config.
	FixtureManifest string
	// SharedManifest is the shared manifest as ordered's preflight found
	// it: the set refuses to run when the file is no longer that one
	// (deleted, switched to another repository, changed).
	SharedManifest *bench.ManifestIdentity
	GateProfile    string
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
	// Progress prints a line to Log for every batch of rows the benchmark
	// writes, and at least every 30 s, while it runs (package progress).
	Progress bool
	// Position is the set's place in an ordered run ("set 3 of 9"),
	// named in the progress lines.
	Position string
	// OnAttempt, when set, is called after each attempt (the first run
	// and every rerun) with the tracking as it stands; the command line
	// renders it as a growing table.
	OnAttempt func(t *Tracking)
	Now       func() time.Time
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
	// judged is the set's state, for ordered: a set it runs keeps its
	// attempt folders read-only and its private copies until ordered
	// has checked every set's judged files again (recheckEvidence) and
	// released them.
	judged *set
}

// recheckEvidence hashes every judged file of the set again (ordered
// does so once every set has run: a later set's benchmark could reach
// the files of an earlier one). A change is recorded in the set's
// tracking.json, refuses its pass and is returned as an error naming
// each file and what changed.
func (r *SetResult) recheckEvidence(ctx context.Context) error {
	if r == nil || r.judged == nil {
		return nil
	}
	s := r.judged
	changed, stopped := s.recheck(ctx)
	rewritten := s.recheckWritten(ctx)
	if len(changed) == 0 && stopped == nil && len(rewritten) == 0 {
		return nil
	}
	err := stopped
	if len(changed) > 0 {
		err = errors.Join(evidenceError(s.opts.Set, changed), stopped)
	}
	if len(rewritten) > 0 {
		err = errors.Join(err, fmt.Errorf("set %s: %s changed after the set wrote %s:\n    %s", s.opts.Set,
			textfmt.Count(len(rewritten), "file of its folder", "files of its folder"), pronounObj(len(rewritten)), strings.Join(rewritten, "\n    ")))
	}
	s.t.Attempts = s.t.Attempts[:0]
	for _, a := range s.attempts {
		s.t.Attempts = append(s.t.Attempts, a.record())
	}
	if s.t.FinalStatus == StatusPass {
		s.t.FinalStatus = StatusFail
	}
	s.t.Error = strings.TrimPrefix(s.t.Error+"\n", "\n") + "after the set ended: " + err.Error()
	if werr := s.t.write(s.path); werr != nil {
		return errors.Join(err, fmt.Errorf("set %s: could not write tracking.json: %w", s.opts.Set, werr))
	}
	return err
}

// release makes the set's attempt folders writable again and removes its
// private copies; once released, its judged files are no longer checked.
func (r *SetResult) release() {
	if r != nil && r.judged != nil {
		r.judged.release()
	}
}

func (s *set) release() {
	for _, a := range s.attempts {
		unprotect(a)
	}
	if s.private != "" {
		os.RemoveAll(s.private)
		s.private = ""
	}
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
	sets     *bench.ScenarioSets
	resolved []string
	attempts []*attempt
	// j is the latest judgement of the attempts; merged says the set
	// folder's suite files were derived from it.
	j      judgement
	merged bool
	log    io.Writer
	// trackingErr is why the last write of tracking.json failed.
	trackingErr error
	// ctx is the run's context, for the work of stop.
	ctx context.Context
	// private is the folder of benchgate's copies of the judged files
	// (privateDir); privateErr why it could not be made.
	private    string
	privateErr error
	// manifest is the fixture manifest the set's runs bind from, as it
	// was when the set started; it is checked again before each rerun
	// and before the verdict.
	manifest bench.ManifestIdentity
	// written is what a set that ordered runs wrote last into its set
	// folder (its suite files, summaries and tracking.json), by path,
	// so that ordered can check them again after its last set; summaries
	// keeps the summaries' bytes, to put them back.
	written   []writtenFile
	summaries map[string][]byte
}

// writtenFile is a file the set wrote and the SHA-256 it wrote there.
type writtenFile struct{ path, sha256 string }

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
		cmds: newCommands(opts.Config),
		log:  &lockedWriter{w: opts.Log},
		ctx:  ctx,
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
		Attempts:          []AttemptRecord{},
		Gate:              &GateRecord{Profile: opts.GateProfile},
		State:             "running",
		StartedAt:         now.UTC().Format(time.RFC3339Nano),
	}
	s.runDir = filepath.Join(opts.OutDir, "_run", s.t.RunID)
	res := &SetResult{Tracking: s.t, TrackingPath: s.path, OutDir: opts.OutDir,
		SummaryJSON: s.summaryJSON(), SummaryMD: s.summaryMD()}
	for _, m := range bench.Modes {
		res.SuitePaths = append(res.SuitePaths, s.suitePath(m))
	}

	// Broken setup (an unknown set, a malformed scenario-sets.json or
	// fixture manifest) is refused before anything is written: no
	// tracking.json says "fail" about a set that never ran.
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}

	// One set run per folder: a second run would delete the first's
	// artifacts in clearStale and interleave rows with it. The locks are
	// taken before anything in the folder is touched, and nothing is
	// written when one is held. A set of its own also holds its run
	// folder (the set folder's parent) shared, so that no ordered run
	// takes that folder over while the set writes into it; a set that
	// ordered runs is covered by ordered's own lock.
	if !opts.InRun {
		parent, err := lockShared(filepath.Dir(filepath.Clean(opts.OutDir)), "--out-dir")
		if err != nil {
			return nil, fmt.Errorf("set %q: %w", opts.Set, err)
		}
		defer parent.Unlock()
	}
	lock, err := lockExclusive(opts.OutDir, Holder{Command: "set", PID: os.Getpid(), StartedAt: now.UTC().Format(holderTime),
		RunID: s.t.RunID, Set: opts.Set}, "--out-dir")
	if err != nil {
		return nil, fmt.Errorf("set %q: %w", opts.Set, err)
	}
	defer lock.Unlock()

	if err := s.clearStale(); err != nil {
		return res, s.stop(StatusFail, fmt.Errorf("%w: %w", ErrBadInput, err))
	}
	if err := s.t.write(s.path); err != nil {
		res.TrackingPath = ""
		return res, fmt.Errorf("set %s: could not write tracking.json: %w", s.opts.Set, err)
	}
	if opts.InRun {
		res.judged = s
	} else {
		defer s.release()
	}
	err = s.execute(ctx)
	if s.trackingErr != nil {
		// The file is not what this run says: no caller may point at it.
		res.TrackingPath = ""
	}
	return res, err
}

// validate checks the request and resolves the scenarios before anything
// runs or is written.
func (s *set) validate() error {
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
	s.sets = sets
	s.resolved, err = sets.Resolve(s.opts.Set, s.opts.ScenarioIDs)
	if err != nil {
		return err
	}
	// ordered warns once for the whole run.
	if w := sets.EmptyWarning(s.opts.Set); w != "" && !s.opts.InRun {
		fmt.Fprintf(s.log, "set %s: %s\n", s.opts.Set, w)
	}
	s.t.ResolvedScenarios = s.resolved
	for _, m := range bench.Modes {
		s.t.RowsExpected[m] = len(s.resolved) * s.opts.Repetitions
		s.t.RowsActual[m] = 0
	}
	// The shared manifest the preflight checks and read-only sets bind
	// from: a file that is there but truncated, empty or of the wrong
	// shape is broken setup, said now rather than by a failed set.
	if !s.opts.SkipPreflight || bench.PolicyFor(s.opts.Set) != bench.WithSeed {
		if err := bench.CheckManifestIfPresent(s.sharedManifest()); err != nil {
			return err
		}
	}
	return nil
}

// sharedManifest is the fixture manifest the preflight checks.
func (s *set) sharedManifest() string {
	if s.opts.FixtureManifest != "" {
		return s.opts.FixtureManifest
	}
	return s.cfg.Path(s.cfg.FixtureManifest)
}

// clearStale removes the previous run's artifacts from the set folder,
// so that nothing stale can be read as this run's result.
func (s *set) clearStale() error {
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
	position := ""
	if s.opts.Position != "" {
		position = " (" + s.opts.Position + ")"
	}
	fmt.Fprintf(s.log, "set %s%s: %d scenario(s) x %d repetition(s), run %s, out %s\n",
		s.opts.Set, position, len(s.resolved), s.opts.Repetitions, s.t.RunID, s.opts.OutDir)
	shared := s.opts.FixtureManifest
	if shared == "" {
		shared = s.cfg.Path(s.cfg.FixtureManifest)
	}
	if !s.opts.SkipPreflight {
		if err := Preflight(ctx, s.cfg, shared, filepath.Join(s.runDir, "logs", "preflight.log"), s.cmds); err != nil {
			return s.stop(StatusFail, err)
		}
	}
	// The shared manifest the run's preflight checked must still be that
	// file: its path alone does not say which fixtures the runs bind.
	if id := s.opts.SharedManifest; id != nil {
		if why := id.Compare("since the preflight of this run"); why != "" {
			return s.stop(StatusFail, fmt.Errorf("set %s: %s", s.opts.Set, why))
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
	id, err := bench.ReadManifestIdentity(manifest)
	if errors.Is(err, os.ErrNotExist) {
		return s.stop(StatusFail, fmt.Errorf("set %s: fixture manifest %s does not exist: the benchmark binds the set's scenarios from it "+
			"(run the fixture preflight or seed it, or give another --fixture-manifest)", s.opts.Set, manifest))
	}
	if err != nil {
		return s.stop(StatusFail, fmt.Errorf("set %s: %w", s.opts.Set, err))
	}
	s.manifest = id
	s.t.FixtureManifestSHA256, s.t.FixtureRepo = id.SHA256, id.Repo

	// Attempt 0 runs the whole set (or the requested scenarios); each
	// rerun only the scenarios the previous attempt failed. Every attempt
	// writes its own files under _run/<run-id>/attempt-<n>/, kept as
	// written; the set folder's suite files are derived from them.
	var ids []string
	if len(s.opts.ScenarioIDs) > 0 {
		ids = s.resolved
	}
	a := newAttempt(0, s.resolved, filepath.Join(s.runDir, "attempt-0"))
	if err := s.paired(ctx, a, ids, manifest); err != nil {
		s.evaluate()
		return s.stop(StatusFail, err)
	}
	failing := s.evaluate()
	s.attemptDone()
	zero := zeroRows(a)
	for n := 1; n <= MaxReruns && len(failing) > 0 && zero == "" && ctx.Err() == nil; n++ {
		if why := s.manifest.Compare("during this set"); why != "" {
			return s.stop(StatusFail, fmt.Errorf("set %s: %s", s.opts.Set, why))
		}
		fmt.Fprintf(s.log, "set %s: rerun %d of %d for %d failing scenario(s): %s\n",
			s.opts.Set, n, MaxReruns, len(failing), textfmt.List(failing, " ", maxIDsShown))
		a := newAttempt(n, failing, filepath.Join(s.runDir, fmt.Sprintf("attempt-%d", n)))
		if err := s.paired(ctx, a, failing, manifest); err != nil {
			s.evaluate()
			s.t.Reruns = append(s.t.Reruns, Rerun{Attempt: n, ScenarioIDs: a.ids, Result: "fail"})
			return s.stop(StatusFail, err)
		}
		failing = s.evaluate()
		result := StatusPass
		if len(s.t.FailingScenarios) > 0 {
			result = "fail"
		}
		if z := zeroRows(a); z != "" {
			zero, result = z, "fail"
		}
		s.t.Reruns = append(s.t.Reruns, Rerun{Attempt: n, ScenarioIDs: a.ids, Result: result})
		s.attemptDone()
		s.t.Commands = s.cmds.snapshot()
		if err := s.t.write(s.path); err != nil {
			return s.stop(StatusFail, err)
		}
	}
	if err := s.writeMerged(); err != nil {
		return s.stop(StatusFail, err)
	}
	s.merged = true
	if why := s.manifest.Compare("during this set"); why != "" {
		return s.stop(StatusFail, fmt.Errorf("set %s: %s", s.opts.Set, why))
	}
	if ctx.Err() != nil {
		return s.stop(StatusFail, fmt.Errorf("set %s: stopped: %w", s.opts.Set, context.Cause(ctx)))
	}
	s.report(ctx, zero != "")
	s.lookback(ctx, zero != "")
	switch {
	case zero != "":
		return s.stop(StatusTerminalFail, fmt.Errorf("set %s: %s (a zero-row output is terminal)", s.opts.Set, zero))
	case len(s.t.FailingScenarios) > 0:
		return s.stop(StatusTerminalFail, fmt.Errorf("set %s failed blocking validation after %d rerun(s): %s",
			s.opts.Set, len(s.t.Reruns), textfmt.List(s.t.FailingScenarios, ", ", maxIDsShown)))
	case s.opts.Report != nil && s.t.Gate.Error != "":
		// Every row passed, but the set's summaries are not there: the
		// set has not produced what it promises, so it does not pass.
		return s.stop(StatusFail, fmt.Errorf("set %s: every row passed, but the summaries could not be written: %s", s.opts.Set, s.t.Gate.Error))
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
		return fmt.Errorf("fixture preflight: fixtures status %s (log: %s)%s", ended(rec), logPath, logTail(logPath, 3))
	}
	if err := bench.CheckManifest(manifest); err != nil {
		return fmt.Errorf("fixture preflight: %w", err)
	}
	return nil
}

func (s *set) seed(ctx context.Context, manifest string) error {
	argv := s.cfg.FixturesArgv("seed", manifest, s.t.SeedID)
	logPath := filepath.Join(s.runDir, "logs", "seed.log")
	rec, err := s.cmds.run(ctx, "seed", s.cfg.BenchDir, argv, s.cfg.Env, time.Duration(s.cfg.FixturesTimeout), logPath)
	if err != nil {
		return fmt.Errorf("set %s: fixture seed: %w", s.opts.Set, err)
	}
	if rec.ExitCode != 0 {
		return fmt.Errorf("set %s: fixture seed %s (log: %s)%s", s.opts.Set, ended(rec), logPath, logTail(logPath, 3))
	}
	if err := bench.CheckManifest(manifest); err != nil {
		return fmt.Errorf("set %s: fixture seed: %w", s.opts.Set, err)
	}
	return nil
}

// paired runs both modes of attempt a at once and reads their rows. The
// benchmark's exit code says nothing about the rows (it exits 0 when rows
// fail), so only a command that cannot start, or a cancel, is an error
// here. ids are the scenarios to select (none: the whole set).
func (s *set) paired(ctx context.Context, a *attempt, ids []string, manifest string) error {
	s.attempts = append(s.attempts, a)
	step := fmt.Sprintf("attempt-%d", a.n)
	var selector []string
	for _, id := range ids {
		selector = append(selector, s.sets.Spelling(id))
	}
	var wg sync.WaitGroup
	errs := make([]error, len(bench.Modes))
	for i, mode := range bench.Modes {
		out := a.files[mode]
		if err := fsutil.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return fmt.Errorf("set %s: %w", s.opts.Set, err)
		}
		spec := bench.RunSpec{Mode: mode, Repetitions: s.opts.Repetitions, Provider: s.opts.Provider,
			Model: s.opts.Model, OutputJSONL: out, Set: s.opts.Set, ScenarioIDs: selector, Manifest: manifest}
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
				fmt.Fprintf(s.log, "set %s: benchmark %s %s; judging its rows (log: %s)%s\n",
					s.opts.Set, mode, ended(rec), logPath, logTail(logPath, 3))
			}
		}()
	}
	stopFollowing := s.follow(a)
	wg.Wait()
	s.endLeftovers(a)
	stopFollowing()
	s.t.Commands = s.cmds.snapshot()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	// The rows written before a stop still count: they are read under a
	// context the stop does not cancel, bounded by the stop budget.
	rctx, cancel := proc.AfterStop(ctx)
	defer cancel()
	var readErrs []error
	for _, mode := range bench.Modes {
		var keep *keeper
		copy := ""
		if dir := s.privateDir(); dir != "" {
			copy = filepath.Join(dir, fmt.Sprintf("attempt-%d-%s-suite.jsonl", a.n, mode))
			keep = newKeeper(copy)
		}
		rows, ev, err := readEvidence(rctx, a.files[mode], mode, keep)
		if keep != nil && keep.close() && err == nil && !ev.Missing {
			a.copies[mode] = copy
		}
		if err != nil {
			readErrs = append(readErrs, fmt.Errorf("set %s: %s: %w", s.opts.Set, a.name(), err))
			continue
		}
		a.rows[mode] = rows
		a.evidence[mode] = ev
	}
	// What was judged stays as judged: nothing is running that could
	// append to it, a private copy of it is kept, and the files and their
	// folder are made read-only before the next attempt starts.
	protect(a)
	if err := errors.Join(readErrs...); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("set %s: stopped during %s: %w", s.opts.Set, a.name(), context.Cause(ctx))
	}
	return nil
}

// endLeftovers ends every process still running once the attempt's
// benchmark commands exited: a process the benchmark started in a
// session or process group of its own escapes the group kill, and could
// append to the attempt's files after they were judged. benchgate is the
// subreaper of everything it starts, so each such process is found
// (proc.EndDescendants), and said.
func (s *set) endLeftovers(a *attempt) {
	ended, err := proc.EndDescendants()
	for _, d := range ended {
		a.ended = append(a.ended, d.String())
	}
	if len(ended) > 0 {
		fmt.Fprintf(s.log, "set %s: %s: ended %s the benchmark left running after it exited, before reading its rows: %s\n",
			s.opts.Set, a.name(), textfmt.Count(len(ended), "process", "processes"), textfmt.List(a.ended, " ", 10))
	}
	if err != nil {
		fmt.Fprintf(s.log, "set %s: %s: %v\n", s.opts.Set, a.name(), err)
	}
}

func (s *set) countsMatch() bool {
	for _, m := range bench.Modes {
		if s.t.RowsActual[m] != s.t.RowsExpected[m] {
			return false
		}
	}
	return true
}

// report regenerates the summaries from the merged final rows. Its gate
// is recorded only; a report error is recorded and reported, never
// allowed to stop tracking.json from being written.
func (s *set) report(ctx context.Context, zero bool) {
	g := s.t.Gate
	if s.opts.Report == nil {
		g.Error = "no report configured"
		return
	}
	if zero {
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
	// The verdict stands only on the bytes judged: every judged file is
	// hashed again, and a change refuses the pass.
	rctx, cancel := proc.AfterStop(s.ctx)
	changed, stopped := s.recheck(rctx)
	cancel()
	if stopped != nil {
		if status == StatusPass {
			status = StatusFail
		}
		cause = errors.Join(cause, stopped)
	}
	if len(changed) > 0 {
		if status == StatusPass {
			status = StatusFail
		}
		cause = errors.Join(cause, evidenceError(s.opts.Set, changed))
		s.t.Attempts = s.t.Attempts[:0]
		for _, a := range s.attempts {
			s.t.Attempts = append(s.t.Attempts, a.record())
		}
	}
	if !s.opts.InRun {
		// A set of its own is done with its judged files; ordered
		// checks them again after its last set, then releases them.
		for _, a := range s.attempts {
			unprotect(a)
		}
	}
	s.t.FinalStatus = status
	s.t.State = "done"
	s.t.FinishedAt = s.opts.Now().UTC().Format(time.RFC3339Nano)
	s.t.Commands = s.cmds.snapshot()
	if len(s.attempts) > 0 && !s.merged {
		// A set stopped early still leaves the rows it judged.
		if err := s.writeMerged(); err != nil {
			cause = errors.Join(cause, err)
		}
	}
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
	s.writableAgain()
	if werr := s.t.write(s.path); werr != nil {
		s.trackingErr = werr
		fmt.Fprintf(s.log, "set %s: %s; could not write tracking.json: %v\n", s.opts.Set, status, werr)
		return errors.Join(cause, fmt.Errorf("set %s: could not write tracking.json: %w", s.opts.Set, werr))
	}
	fmt.Fprintf(s.log, "set %s: %s (tracking: %s)\n", s.opts.Set, status, s.path)
	if s.opts.InRun {
		s.noteWritten()
	}
	return cause
}

// writableAgain gives the set folder back its owner's write permission
// when a benchmark took it away during the run (benchgate runs as the
// folder's owner, as the benchmark does): tracking.json must still get
// its final status.
func (s *set) writableAgain() {
	dir := filepath.Dir(s.path)
	info, err := os.Lstat(dir)
	if err != nil || !info.IsDir() || info.Mode().Perm()&0o200 != 0 {
		return
	}
	chmodFolder(dir, info.Mode().Perm()|0o700)
	fmt.Fprintf(s.log, "set %s: the set folder %s was made read-only (%04o) during the run; made writable again to write tracking.json\n",
		s.opts.Set, dir, info.Mode().Perm())
}

// noteWritten records what the set wrote last into its folder, for
// ordered: a later set's benchmark can reach these files as it can the
// attempt files.
func (s *set) noteWritten() {
	s.written, s.summaries = nil, map[string][]byte{}
	var paths []string
	for _, m := range bench.Modes {
		paths = append(paths, s.suitePath(m))
	}
	paths = append(paths, s.summaryJSON(), s.summaryMD(), s.path)
	for _, p := range paths {
		sum, _, err := hashFile(context.Background(), p)
		if err != nil {
			continue // never written (a set stopped early)
		}
		s.written = append(s.written, writtenFile{p, sum})
		if p == s.summaryJSON() || p == s.summaryMD() {
			if data, err := os.ReadFile(p); err == nil {
				s.summaries[p] = data
			}
		}
	}
}

// recheckWritten hashes again what noteWritten recorded and returns one
// message per file that changed. The suite files are derived again from
// the judged rows and the summaries put back from their bytes;
// tracking.json is written again by the caller.
func (s *set) recheckWritten(ctx context.Context) []string {
	var msgs []string
	remerge := false
	for _, w := range s.written {
		sum, n, err := hashFile(ctx, w.path)
		if err == nil && sum == w.sha256 {
			continue
		}
		if err != nil && ctx.Err() != nil {
			return append(msgs, fmt.Sprintf("%s: not hashed again: %v", w.path, context.Cause(ctx)))
		}
		now := "deleted"
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			now = "unreadable: " + err.Error()
		default:
			now = fmt.Sprintf("changed (%s now, sha256 %s)", textfmt.Count(int(n), "byte", "bytes"), sum)
		}
		msg := fmt.Sprintf("%s: written with sha256 %s, then %s", w.path, w.sha256, now)
		if data, ok := s.summaries[w.path]; ok {
			if err := fsutil.WriteFileAtomic(w.path, data, 0o644); err != nil {
				msg += "; could not be put back: " + err.Error()
			} else {
				msg += "; put back"
			}
		} else if w.path != s.path {
			remerge = true
			msg += "; derived again from the judged rows"
		} else {
			msg += "; written again"
		}
		msgs = append(msgs, msg)
	}
	if remerge {
		if err := s.writeMerged(); err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	return msgs
}

// ModelSlug makes a model name safe for a path segment, as upstream does.
func ModelSlug(model string) string { return ident.Sanitize(model, "-") }

// BaseDir is the seed's run-level folder:
// <bench dir>/reports/verification-<date>-<model>-by-set.
func BaseDir(benchDir string, now time.Time, model string) string {
	return filepath.Join(benchDir, "reports", "verification-"+now.Format("2006-01-02")+"-"+ModelSlug(model)+"-by-set")
}

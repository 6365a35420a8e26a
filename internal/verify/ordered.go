package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/bench"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/proc"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// OrderedOptions configures an ordered run over bench.OrderedSets.
type OrderedOptions struct {
	Config      bench.Config
	Provider    string
	Model       string
	Repetitions int
	// BaseDir is the run-level folder; each set gets BaseDir/<set>.
	BaseDir         string
	FixtureManifest string
	// CleanupOnFailure also runs the fixture cleanup after a terminal stop.
	CleanupOnFailure bool
	// Confirm runs the canonical confirmation commands after all sets
	// passed; otherwise they are printed as ready commands.
	Confirm     bool
	GateProfile string
	// Stats gives every set's report the statistical gate.
	Stats  bool
	Report Reporter
	Log    io.Writer
	// Stdout receives the consolidated summary path and the handoff.
	Stdout io.Writer
	// Progress prints each set's progress lines (SetOptions.Progress),
	// with the set's place in the run.
	Progress bool
	// OnSet, when set, is called after each set with the sets run so far
	// (the command line renders them as a growing table).
	OnSet func(sets []*SetResult)
	Now   func() time.Time
}

// Consolidated is consolidated-summary.json: one entry per ordered set.
type Consolidated struct {
	// RunID is the ordered run that owns the folder and wrote this file.
	RunID       string `json:"run_id"`
	Provider    string `json:"provider"`
	Model       string `json:"model"`
	Repetitions int    `json:"repetitions"`
	BaseDir     string `json:"base_dir"`
	Preflight   string `json:"preflight"`
	// FixtureManifest is the shared manifest as the preflight found it
	// (path, SHA-256, repository); every set checks that it is still
	// that file before it runs.
	FixtureManifest *bench.ManifestIdentity `json:"fixture_manifest,omitempty"`
	Status          string                  `json:"status"`
	StoppedAt       string                  `json:"stopped_at,omitempty"`
	Error           string                  `json:"error,omitempty"`
	Sets            []SetSummary            `json:"sets"`
	Cleanup         *CommandRecord          `json:"cleanup,omitempty"`
	Confirmation    []Confirmation          `json:"confirmation"`
	// ConfirmationModel is the provider/model the confirmation commands
	// run on (the seed's canonical one), which may differ from Model.
	ConfirmationModel string          `json:"confirmation_model,omitempty"`
	Commands          []CommandRecord `json:"commands"`
	Totals            map[string]int  `json:"totals"`
	Checks            Checks          `json:"checks"`
}

// SetSummary is one set's line of the consolidated summary, read back from
// the set folder's tracking.json.
type SetSummary struct {
	Set              string         `json:"set"`
	SeedPolicy       string         `json:"seed_policy"`
	Status           string         `json:"status"`
	RowsExpected     map[string]int `json:"rows_expected,omitempty"`
	RowsActual       map[string]int `json:"rows_actual,omitempty"`
	FailingScenarios []string       `json:"failing_scenarios,omitempty"`
	Reruns           int            `json:"reruns"`
	GatePassed       *bool          `json:"gate_passed,omitempty"`
	// StatsVerdict is the set's statistical gate (pass, fail,
	// inconclusive, underpowered), recorded like GatePassed; empty
	// without --stats.
	StatsVerdict string `json:"stats_verdict,omitempty"`
	Tracking     string `json:"tracking,omitempty"`
}

// Confirmation is one canonical confirmation command and, when run, its
// outcome.
type Confirmation struct {
	Name     string `json:"name"`
	Command  string `json:"command"`
	Ran      bool   `json:"ran"`
	ExitCode *int   `json:"exit_code,omitempty"`
	// Log is the file the confirmation's output went to, when it ran.
	Log string `json:"log,omitempty"`
}

// OrderedResult is what RunOrdered leaves behind.
type OrderedResult struct {
	Summary     *Consolidated
	SummaryJSON string
	SummaryMD   string
	// Sets are the sets this run started, in the order they ran; the
	// last one is where a failing run stopped.
	Sets []*SetResult
}

// Passed reports whether every set passed (and any confirmation run).
func (r *OrderedResult) Passed() bool { return r != nil && r.Summary.Status == StatusPass }

// RunOrdered runs the preflight once, then the nine sets in order,
// stopping at the first set that does not pass; it always writes the
// consolidated summary over the set folders.
func RunOrdered(ctx context.Context, o OrderedOptions) (*OrderedResult, error) {
	o = o.withDefaults()
	if o.Provider == "" {
		return nil, fmt.Errorf("%w: provider: expected a provider ID such as openai, got none", ErrBadInput)
	}
	if err := checkOrderedSets(o.Config, o.Log); err != nil {
		return nil, err
	}
	shared := o.FixtureManifest
	if shared == "" {
		shared = o.Config.Path(o.Config.FixtureManifest)
	}
	if err := bench.CheckManifestIfPresent(shared); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	runID := newRunID(o.Now())
	c := &Consolidated{RunID: runID, Provider: o.Provider, Model: o.Model, Repetitions: o.Repetitions, BaseDir: o.BaseDir,
		Status: StatusFail, Confirmation: []Confirmation{}, ConfirmationModel: confirmationModel(o.Config.Confirm)}
	run := &orderedRun{o: o, c: c, shared: shared, ran: map[string]string{}, cmds: newCommands(o.Config),
		runLogs: filepath.Join(o.BaseDir, "_run", runID, "logs"),
		res: &OrderedResult{Summary: c, SummaryJSON: filepath.Join(o.BaseDir, "consolidated-summary.json"),
			SummaryMD: filepath.Join(o.BaseDir, "consolidated-summary.md")}}
	// The run owns its folder from here to its exit: a second run into
	// the same folder (the default one is shared by every run of a day
	// and model) is refused at once and touches nothing, and only the
	// owner writes the set folders and the consolidated summary.
	lock, err := lockExclusive(o.BaseDir, Holder{Command: "ordered", PID: os.Getpid(),
		StartedAt: o.Now().UTC().Format(holderTime), RunID: runID}, "--out-dir")
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	fmt.Fprintf(o.Log, "ordered: run %s owns %s\n", runID, o.BaseDir)

	// The sets keep their judged files read-only, with private copies,
	// until every set has run and they were checked again.
	defer func() {
		for _, r := range run.res.Sets {
			r.release()
		}
	}()

	run.preflightAndSets(ctx)
	if c.Status == StatusPass || (o.CleanupOnFailure && c.Preflight == "pass") {
		run.cleanup(ctx)
	}
	var confirmed []Confirmation
	if c.Status == StatusPass {
		confirmed = run.confirm(ctx)
	}
	run.recheckEvidence(ctx)
	c.Commands = run.cmds.snapshot()
	collect(c, o.BaseDir, run.ran)
	if err := writeConsolidated(run.res); err != nil {
		return run.res, err
	}
	fmt.Fprintln(o.Stdout, run.res.SummaryJSON)
	run.handoff(confirmed)
	return run.res, nil
}

func (o OrderedOptions) withDefaults() OrderedOptions {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// checkOrderedSets refuses a scenario-sets file that lacks one of the
// ordered sets or leaves one empty, before anything runs.
func checkOrderedSets(cfg bench.Config, log io.Writer) error {
	sets, err := bench.LoadScenarioSets(cfg.Path(cfg.ScenarioSets))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	var missing []string
	for _, name := range bench.OrderedSets {
		if _, ok := sets.Sets[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: scenario sets %s: missing ordered set(s) %s", ErrBadInput, sets.Path, strings.Join(missing, ", "))
	}
	var empty []string
	for _, name := range bench.OrderedSets {
		if len(sets.Sets[name]) == 0 {
			empty = append(empty, name)
		}
	}
	if len(empty) > 0 {
		return fmt.Errorf("%w: scenario sets %s: ordered set(s) %s have no scenarios: expected a non-empty array of scenario IDs for each",
			ErrBadInput, sets.Path, strings.Join(empty, ", "))
	}
	if w := sets.EmptyWarning(bench.OrderedSets...); w != "" {
		fmt.Fprintf(log, "ordered: %s\n", w)
	}
	return nil
}

// orderedRun is one ordered run in progress; its steps fill c.
type orderedRun struct {
	o      OrderedOptions
	c      *Consolidated
	res    *OrderedResult
	cmds   *commands
	shared string // the fixture manifest every set shares
	// runLogs is the folder of the run's own commands' logs.
	runLogs string
	// ran holds the run ID of every set this invocation started: a set
	// folder left by an earlier run in the same out-dir is not this run's
	// result.
	ran map[string]string
}

// fail marks a run that had passed so far as failed with err; a run
// that already failed keeps its first error.
func (run *orderedRun) fail(err error) {
	fmt.Fprintf(run.o.Log, "ordered: %v\n", err)
	if run.c.Status == StatusPass {
		run.c.Status = StatusFail
		run.c.Error = err.Error()
	}
}

// preflightAndSets runs the fixture preflight and, when it passes, the
// sets in order up to the first that does not pass.
func (run *orderedRun) preflightAndSets(ctx context.Context) {
	o, c := run.o, run.c
	fmt.Fprintf(o.Log, "ordered: fixture preflight on %s\n", run.shared)
	if err := Preflight(ctx, o.Config, run.shared, filepath.Join(run.runLogs, "preflight.log"), run.cmds); err != nil {
		c.Preflight = "fail"
		c.Error = err.Error()
		fmt.Fprintf(o.Log, "ordered: %v\n", err)
		return
	}
	id, err := bench.ReadManifestIdentity(run.shared)
	if err != nil {
		c.Preflight = "fail"
		c.Error = fmt.Sprintf("fixture preflight: %v", err)
		fmt.Fprintf(o.Log, "ordered: %s\n", c.Error)
		return
	}
	c.Preflight = "pass"
	c.Status = StatusPass
	c.FixtureManifest = &id
	for i, name := range bench.OrderedSets {
		if ctx.Err() != nil {
			c.Status = StatusFail
			c.StoppedAt = name
			c.Error = fmt.Sprintf("stopped before set %s: %v", name, context.Cause(ctx))
			return
		}
		if !run.set(ctx, i, name) {
			return
		}
	}
}

// set runs the i-th ordered set and says whether the run goes on.
func (run *orderedRun) set(ctx context.Context, i int, name string) bool {
	o, c := run.o, run.c
	r, err := RunSet(ctx, SetOptions{
		Config: o.Config, Set: name, Provider: o.Provider, Model: o.Model, Repetitions: o.Repetitions,
		OutDir: filepath.Join(o.BaseDir, name), SkipPreflight: true, InRun: true, FixtureManifest: run.shared, SharedManifest: c.FixtureManifest,
		GateProfile: o.GateProfile, Stats: o.Stats, Report: o.Report, Log: o.Log, Now: o.Now,
		Progress: o.Progress, Position: fmt.Sprintf("set %d of %d", i+1, len(bench.OrderedSets)),
	})
	if r != nil {
		run.ran[name] = r.Tracking.RunID
		run.res.Sets = append(run.res.Sets, r)
		if o.OnSet != nil {
			o.OnSet(run.res.Sets)
		}
	}
	if err == nil && r.Passed() {
		return true
	}
	c.Status = StatusFail
	if r != nil {
		c.Status = r.Tracking.FinalStatus
	}
	c.StoppedAt = name
	if err != nil {
		c.Error = err.Error()
	} else if r != nil && r.Tracking.Error != "" {
		c.Error = r.Tracking.Error
	}
	fmt.Fprintf(o.Log, "ordered: stopped at set %s (%s): %s\n", name, c.Status, c.Error)
	return false
}

// cleanup runs the fixture cleanup, even when the run was cancelled:
// after a SIGTERM, within the stop budget.
func (run *orderedRun) cleanup(ctx context.Context) {
	o := run.o
	logPath := filepath.Join(run.runLogs, "cleanup.log")
	cctx, cancel := proc.AfterStop(ctx)
	argv := o.Config.FixturesArgv("cleanup", run.shared, "")
	rec, err := run.cmds.run(cctx, "cleanup", o.Config.BenchDir, argv, o.Config.Env, time.Duration(o.Config.FixturesTimeout), logPath)
	cancel()
	run.c.Cleanup = &rec
	if err == nil && rec.ExitCode != 0 {
		err = fmt.Errorf("fixture cleanup %s (log: %s)", ended(rec), logPath)
		if rec.Cancelled {
			err = fmt.Errorf("%w; run it again yourself: %s", err, pasteable(o.Config.BenchDir, o.Config.Env, argv))
		}
	}
	if err != nil {
		run.fail(err)
	}
}

// confirm lists the canonical confirmation commands in the summary and,
// with --confirm, runs them, returning those that ran.
func (run *orderedRun) confirm(ctx context.Context) []Confirmation {
	o, c := run.o, run.c
	var confirmed []Confirmation
	var failed []string
	for i, cmd := range o.Config.Confirm {
		conf := Confirmation{Name: cmd.Name, Command: envPrefix(cmd.Env) + proc.String(cmd.Argv)}
		if o.Confirm {
			logPath := filepath.Join(run.runLogs, fmt.Sprintf("confirm-%d.log", i))
			rec, err := run.cmds.run(ctx, "confirm-"+cmd.Name, o.Config.BenchDir, cmd.Argv, append(append([]string(nil), o.Config.Env...), cmd.Env...),
				time.Duration(o.Config.BenchmarkTimeout), logPath)
			conf.Ran = true
			code := rec.ExitCode
			conf.ExitCode = &code
			if err != nil || rec.ExitCode != 0 {
				msg := fmt.Sprintf("%s (%s, log: %s)", cmd.Name, ended(rec), logPath)
				failed = append(failed, msg)
				fmt.Fprintf(o.Log, "ordered: confirmation %s did not succeed\n", msg)
			}
			conf.Log = logPath
			confirmed = append(confirmed, conf)
		}
		c.Confirmation = append(c.Confirmation, conf)
	}
	if len(failed) > 0 {
		c.Status = StatusFail
		c.Error = "confirmation did not succeed: " + strings.Join(failed, "; ")
	}
	return confirmed
}

// recheckEvidence checks that what each set judged is still what its
// files hold: a later set's benchmark could reach an earlier set's
// files, and so could the fixture cleanup and the confirmation commands;
// the summary reads each set's tracking.json.
func (run *orderedRun) recheckEvidence(ctx context.Context) {
	rctx, cancel := proc.AfterStop(ctx)
	defer cancel()
	for _, r := range run.res.Sets {
		if err := r.recheckEvidence(rctx); err != nil {
			run.fail(err)
		}
	}
}

// handoff prints, after the summary's path, the confirmation commands
// ready to run when every set passed, or the outcome of those that ran.
func (run *orderedRun) handoff(confirmed []Confirmation) {
	o, c := run.o, run.c
	if c.Status == StatusPass && !o.Confirm {
		fmt.Fprintf(o.Stdout, "All sets passed. %s.\nReady to run:\n", confirmationIntro(o.Model, c.ConfirmationModel))
		for _, cmd := range o.Config.Confirm {
			fmt.Fprintf(o.Stdout, "  %s\n", pasteable(o.Config.BenchDir, cmd.Env, cmd.Argv))
		}
	}
	if len(confirmed) > 0 {
		// With --confirm the confirmations ran: say so where the handoff
		// would have been, each with its exit code and log.
		fmt.Fprintf(o.Stdout, "%s:\n", confirmationIntro(o.Model, c.ConfirmationModel))
		for _, conf := range confirmed {
			state := "ok"
			if conf.ExitCode == nil || *conf.ExitCode != 0 {
				state = "did not succeed"
			}
			code := -1
			if conf.ExitCode != nil {
				code = *conf.ExitCode
			}
			fmt.Fprintf(o.Stdout, "  %s: %s (exit %d, log: %s)\n", conf.Name, state, code, conf.Log)
		}
	}
}

// pasteable is a confirmation command as a line a person can paste into
// a shell and have it run as benchgate would run it: in the benchmark's
// folder, with the command's program as benchgate found it on its PATH
// (a program on PATH only inside a script, as the simulator is in
// scripts/demo.sh, would otherwise not be found).
func pasteable(dir string, env, argv []string) string {
	argv = append([]string(nil), argv...)
	if len(argv) > 0 && !strings.Contains(argv[0], "/") {
		if p, err := exec.LookPath(argv[0]); err == nil {
			if ap, err := filepath.Abs(p); err == nil {
				argv[0] = ap
			}
		}
	}
	line := envPrefix(env) + proc.String(argv)
	if dir != "" {
		line = "cd " + proc.String([]string{dir}) + " && " + line
	}
	return line
}

func envPrefix(env []string) string {
	if len(env) == 0 {
		return ""
	}
	return proc.String(env) + " "
}

// collect reads each set folder's tracking.json: the consolidated summary
// is built from what the set folders hold, not from memory, so it can be
// regenerated and audited from the artifacts alone. With ran non-nil,
// only a tracking.json carrying the run ID ran gives for its set counts;
// a set folder an earlier run left behind shows as not_run.
func collect(c *Consolidated, base string, ran map[string]string) {
	c.Sets = nil
	c.Totals = map[string]int{}
	c.Checks = Checks{}
	for _, name := range bench.OrderedSets {
		ss := SetSummary{Set: name, SeedPolicy: string(bench.PolicyFor(name)), Status: "not_run"}
		path := filepath.Join(base, name, "tracking.json")
		t, err := ReadTracking(path)
		if err == nil && (ran == nil || (ran[name] != "" && t.RunID == ran[name])) {
			ss.Status = t.FinalStatus
			ss.RowsExpected, ss.RowsActual = t.RowsExpected, t.RowsActual
			ss.FailingScenarios = t.FailingScenarios
			ss.Reruns = len(t.Reruns)
			ss.Tracking = path
			if t.Gate != nil && t.Gate.Ran {
				p := t.Gate.Passed
				ss.GatePassed = &p
				if t.Gate.Stats != nil {
					ss.StatsVerdict = t.Gate.Stats.Verdict
				}
			}
			for m, n := range t.RowsActual {
				c.Totals["rows_"+m] += n
			}
			c.Checks.add(t.Checks)
		} else if err != nil && !errors.Is(err, os.ErrNotExist) && (ran == nil || ran[name] != "") {
			ss.Status = "unreadable"
		}
		c.Totals["sets_"+ss.Status]++
		c.Sets = append(c.Sets, ss)
	}
}

func writeConsolidated(r *OrderedResult) error {
	if err := fsutil.WriteJSONAtomic(r.SummaryJSON, r.Summary); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(r.SummaryMD, []byte(consolidatedMarkdown(r.Summary)), 0o644)
}

func consolidatedMarkdown(c *Consolidated) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Set-by-set verification: %s/%s\n\n", textfmt.Cell(c.Provider), textfmt.Cell(c.Model))
	fmt.Fprintf(&b, "- Status: **%s**\n- Repetitions: %d\n- Fixture preflight: %s\n", c.Status, c.Repetitions, c.Preflight)
	if c.StoppedAt != "" {
		fmt.Fprintf(&b, "- Stopped at: %s\n", textfmt.Code(c.StoppedAt))
	}
	if c.Error != "" {
		fmt.Fprintf(&b, "- Error: %s\n", textfmt.Cell(c.Error))
	}
	// The statistical gate gets a column only when a set has one, so a
	// run without --stats writes what it always wrote.
	withStats := false
	for _, s := range c.Sets {
		withStats = withStats || s.StatsVerdict != ""
	}
	statsHead, statsRule := "", ""
	if withStats {
		statsHead, statsRule = " Stats |", "---|"
	}
	fmt.Fprintf(&b, "\n| # | Set | Seed policy | Status | Rows agent_direct | Rows ghx | Reruns | Gate |%s Failing scenarios |\n", statsHead)
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|%s---|\n", statsRule)
	for i, s := range c.Sets {
		gate := "-"
		if s.GatePassed != nil {
			gate = map[bool]string{true: "PASS", false: "FAIL"}[*s.GatePassed]
		}
		rows := func(m string) string {
			if s.RowsExpected == nil {
				return "-"
			}
			return fmt.Sprintf("%d/%d", s.RowsActual[m], s.RowsExpected[m])
		}
		failing := "-"
		if len(s.FailingScenarios) > 0 {
			failing = strings.Join(s.FailingScenarios, ", ")
		}
		statsCell := ""
		if withStats {
			v := "-"
			if s.StatsVerdict != "" {
				v = strings.ToUpper(s.StatsVerdict)
			}
			statsCell = " " + v + " |"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %d | %s |%s %s |\n", i+1, textfmt.CodeCell(s.Set), s.SeedPolicy, s.Status,
			rows("agent_direct"), rows("ghx"), s.Reruns, gate, statsCell, textfmt.Cell(failing))
	}
	fmt.Fprintf(&b, "\nRow checks over all sets: success %d pass / %d fail, output_valid %d / %d, error_null %d / %d.\n",
		c.Checks.Success.Pass, c.Checks.Success.Fail, c.Checks.OutputValid.Pass, c.Checks.OutputValid.Fail,
		c.Checks.ErrorNull.Pass, c.Checks.ErrorNull.Fail)
	if c.Cleanup != nil {
		fmt.Fprintf(&b, "\nFixture cleanup: exit %d.\n", c.Cleanup.ExitCode)
	}
	if len(c.Confirmation) > 0 {
		b.WriteString("\n## Canonical confirmation\n\n")
		if c.ConfirmationModel != "" {
			fmt.Fprintf(&b, "%s.\n\n", confirmationIntro(c.Model, c.ConfirmationModel))
		}
		for _, conf := range c.Confirmation {
			state := "ready to run"
			if conf.Ran && conf.ExitCode != nil {
				state = fmt.Sprintf("ran, exit %d", *conf.ExitCode)
			}
			fmt.Fprintf(&b, "- %s (%s): %s\n", textfmt.Code(conf.Name), state, textfmt.Code(conf.Command))
		}
	}
	return b.String()
}

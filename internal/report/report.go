// Package report computes Metric System v2 over benchmark suite rows: a
// summary per mode, a profiling snapshot, the suite-level delta of ghx
// against agent_direct, and gate v2, which judges reliability on all rows
// and efficiency on the stable sample with scenario-stratified medians. It
// writes the summary as JSON and as Markdown in the benchmark's layout.
package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/suite"
	"golang.org/x/sync/errgroup"
)

// Options are the inputs of one report; the report command's flags map
// onto them one to one.
type Options struct {
	// SuitePaths are the suite JSONL files. Empty: discover
	// results/*-suite.jsonl under Dir and use the last file per mode.
	SuitePaths []string
	// Dir resolves relative paths; "" is the process's working directory.
	Dir string
	// Gate makes a failing gate an error (ErrGateFailed) and prints the
	// gate lines.
	Gate bool
	// GateProfile is verify_pr (default), verify_release or pr_fast.
	GateProfile string
	// ExpectationsConfig is the model-aware thresholds file; empty means
	// config/expectations.json under Dir when it exists.
	ExpectationsConfig string
	// ExpectationsModel picks the "provider/model" entry of the file.
	ExpectationsModel string
	// SummaryJSON and SummaryMD are written on every successful read of
	// the rows, gate passing or not; empty means reports/latest-summary.*.
	SummaryJSON, SummaryMD string
	// SkipBadRows skips malformed rows (they are counted and listed in
	// the result) instead of stopping at the first.
	SkipBadRows bool
	// Stdout receives the "Wrote" and gate lines; nil discards them.
	Stdout io.Writer
	// Now stamps generatedAt; nil is time.Now.
	Now func() time.Time
	// Stats adds the statistical gate (stats.go); the v2 summary does
	// not change.
	Stats StatsOptions
}

// GateResult is the outcome of gate v2 in the form callers need.
type GateResult struct {
	Profile string
	Passed  bool
	Checks  []Check
	// ExpectationsModel is the expectations entry used, "" for the
	// built-in thresholds.
	ExpectationsModel string
	Thresholds        Thresholds
}

// Result is what Run computed and wrote.
type Result struct {
	Summary     *Summary
	Gate        GateResult
	SuitePaths  []string // the files read, after discovery
	SkippedRows int
	BadRows     []*suite.Diagnostic // the skipped rows, first 100
	// Warnings are notes on rows that were read: a scenario_id holding a
	// control character, named by file and line (first 100).
	Warnings    []string
	SummaryJSON string // absolute paths written
	SummaryMD   string
	// Stats is the statistical gate, with its files; nil without
	// Options.Stats.
	Stats              *StatsReport
	StatsJSON, StatsMD string
}

// ErrGateFailed is returned (wrapped, with the Result) when Options.Gate
// is set and the gate does not pass.
var ErrGateFailed = errors.New("Benchmark gate failed")

// maxBadRowsKept bounds Result.BadRows; SkippedRows still counts all.
const maxBadRowsKept = 100

// Run reads the suites, computes the summary and the gate, writes both
// summary files atomically (parents created) and prints the result lines.
// Bad input (unreadable or malformed suites, no rows, suites that are not
// comparable across modes, an unknown profile, a broken expectations file)
// is an error and writes nothing. A failing gate is an error wrapping
// ErrGateFailed only when opts.Gate is set; the Result is returned with it.
func Run(ctx context.Context, opts Options) (*Result, error) {
	profile, err := ParseProfile(opts.GateProfile)
	if err != nil {
		return nil, err
	}
	out := opts.Stdout
	if out == nil {
		out = io.Discard
	}
	paths, err := suitePaths(opts)
	if err != nil {
		return nil, err
	}
	res := &Result{SuitePaths: paths}
	accs, err := readSuites(ctx, paths, opts.SkipBadRows, res)
	if err != nil {
		return nil, err
	}
	if len(accs) == 0 {
		return nil, fmt.Errorf("No benchmark result rows found in %s", strings.Join(paths, ", "))
	}
	var ad, ghx *modeAcc
	for _, a := range accs {
		switch a.mode {
		case suite.ModeAgentDirect:
			ad = a
		case suite.ModeGhx:
			ghx = a
		}
	}
	if ad != nil && ghx != nil {
		if err := checkCohort(ad, ghx); err != nil {
			return nil, err
		}
	}
	th, model, err := resolveThresholds(opts, profile, inferModels(accs, ad, ghx))
	if err != nil {
		return nil, err
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	generatedAt := now().UTC().Format("2006-01-02T15:04:05.000Z")
	s := buildSummary(accs, th, profile, generatedAt)
	res.Summary = s
	res.Gate = GateResult{Profile: profile, Passed: s.GateV2.Passed, Checks: s.GateV2.Checks, ExpectationsModel: model, Thresholds: th}

	jsonPath := resolvePath(opts.Dir, orDefault(opts.SummaryJSON, "reports/latest-summary.json"))
	mdPath := resolvePath(opts.Dir, orDefault(opts.SummaryMD, "reports/latest-summary.md"))
	data, err := s.MarshalIndent()
	if err != nil {
		return nil, fmt.Errorf("encode summary: %w", err)
	}
	if opts.Stats.Enabled {
		if res.Stats, err = statsFor(accs, s, th, opts.Stats, jsonPath); err != nil {
			return nil, err
		}
	}
	if err := fsutil.WriteFileAtomic(jsonPath, data, 0o644); err != nil {
		return nil, err
	}
	if err := fsutil.WriteFileAtomic(mdPath, []byte(Markdown(s)), 0o644); err != nil {
		return nil, err
	}
	res.SummaryJSON, res.SummaryMD = jsonPath, mdPath
	fmt.Fprintf(out, "Wrote %s\n", jsonPath)
	fmt.Fprintf(out, "Wrote %s\n", mdPath)
	if err := writeStats(res, opts, jsonPath, out); err != nil {
		return nil, err
	}
	if !opts.Gate {
		return res, nil
	}
	fmt.Fprintf(out, "Benchmark verify profile: %s\n", profile)
	var models []string
	for _, mode := range []string{suite.ModeAgentDirect, suite.ModeGhx} {
		if m := s.Modes.Get(mode); m != nil {
			models = append(models, mode+"="+m.ModelSignature)
		}
	}
	if len(models) > 0 {
		fmt.Fprintf(out, "Benchmark model(s): %s\n", strings.Join(models, "; "))
	}
	if model != "" {
		fmt.Fprintf(out, "Benchmark expectations model: %s\n", model)
	}
	fmt.Fprintf(out, "Benchmark verify result: %s\n", passFail(s.GateV2.Passed))
	for _, c := range s.GateV2.Checks {
		fmt.Fprintf(out, " - [%s] %s: value=%s %s threshold=%s\n", passFail(c.Passed), c.Name, ToFixed(c.Value, 2), c.Operator, ToFixed(c.Threshold, 2))
	}
	if res.Stats != nil {
		return res, statsGate(res.Stats, out)
	}
	if !s.GateV2.Passed {
		return res, fmt.Errorf("%w for profile %s", ErrGateFailed, profile)
	}
	return res, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func resolvePath(dir, p string) string {
	if filepath.IsAbs(p) || dir == "" {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
		return p
	}
	return filepath.Join(dir, p)
}

// suitePaths returns the files to read: the given ones, or the last
// results/*-suite.jsonl per mode (names sort by their timestamp prefix, so
// the last is the newest run of that mode).
func suitePaths(opts Options) ([]string, error) {
	if len(opts.SuitePaths) > 0 {
		out := make([]string, len(opts.SuitePaths))
		for i, p := range opts.SuitePaths {
			out[i] = resolvePath(opts.Dir, p)
		}
		return out, nil
	}
	dir := resolvePath(opts.Dir, "results")
	matches, err := filepath.Glob(filepath.Join(dir, "*-suite.jsonl"))
	if err != nil {
		return nil, err
	}
	sort.Strings(matches)
	latest := map[string]string{}
	for _, m := range matches {
		base := filepath.Base(m)
		for _, mode := range []string{suite.ModeAgentDirect, suite.ModeMCP, suite.ModeGhx} {
			if strings.HasSuffix(base, "-"+mode+"-suite.jsonl") {
				latest[mode] = m
			}
		}
	}
	var out []string
	for _, mode := range []string{suite.ModeAgentDirect, suite.ModeMCP, suite.ModeGhx} {
		if p, ok := latest[mode]; ok {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("No benchmark result rows found: no <timestamp>-<agent_direct|mcp|ghx>-suite.jsonl in %s (name the files with %w)", dir, exitcode.Optionf("suite_jsonl", ""))
	}
	return out, nil
}

// fileAcc is what one file contributed, modes in first-appearance order.
type fileAcc struct {
	modes   []*modeAcc
	rows    int
	skipped int
	bad     []*suite.Diagnostic
	notes   []string
}

// readSuites reads the files concurrently (one file per CPU at a time; a
// suite pair keeps both cores busy) and merges the per-mode accumulators
// in file order, so modes keep the order in which they first appear.
func readSuites(ctx context.Context, paths []string, skipBad bool, res *Result) ([]*modeAcc, error) {
	accs := make([]*fileAcc, len(paths))
	errs := make([]error, len(paths))
	// Each file keeps its own error, so that every broken file is named.
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, p := range paths {
		g.Go(func() error {
			accs[i], errs[i] = readSuite(ctx, p, skipBad)
			return nil
		})
	}
	_ = g.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var merged []*modeAcc
	for _, fa := range accs {
		res.SkippedRows += fa.skipped
		for _, n := range fa.notes {
			if len(res.Warnings) < maxBadRowsKept {
				res.Warnings = append(res.Warnings, n)
			}
		}
		for _, pe := range fa.bad {
			if len(res.BadRows) < maxBadRowsKept {
				res.BadRows = append(res.BadRows, pe)
			}
		}
		for _, a := range fa.modes {
			found := false
			for _, m := range merged {
				if m.mode == a.mode {
					m.merge(a)
					found = true
					break
				}
			}
			if !found {
				merged = append(merged, a)
			}
		}
	}
	return merged, nil
}

func readSuite(ctx context.Context, path string, skipBad bool) (*fileAcc, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fa := &fileAcc{}
	// report only reports: it reads rows as upstream's report does
	// (any non-empty scenario_id, any sub-timing), and shows IDs
	// escaped.
	opts := suite.ReadOptions{Upstream: true}
	if skipBad {
		opts.OnBadRow = func(pe *suite.Diagnostic) error {
			fa.skipped++
			if len(fa.bad) < maxBadRowsKept {
				fa.bad = append(fa.bad, pe)
			}
			return nil
		}
	}
	var cur *modeAcc
	// Only a regular file is read (a FIFO or a link to a device is
	// refused at once), at most suite.MaxFileBytes of it, and the read
	// stops when ctx does.
	src, err := suite.Open(ctx, path, true)
	if err != nil {
		return nil, fmt.Errorf("suite file %w", err)
	}
	defer src.Close()
	lastID := ""
	err = suite.Read(src, path, opts, func(r *suite.Row) error {
		fa.rows++
		if r.ScenarioID != lastID {
			lastID = r.ScenarioID
			if suite.HasControl(r.ScenarioID) && len(fa.notes) < maxBadRowsKept {
				fa.notes = append(fa.notes, fmt.Sprintf("%s:%d: scenario_id %s holds a control character; it is shown escaped",
					path, r.Line, suite.ShowID(r.ScenarioID)))
			}
		}
		if cur == nil || cur.mode != r.Mode {
			cur = nil
			for _, a := range fa.modes {
				if a.mode == r.Mode {
					cur = a
				}
			}
			if cur == nil {
				cur = newModeAcc(r.Mode)
				fa.modes = append(fa.modes, cur)
			}
		}
		cur.add(r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if fa.rows == 0 {
		if fa.skipped > 0 {
			return nil, fmt.Errorf("suite file %s: no readable rows (%d skipped as malformed)", path, fa.skipped)
		}
		return nil, fmt.Errorf("suite file %s: no rows (the file is empty)", path)
	}
	return fa, nil
}

// shownSet is a set's values as checkCohort's message shows them: sorted,
// each as suite.ShowID shows an ID, joined by commas.
func shownSet(m map[string]struct{}) string {
	vs := sortedSet(m)
	for i, v := range vs {
		vs[i] = suite.ShowID(v)
	}
	return strings.Join(vs, ",")
}

// checkCohort refuses to compare suites that did not run the same thing:
// the scenario sets, scenario ids, model signatures and (when both are
// known) git commits of agent_direct and ghx must be equal.
func checkCohort(ad, ghx *modeAcc) error {
	var problems []string
	cmp := func(name string, a, g map[string]struct{}, skipIfNull bool) {
		as, gs := strings.Join(sortedSet(a), ","), strings.Join(sortedSet(g), ",")
		if skipIfNull && (as == "<null>" || gs == "<null>") {
			return
		}
		if as != gs {
			// A value from the rows is shown escaped where it holds a
			// line break or a control character, so that the message
			// stays one line that no runner reads as a workflow command.
			problems = append(problems, fmt.Sprintf("%s: agent_direct=%s ghx=%s", name, shownSet(a), shownSet(g)))
		}
	}
	cmp("scenario_set", ad.scenarioSets, ghx.scenarioSets, false)
	cmp("scenario_ids", keySet(ad.scenarioOrder), keySet(ghx.scenarioOrder), false)
	cmp("model", ad.signatures, ghx.signatures, false)
	cmp("git_commit", ad.commits, ghx.commits, true)
	if len(problems) > 0 {
		return fmt.Errorf("Latest benchmark files are not comparable across modes: %s", strings.Join(problems, "; "))
	}
	return nil
}

func keySet(ids []string) map[string]struct{} {
	m := make(map[string]struct{}, len(ids))
	for _, id := range ids {
		m[id] = struct{}{}
	}
	return m
}

// inferModels lists the provider/model pairs of the agent_direct and ghx
// rows (of all rows when neither mode is present), sorted.
func inferModels(accs []*modeAcc, ad, ghx *modeAcc) []string {
	set := map[string]struct{}{}
	for _, a := range accs {
		if (ad != nil || ghx != nil) && a != ad && a != ghx {
			continue
		}
		for k := range a.models {
			set[k] = struct{}{}
		}
	}
	return sortedSet(set)
}

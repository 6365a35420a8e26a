package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/benchgate/benchgate/internal/drift"
	"github.com/benchgate/benchgate/internal/drift/changepoint"
	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/suite"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// The files drift writes in --out-dir.
const (
	DriftJSONName = "drift.json"
	DriftMDName   = "drift.md"
)

// driftFailOn are the values of --fail-on: which open change points
// make drift exit 1. A change point is information; by default drift
// exits 0 once it has written what it found.
var driftFailOn = []string{"none", "worse", "any"}

// DriftResult is what drift found and wrote: the report (drift.json's
// value), its charts and the paths of both files.
type DriftResult struct {
	Report *drift.Report
	// Charts are drift.md's mermaid charts of the changed series.
	Charts []string
	// Changed is how many series have a change point (Charts draws the
	// newest of them).
	Changed int
	// RepoURL is the repository the commits are linked to, "" for none.
	RepoURL string
	// FailOn is --fail-on.
	FailOn   string
	JSON, MD string
}

// runDrift finds the change points of the runs under --history and
// writes drift.json and drift.md.
func runDrift(_ context.Context, env *Env, args []string) int {
	return exit(env, "drift", driftCommand(env, args))
}

// driftCommand is drift from its command line to its outcome: the error
// that ends it, nil when it wrote what it found and no open change point
// fails it.
func driftCommand(env *Env, args []string) error {
	fs := pflag.NewFlagSet("drift", pflag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	history := fs.String("history", "", "folder of earlier runs (run-record.json or suite files, at any depth; required)")
	outDir := fs.String("out-dir", "drift", "folder to write drift.json and drift.md in")
	failOn := fs.String("fail-on", "none", "exit 1 when an open change point is found: none, worse (one for the worse) or any")
	alpha := fs.Float64("alpha", changepoint.DefaultAlpha, "significance of one look of the scan (docs/drift.md gives the false-alarm rates it makes)")
	minRuns := fs.Int("min-runs", changepoint.DefaultMinSize, "fewest runs on each side of a change point")
	seed := fs.Uint64("seed", changepoint.DefaultSeed, "seed of the permutations and bootstrap (the same seed gives the same answer)")
	suiteOnly := fs.Bool("suite-only", false, "follow the suite's figures only, not each scenario's")
	repo := fs.String("repo", "", "owner/name the commits belong to, to link them (default: $GITHUB_REPOSITORY)")
	if run, err := parseCommandLine(env, fs, args); !run {
		return err
	}
	fail := usagef
	switch {
	case fs.NArg() > 0:
		return fail("unexpected arguments %q", fs.Args())
	case *history == "":
		return fail("--history is required: the folder holding earlier runs' run-record.json or suite files")
	case !(*alpha > 0 && *alpha < 0.5):
		return fail("--alpha: expected a number between 0 and 0.5, got %v", *alpha)
	case *minRuns < 2 || *minRuns > 50:
		return fail("--min-runs: expected a whole number from 2 to 50, got %d", *minRuns)
	case !slices.Contains(driftFailOn, *failOn):
		return fail("--fail-on %q: expected one of %s", *failOn, strings.Join(driftFailOn, ", "))
	}
	repoName := *repo
	if repoName == "" {
		repoName = env.Getenv("GITHUB_REPOSITORY")
	}
	repoURL := ""
	if repoName != "" {
		if !repoPattern.MatchString(repoName) {
			return fail("--repo %q: expected owner/name", repoName)
		}
		server := strings.TrimRight(env.Getenv("GITHUB_SERVER_URL"), "/")
		if server == "" {
			server = "https://github.com"
		}
		repoURL = server + "/" + repoName
	}
	h, err := drift.ReadHistory(abs(env, *history))
	if err != nil {
		return fail("--history: %v", err)
	}
	rep, series := drift.Analyze(h, drift.Options{SuiteOnly: *suiteOnly,
		Detect: changepoint.Options{Alpha: *alpha, MinSize: *minRuns, Seed: *seed}})
	rep.Link(repoURL)
	out := abs(env, *outDir)
	jsonPath, mdPath := filepath.Join(out, DriftJSONName), filepath.Join(out, DriftMDName)
	if err := fsutil.WriteJSONAtomic(jsonPath, rep); err != nil {
		return exitcode.WithCode(ExitUsage, err)
	}
	if err := fsutil.WriteFileAtomic(mdPath, []byte(drift.Markdown(rep, h, series, repoURL)), 0o644); err != nil {
		return exitcode.WithCode(ExitUsage, err)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(env.Stderr, "benchgate drift: %s\n", n)
	}
	fmt.Fprintf(env.Stdout, "Wrote %s\nWrote %s\n", jsonPath, mdPath)
	if env.Result != nil {
		charts, changed := drift.Charts(rep, h, series)
		env.Result.Drift = &DriftResult{Report: rep, Charts: charts, Changed: changed, RepoURL: repoURL, FailOn: *failOn, JSON: jsonPath, MD: mdPath}
	}
	open, worse := 0, 0
	for _, c := range rep.ChangePoints {
		if c.Open {
			open++
			if c.Worse {
				worse++
			}
		}
	}
	fmt.Fprintf(env.Stdout, "Benchmark drift: %d series over %d runs, %d change points (%d open, %d of them for the worse)\n",
		rep.Series, rep.Runs, len(rep.ChangePoints), open, worse)
	for _, c := range rep.ChangePoints {
		if !c.Open {
			continue
		}
		scen := "suite"
		if c.Scenario != "" {
			scen = suite.ShowID(c.Scenario)
		}
		shift := "n/a"
		if c.ShiftPct != nil {
			shift = fmt.Sprintf("%+.1f%%", *c.ShiftPct)
		}
		fmt.Fprintf(env.Stdout, "Benchmark change point: %s %s %s %s from run %d (%s): %s -> %s (%s)\n", c.Metric, c.Mode, scen,
			map[bool]string{true: "worse", false: "better"}[c.Worse], c.After.Index+1, textfmt.Truncate(textfmt.LogLine(orText(c.After.Commit, c.After.RunID)), 64), drift.Level(c.Metric, c.BeforeLevel), drift.Level(c.Metric, c.AfterLevel), shift)
	}
	if (*failOn == "any" && open > 0) || (*failOn == "worse" && worse > 0) {
		// The change points printed above say why.
		return exitcode.WithCode(ExitFailed, nil)
	}
	return nil
}

// repoPattern is what --repo accepts: owner/name as GitHub spells them.
var repoPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$`)

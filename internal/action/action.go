// Package action is the GitHub Action adapter. It turns the step's
// INPUT_* variables into the same command line a person would type, runs
// that mode in-process, and then reports what the mode left on disk:
// step outputs, a job summary, error annotations on failing suite rows,
// and uploaded artifacts. It never judges anything itself, so a mode
// behaves the same in a workflow and in a terminal.
package action

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/textfmt"
	"github.com/benchgate/benchgate/internal/verdict"
)

// MaxErrorAnnotations is how many error annotations of one step the
// runner shows; later ones only reach the log.
const MaxErrorAnnotations = 10

// Exit codes, the same as the command line's.
const (
	exitOK     = exitcode.OK
	exitFailed = exitcode.Failed
	exitUsage  = exitcode.Usage
)

// RunFunc runs one mode in dir with extra environment variables and the
// given argv (mode name first), writing its standard output to stdout,
// stores what the mode returned in res, and returns its exit code.
type RunFunc func(ctx context.Context, dir string, env map[string]string, args []string, stdout io.Writer, res *Result) int

// UploadFunc uploads the folder dir as an artifact called name, leaving
// out the paths in exclude (relative to dir, slash-separated).
type UploadFunc func(ctx context.Context, name, dir string, exclude []string) (id int64, size int64, err error)

// Config is what the adapter needs from its caller.
type Config struct {
	// GHA issues workflow commands; tests build it with WithWriter and WithGetenv.
	GHA *githubactions.Action
	// Stdout is the step log, the same writer GHA writes to.
	Stdout io.Writer
	// Getenv reads the step's environment (the same lookup GHA uses).
	Getenv func(string) string
	// Dir is used when GITHUB_WORKSPACE is not set.
	Dir string
	Now func() time.Time
	// Run runs the mode.
	Run RunFunc
	// Upload is nil when artifacts cannot be uploaded; UploadUnavailable says why.
	Upload            UploadFunc
	UploadUnavailable error
	// Environ lists the step's environment, to warn about INPUT_*
	// variables that look like an input but are not read; nil skips it.
	Environ func() []string
	// InputsFromJSON says the inputs came as one JSON object (the
	// composite action's BENCHGATE_INPUTS), so no INPUT_* is read.
	InputsFromJSON bool
	// InputNames are the names of the inputs given as JSON, so that one
	// that is not benchgate's is refused with the input meant.
	InputNames []string
}

// Run is the whole step: mask secrets, build the plan, run the mode,
// report. It returns the mode's exit code, or 2 for bad inputs.
func Run(ctx context.Context, cfg Config) int {
	a := cfg.GHA
	// Secrets first, before anything could print them.
	maskSecrets(a)
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	workspace := cfg.Getenv("GITHUB_WORKSPACE")
	if workspace == "" {
		workspace = cfg.Dir
	}
	rep := &reporter{cfg: cfg, a: a, workspace: workspace, files: &fileCommands{getenv: cfg.Getenv}}

	plan, err := planStep(a.GetInput, cfg.InputNames, workspace, runTag(cfg.Getenv, start))
	if err != nil {
		return rep.badInputs(ctx, err)
	}
	ad := adapterFor(plan.Mode)
	ev, _ := a.Context()
	ad.arguments(plan, ev, cfg.Getenv)
	for _, name := range plan.Ignored {
		a.Warningf("input %q is not used by mode %s and was ignored", name, plan.Mode)
	}
	if cfg.Environ != nil {
		warnStrayInputs(a, cfg.Environ(), cfg.InputsFromJSON)
	}
	lp := rep.prepareLookback(ctx, plan)
	defer lp.cleanup()

	var modeRes Result
	code, modeErr := rep.runMode(ctx, plan, &modeRes)

	// Exit code 2 means the mode judged nothing (bad input, bad setup):
	// its rows, charts and gates are not shown, only why it stopped.
	res := &results{}
	if code != exitUsage {
		res = ad.collect(plan, &modeRes)
	}
	rep.driftIssues(ctx, plan, res)
	res.ModeError = rep.scrub(modeErr)
	status := ad.status(code, &modeRes)
	stats := statsOf(&modeRes)
	v := judge(judgeInput{Plan: plan, Res: res, Mode: &modeRes, Code: code, Status: Status(status), Event: ev,
		Getenv: cfg.Getenv, Rel: rep.shown, Scrub: rep.scrub, Workspace: workspace, Lookback: lp})
	// A report whose checks would have failed with the gate on keeps
	// saying so in status ("fail"), as a batch under fail-on never does:
	// exit-code 0 and enforced false tell that it did not fail the step,
	// so enforced == 'false' && status != 'pass' finds it.
	if plan.Mode == "report" && status == exitOK && v.NotEnforced() {
		status = exitFailed
		v.Status = Status(status)
	}
	annotated, total := rep.annotations(plan, res, v, modeRes.Lookback, code, modeErr)
	doc := rep.buildSummary(plan, res, code, annotated, total, v)
	rep.lookbackSummary(doc, lp, modeRes.Lookback)
	rep.statsSummary(doc, stats)
	rep.keepSummary(runFolder(plan, res), doc)
	rep.keepVerdict(runFolder(plan, res), v)
	arts := rep.upload(ctx, plan, res)
	step := &stepResult{Plan: plan, Res: res, Code: code, Verdict: v, Stats: stats, Lookback: modeRes.Lookback, Artifacts: arts, Comment: modeRes.Comment}
	step.RunURL, step.ArtifactURL = runURL(cfg.Getenv)
	linkArtifacts(v, arts, step.ArtifactURL, rep.rel)
	if step.RunURL != "" {
		v.Links = append(v.Links, verdict.Link{Title: "job summary", URL: step.RunURL})
	}
	doc.Lead = leadOf(v)
	rep.outputs(plan, res, status, code, v.Enforced, arts)
	ad.outputs(rep, res, &modeRes)
	rep.statsOutputsSet(stats)
	rep.artifactsSection(doc, arts)
	rep.summary(doc)
	a.Infof("%s", textfmt.LogLine(v.PlainHeadline()))
	rep.prComment(ctx, step)
	return rep.fileCommandFailure(code)
}

// runMode runs the mode in a log group, with workflow commands stopped
// (the mode prints text it does not control: model answers, row
// values), and returns its exit code and its last own error line.
func (r *reporter) runMode(ctx context.Context, plan *Plan, res *Result) (code int, lastErr string) {
	// The log shows no runner path, in the command or in what the mode
	// prints: paths in the workspace are relative, the temporary folder
	// and the engine's socket are named by their variables.
	shown := make([]string, 0, len(plan.Args))
	for i := 0; i < len(plan.Args); i++ {
		if plan.Args[i] == "--progress-md" && i+1 < len(plan.Args) {
			i++ // the step's own summary file: nothing a person types
			continue
		}
		shown = append(shown, r.scrub(plan.Args[i]))
	}
	endModeLog := openModeLog(r.a, plan.Mode, shown)
	out := &modeOutput{w: r.cfg.Stdout, scrub: r.scrub}
	if out.w == nil {
		out.w = io.Discard
	}
	resume := stopCommands(r.a)
	runArgs := plan.Args
	if plan.Mode != "swebench-batch" {
		// Left out of the command the summary shows: it is the step's
		// own file, not something a person would type.
		runArgs = withProgressMD(plan.Mode, plan.Args, r.cfg.Getenv("GITHUB_STEP_SUMMARY"))
	}
	code = r.cfg.Run(ctx, plan.WorkDir, plan.Env, runArgs, out, res)
	out.Flush()
	resume()
	endModeLog()
	return code, out.errs.last
}

// annotations writes the step's annotations, at most ten errors, and
// returns how many failing rows it annotated of how many there are. A
// gate that failed is the step's verdict: its annotation, the verdict's
// own first line, comes first, whatever rows failed too. report exits 0
// whenever it wrote the summaries (only --gate fails it), so failing
// rows of a passing report are warnings: an error beside status=pass
// would say the step failed when it did not.
func (r *reporter) annotations(plan *Plan, res *results, v *verdict.Verdict, lb *Lookback, code int, modeErr string) (annotated, total int) {
	gate := 0
	switch {
	case plan.Mode == "report" && code != exitOK && len(v.Deciding()) > 0:
		r.a.WithFieldsMap(map[string]string{"title": "benchgate report"}).Errorf("%s; the job summary and %s tell why", v.PlainHeadline(), r.scrub(r.rel(plan.OutDir)))
		gate = 1
	case v.NotEnforced():
		// A step that passed only because its failures are not enforced
		// says so as the first line does, as a warning.
		r.a.WithFieldsMap(map[string]string{"title": "benchgate " + plan.Mode}).Warningf("%s; the job summary and %s tell which", v.PlainHeadline(), r.scrub(r.rel(plan.OutDir)))
		gate = 1
	}
	annotated, total = r.annotate(res, plan.Mode == "report" && code == exitOK, MaxErrorAnnotations-gate)
	others := r.annotateOthers(res, MaxErrorAnnotations-gate-annotated, code == exitOK)
	others += r.reportLookback(lb, code)
	if code != exitOK && gate+annotated+others == 0 {
		r.annotateStep(plan, res, code, modeErr)
	}
	return annotated, total
}

// argValue is the value after flag in args, "" when absent.
func argValue(args []string, flag string) string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag {
			return args[i+1]
		}
	}
	return ""
}

// stopCommands issues ::stop-commands:: with a fresh token and returns
// the function that resumes command processing.
func stopCommands(a *githubactions.Action) func() {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return func() {}
	}
	token := hex.EncodeToString(b)
	a.IssueCommand(&githubactions.Command{Name: "stop-commands", Message: token})
	return func() { a.IssueCommand(&githubactions.Command{Name: token}) }
}

// runTag names things unique to this run attempt.
func runTag(getenv func(string) string, now time.Time) string {
	id := getenv("GITHUB_RUN_ID")
	if id == "" {
		return now.UTC().Format("20060102T150405Z")
	}
	return id + "-" + orDefault(getenv("GITHUB_RUN_ATTEMPT"), "1")
}

// Status is the word the "status" output carries for an exit code.
func Status(code int) string { return exitcode.Status(code) }

// Package action is the GitHub Action adapter. It turns the step's
// INPUT_* variables into the same command line a person would type, runs
// that mode in-process, and then reports what the mode left on disk:
// step outputs, a job summary, error annotations on failing suite rows,
// and uploaded artifacts. It never judges anything itself, so a mode
// behaves the same in a workflow and in a terminal.
package action

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/jobsummary"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/textfmt"
	"github.com/benchgate/benchgate/internal/verify"
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
// and returns its exit code.
type RunFunc func(ctx context.Context, dir string, env map[string]string, args []string, stdout io.Writer) int

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
}

// Run is the whole step: mask secrets, build the plan, run the mode,
// report. It returns the mode's exit code, or 2 for bad inputs.
func Run(ctx context.Context, cfg Config) int {
	a := cfg.GHA
	// Secrets first, before anything could print them.
	for _, in := range Inputs() {
		if in.Kind != Secret {
			continue
		}
		if v := a.GetInput(in.Name); v != "" {
			a.AddMask(v)
			for _, l := range lines(v) {
				if l != v {
					a.AddMask(l)
				}
			}
		}
	}
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

	plan, err := BuildPlan(a.GetInput, workspace, runTag(cfg.Getenv, start))
	if err == nil {
		if info, serr := os.Stat(plan.WorkDir); serr != nil || !info.IsDir() {
			err = &InputError{Input: "working-directory", Value: a.GetInput("working-directory"), Expected: "an existing folder under the workspace"}
		} else {
			err = plan.ClaimOutDir()
		}
	}
	if err != nil {
		title := "benchgate: bad input"
		var ie *InputError
		if errors.As(err, &ie) {
			title = "benchgate: input " + ie.Input
		}
		a.WithFieldsMap(map[string]string{"title": title}).Errorf("%s", err)
		rep.output("status", "error")
		rep.output("exit-code", strconv.Itoa(exitUsage))
		var doc jobsummary.Doc
		doc.Section("benchgate: bad input").Para("The step did not run: %s", textfmt.Cell(err.Error()))
		rep.summary(&doc)
		return rep.fileCommandFailure(exitUsage)
	}
	if plan.Mode == "swebench-batch" && cfg.Getenv("GITHUB_STEP_SUMMARY") != "" {
		// The job summary grows as instances finish, so a job cancelled
		// after hours still shows what it did; the full summary replaces
		// the table when the step ends normally.
		plan.Args = append(plan.Args, "--progress-md", cfg.Getenv("GITHUB_STEP_SUMMARY"))
	}
	for _, name := range plan.Ignored {
		a.Warningf("input %q is not used by mode %s and was ignored", name, plan.Mode)
	}

	a.Group("benchgate " + strings.Join(plan.Args, " "))
	tap := &urlTap{w: cfg.Stdout}
	if tap.w == nil {
		tap.w = io.Discard
	}
	// The mode prints text it does not control (model answers, row
	// values); stop the runner from reading workflow commands in it.
	resume := stopCommands(a)
	code := cfg.Run(ctx, plan.WorkDir, plan.Env, plan.Args, tap)
	tap.flush()
	resume()
	a.EndGroup()

	res := collect(plan, start)
	if res.Audit != nil {
		res.Audit.PRURLs = mergeURLs(res.Audit.PRURLs, tap.urls)
	}
	arts := rep.upload(ctx, plan, res)
	rep.outputs(plan, res, code, arts)
	// report exits 0 whenever it wrote the summaries (upstream's contract;
	// only --gate fails it), so failing rows of a passing report are
	// warnings: an error annotation beside status=pass would say the step
	// failed when it did not.
	// A gate that failed is the step's verdict: its annotation comes
	// first, naming the checks, whatever rows failed too.
	gate := 0
	if plan.Mode == "report" && code != exitOK {
		if why := failedGateChecks(res.SummaryJSON); why != "" {
			a.WithFieldsMap(map[string]string{"title": "benchgate report"}).Errorf("%s (exit code %d)%s; the job summary and %s tell why", Status(code), code, why, rep.rel(plan.OutDir))
			gate = 1
		}
	}
	annotated, total := rep.annotate(res, plan.Mode == "report" && code == exitOK, MaxErrorAnnotations-gate)
	others := rep.annotateOthers(res, MaxErrorAnnotations-gate-annotated)
	if code != exitOK && gate+annotated+others == 0 {
		// Nothing row-shaped to point at (a crash, zero rows, a refused
		// flag): one annotation so the failure shows on the run page.
		why := ""
		for _, st := range res.Sets {
			if st.Tracking.Error != "" {
				why = ": set " + st.Tracking.Set + ": " + textfmt.Truncate(st.Tracking.Error, 500)
				break
			}
		}
		if why == "" && tap.errs.last != "" {
			why = ": " + textfmt.Truncate(tap.errs.last, 500)
		}
		a.WithFieldsMap(map[string]string{"title": "benchgate " + plan.Mode}).Errorf("%s (exit code %d)%s; the job summary and %s tell why", Status(code), code, why, rep.rel(plan.OutDir))
	}
	res.ModeError = tap.errs.last
	doc := rep.buildSummary(plan, res, code, arts, annotated, total)
	rep.summary(doc)
	return rep.fileCommandFailure(code)
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

type reporter struct {
	cfg       Config
	a         *githubactions.Action
	workspace string
	files     *fileCommands
}

// fileCommandFailure reports a step output or summary that could not be
// written, once, as an error annotation naming the file, and turns a
// passing step into a failing one: later steps would read no status.
func (r *reporter) fileCommandFailure(code int) int {
	if r.files.err == nil {
		return code
	}
	r.a.WithFieldsMap(map[string]string{"title": "benchgate: step outputs"}).Errorf("cannot write the step's file commands: %v; outputs and job summary are incomplete", r.files.err)
	if code == exitOK {
		return exitFailed
	}
	return code
}

// rel shows path relative to the workspace (what later steps and the
// annotation UI understand); paths outside it stay absolute.
func (r *reporter) rel(path string) string {
	if path == "" {
		return ""
	}
	if rel, err := filepath.Rel(r.workspace, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}

// output sets a step output; without GITHUB_OUTPUT (a run outside
// Actions) it does nothing, because the library would panic.
func (r *reporter) output(k, v string) {
	r.files.setOutput(k, v)
}

func (r *reporter) summary(doc *jobsummary.Doc) {
	// writeSummary adds a newline; keep the whole step under the limit.
	r.files.writeSummary(doc.Render(jobsummary.MaxBytes - 1))
}

type artifact struct {
	Name, Dir string
	// Exclude are paths below Dir that are not part of this artifact.
	Exclude  []string
	ID, Size int64
	Err      error
}

var badArtifactChars = regexp.MustCompile(`[":<>|*?\r\n\\/\s]+`)

func (r *reporter) artifactName(prefix, part string) string {
	name := prefix
	if job := r.cfg.Getenv("GITHUB_JOB"); job != "" {
		name += "-" + job
	}
	if at := r.cfg.Getenv("GITHUB_RUN_ATTEMPT"); at != "" && at != "1" {
		name += "-attempt" + at
	}
	return badArtifactChars.ReplaceAllString(name+"-"+part, "-")
}

// upload sends one artifact per set folder or SWE-bench instance folder
// and one for the whole run. A failure is a warning: the results are
// still on disk, in the summary and in the outputs.
func (r *reporter) upload(ctx context.Context, p *Plan, res *results) []artifact {
	if !p.Upload {
		return nil
	}
	var want []artifact
	runDir, runPart := p.OutDir, "run"
	for _, s := range res.Sets {
		if s.Dir != runDir {
			want = append(want, artifact{Name: r.artifactName(p.ArtifactPrefix, s.Tracking.Set), Dir: s.Dir})
		} else {
			// set mode: the run folder is the set folder; name it so.
			runPart = s.Tracking.Set
		}
	}
	if res.Batch != nil {
		runDir = res.Batch.Root
		for _, in := range res.Batch.Instances {
			want = append(want, artifact{Name: r.artifactName(p.ArtifactPrefix, in.InstanceID), Dir: in.Dir})
		}
	}
	if runDir != "" {
		if info, err := os.Stat(runDir); err == nil && info.IsDir() {
			// The run artifact holds what the per-set and per-instance
			// artifacts do not: the consolidated summary, the manifest.
			run := artifact{Name: r.artifactName(p.ArtifactPrefix, runPart), Dir: runDir}
			for _, w := range want {
				if rel, err := filepath.Rel(runDir, w.Dir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
					run.Exclude = append(run.Exclude, filepath.ToSlash(rel))
				}
			}
			want = append(want, run)
		}
	}
	for i := range want {
		want[i].Exclude = append(want[i].Exclude, verify.LockFile)
	}
	if len(want) == 0 {
		return nil
	}
	if r.cfg.Upload == nil {
		reason := "no artifact service configured"
		if r.cfg.UploadUnavailable != nil {
			reason = r.cfg.UploadUnavailable.Error()
		}
		r.a.Warningf("artifacts not uploaded (%s); results stay in %s", reason, r.rel(runDir))
		return nil
	}
	for i := range want {
		w := &want[i]
		w.ID, w.Size, w.Err = r.cfg.Upload(ctx, w.Name, w.Dir, w.Exclude)
		if w.Err != nil {
			r.a.WithFieldsMap(map[string]string{"title": "artifact " + w.Name}).Warningf("upload of %s failed: %v; the files stay in %s", w.Name, w.Err, r.rel(w.Dir))
		}
	}
	return want
}

func (r *reporter) outputs(p *Plan, res *results, code int, arts []artifact) {
	r.output("status", Status(code))
	r.output("exit-code", strconv.Itoa(code))
	r.output("out-dir", r.rel(p.OutDir))
	var tracks []string
	for _, s := range res.Sets {
		tracks = append(tracks, r.rel(s.TrackingPath))
	}
	r.output("tracking", strings.Join(tracks, "\n"))
	r.output("summary-json", r.rel(res.SummaryJSON))
	r.output("summary-md", r.rel(res.SummaryMD))
	if res.Batch != nil {
		r.output("out-dir", r.rel(res.Batch.Root))
		r.output("predictions", r.rel(res.Batch.Predictions))
		r.output("run-manifest", r.rel(res.Batch.Manifest))
	}
	if res.Audit != nil {
		r.output("quality-report", r.rel(res.Audit.Report))
		r.output("pr-urls", strings.Join(res.Audit.PRURLs, "\n"))
		if res.Audit.SummaryMD != "" {
			r.output("summary-md", r.rel(res.Audit.SummaryMD))
		}
	}
	failing := 0
	for _, s := range res.Sets {
		for _, st := range s.Suites {
			failing += failingRows(st)
		}
	}
	for _, st := range res.Suites {
		failing += failingRows(st)
	}
	r.output("failing-rows", strconv.Itoa(failing))
	var names []string
	for _, a := range arts {
		if a.Err == nil {
			names = append(names, a.Name)
		}
	}
	r.output("artifacts", strings.Join(names, "\n"))
}

// failingRows counts rows with at least one violation.
func failingRows(st *suiteStats) int {
	n := 0
	last := -1
	for _, v := range st.Violations {
		if v.Line != last {
			n++
			last = v.Line
		}
	}
	return n
}

// rowFailure groups the violations of one row into one annotation.
type rowFailure struct {
	Set  string
	File string
	Line int
	ID   string
	Msgs []string
}

func allFailures(res *results) []rowFailure {
	var out []rowFailure
	add := func(set string, st *suiteStats) {
		for _, v := range st.Violations {
			if n := len(out); n > 0 && out[n-1].File == v.File && out[n-1].Line == v.Line {
				out[n-1].Msgs = append(out[n-1].Msgs, v.Rule())
				continue
			}
			out = append(out, rowFailure{Set: set, File: v.File, Line: v.Line, ID: v.ScenarioID, Msgs: []string{v.Rule()}})
		}
	}
	for _, s := range res.Sets {
		for _, m := range s.SuiteOrder {
			add(s.Tracking.Set, s.Suites[m])
		}
	}
	for _, m := range res.SuiteOrder {
		add("report", res.Suites[m])
	}
	return out
}

// annotateOthers annotates failed SWE-bench instances (on their status
// file) and audited questions that are not Valid (on the case's line), up
// to budget annotations, and returns how many it wrote.
func (r *reporter) annotateOthers(res *results, budget int) int {
	n := 0
	emit := func(props map[string]string, msg string) {
		if n < budget {
			r.a.WithFieldsMap(props).Errorf("%s", msg)
			n++
		}
	}
	if b := res.Batch; b != nil {
		for _, in := range b.Instances {
			if in.Status == "success" {
				continue
			}
			msg := in.Status
			if in.FailureReasonCode != "" {
				msg += ": " + in.FailureReasonCode
			}
			if in.FailureReasonDetail != "" {
				msg += ": " + textfmt.Truncate(in.FailureReasonDetail, 500)
			}
			emit(map[string]string{"file": r.rel(filepath.Join(in.Dir, in.InstanceID+".status.json")), "title": "SWE-bench " + in.InstanceID}, msg)
		}
	}
	if a := res.Audit; a != nil {
		// The worst first, since the runner shows ten: questions whose
		// key was wrong (fixed or not), then ambiguous ones, then those
		// the audit could not decide.
		cases := append([]auditCase(nil), a.Cases...)
		sort.SliceStable(cases, func(i, j int) bool { return auditSeverity(cases[i]) < auditSeverity(cases[j]) })
		for _, c := range cases {
			if auditSeverity(c) == severityNone {
				continue
			}
			props := map[string]string{"file": r.rel(c.File), "title": "qa-audit " + c.ID}
			if c.Line > 0 {
				props["line"] = strconv.Itoa(c.Line)
			}
			verdict := orDefault(c.Verdict, "not audited")
			if c.Fixed && c.Original != "" && c.Original != c.Verdict {
				verdict = c.Original + ", fixed (the fix was verified " + c.Verdict + ")"
			}
			emit(props, strings.TrimSpace(verdict+": "+textfmt.Truncate(c.Reason, 500)))
		}
	}
	return n
}

// Severity ranks of an audited case's annotation, worst first.
const (
	severityWrong = iota
	severityAmbiguous
	severityUndecided
	severityNone
)

func auditSeverity(c auditCase) int {
	v := c.Verdict
	if c.Original != "" && c.Original != "Valid" {
		v = c.Original // a fixed case was wrong as written
	}
	switch {
	case v == "Incorrect":
		return severityWrong
	case v == "Ambiguous":
		return severityAmbiguous
	case v == "Valid" || (v == "" && c.Reason == ""):
		return severityNone
	}
	return severityUndecided
}

// annotate puts an error annotation on the first failing rows (the runner
// shows at most ten per step) and returns how many it annotated and how
// many there were.
func (r *reporter) annotate(res *results, asWarnings bool, budget int) (annotated, total int) {
	fails := allFailures(res)
	for i, f := range fails {
		if i == budget {
			break
		}
		id := f.ID
		if id == "" {
			id = "row " + strconv.Itoa(f.Line)
		}
		a := r.a.WithFieldsMap(map[string]string{
			"file":  r.rel(f.File),
			"line":  strconv.Itoa(f.Line),
			"title": f.Set + ": " + id,
		})
		if asWarnings {
			a.Warningf("%s", strings.Join(f.Msgs, "; "))
			continue
		}
		a.Errorf("%s", strings.Join(f.Msgs, "; "))
		annotated++
	}
	return annotated, len(fails)
}

// failedGateChecks names the gate checks a report's summary JSON says
// failed (": gate verify_pr: efficiency_tool_call_reduction 16.67, needs
// >= 20.00"), or "" when it cannot tell.
func failedGateChecks(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	// Only the gate, through the type report writes it with (the whole
	// Summary keeps its modes in row order and is written, not read).
	var sum struct {
		GateV2 report.GateV2 `json:"gateV2"`
	}
	if json.Unmarshal(b, &sum) != nil || sum.GateV2.Passed {
		return ""
	}
	var failed []string
	for _, c := range sum.GateV2.Checks {
		if !c.Passed {
			failed = append(failed, fmt.Sprintf("%s %.2f, needs %s %.2f", c.Name, c.Value, c.Operator, c.Threshold))
		}
	}
	if len(failed) == 0 {
		return ""
	}
	return ": gate " + sum.GateV2.Profile + " failed: " + strings.Join(failed, "; ")
}

func (r *reporter) buildSummary(p *Plan, res *results, code int, arts []artifact, annotated, total int) *jobsummary.Doc {
	var doc jobsummary.Doc
	head := doc.Section(fmt.Sprintf("benchgate %s: %s", p.Mode, Status(code)))
	head.Note = "see the uploaded artifacts or " + r.rel(orDefault(p.OutDir, p.WorkDir))
	head.Para("Command: `benchgate %s` (exit code %d).", strings.Join(redactArgs(p.Args, r.workspace), " "), code)
	if code != exitOK && res.ModeError != "" {
		head.Para("Last error: %s", textfmt.Cell(textfmt.Truncate(res.ModeError, 2000)))
	}
	if trig := r.trigger(); trig != "" {
		head.Para("%s", trig)
	}
	switch {
	case total > 0 && p.Mode == "report" && code == exitOK:
		head.Para("%d rows break a blocking rule (success, output_valid, error); they are warnings here, since `report` judges the gate, not rows (`set` fails on them). The first %d are annotated on their suite file and line.", total, min(total, MaxErrorAnnotations))
	case total > 0:
		head.Para("%d failing rows; the first %d are annotated on their suite file and line.", total, annotated)
		if total > annotated {
			head.Para("**%d more failing rows are not annotated** (GitHub shows at most %d error annotations per step): they are listed in the failing-rows tables below and in the suite files of each set folder.", total-annotated, MaxErrorAnnotations)
		}
	}
	if p.Mode == "ordered" && len(res.Sets) > 0 {
		rows := [][]string{}
		for _, s := range res.Sets {
			rows = append(rows, []string{s.Tracking.Set, s.Tracking.FinalStatus, strconv.Itoa(len(s.Tracking.FailingScenarios)), strconv.Itoa(len(s.Tracking.Reruns)), r.rel(s.TrackingPath)})
		}
		head.Table([]string{"set", "final status", "failing scenarios", "reruns recorded", "tracking"}, rows)
	}
	for _, s := range res.Sets {
		r.setSection(&doc, s)
	}
	if p.Mode == "report" {
		sec := doc.Section("Report")
		sec.Note = head.Note
		if len(res.SuiteOrder) > 0 {
			chartSection(sec, res.Suites)
			failureTable(sec, r, "report", res.Suites, res.SuiteOrder)
		}
		includeMarkdown(sec, res.SummaryMD, r)
	}
	if p.Mode == "ordered" && res.SummaryMD != "" {
		sec := doc.Section("Consolidated summary")
		includeMarkdown(sec, res.SummaryMD, r)
	}
	if res.Batch != nil {
		r.batchSection(&doc, res.Batch)
	} else if p.Mode == "swebench-batch" {
		head.Para("No run_manifest.json was written under %s.", r.rel(p.OutDir))
	}
	if res.Audit != nil {
		r.auditSection(&doc, res.Audit)
	}
	if len(arts) > 0 {
		sec := doc.Section("Artifacts")
		rows := [][]string{}
		for _, a := range arts {
			state := "uploaded"
			if a.Err != nil {
				state = "failed: " + a.Err.Error()
			}
			rows = append(rows, []string{a.Name, r.rel(a.Dir), state})
		}
		sec.Table([]string{"artifact", "folder", "upload"}, rows)
	}
	return &doc
}

// trigger describes the event that started the run, from GITHUB_EVENT_NAME
// and the event JSON, so a summary read later says what it was about.
func (r *reporter) trigger() string {
	ctx, err := r.a.Context()
	if err != nil {
		r.a.Warningf("the event of this run could not be read: %v", err)
		return ""
	}
	if ctx == nil || ctx.EventName == "" {
		return ""
	}
	out := "Triggered by `" + ctx.EventName + "`"
	if ctx.Repository != "" {
		out += " on `" + ctx.Repository + "`"
	}
	if pr, ok := ctx.Event["pull_request"].(map[string]any); ok {
		if n, ok := pr["number"].(float64); ok {
			out += fmt.Sprintf(", pull request #%d", int(n))
		}
	}
	if ctx.SHA != "" {
		out += " at `" + textfmt.Truncate(ctx.SHA, 12) + "`"
	}
	return out + "."
}

// redactArgs shortens absolute paths under the workspace for display.
func redactArgs(args []string, workspace string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if rel, err := filepath.Rel(workspace, a); err == nil && filepath.IsAbs(a) && !strings.HasPrefix(rel, "..") {
			a = rel
		}
		out[i] = a
	}
	return out
}

func (r *reporter) setSection(doc *jobsummary.Doc, s *setResult) {
	t := s.Tracking
	sec := doc.Section("Set " + t.Set + ": " + orDefault(t.FinalStatus, "unknown"))
	sec.Note = "see " + r.rel(s.Dir)
	if s.TrackingErr != nil {
		sec.Para("tracking.json could not be read: %s", textfmt.Cell(s.TrackingErr.Error()))
	}
	if t.Provider != "" || t.Model != "" {
		sec.Para("Provider `%s`, model `%s`; folder `%s`.", t.Provider, t.Model, r.rel(s.Dir))
	}
	if t.Error != "" {
		sec.Para("**Stopped:** %s", textfmt.Cell(t.Error))
	}
	modes := map[string]bool{}
	for m := range t.RowsExpected {
		modes[m] = true
	}
	for m := range t.RowsActual {
		modes[m] = true
	}
	var names []string
	for m := range modes {
		names = append(names, m)
	}
	sort.Strings(names)
	rows := [][]string{}
	for _, m := range names {
		failing := ""
		if st, ok := s.Suites[m]; ok {
			failing = strconv.Itoa(failingRows(st))
		}
		rows = append(rows, []string{m, strconv.Itoa(t.RowsExpected[m]), strconv.Itoa(t.RowsActual[m]), failing})
	}
	if len(rows) > 0 {
		sec.Table([]string{"mode", "rows expected", "rows actual", "failing rows"}, rows)
	}
	if len(t.Checks) > 0 {
		var cn []string
		for c := range t.Checks {
			cn = append(cn, c)
		}
		sort.Strings(cn)
		rows = [][]string{}
		for _, c := range cn {
			rows = append(rows, []string{c, strconv.Itoa(t.Checks[c].Pass), strconv.Itoa(t.Checks[c].Fail)})
		}
		sec.Table([]string{"check", "pass", "fail"}, rows)
	}
	if len(t.Reruns) > 0 {
		rows = [][]string{}
		for _, rr := range t.Reruns {
			ids := strings.Join(rr.ScenarioIDs, ", ")
			if ids == "" {
				ids = "(whole set)"
			}
			rows = append(rows, []string{strconv.Itoa(rr.Attempt), ids, rr.Result})
		}
		sec.Table([]string{"attempt", "scenarios", "result"}, rows)
	}
	if len(t.FailingScenarios) > 0 {
		sec.Para("Failing scenarios: %s", "`"+strings.Join(t.FailingScenarios, "`, `")+"`")
	}
	chartSection(sec, s.Suites)
	failureTable(sec, r, t.Set, s.Suites, s.SuiteOrder)
	includeMarkdown(sec, s.SummaryMD, r)
}

// maxChartScenarios keeps charts readable; the tables carry the rest.
const maxChartScenarios = 30

// chartSection draws per-scenario medians of active tokens and latency,
// ghx against agent_direct, when both modes have passing rows.
func chartSection(sec *jobsummary.Section, suites map[string]*suiteStats) {
	base, cand := suites["agent_direct"], suites["ghx"]
	if base == nil || cand == nil {
		return
	}
	for _, metric := range []struct {
		title, unit string
		pick        func(*suiteStats) map[string][]float64
	}{
		{"Median active tokens per scenario: agent_direct (first bar) vs ghx (second bar)", "active tokens", func(s *suiteStats) map[string][]float64 { return s.Active }},
		{"Median wall latency per scenario: agent_direct (first bar) vs ghx (second bar)", "ms", func(s *suiteStats) map[string][]float64 { return s.Latency }},
	} {
		b, c := metric.pick(base), metric.pick(cand)
		var ids []string
		for id := range b {
			if _, ok := c[id]; ok {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			continue
		}
		sort.Strings(ids)
		if len(ids) > maxChartScenarios {
			sec.Para("The chart below shows the first %d of %d scenarios (by ID); the summary files have all of them.", maxChartScenarios, len(ids))
			ids = ids[:maxChartScenarios]
		}
		var bv, cv []float64
		for _, id := range ids {
			bv = append(bv, median(b[id]))
			cv = append(cv, median(c[id]))
		}
		sec.Mermaid(jobsummary.XYBars(metric.title, metric.unit, ids, []jobsummary.Series{{Name: "agent_direct", Values: bv}, {Name: "ghx", Values: cv}}))
	}
}

func failureTable(sec *jobsummary.Section, r *reporter, set string, suites map[string]*suiteStats, order []string) {
	rows := [][]string{}
	for _, m := range order {
		for _, v := range suites[m].Violations {
			rows = append(rows, []string{fmt.Sprintf("%s:%d", r.rel(v.File), v.Line), v.ScenarioID, v.Field, v.Got})
		}
	}
	if len(rows) == 0 {
		return
	}
	sec.Para("Failing rows of %s:", set)
	sec.Table([]string{"file:line", "scenario", "field", "value"}, rows)
}

// includeMarkdown copies a mode's own Markdown summary into the job
// summary, with its headings pushed down a level to nest under ours.
func includeMarkdown(sec *jobsummary.Section, path string, r *reporter) {
	if path == "" {
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		sec.Para("%s could not be read: %v", r.rel(path), err)
		return
	}
	text := string(b)
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "#") {
			l = "##" + l
		}
		out = append(out, l)
	}
	sec.Para("From `%s`:\n\n%s", r.rel(path), strings.TrimSpace(strings.Join(out, "\n")))
}

// batchStatuses are the fixed per-instance statuses, in chart order.
var batchStatuses = []string{"success", "failed", "incomplete"}

func (r *reporter) batchSection(doc *jobsummary.Doc, b *batchResult) {
	sec := doc.Section("SWE-bench batch")
	sec.Note = "see " + r.rel(b.Root)
	counts := map[string]int{}
	rows := [][]string{}
	for _, in := range b.Instances {
		counts[in.Status]++
		rows = append(rows, []string{in.InstanceID, in.Status, in.FailureReasonCode, textfmt.Truncate(in.FailureReasonDetail, 200)})
	}
	labels := append([]string(nil), batchStatuses...)
	for s := range counts {
		if !contains(labels, s) {
			labels = append(labels, s)
		}
	}
	var cs []int
	var parts []string
	for _, l := range labels {
		cs = append(cs, counts[l])
		parts = append(parts, fmt.Sprintf("%s %d", l, counts[l]))
	}
	sec.Para("Run root `%s`: %d instances (%s). Predictions: `%s`.", r.rel(b.Root), len(b.Instances), strings.Join(parts, ", "), r.rel(b.Predictions))
	if len(b.Instances) > 0 {
		sec.Mermaid(jobsummary.Pie("Instance statuses", labels, cs))
	}
	sec.Table([]string{"instance", "status", "failure reason", "detail"}, rows)
}

func (r *reporter) auditSection(doc *jobsummary.Doc, a *auditResult) {
	sec := doc.Section("QA audit")
	if a.Report == "" {
		sec.Para("No quality_report.json was written.")
		return
	}
	sec.Note = "see " + r.rel(a.Report)
	counts := map[string]int{}
	var labels []string
	rows := [][]string{}
	human := 0
	for _, c := range a.Cases {
		if counts[c.Verdict] == 0 {
			labels = append(labels, c.Verdict)
		}
		counts[c.Verdict]++
		h := ""
		if c.NeedsHuman {
			h = "yes"
			human++
		}
		rows = append(rows, []string{r.rel(c.File), c.ID, c.Verdict, h})
	}
	sort.Strings(labels)
	var cs []int
	for _, l := range labels {
		cs = append(cs, counts[l])
	}
	sec.Para("Quality report `%s`: %d cases, %d need human review.", r.rel(a.Report), len(a.Cases), human)
	if len(a.Cases) > 0 {
		sec.Mermaid(jobsummary.Pie("Verdicts", labels, cs))
		sec.Table([]string{"file", "case", "verdict", "needs human review"}, rows)
	}
	if len(a.PRURLs) > 0 {
		sec.Para("Pull requests:")
		sec.List(a.PRURLs)
	}
	includeMarkdown(sec, a.SummaryMD, r)
}

// urlTap passes the mode's output through to the log and keeps the pull
// request URLs it prints (qa-audit reports the pull requests it opened
// or updated on standard output only).
type urlTap struct {
	w    io.Writer
	line []byte
	urls []string
	errs lastMessage
}

// StderrRecorder is offered by the stdout writer Config.Run receives:
// what the mode writes to stderr should also go to StderrWriter, so that
// a mode that stops with an error ("benchgate set: ...") before writing
// any result file still has its reason in the job summary and annotation.
type StderrRecorder interface {
	StderrWriter() io.Writer
}

// StderrWriter records the mode's stderr; it forwards nothing.
func (t *urlTap) StderrWriter() io.Writer { return &t.errs }

// lastMessage keeps the last complete line starting with "benchgate ",
// the prefix of every mode's own error message.
type lastMessage struct {
	line []byte
	last string
}

func (m *lastMessage) Write(p []byte) (int, error) {
	m.line = append(m.line, p...)
	for {
		i := bytes.IndexByte(m.line, '\n')
		if i < 0 {
			break
		}
		if l := string(m.line[:i]); strings.HasPrefix(l, "benchgate ") {
			m.last = strings.TrimSpace(l)
		}
		m.line = m.line[i+1:]
	}
	if len(m.line) > 64*1024 {
		m.line = m.line[:0]
	}
	return len(p), nil
}

func (t *urlTap) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.line = append(t.line, p...)
	for {
		i := bytes.IndexByte(t.line, '\n')
		if i < 0 {
			break
		}
		t.scan(t.line[:i])
		t.line = t.line[i+1:]
	}
	if len(t.line) > 64*1024 { // a line this long holds no URL worth keeping
		t.line = t.line[:0]
	}
	return n, err
}

func (t *urlTap) scan(l []byte) {
	if bytes.Contains(l, []byte("pull request")) {
		t.urls = mergeURLs(t.urls, prURL.FindAllString(string(l), -1))
	}
}

func (t *urlTap) flush() {
	t.scan(t.line)
	t.line = nil
}

// mergeURLs appends the URLs of b not yet in a, keeping first-seen order.
func mergeURLs(a, b []string) []string {
	seen := map[string]bool{}
	for _, u := range a {
		seen[u] = true
	}
	for _, u := range b {
		if !seen[u] {
			seen[u] = true
			a = append(a, u)
		}
	}
	return a
}

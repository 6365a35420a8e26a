package action

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/ghpr"
	"github.com/benchgate/benchgate/internal/llm"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/suggest"
	"github.com/benchgate/benchgate/internal/swebench"
)

// Modes the Action runs, in the order action.yml documents them.
var Modes = []string{"report", "set", "ordered", "swebench-batch", "qa-audit", "drift", "pr-comment"}

// Kind says how an input's text becomes command-line flags.
type Kind int

const (
	// Text passes the value as one flag value.
	Text Kind = iota
	// Bool passes the bare flag when the value is true.
	Bool
	// Int passes the value after checking it is a non-negative integer.
	Int
	// Lines repeats the flag once per non-empty line (lists of IDs, paths).
	Lines
	// Secret never becomes a flag: it is masked, then handed to the mode
	// in an environment variable so it cannot show in a process listing.
	Secret
	// Adapter is read by the adapter itself (artifact settings, mode).
	Adapter
)

// Input is one input of action.yml and the flag it becomes.
type Input struct {
	Name        string
	Description string
	Kind        Kind
	// Flag is the mode's command-line flag (with dashes).
	Flag string
	// Modes that take the input; nil means every mode.
	Modes []string
	// Env is the environment variable a Secret input is handed over in.
	Env string
	// Default is action.yml's default, "" for none.
	Default string
	// Required inputs must be non-empty for the modes that take them.
	Required bool
	// Check, when set, checks a non-empty value before anything runs and
	// returns what was expected when the value is wrong ("" when it is
	// right), so that every bad input is reported at once instead of the
	// mode stopping at the first.
	Check func(v string) (expected string)
	// Values, for an input that takes one of a few words, are the words;
	// a wrong value is answered with the nearest ("did you mean").
	Values []string
}

func (in Input) takes(mode string) bool {
	if in.Modes == nil {
		return true
	}
	for _, m := range in.Modes {
		if m == mode {
			return true
		}
	}
	return false
}

var (
	verifyModes = []string{"set", "ordered"}
	modelModes  = []string{"set", "ordered", "swebench-batch", "qa-audit"}
)

// Inputs lists every input the adapter reads. action.yml must declare
// exactly these (a test cross-checks both ways).
func Inputs() []Input {
	inputs := []Input{
		{Name: "mode", Kind: Adapter, Required: true, Description: "Which benchgate mode to run: report, set, ordered, swebench-batch, qa-audit, drift (the change points of the runs main kept, one issue per open one), or pr-comment (post the comment a pull request's run kept, from a workflow_run workflow)."},
		{Name: "working-directory", Kind: Adapter, Description: "Folder, relative to the workspace, the mode runs in (the benchmark package for set/ordered). Default: the workspace."},
		{Name: "out-dir", Kind: Adapter, Description: "Where results are written, relative to the working directory. Default: benchgate-results/<mode>-<run id>-<attempt>, with -2, -3, ... added when an earlier step of the job already used that folder. For set it is the set folder (--out-dir), for ordered the run folder holding one folder per set (--out-dir), for qa-audit --out-dir, for swebench-batch the parent of the timestamped run root (--results-dir; default results/phase5/ralph-codex-local); for report the folder of the summary files."},
		{Name: "extra-args", Kind: Lines, Description: "More command-line arguments for the mode, one per line, passed unchanged (for flags this Action does not list)."},

		// report
		{Name: "suite-jsonl", Kind: Lines, Flag: "--suite-jsonl", Modes: []string{"report"}, Description: "report: suite JSONL files, one path or glob pattern per line, relative to working-directory (results/*-suite.jsonl); a pattern that matches nothing fails the step."},
		{Name: "gate", Kind: Bool, Flag: "--gate", Modes: []string{"report"}, Description: "report: evaluate the gate and fail the step when it does not pass (true/false)."},
		{Name: "gate-profile", Kind: Text, Flag: "--gate-profile", Modes: []string{"report", "set", "ordered"}, Check: checkProfile, Values: []string{report.ProfileVerifyPR, report.ProfileVerifyRelease, report.ProfilePRFast}, Description: "report, set, ordered: gate profile, verify_pr or verify_release (pr_fast is an alias of verify_pr)."},
		{Name: "expectations-config", Kind: Text, Flag: "--expectations-config", Modes: []string{"report"}, Description: "report: expectations.json with model-aware thresholds."},
		{Name: "expectations-model", Kind: Text, Flag: "--expectations-model", Modes: []string{"report"}, Description: "report: model whose expectations apply."},
		{Name: "summary-json", Kind: Text, Flag: "--summary-json", Modes: []string{"report"}, Description: "report: path of the summary JSON. Default: <out-dir>/latest-summary.json."},
		{Name: "summary-md", Kind: Text, Flag: "--summary-md", Modes: []string{"report"}, Description: "report: path of the summary Markdown. Default: <out-dir>/latest-summary.md."},

		// report, set: baseline and history
		{Name: "baseline", Kind: Adapter, Description: "report, set: compare with an earlier run: base-branch downloads this workflow's artifact from the newest completed run on the pull request's base branch (on other events, on this branch); or a folder (relative to working-directory) holding suite files, run-record.json or latest-summary.json. A base-branch run with nothing to download is a notice; a folder that does not exist fails the step."},
		{Name: "baseline-artifact", Kind: Adapter, Description: "report, set, drift: with base-branch, the artifact to download (default: the name this step gives its own results, <artifact-prefix>-<job>-run for report, <artifact-prefix>-<job>-<set> for set; for drift any <artifact-prefix>-<job>-run, the results report keeps with its run record)."},
		{Name: "history-workflow", Kind: Adapter, Description: "report, set, drift: with base-branch, the workflow file whose runs are downloaded (bench.yml; default: this workflow). A drift workflow of its own names the workflow that runs the benchmark on main."},
		{Name: "baseline-tolerance", Kind: Text, Flag: "--baseline-tolerance", Modes: lookbackModes, Check: checkTolerance, Description: "report, set: growth in percent of active tokens, latency or tool calls allowed against the baseline (default 10)."},
		{Name: "history", Kind: Adapter, Description: "report, set: earlier runs to name flaky scenarios from; drift (required): the runs to find change points in. base-branch downloads the artifacts of the newest history-runs completed runs of the branch (the pull request's base, else this run's branch), or a folder of earlier runs' files (relative to working-directory; a missing one is a notice, and fails drift)."},
		{Name: "baseline-events", Kind: Adapter, Description: "report, set: with base-branch, the events whose runs a baseline or history may come from, one per line or comma-separated: push (default), schedule, workflow_dispatch, merge_group, release, pull_request. Runs whose head commit came from another repository (a fork) are never used, whatever their branch is called."},
		{Name: "history-runs", Kind: Adapter, Description: "report, set: how many recent runs the history looks at, this run included (default 10); drift: how many runs base-branch downloads (default 40, at most 150)."},
	}
	inputs = append(inputs, statsInputs...)
	inputs = append(inputs, []Input{
		// set / ordered
		{Name: "set", Kind: Text, Flag: "--set", Modes: []string{"set"}, Required: true, Description: "set: the scenario set to verify (for example pr-exec)."},
		{Name: "provider", Kind: Text, Flag: "--provider", Modes: verifyModes, Required: true, Description: "set, ordered: model provider of the benchmark runs (for example openai)."},
		{Name: "model", Kind: Text, Flag: "--model", Modes: modelModes, Description: "set, ordered: model of the benchmark runs; swebench-batch: model slug of the endpoint; qa-audit: model of the verifier."},
		{Name: "repetitions", Kind: Int, Flag: "--repetitions", Modes: verifyModes, Description: "set, ordered: repetitions per scenario."},
		{Name: "scenario-ids", Kind: Lines, Flag: "--scenario-id", Modes: []string{"set"}, Description: "set: rerun only these scenario IDs, one per line."},
		{Name: "bench-config", Kind: Text, Flag: "--config", Modes: verifyModes, Description: "set, ordered: benchmark contract file (JSON, see docs/verify.md); default: the pnpm scripts of @ghx-dev/benchmark."},
		{Name: "pass-env", Kind: Lines, Flag: "--pass-env", Modes: verifyModes, Description: "set, ordered: variables of the step's environment the benchmark and fixture commands also get, one per line (NAME, or PREFIX* for all starting so). By default they get only PATH, HOME, locale, proxy and certificate settings, Node/pnpm settings and the model keys; never GITHUB_TOKEN (the github-token input) or the runner's file commands. To give the benchmark a token on purpose, set it in the step's env under another name (BENCH_GH_TOKEN) and name that here."},
		{Name: "bench-dir", Kind: Text, Flag: "--bench-dir", Modes: verifyModes, Description: "set, ordered: benchmark package folder (default: the working directory)."},
		{Name: "cleanup-on-failure", Kind: Bool, Flag: "--cleanup-on-failure", Modes: []string{"ordered"}, Description: "ordered: also run the fixture cleanup after a terminal stop (true/false)."},
		{Name: "confirm", Kind: Bool, Flag: "--confirm", Modes: []string{"ordered"}, Description: "ordered: run the canonical confirmation commands after all sets passed (true/false)."},

		// swebench-batch
		{Name: "instance-file", Kind: Text, Flag: "--instance-file", Modes: []string{"swebench-batch"}, Description: "swebench-batch: file with the instance IDs to run (default: the SWE-bench Multilingual test split)."},
		{Name: "dataset-file", Kind: Text, Flag: "--dataset-file", Modes: []string{"swebench-batch"}, Description: "swebench-batch: json/jsonl records with instance_id and problem_statement (the instances' task texts)."},
		{Name: "codex-binary", Kind: Text, Flag: "--codex-binary", Modes: []string{"swebench-batch"}, Description: "swebench-batch: static Codex CLI mounted read-only into instance containers whose image lacks codex (nothing is copied, no image changes); a bare name (codex) is looked up in the runner's PATH."},
		{Name: "max-loops", Kind: Int, Flag: "--max-loops", Modes: []string{"swebench-batch"}, Description: "swebench-batch: execute passes per instance (default 50)."},
		{Name: "resume", Kind: Text, Flag: "--resume", Modes: []string{"swebench-batch"}, Description: "swebench-batch: run root of an earlier batch; instances with a terminal status are skipped."},
		{Name: "shard", Kind: Text, Flag: "--shard", Modes: []string{"swebench-batch"}, Check: checkShard, Description: "swebench-batch: run only shard i/n of the sorted instances (for a matrix of runners; or give shard-index and shard-total)."},
		{Name: "shard-index", Kind: Adapter, Description: "swebench-batch: 0-based shard of a matrix job, strategy.job-index; with shard-total it runs shard (index+1)/total."},
		{Name: "shard-total", Kind: Adapter, Description: "swebench-batch: number of shards, strategy.job-total; used with shard-index."},
		{Name: "fail-on", Kind: Adapter, Description: "swebench-batch: what instance outcomes fail the step: never (default: the step passes whenever the batch ran; status and the counts outputs say what the instances did), failed (any failed instance) or incomplete (any failed or incomplete instance). A batch that could not run or was stopped (an endpoint that stopped answering, a signal) fails the step whatever this says. drift: none (default: change points are information), worse (fail when a change point for the worse is open) or any (when any is open)."},
		{Name: "phase-timeout", Kind: Text, Flag: "--phase-timeout", Modes: []string{"swebench-batch"}, Check: checkDuration, Description: "swebench-batch: wall-clock limit of each codex phase (Go duration, default 30m)."},
		{Name: "instance-timeout", Kind: Text, Flag: "--instance-timeout", Modes: []string{"swebench-batch"}, Check: checkDuration, Description: "swebench-batch: wall-clock budget of one instance over all its phases (Go duration); when spent the instance ends incomplete. Size it so a shard's instances fit the job's time limit."},
		{Name: "base-url", Kind: Text, Flag: "--base-url", Modes: []string{"swebench-batch"}, Description: "swebench-batch: Responses API endpoint Codex talks to."},
		{Name: "api-key-env", Kind: Text, Flag: "--api-key-env", Modes: []string{"swebench-batch", "qa-audit"}, Description: "swebench-batch, qa-audit: name of the environment variable holding the model API key (for example OPENAI_API_KEY, set by openai-api-key)."},

		// qa-audit
		{Name: "definitions", Kind: Lines, Flag: "--definitions", Modes: []string{"qa-audit"}, Required: true, Description: "qa-audit: benchmark question files or folders, one per line."},
		{Name: "model-backend", Kind: Text, Flag: "--model-backend", Modes: []string{"qa-audit"}, Check: checkBackend, Values: []string{string(llm.Gemini), string(llm.OpenAI)}, Description: "qa-audit: model backend, gemini or openai (an OpenAI-compatible endpoint)."},
		{Name: "model-url", Kind: Text, Flag: "--model-url", Modes: []string{"qa-audit"}, Description: "qa-audit: base URL of the OpenAI-compatible endpoint."},
		{Name: "python", Kind: Text, Flag: "--python", Modes: []string{"qa-audit"}, Description: "qa-audit: Python interpreter with pytest and the benchmark's library, for the sandbox."},
		{Name: "sandbox-image", Kind: Text, Flag: "--image", Modes: []string{"qa-audit"}, Description: "qa-audit: container image the option tests run in (with --network none), instead of python."},
		{Name: "sandbox", Kind: Text, Flag: "--sandbox", Modes: []string{"qa-audit"}, Description: "qa-audit: how tests with python are isolated: namespaces (the default; where the runner's kernel refuses them no test runs and the step fails) or none (no isolation: a test can read the runner's files and reach its network)."},
		{Name: "open-prs", Kind: Bool, Flag: "--open-prs", Modes: []string{"qa-audit"}, Description: "qa-audit: open or update pull requests with the verified fixes (true/false)."},
		{Name: "dry-run", Kind: Bool, Flag: "--dry-run", Modes: []string{"qa-audit"}, Description: "qa-audit: with open-prs, write pull-requests/plan.md in the out-dir (the branches, titles and bodies) instead of calling GitHub (true/false)."},
		{Name: "repo", Kind: Text, Flag: "--repo", Modes: []string{"qa-audit", "drift"}, Description: "qa-audit: owner/name of the repository pull requests go to; drift: the repository the commits are linked in (default: this repository)."},
		{Name: "base-branch", Kind: Text, Flag: "--base-branch", Modes: []string{"qa-audit"}, Description: "qa-audit: base branch of the pull requests."},
		{Name: "pr-grouping", Kind: Text, Flag: "--pr-grouping", Modes: []string{"qa-audit"}, Check: checkGrouping, Values: []string{string(ghpr.PerFile), string(ghpr.PerRun)}, Description: "qa-audit: one pull request per fixed file or per run."},
		{Name: "pr-labels", Kind: Lines, Flag: "--pr-labels", Modes: []string{"qa-audit"}, Description: "qa-audit: labels of the pull requests, one per line."},

		// secrets and artifacts
		{Name: "github-token", Kind: Secret, Env: "GITHUB_TOKEN", Default: "${{ github.token }}", Description: "Token for the GitHub API: pull requests of qa-audit, the pull-request comment (pull-requests: write), drift's issues (issues: write), benchmark fixtures, and the artifacts baseline and history download with base-branch (the job needs actions: read)."},
		{Name: "openai-api-key", Kind: Secret, Env: "OPENAI_API_KEY", Description: "API key of an OpenAI-compatible model endpoint."},
		{Name: "gemini-api-key", Kind: Secret, Env: "GOOGLE_API_KEY", Description: "API key for Gemini models."},
		{Name: "upload-artifacts", Kind: Adapter, Default: "true", Description: "Upload results as workflow artifacts: one per set folder and one for the whole run (a SWE-bench run root whole, as swebench merge reads it) (true/false)."},
		{Name: "artifact-prefix", Kind: Adapter, Default: "benchgate", Description: "Prefix of artifact names; give each step of a job (and each matrix entry) its own so names stay unique in the run."},
	}...)
	inputs = append(inputs, driftInputs...)
	return append(inputs, commentInputs...)
}

// InputError is a bad input value; it becomes an error annotation.
type InputError struct {
	Input, Value, Expected string
	// Meant is the value most likely meant ("report" for "repot"), when
	// one is near enough; for an Unknown input, the input meant.
	Meant string
	// Unknown says the input itself does not exist (a mistyped name
	// under with:, which would otherwise leave the real input at its
	// default).
	Unknown bool
}

func (e *InputError) Error() string {
	msg := fmt.Sprintf("input %q: expected %s, got %q", e.Input, e.Expected, e.Value)
	if e.Unknown {
		msg = fmt.Sprintf("input %q is not an input of benchgate (docs/action.md lists them)", e.Input)
	}
	if e.Meant != "" {
		msg += fmt.Sprintf("; did you mean %q?", e.Meant)
	}
	return msg
}

// InputErrors are all the bad inputs of a step, in action.yml's order:
// the step reports them together, so one fix-and-rerun fixes them all.
type InputErrors []*InputError

func (es InputErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// Unwrap gives errors.As and errors.Is each bad input.
func (es InputErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// add records err when it is an *InputError (or several) and returns
// any other error as it is.
func (es *InputErrors) add(err error) error {
	var one *InputError
	var many InputErrors
	switch {
	case err == nil:
	case errors.As(err, &many):
		*es = append(*es, many...)
	case errors.As(err, &one):
		*es = append(*es, one)
	default:
		return err
	}
	return nil
}

// err is nil when no input was bad.
func (es InputErrors) err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

// parseBool accepts the YAML 1.2 core spellings, as actions/toolkit's
// getBooleanInput does.
func parseBool(name, v string) (bool, error) {
	switch v {
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	}
	return false, &InputError{Input: name, Value: v, Expected: "true or false"}
}

// lines splits a multi-line input, dropping blank lines and surrounding space.
func lines(v string) []string {
	var out []string
	for _, l := range strings.Split(v, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Plan is what the inputs ask for: the mode's argv and what the adapter
// needs to find the mode's files afterwards.
type Plan struct {
	Mode string
	// Args is the argv given to the command dispatcher, mode name first.
	Args []string
	// WorkDir is the absolute folder the mode runs in.
	WorkDir string
	// OutDir is the absolute folder results go to; for swebench-batch the
	// folder the run root is created in (or the resumed run root).
	OutDir string
	// SummaryJSON and SummaryMD are the report mode's absolute paths.
	SummaryJSON, SummaryMD string
	// Env holds secrets for the mode, by variable name.
	Env map[string]string
	// Upload says whether to upload artifacts; ArtifactPrefix starts their names.
	Upload         bool
	ArtifactPrefix string
	// Ignored lists inputs that were set but mean nothing for this mode.
	Ignored []string
	// defaultOutDir is set when OutDir was not given and may be moved by
	// ClaimOutDir to a folder no earlier step of the job used.
	defaultOutDir bool
}

// ClaimOutDir makes a defaulted OutDir this step's own: two steps of one
// job (two `mode: set` steps, say) share the run id and attempt, so the
// second would write into the first's folder and overwrite its
// tracking.json. The folder is created with an exclusive mkdir; when it
// exists, "-2", "-3", ... are tried, and every argument naming the old
// folder is rewritten. An out-dir the user gave is left as it is.
func (p *Plan) ClaimOutDir() error {
	if !p.defaultOutDir {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p.OutDir), 0o755); err != nil {
		return fmt.Errorf("out-dir: %w", err)
	}
	old := p.OutDir
	for i := 1; i <= 1000; i++ {
		dir := old
		if i > 1 {
			dir = fmt.Sprintf("%s-%d", old, i)
		}
		err := os.Mkdir(dir, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("out-dir: %w", err)
		}
		p.moveOutDir(old, dir)
		return nil
	}
	return fmt.Errorf("out-dir: %s-2 ... %s-1000 all exist; set out-dir", old, old)
}

// moveOutDir rewrites every path below old to lie below dir.
func (p *Plan) moveOutDir(old, dir string) {
	move := func(s string) string {
		if s == old {
			return dir
		}
		if strings.HasPrefix(s, old+string(filepath.Separator)) {
			return dir + s[len(old):]
		}
		return s
	}
	for i, a := range p.Args {
		p.Args[i] = move(a)
	}
	p.OutDir = move(p.OutDir)
	p.SummaryJSON = move(p.SummaryJSON)
	p.SummaryMD = move(p.SummaryMD)
}

// BuildPlan turns the inputs into a Plan. get reads one input (already
// trimmed); workspace is the absolute workspace folder; runTag is unique
// per run attempt and names the default output folder. Every bad input is
// found before anything runs and returned together as InputErrors.
func BuildPlan(get func(string) string, workspace, runTag string) (*Plan, error) {
	var bad InputErrors
	mode := get("mode")
	modeOK := slices.Contains(Modes, mode)
	if !modeOK {
		bad = append(bad, &InputError{Input: "mode", Value: mode, Expected: "one of " + strings.Join(Modes, ", "), Meant: suggest.Closest(mode, Modes)})
	}
	p := &Plan{Mode: mode, Args: []string{mode}, Env: map[string]string{}}
	p.WorkDir = resolve(workspace, get("working-directory"))
	out := get("out-dir")
	switch {
	case out != "":
		p.OutDir = resolve(p.WorkDir, out)
	case mode == "swebench-batch":
		// The batch's own default: the run root goes under it.
		p.OutDir = filepath.Join(p.WorkDir, "results", "phase5", "ralph-codex-local")
	default:
		p.OutDir = filepath.Join(p.WorkDir, "benchgate-results", mode+"-"+runTag)
		p.defaultOutDir = true
	}
	if mode == "pr-comment" {
		// It only posts a file: no results folder.
		p.OutDir, p.defaultOutDir = "", false
		if v := get("pr-comment-author"); v != "" {
			p.Args = append(p.Args, "--author", v)
		}
	}
	var err error
	if p.Upload, err = parseBool("upload-artifacts", orDefault(get("upload-artifacts"), "true")); err != nil {
		bad = append(bad, err.(*InputError))
	}
	if v := get("pr-comment"); v != "" && !slices.Contains(prCommentModes, v) {
		bad = append(bad, &InputError{Input: "pr-comment", Value: v, Expected: "always, on-failure or off", Meant: suggest.Closest(v, prCommentModes)})
	}
	p.ArtifactPrefix = orDefault(get("artifact-prefix"), "benchgate")

	var extra []string
	for _, in := range Inputs() {
		v := get(in.Name)
		if in.Kind == Adapter {
			continue
		}
		if in.Kind == Secret {
			if v != "" {
				p.Env[in.Env] = v
			}
			continue
		}
		// With a mode that does not exist, every value is still checked,
		// so the next run does not stop at the next mistake.
		if modeOK && !in.takes(mode) {
			if v != "" {
				p.Ignored = append(p.Ignored, in.Name)
			}
			continue
		}
		if v == "" {
			if in.Required && modeOK {
				bad = append(bad, &InputError{Input: in.Name, Value: v, Expected: "a value (required by mode " + mode + ")"})
			}
			continue
		}
		if in.Check != nil {
			if want := in.Check(v); want != "" {
				bad = append(bad, &InputError{Input: in.Name, Value: v, Expected: want, Meant: suggest.Closest(v, in.Values)})
				continue
			}
		}
		switch in.Kind {
		case Text:
			p.Args = append(p.Args, in.Flag, v)
		case Bool:
			b, err := parseBool(in.Name, v)
			if err != nil {
				bad = append(bad, err.(*InputError))
				continue
			}
			if b {
				p.Args = append(p.Args, in.Flag)
			}
		case Int:
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				bad = append(bad, &InputError{Input: in.Name, Value: v, Expected: "a non-negative whole number"})
				continue
			}
			p.Args = append(p.Args, in.Flag, strconv.Itoa(n))
		case Lines:
			if in.Flag == "" { // extra-args
				extra = lines(v)
				continue
			}
			ls := lines(v)
			if in.Name == "suite-jsonl" {
				if ls, err = expandGlobs(in.Name, p.WorkDir, ls); err != nil {
					if err := bad.add(err); err != nil {
						return nil, err
					}
					continue
				}
			}
			for _, l := range ls {
				p.Args = append(p.Args, in.Flag, l)
			}
		}
	}
	if slices.Contains(lookbackModes, mode) {
		if e := checkWorkflowFile(get); e != nil {
			bad = append(bad, e)
		}
		// A baseline folder the user named must be there: comparing with
		// nothing because of a wrong path would pass a regression.
		if v := get("baseline"); v != "" && v != BaseBranch {
			if _, err := os.Stat(resolve(p.WorkDir, v)); err != nil {
				bad = append(bad, &InputError{Input: "baseline", Value: v,
					Expected: "an existing folder or file (" + resolve(p.WorkDir, v) + " does not exist), or " + BaseBranch})
			}
		}
	}
	if mode == "report" && !slices.Contains(p.Args, "--stats") {
		for _, name := range []string{"stats-confidence", "stats-allow-undecided"} {
			if in := findInput(name); slices.Contains(p.Args, in.Flag) {
				bad = append(bad, &InputError{Input: name, Value: get(name), Expected: "stats: true as well (it tunes the statistical gate, which is off)"})
			}
		}
		if _, err := lookbackEvents(get("baseline-events")); err != nil {
			return nil, err
		}
	}
	switch mode {
	case "report":
		p.SummaryJSON = resolve(p.WorkDir, orDefault(get("summary-json"), filepath.Join(p.OutDir, "latest-summary.json")))
		p.SummaryMD = resolve(p.WorkDir, orDefault(get("summary-md"), filepath.Join(p.OutDir, "latest-summary.md")))
		p.Args = setFlag(p.Args, "--summary-json", p.SummaryJSON)
		p.Args = setFlag(p.Args, "--summary-md", p.SummaryMD)
	case "set", "ordered":
		p.Args = append(p.Args, "--out-dir", p.OutDir)
	case "qa-audit":
		p.Args = append(p.Args, "--out-dir", p.OutDir)
	case "drift":
		bad = append(bad, p.driftArgs(get)...)
	case "swebench-batch":
		if err := bad.add(p.shardArgs(get)); err != nil {
			return nil, err
		}
		failOn := orDefault(get("fail-on"), swebench.FailOnNever)
		if _, err := swebench.ParseFailOn(failOn); err != nil {
			kinds := []string{swebench.FailOnNever, swebench.FailOnFailed, swebench.FailOnIncomplete}
			bad = append(bad, &InputError{Input: "fail-on", Value: failOn, Expected: "never, failed or incomplete", Meant: suggest.Closest(failOn, kinds)})
		}
		p.Args = append(p.Args, "--fail-on", failOn)
		if out != "" {
			p.Args = append(p.Args, "--results-dir", p.OutDir)
		}
		if r := get("resume"); r != "" {
			// A resumed batch writes into the run root it names.
			p.OutDir = resolve(p.WorkDir, r)
		}
	}
	if err := bad.err(); err != nil {
		return nil, err
	}
	p.Args = append(p.Args, extra...)
	return p, nil
}

// findInput is the declaration of the input called name.
func findInput(name string) Input {
	for _, in := range Inputs() {
		if in.Name == name {
			return in
		}
	}
	return Input{}
}

// shardArgs turns shard-index and shard-total (a matrix job's
// strategy.job-index and strategy.job-total) into --shard (index+1)/total,
// so that a workflow never writes the shard count apart from its matrix.
func (p *Plan) shardArgs(get func(string) string) error {
	idx, total := get("shard-index"), get("shard-total")
	if idx == "" && total == "" {
		return nil
	}
	if get("shard") != "" {
		return &InputError{Input: "shard-index", Value: idx, Expected: "no value when shard is given (give shard, or shard-index with shard-total)"}
	}
	n, err := strconv.Atoi(total)
	if err != nil || n < 1 {
		return &InputError{Input: "shard-total", Value: total, Expected: "a whole number >= 1 (strategy.job-total; empty outside a matrix job)"}
	}
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 || i >= n {
		return &InputError{Input: "shard-index", Value: idx, Expected: fmt.Sprintf("a whole number from 0 to %d (strategy.job-index)", n-1)}
	}
	p.Args = append(p.Args, "--shard", fmt.Sprintf("%d/%d", i+1, n))
	return nil
}

// setFlag replaces the value of flag in args, or appends flag and value.
func setFlag(args []string, flag, value string) []string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag {
			args[i+1] = value
			return args
		}
	}
	return append(args, flag, value)
}

func resolve(base, p string) string {
	if p == "" {
		return base
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

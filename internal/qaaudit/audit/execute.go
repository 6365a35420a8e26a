package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"google.golang.org/adk/model"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/ghpr"
	"github.com/benchgate/benchgate/internal/llm"
	"github.com/benchgate/benchgate/internal/qaaudit/execproof"
	"github.com/benchgate/benchgate/internal/qaaudit/pipeline"
	"github.com/benchgate/benchgate/internal/qaaudit/qreport"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// ErrBadInput marks errors caused by the user's flags or files (exit 2).
var ErrBadInput = exitcode.ErrUsage

// badInput is a usage error: its text is the message alone (the file, or
// the option and its value), and it exits 2.
func badInput(format string, a ...any) error {
	return exitcode.Usagef(format, a...)
}

// badOption is a usage error about the option key (out_dir, kinds,
// model_call_budget: the Config field in snake case); format is what
// follows its name. The command line names the option by its flag
// (exitcode.Rename).
func badOption(key, format string, a ...any) error {
	return &exitcode.UsageError{Err: exitcode.Optionf(key, format, a...)}
}

// Config is everything the qa-audit command line sets.
type Config struct {
	Paths    []string // question files, or folders searched for *.yaml
	RepoRoot string
	OutDir   string
	Cases    []string
	// Kinds restricts the audit to these benchmark types.
	Kinds []string

	Backend, Model, ModelURL, APIKeyEnv string
	ModelTimeout                        time.Duration

	Python, Image, DockerHost string
	TestTimeout, CaseTimeout  time.Duration
	// TestMemory bounds the address space of each local test (bytes; 0
	// means sandbox.DefaultMemory).
	TestMemory int64
	// NoSandbox runs local tests without the sandbox's namespaces (the
	// user's explicit choice; see sandbox.Runner.NoSandbox).
	NoSandbox bool
	// Secrets are masked in every test output the report quotes (see
	// sandbox.Runner.Secrets).
	Secrets []string
	// ModelFailureLimit is how many model calls in a row may fail before
	// the audit stops calling the model; zero means the default (3).
	ModelFailureLimit int
	// RequireModules are imported by the preflight of a local Python; a
	// missing one is reported once before any case runs.
	RequireModules []string

	MaxProofIterations uint
	MaxRemediations    int
	ModelCallBudget    int64
	// Jobs is how many cases are audited at once; zero means one per core.
	Jobs int

	OpenPRs, DryRun bool
	Repo, Base      string // owner/name and base branch
	Grouping        string
	Labels          []string
	RunID           string
	GitHubAPIURL    string

	Getenv func(string) string
	Stdout io.Writer
	Now    func() time.Time
}

// Summary is the outcome of Execute.
type Summary struct {
	Result       *Result
	PullRequests []ghpr.Result
	PlanPath     string // dry-run pull-request plan
}

// ExpandPaths turns files and folders into a sorted list of YAML files.
// Folders in skip (the audit's own output, which holds fixed copies of the
// question files) are not searched, so a rerun does not audit its own
// copies.
func ExpandPaths(paths []string, skip ...string) ([]string, error) {
	skipped := map[string]bool{}
	for _, s := range skip {
		if a, err := filepath.Abs(s); err == nil {
			skipped[a] = true
		}
	}
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, badInput("question path %s: %v", p, err)
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != p {
				if a, err := filepath.Abs(path); err == nil && skipped[a] {
					return filepath.SkipDir
				}
			}
			if !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, badInput("searching %s: %v", p, err)
		}
		if len(found) == 0 {
			return nil, badInput("question folder %s holds no .yaml file", p)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	if len(out) == 0 {
		return nil, badInput("no question files given")
	}
	return out, nil
}

func (c *Config) check() error {
	if c.OutDir == "" {
		return badOption("out_dir", " is empty")
	}
	for _, f := range []struct {
		key      string
		negative bool
		value    any
	}{
		{"test_timeout", c.TestTimeout < 0, c.TestTimeout},
		{"case_timeout", c.CaseTimeout < 0, c.CaseTimeout},
		{"model_timeout", c.ModelTimeout < 0, c.ModelTimeout},
		{"model_call_budget", c.ModelCallBudget < 0, c.ModelCallBudget},
	} {
		if f.negative {
			return badOption(f.key, " %v: must not be negative", f.value)
		}
	}
	for _, k := range c.Kinds {
		switch questions.Kind(k) {
		case questions.MultipleChoice, questions.APIUnderstanding, questions.FixError:
		default:
			return badOption("kinds", " %q: unknown benchmark type %q; want %s, %s or %s", strings.Join(c.Kinds, ","), k,
				questions.MultipleChoice, questions.APIUnderstanding, questions.FixError)
		}
	}
	switch c.Backend {
	case "", string(llm.Gemini), string(llm.OpenAI):
	default:
		return badOption("model_backend", " %q: want %s or %s", c.Backend, llm.Gemini, llm.OpenAI)
	}
	if c.Grouping != "" {
		if _, err := ghpr.ParseGrouping(c.Grouping); err != nil {
			return badOption("pr_grouping", " %q: %v", c.Grouping, err)
		}
	}
	if c.MaxRemediations > 10 {
		return badOption("max_remediations", " %d: at most 10", c.MaxRemediations)
	}
	if c.OpenPRs {
		if c.Repo == "" {
			c.Repo = c.Getenv("GITHUB_REPOSITORY")
		}
		if owner, name, ok := strings.Cut(c.Repo, "/"); !ok || owner == "" || name == "" || strings.Contains(name, "/") {
			return badOption("repo", " %q: want owner/name (or set GITHUB_REPOSITORY)", c.Repo)
		}
		if !c.DryRun && c.Getenv("GITHUB_TOKEN") == "" && c.Getenv("GH_TOKEN") == "" {
			return badOption("open_prs", " needs a token in GITHUB_TOKEN or GH_TOKEN (or use %w)", exitcode.Optionf("dry_run", ""))
		}
	}
	return nil
}

// Execute runs the qa-audit command: load, audit, report, fix, publish.
// File-level problems in any question file stop it before any model call.
func Execute(ctx context.Context, cfg Config) (*Summary, error) {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.Stdout == nil {
		cfg.Stdout = io.Discard
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	files, sel, err := loadSelected(cfg)
	if err != nil {
		return nil, err
	}
	outDir, err := filepath.Abs(cfg.OutDir)
	if err != nil {
		return nil, err
	}
	// The sandbox's Python first: without pytest nothing can be proven,
	// and a missing library settles the multiple_choice cases without a
	// model.
	runner := sandbox.Runner{Python: cfg.Python, Image: cfg.Image, DockerHost: cfg.DockerHost, Timeout: cfg.TestTimeout, Getenv: cfg.Getenv,
		Limits: sandbox.Limits{MemoryBytes: cfg.TestMemory}, NoSandbox: cfg.NoSandbox, Secrets: cfg.Secrets}
	missingLibrary, err := checkSandbox(ctx, cfg, &runner)
	if err != nil {
		return nil, err
	}
	am, err := connectModel(ctx, cfg, files, sel, missingLibrary)
	if err != nil {
		return nil, err
	}
	auditor, gate, err := newAuditor(ctx, cfg, runner, outDir, am, missingLibrary)
	if err != nil {
		return nil, err
	}
	jobs := cfg.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	res, err := Run(ctx, files, Options{RepoRoot: cfg.RepoRoot, OutDir: outDir, Model: am.name, Sandbox: runner.Describe(), Auditor: auditor, Now: cfg.Now,
		Only: sel.Only, Kinds: sel.Kinds, Jobs: jobs, OnCase: progress(cfg.Stdout), Annotate: func(r *qreport.Report) { r.ModelCheck = gate.ModelCheck() }})
	sum := &Summary{Result: res}
	if err != nil {
		return sum, err
	}
	printOutcome(cfg, res, am.breaker)
	if !cfg.OpenPRs || len(res.Fixed) == 0 {
		return sum, nil
	}
	return sum, publishFixes(ctx, cfg, res, outDir, sum)
}

// loadSelected loads every question file and the selection of cases and
// kinds, refusing a selected case ID that no file holds.
func loadSelected(cfg Config) ([]*questions.File, Options, error) {
	paths, err := ExpandPaths(cfg.Paths, cfg.OutDir)
	if err != nil {
		return nil, Options{}, err
	}
	files, err := LoadAll(paths, cfg.RepoRoot)
	if err != nil {
		return nil, Options{}, badInput("%v", err)
	}
	for _, id := range cfg.Cases {
		found := false
		for _, f := range files {
			if _, ok := f.Case(id); ok {
				found = true
			}
		}
		if !found {
			return nil, Options{}, badOption("case", " %q: no such case id in %d question file(s)", id, len(files))
		}
	}
	only := map[string]bool{}
	for _, id := range cfg.Cases {
		only[id] = true
	}
	kinds := map[questions.Kind]bool{}
	for _, k := range cfg.Kinds {
		kinds[questions.Kind(k)] = true
	}
	return files, Options{Only: only, Kinds: kinds}, nil
}

// checkSandbox checks, before any case runs, that the container engine
// answers (with an image) or that the sandbox's Python has pytest, and
// says what the sandbox has and lacks. It returns why the benchmark's
// library cannot be imported, or "" when it can.
func checkSandbox(ctx context.Context, cfg Config, runner *sandbox.Runner) (missingLibrary string, err error) {
	if cfg.Image != "" {
		// A dead engine would end every case in an error; say so once,
		// before any case runs.
		return "", pingEngine(ctx, cfg.DockerHost)
	}
	it, err := runner.Preflight(ctx, cfg.RequireModules)
	if err != nil {
		return "", &exitcode.UsageError{Err: err}
	}
	fmt.Fprintf(cfg.Stdout, "qa-audit: sandbox %s: Python %s, pytest %s\n", it.Python, it.Version, it.Pytest)
	if cfg.NoSandbox {
		fmt.Fprintf(cfg.Stdout, "qa-audit: warning: the tests run without a sandbox (chosen): they can read this machine's files and reach its network\n")
	}
	for _, note := range it.Notes {
		fmt.Fprintf(cfg.Stdout, "qa-audit: note: the sandbox has %s\n", note)
	}
	if u := runner.Unenforced(); u != "" {
		fmt.Fprintf(cfg.Stdout, "qa-audit: note: the sandbox has %s\n", u)
	}
	for _, m := range it.Missing {
		fmt.Fprintf(cfg.Stdout, "qa-audit: warning: %s does not import in %s; every check that needs it is Inconclusive (library not installed)\n", m, it.Python)
	}
	if len(it.Missing) > 0 {
		missingLibrary = fmt.Sprintf("the benchmark's library is not installed in %s: %s", it.Python, strings.Join(it.Missing, "; "))
	}
	return missingLibrary, nil
}

// auditModel is the model an audit calls, if any.
type auditModel struct {
	llm     model.LLM // the breaker in front of the model; nil without one
	breaker *llm.Breaker
	name    string // backend/model as the report names it, or "none"
	// mcCases counts the selected multiple_choice cases, which cannot be
	// audited without the model.
	mcCases int
}

// connectModel connects the model when a case needs one: multiple_choice
// cases that can be proven (without the library no option can be), or
// api_understanding claims the rules leave undecided; fix_error cases are
// proven by execution alone.
func connectModel(ctx context.Context, cfg Config, files []*questions.File, sel Options, missingLibrary string) (auditModel, error) {
	am := auditModel{name: "none", mcCases: modelCases(files, sel)}
	n := am.mcCases
	if !(n > 0 && missingLibrary == "" || n == 0 && apiCases(files, sel) > 0) {
		return am, nil
	}
	llmModel, err := llm.New(ctx, llm.Config{Backend: llm.Backend(cfg.Backend), Model: cfg.Model, BaseURL: cfg.ModelURL, APIKeyEnv: cfg.APIKeyEnv, Timeout: cfg.ModelTimeout}, cfg.Getenv)
	switch {
	case err != nil && n > 0:
		return am, badInput("%w (a model is needed because %d multiple_choice case(s) are selected; %w audits the kinds that need none)", err, n,
			exitcode.Optionf("kinds", " api_understanding,fix_error"))
	case err != nil:
		// api_understanding checks need a model only for the claims
		// the rules leave undecided; without one they are Inconclusive.
		return am, nil
	}
	// After a few failed calls in a row the endpoint is given up on:
	// the remaining cases end Inconclusive at once, with that error.
	am.breaker = &llm.Breaker{LLM: llmModel, Threshold: cfg.ModelFailureLimit}
	am.llm, am.name = am.breaker, llmModel.Name()
	if cfg.Backend != "" {
		am.name = cfg.Backend + "/" + am.name
	}
	return am, nil
}

// newAuditor builds the agents and the auditor of each kind, checking
// the model once before any case is judged.
func newAuditor(ctx context.Context, cfg Config, runner sandbox.Runner, outDir string, am auditModel, missingLibrary string) (ByKind, *ModelGate, error) {
	agents, err := pipeline.New(pipeline.Config{
		Model:              am.llm,
		Prover:             pipeline.SandboxProver{Runner: runner},
		WorkDir:            filepath.Join(outDir, "work"),
		MaxProofIterations: cfg.MaxProofIterations,
		MaxRemediations:    remediations(cfg.MaxRemediations),
		ModelCallBudget:    cfg.ModelCallBudget,
		CaseTimeout:        cfg.CaseTimeout,
	})
	if err != nil {
		return ByKind{}, nil, err
	}
	gate := &ModelGate{Next: agents, MissingLibrary: missingLibrary, CheckTimeout: cfg.ModelTimeout, Stdout: cfg.Stdout}
	prover := am.llm != nil
	if am.breaker != nil {
		gate.Model = am.breaker.LLM // the check is not one of the breaker's calls
		// A wrong endpoint, key or model name is broken setup: the run
		// ends here, exit 2, before any case is judged. Without a
		// multiple_choice case the model is only the prover of what the
		// rules leave undecided: the audit goes on without it.
		if mc := gate.Precheck(ctx); mc != nil && !mc.OK {
			if am.mcCases > 0 {
				return ByKind{}, nil, modelCheckFailed(mc.Error, cfg)
			}
			prover = false
			fmt.Fprintf(cfg.Stdout, "qa-audit: warning: model check failed (%s); the claims the rules leave undecided stay Inconclusive\n", textfmt.Truncate(mc.Error, 300))
		}
	}
	exec := &execproof.Auditor{Runner: runner, WorkDir: filepath.Join(outDir, "work"), RepoRoot: cfg.RepoRoot}
	if prover {
		// The claims the execution rules leave undecided go to the model,
		// which writes and runs a test for each, as for an option.
		exec.Prover = agents
	}
	return ByKind{Agents: gate, Exec: exec}, gate, nil
}

// printOutcome prints the totals, the report's path and the fixed
// copies, after saying whether the model was given up on.
func printOutcome(cfg Config, res *Result, breaker *llm.Breaker) {
	if breaker != nil {
		if open, first := breaker.Open(); open {
			fmt.Fprintf(cfg.Stdout, "qa-audit: stopped calling the model after %d failed calls in a row (%v); the multiple_choice cases after that end with its error (audit errors: Inconclusive, counted in the errors)\n", breakerLimit(cfg.ModelFailureLimit), first)
		}
	}
	t := res.Report.Totals
	fmt.Fprintf(cfg.Stdout, "qa-audit: %d cases: %d valid, %d ambiguous, %d incorrect, %d inconclusive, %d skipped, %d errors; %d fixed, %d need human review\n",
		t.Cases, t.Valid, t.Ambiguous, t.Incorrect, t.Inconclusive, t.Skipped, t.Errors, t.Fixed, t.NeedsHumanReview)
	fmt.Fprintf(cfg.Stdout, "qa-audit: report %s\n", res.ReportPath)
	for _, f := range res.Fixed {
		fmt.Fprintf(cfg.Stdout, "qa-audit: fixed copy %s (%d case(s))\n", f.Written, len(f.Cases))
	}
}

// publishFixes opens or updates the pull requests of the fixed files, or
// with --dry-run writes the plan of them; sum records what it did.
func publishFixes(ctx context.Context, cfg Config, res *Result, outDir string, sum *Summary) error {
	owner, name, _ := strings.Cut(cfg.Repo, "/")
	pcfg := ghpr.Config{Owner: owner, Repo: name, Base: cfg.Base, Grouping: ghpr.Grouping(cfg.Grouping), Labels: cfg.Labels, RunID: cfg.RunID,
		AuthorName: "benchgate qa-audit", AuthorEmail: "qa-audit@users.noreply.github.com"}
	changes := Changes(res.Fixed)
	if cfg.DryRun {
		sum.PlanPath = filepath.Join(outDir, "pull-requests", "plan.md")
		if err := fsutil.WriteFileAtomic(sum.PlanPath, []byte(Plan(pcfg, changes)), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(cfg.Stdout, "qa-audit: dry run, pull request plan %s\n", sum.PlanPath)
		return nil
	}
	gh, err := githubClient(cfg)
	if err != nil {
		return err
	}
	prs, err := ghpr.Publish(ctx, gh, pcfg, changes)
	sum.PullRequests = prs
	if len(prs) > 0 {
		if werr := recordPullRequests(res, outDir, prs); werr != nil && err == nil {
			err = werr
		}
	}
	for _, pr := range prs {
		verb := "updated"
		if pr.Created {
			verb = "opened"
		}
		fmt.Fprintf(cfg.Stdout, "qa-audit: %s pull request #%d %s (branch %s)\n", verb, pr.Number, pr.URL, pr.Branch)
	}
	if err != nil {
		return fmt.Errorf("publishing pull requests: %s", llm.Mask(err.Error(), cfg.Getenv("GITHUB_TOKEN"), cfg.Getenv("GH_TOKEN")))
	}
	return nil
}

func githubClient(cfg Config) (*github.Client, error) {
	tok := cfg.Getenv("GITHUB_TOKEN")
	if tok == "" {
		tok = cfg.Getenv("GH_TOKEN")
	}
	gh := github.NewClient(&http.Client{Timeout: 60 * time.Second}).WithAuthToken(tok)
	api := cfg.GitHubAPIURL
	if api == "" {
		api = cfg.Getenv("GITHUB_API_URL")
	}
	if api != "" {
		u, err := url.Parse(strings.TrimRight(api, "/") + "/")
		if err != nil {
			return nil, badInput("GitHub API URL %q: %v", api, err)
		}
		gh.BaseURL = u
	}
	return gh, nil
}

// Plan renders what --open-prs would publish, for --dry-run.
func Plan(cfg ghpr.Config, changes []ghpr.Change) string {
	var sb strings.Builder
	sb.WriteString("# Pull requests qa-audit would open or update\n")
	byBranch := map[string][]ghpr.Change{}
	var order []string
	for _, c := range changes {
		b := ghpr.BranchFor(cfg, c.Path)
		if _, ok := byBranch[b]; !ok {
			order = append(order, b)
		}
		byBranch[b] = append(byBranch[b], c)
	}
	for _, b := range order {
		cs := byBranch[b]
		labels := "none"
		if len(cfg.Labels) > 0 {
			codes := make([]string, len(cfg.Labels))
			for i, l := range cfg.Labels {
				codes[i] = textfmt.Code(l)
			}
			labels = strings.Join(codes, ", ")
		}
		fmt.Fprintf(&sb, "\n## %s\n\nRepository %s, branch %s, labels %s\n\n%s\n", textfmt.Cell(ghpr.Title(cs)), textfmt.Code(cfg.Owner+"/"+cfg.Repo), textfmt.Code(b), labels, ghpr.Body(cs))
	}
	return sb.String()
}

// ByKind sends each case to the auditor that proves its kind:
// api_understanding and fix_error cases are proven by execution alone
// (package execproof, no model call), every other case, and every
// malformed case, goes to the agent pipeline.
type ByKind struct {
	Agents CaseAuditor
	Exec   CaseAuditor
}

// AuditCase implements CaseAuditor.
func (k ByKind) AuditCase(ctx context.Context, c *questions.Case) pipeline.CaseResult {
	if c.OK() && execproof.Handles(c) {
		return k.Exec.AuditCase(ctx, c)
	}
	return k.Agents.AuditCase(ctx, c)
}

// progress prints one line per audited case, in report order, in the
// words the totals use: an audit error and a skipped case say so (the
// totals count them as errors and skipped, not by verdict), and a case's
// verdict is the one of the question as written, with the verdict after a
// verified fix beside it and the reason of any verdict but Valid. The
// line is a log line (textfmt.LogLine): a case ID holding a line break
// and "::warning::" is printed, refused, as text.
func progress(out io.Writer) func(*questions.Case, qreport.Case) {
	return func(c *questions.Case, rc qreport.Case) {
		line := fmt.Sprintf("%s:%d %s: ", c.File, c.Line, c.ID)
		switch {
		case rc.Error != "":
			line += "error: " + textfmt.Truncate(textfmt.OneLine(rc.Error), 200)
		case rc.Skipped != "":
			line += "skipped: " + rc.Skipped
			if len(rc.Problems) > 0 {
				line += fmt.Sprintf(" (%s)", rc.Problems[0])
			}
		default:
			line += string(rc.OriginalVerdict)
			if rc.Verdict != rc.OriginalVerdict {
				line += " -> " + string(rc.Verdict) + " (fixed)"
			} else if rc.Verdict != verdict.Valid && rc.Reason != "" {
				line += ": " + textfmt.Truncate(textfmt.OneLine(rc.Reason), 200)
			}
			if len(rc.Problems) > 0 {
				line += fmt.Sprintf(" (needs human review: %s)", rc.Problems[0])
			} else if rc.NeedsHumanReview {
				line += " (needs human review)"
			}
		}
		// The file, the case ID, a problem and a reason come from the
		// question file or a model: one line, and no workflow command
		// wherever it is printed (a plain run: step reads them).
		fmt.Fprintln(out, textfmt.LogLine(line))
	}
}

// recordPullRequests writes pull_requests.json, and adds the pull requests
// to quality_report.json (key "pull_requests", a superset of the report
// schema) and to the Markdown summary, so that whoever reads the report —
// the Action's pr-urls output, a person — finds them there.
func recordPullRequests(res *Result, outDir string, prs []ghpr.Result) error {
	if err := fsutil.WriteJSONAtomic(filepath.Join(outDir, "pull-requests", "pull_requests.json"), prs); err != nil {
		return err
	}
	res.Report.Finalize()
	withPRs := struct {
		*qreport.Report
		PullRequests []ghpr.Result `json:"pull_requests"`
	}{res.Report, prs}
	data, err := json.MarshalIndent(withPRs, "", "  ")
	if err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(res.ReportPath, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write quality report: %w", err)
	}
	var md strings.Builder
	md.Write(res.Report.Markdown())
	md.WriteString("\n## Pull requests\n\n")
	for _, pr := range prs {
		verb := "updated"
		if pr.Created {
			verb = "opened"
		}
		fmt.Fprintf(&md, "- [#%d](%s) %s, branch `%s`: %s\n", pr.Number, pr.URL, verb, pr.Branch, strings.Join(pr.Files, ", "))
	}
	return fsutil.WriteFileAtomic(filepath.Join(outDir, "quality_report.md"), []byte(md.String()), 0o644)
}

// remediations maps --max-remediations to the pipeline's bound: the flag
// counts attempts, so 0 means none, while the pipeline reads 0 as "use the
// default".
func remediations(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// modelCases counts the selected, well-formed multiple_choice cases, the
// only kind whose options are proven by tests a model writes.
func modelCases(files []*questions.File, sel Options) int {
	n := 0
	for _, f := range files {
		for _, c := range f.Cases() {
			if sel.selected(c) && c.OK() && c.Kind == questions.MultipleChoice {
				n++
			}
		}
	}
	return n
}

// apiCases counts the selected api_understanding cases, whose claims the
// rules may leave undecided for a configured model.
func apiCases(files []*questions.File, sel Options) int {
	n := 0
	for _, f := range files {
		for _, c := range f.Cases() {
			if sel.selected(c) && c.OK() && c.Kind == questions.APIUnderstanding {
				n++
			}
		}
	}
	return n
}

func breakerLimit(n int) int {
	if n > 0 {
		return n
	}
	return llm.DefaultBreakerThreshold
}

// pingEngine checks that the Docker engine the image option runs tests
// in answers: a bad DOCKER_HOST is bad input, an engine that does not
// answer a bad setup (exit code 2 either way, with what to do).
func pingEngine(ctx context.Context, host string) error {
	client, err := container.New(host)
	if err != nil {
		return &exitcode.UsageError{Err: err}
	}
	if err := client.Ping(ctx); err != nil && ctx.Err() == nil {
		return &exitcode.SetupError{Err: err, Fix: container.FixUnreachable}
	} else if err != nil {
		return err
	}
	return nil
}

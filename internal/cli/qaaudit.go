package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/qaaudit/audit"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
)

// qaAuditFlags are the flags of qa-audit by the option key the audit, its
// sandbox and the model backend name in their errors.
var qaAuditFlags = map[string]string{
	"out_dir": "--out-dir", "case": "--case", "kinds": "--kinds", "python": "--python",
	"test_timeout": "--test-timeout", "case_timeout": "--case-timeout", "model_timeout": "--model-timeout",
	"model_call_budget": "--model-call-budget", "model_backend": "--model-backend", "model": "--model",
	"model_url": "--model-url", "pr_grouping": "--pr-grouping", "max_remediations": "--max-remediations",
	"repo": "--repo", "open_prs": "--open-prs", "dry_run": "--dry-run", "api_key_env": "--api-key-env",
	"sandbox": "--sandbox", "image": "--image",
}

// jobSecretNames are the environment variables whose values a test's
// output quoted in the report must never show: the job's tokens and the
// model keys.
var jobSecretNames = []string{"GITHUB_TOKEN", "GH_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
	"GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY"}

// jobSecrets are the values of jobSecretNames and of apiKeyEnv that are set.
func jobSecrets(getenv func(string) string, apiKeyEnv string) []string {
	var out []string
	for _, name := range append(append([]string(nil), jobSecretNames...), apiKeyEnv) {
		if v := strings.TrimSpace(getenv(name)); name != "" && v != "" {
			out = append(out, v)
		}
	}
	return out
}

// checkFlagValues refuses a value that is itself a flag: a flag given
// without its value takes the next flag as its value (--case --python
// x.yaml), and the error should name both, not a file that fails to load.
// Call it with the values as typed, before paths are made absolute.
func checkFlagValues(c *audit.Config) error {
	for _, f := range []struct {
		flag   string
		values []string
	}{
		{"--case", c.Cases}, {"--require-module", c.RequireModules}, {"--kinds", c.Kinds}, {"--definitions", c.Paths},
		{"--python", []string{c.Python}}, {"--out-dir", []string{c.OutDir}}, {"--repo-root", []string{c.RepoRoot}},
		{"--image", []string{c.Image}}, {"--model", []string{c.Model}}, {"--model-url", []string{c.ModelURL}},
	} {
		for _, v := range f.values {
			if strings.HasPrefix(v, "-") {
				return fmt.Errorf("%s %q: that is a flag, not a value; %s needs a value", f.flag, v, f.flag)
			}
		}
	}
	return nil
}

// runQAAudit is `benchgate qa-audit`: prove every option of every
// multiple-choice question by running one pytest file per option (and
// api_understanding and fix_error cases by fixed pytest checks that need no
// model), decide the verdict in code, remediate flawed multiple-choice
// cases and optionally open pull requests with the fixed files. Exit 0 when every audited case is Valid as
// written, 1 when any is not (or publishing failed), 2 on bad input.
func runQAAudit(ctx context.Context, env *Env, args []string) int {
	return exit(env, "qa-audit", qaAuditCommand(ctx, env, args))
}

// qaAuditOptions is qa-audit's command line as parsed: the audit's
// configuration and the flags that become part of it once checked.
type qaAuditOptions struct {
	config              audit.Config
	sandbox, testMemory string
	fs                  *pflag.FlagSet
}

// qaAuditCommand parses and checks qa-audit's flags, runs the audit and
// returns what ends it.
func qaAuditCommand(ctx context.Context, env *Env, args []string) error {
	f, run, err := parseQAAuditFlags(env, args)
	if !run {
		return err
	}
	c, err := f.auditConfig(env)
	if err != nil {
		return err
	}
	sum, err := audit.Execute(ctx, c)
	if sum != nil && env.Result != nil {
		env.Result.Audit = sum
	}
	err = exitcode.Rename(err, qaAuditFlags)
	switch {
	case errors.Is(err, audit.ErrBadInput), errors.Is(err, exitcode.ErrSetup):
		// Nothing was judged: bad input, or a bad setup with what to do.
		return usageError(err)
	case err != nil:
		return exitcode.WithCode(ExitFailed, err)
	case !sum.Result.AllValid:
		return exitcode.WithCode(ExitFailed, nil)
	}
	return nil
}

// parseQAAuditFlags parses qa-audit's flags; run is false when qa-audit
// stops there (see parseCommandLine).
func parseQAAuditFlags(env *Env, args []string) (f *qaAuditOptions, run bool, err error) {
	f = &qaAuditOptions{fs: pflag.NewFlagSet("qa-audit", pflag.ContinueOnError)}
	fs, c := f.fs, &f.config
	fs.SetOutput(env.Stderr)
	fs.StringArrayVar(&c.Paths, "definitions", nil, "question YAML file or folder (repeatable; positional arguments work too)")
	fs.StringVar(&c.RepoRoot, "repo-root", ".", "benchmark repository root: code_snippet_ref, fix_error files and pull-request paths are relative to it")
	fs.StringVar(&c.OutDir, "out-dir", "qa-audit", "folder for quality_report.json, quality_report.md, fixed/ (corrected question files), work/ (test files and JUnit reports) and pull-requests/ (plan.md, pull_requests.json)")
	fs.StringVar(&c.OutDir, "output-dir", "qa-audit", "alias of --out-dir")
	_ = fs.MarkHidden("output-dir")
	fs.StringArrayVar(&c.Cases, "case", nil, "audit only this case id (repeatable)")
	fs.StringSliceVar(&c.Kinds, "kinds", nil, "audit only these benchmark types, comma-separated: multiple_choice, api_understanding, fix_error (the last two need no model)")
	fs.StringVar(&c.Backend, "model-backend", "gemini", "model backend: gemini (key in GEMINI_API_KEY or GOOGLE_API_KEY) or openai (any OpenAI-compatible chat-completions endpoint)")
	fs.StringVar(&c.Backend, "backend", "gemini", "alias of --model-backend")
	_ = fs.MarkHidden("backend")
	fs.StringVar(&c.Model, "model", "", "model name (default gemini-3-pro-preview for gemini; required for openai)")
	fs.StringVar(&c.ModelURL, "model-url", "", "model endpoint base URL (openai: the /v1 root; default OPENAI_BASE_URL)")
	fs.StringVar(&c.APIKeyEnv, "api-key-env", "", "environment variable holding the model API key (default per backend)")
	fs.DurationVar(&c.ModelTimeout, "model-timeout", 5*time.Minute, "timeout of one model call (and of the model check call before the first multiple_choice case)")
	fs.IntVar(&c.ModelFailureLimit, "max-consecutive-model-failures", 3, "stop calling the model after this many failed calls in a row; the remaining multiple_choice cases end Inconclusive")
	fs.StringVar(&c.Python, "python", "python3", "Python interpreter that runs the tests (e.g. a virtualenv with the benchmark's library)")
	fs.StringArrayVar(&c.RequireModules, "require-module", nil, "module the sandbox Python must import, checked once before any case (repeatable; e.g. google.adk); without it every multiple_choice case is Inconclusive and no model is called")
	fs.StringVar(&c.Image, "image", "", "run each test in a container of this image with --network none instead of a local Python")
	fs.StringVar(&f.sandbox, "sandbox", "namespaces", "how local tests are isolated: namespaces (their own user, mount, network and PID namespaces; where the kernel refuses them no test runs and the audit exits 2) or none (no isolation: a test can read this machine's files and reach its network)")
	fs.StringVar(&c.DockerHost, "docker-host", "", "Docker engine for --image (default DOCKER_HOST)")
	fs.DurationVar(&c.TestTimeout, "test-timeout", 60*time.Second, "timeout of one pytest run (an option's test, or an api_understanding / fix_error check)")
	fs.StringVar(&f.testMemory, "test-memory", "2GiB", "address-space limit of one local pytest run (e.g. 2GiB, 512MiB); a test stopped by it, or by the CPU time, file size or process limit, says which")
	fs.DurationVar(&c.CaseTimeout, "case-timeout", 20*time.Minute, "deadline of one case, remediation included")
	fs.UintVar(&c.MaxProofIterations, "max-proof-iterations", 8, "bound of the proof engineer loop per verification")
	fs.IntVar(&c.MaxRemediations, "max-remediations", 3, "remediation attempts per flawed case (0 or -1 disables remediation)")
	fs.Int64Var(&c.ModelCallBudget, "model-call-budget", 0, "maximum model calls for the whole run (0 = unlimited)")
	fs.IntVar(&c.Jobs, "jobs", runtime.NumCPU(), "cases audited at once (their pytest runs and model calls in parallel); the report keeps file order")
	fs.BoolVar(&c.OpenPRs, "open-prs", false, "open or update pull requests with the verified fixes (token in GITHUB_TOKEN or GH_TOKEN)")
	fs.BoolVar(&c.DryRun, "dry-run", false, "with --open-prs, write pull-requests/plan.md (the branches, titles and bodies) instead of calling GitHub")
	fs.StringVar(&c.Repo, "repo", "", "repository owner/name for pull requests (default GITHUB_REPOSITORY)")
	fs.StringVar(&c.Base, "base-branch", "", "branch pull requests target (default: the repository's default branch)")
	fs.StringVar(&c.Grouping, "pr-grouping", "file", "one pull request per fixed file (file) or one per run (run)")
	fs.StringSliceVar(&c.Labels, "pr-labels", []string{"qa-audit"}, "labels added to the pull requests")
	fs.StringVar(&c.RunID, "run-id", "fixes", "branch suffix with --pr-grouping run")
	fs.StringVar(&c.GitHubAPIURL, "github-api-url", "", "GitHub REST API URL (default GITHUB_API_URL or https://api.github.com/)")
	run, err = parseCommandLine(env, fs, args)
	return f, run, err
}

// auditConfig checks the flags' values and turns them into the audit's
// configuration, its paths made absolute. Every error is the input's.
func (f *qaAuditOptions) auditConfig(env *Env) (audit.Config, error) {
	c := f.config
	memory, err := sandbox.ParseSize(f.testMemory)
	if err != nil {
		return c, usagef("--test-memory %v", err)
	}
	c.TestMemory = memory
	switch f.sandbox {
	case "namespaces":
	case "none":
		c.NoSandbox = true
	default:
		return c, usagef("--sandbox %q: expected namespaces or none", f.sandbox)
	}
	if c.ModelFailureLimit < 1 {
		return c, usagef("--max-consecutive-model-failures %d: expected a whole number >= 1", c.ModelFailureLimit)
	}
	if c.Jobs < 1 {
		return c, usagef("--jobs %d: expected a whole number >= 1", c.Jobs)
	}
	if err := checkAPIKeyEnv(c.APIKeyEnv); err != nil {
		return c, usageError(err)
	}
	if err := checkFlagValues(&c); err != nil {
		return c, usagef("%v (see benchgate qa-audit --help)", err)
	}
	c.Paths = append(c.Paths, f.fs.Args()...)
	if len(c.Paths) == 0 {
		return c, withUsage(usagef("no question files given"), f.fs)
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(env.Dir, p)
	}
	for i, p := range c.Paths {
		c.Paths[i] = abs(p)
	}
	c.RepoRoot, c.OutDir = abs(c.RepoRoot), abs(c.OutDir)
	if c.Python != "" && filepath.Base(c.Python) != c.Python {
		c.Python = abs(c.Python)
	}
	c.Getenv, c.Stdout, c.Now = env.Getenv, env.Stdout, env.Now
	c.Secrets = jobSecrets(env.Getenv, c.APIKeyEnv)
	if c.DockerHost == "" {
		// As --docker-host's help says, and as the docker CLI does.
		c.DockerHost = env.Getenv("DOCKER_HOST")
	}
	return c, nil
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/benchgate/benchgate/internal/textfmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/benchgate/benchgate/internal/codex"
	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/failcode"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/ralph"
	"github.com/benchgate/benchgate/internal/suggest"
	"github.com/benchgate/benchgate/internal/swebench"
)

// runSwebench dispatches `benchgate swebench run|batch|prepare-images|merge`.
func runSwebench(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 0 {
			fmt.Fprint(env.Stderr, swebenchHelp)
			return ExitUsage
		}
		fmt.Fprint(env.Stdout, swebenchHelp)
		return ExitOK
	}
	switch args[0] {
	case "run":
		return exit(env, "swebench run", swebenchRun(ctx, env, args[1:]))
	case "batch":
		return exit(env, "swebench batch", swebenchBatch(ctx, env, args[1:]))
	case "prepare-images":
		return exit(env, "swebench prepare-images", swebenchPrepare(ctx, env, args[1:]))
	case "merge":
		return exit(env, "swebench merge", swebenchMerge(env, args[1:]))
	}
	return exit(env, "swebench", usagef("unknown subcommand %q%s (expected run, batch, prepare-images or merge)", args[0],
		suggest.DidYouMean(args[0], []string{"run", "batch", "prepare-images", "merge"}, nil)))
}

// runFlags are the flags run and batch share.
type runFlags struct {
	maxLoops                           int
	phaseTimeout, idleTimeout          time.Duration
	promptsDir, datasetFile, imageTmpl string
	codexBinary, codexConfig           string
	instanceTimeout                    time.Duration
	maxTokens                          int64
	baseURL, model, apiKeyEnv          string
	codeDir, network                   string
	extraEnv                           []string
}

func (r *runFlags) register(fs *pflag.FlagSet, env *Env) {
	fs.IntVar(&r.maxLoops, "max-loops", 50, "execute passes per instance (each followed by a handoff)")
	fs.DurationVar(&r.phaseTimeout, "phase-timeout", 30*time.Minute, "wall-clock limit of each codex phase")
	fs.DurationVar(&r.idleTimeout, "idle-timeout", codex.DefaultIdleTimeout, "stop a codex phase that makes no progress for this long (no event but retry notices while no command runs): a dead model endpoint (0 = none)")
	fs.StringVar(&r.promptsDir, "prompts-dir", "", "folder with plan.md, execute.md and handoff.md replacing the built-in prompts")
	fs.StringVar(&r.datasetFile, "dataset-file", env.Getenv("SWE_BENCH_INSTANCES_FILE"), "json/jsonl records with instance_id and problem_statement (default $SWE_BENCH_INSTANCES_FILE)")
	fs.StringVar(&r.imageTmpl, "image-template", swebench.DefaultImageTemplate, "instance image name; {id} is the lower-cased instance ID")
	fs.StringVar(&r.codexBinary, "codex-binary", "", "static codex binary mounted read-only into each container (run when the image has no codex of its own)")
	fs.StringVar(&r.codexConfig, "codex-config", "", "profile mounted read-only as /root/.codex/local.config.toml in each container")
	fs.StringVar(&r.baseURL, "base-url", "", "Responses API endpoint; when set, benchgate writes CODEX_HOME/local.config.toml itself")
	fs.StringVar(&r.model, "model", "qwen3-coder-next-FP8", "model slug written with --base-url")
	fs.StringVar(&r.apiKeyEnv, "api-key-env", "", "environment variable holding the endpoint's API key (passed into the container)")
	fs.StringVar(&r.codeDir, "code-dir", "/testbed", "code folder inside the instance image")
	fs.DurationVar(&r.instanceTimeout, "instance-timeout", 0, "wall-clock budget of one instance over all its phases; when spent the instance ends incomplete (0 = none)")
	fs.Int64Var(&r.maxTokens, "max-tokens", 0, "token budget of one instance (input + output over all phases); when spent the instance ends incomplete (0 = none)")
	fs.StringVar(&r.network, "network", "host", "container network mode (host lets codex reach a loopback endpoint)")
	fs.StringArrayVar(&r.extraEnv, "env", nil, "K=V passed to codex inside the container (repeatable)")
}

// checkCredentials refuses the job's own credentials as --api-key-env and
// as --env names: both reach the agent's container.
func (r *runFlags) checkCredentials() error {
	if err := checkAPIKeyEnv(r.apiKeyEnv); err != nil {
		return err
	}
	for _, kv := range r.extraEnv {
		if err := checkEnvEntry(kv); err != nil {
			return err
		}
	}
	return nil
}

func (r *runFlags) options(env *Env) (swebench.Options, error) {
	codexBin, err := codexBinaryPath(env, r.codexBinary)
	if err != nil {
		return swebench.Options{}, err
	}
	o := swebench.Options{MaxLoops: r.maxLoops, PhaseTimeout: r.phaseTimeout, ImageTemplate: r.imageTmpl,
		CodexBinary: codexBin, CodexConfig: sbPath(env, r.codexConfig), DatasetFile: sbPath(env, r.datasetFile),
		CodeDir: r.codeDir, Network: r.network, Env: r.extraEnv, Now: env.Now, Log: env.Stderr, Getenv: env.Getenv,
		InstanceTimeout: r.instanceTimeout, MaxTokens: r.maxTokens, IdleTimeout: r.idleTimeout}
	if r.instanceTimeout < 0 || r.maxTokens < 0 {
		return o, fmt.Errorf("--instance-timeout %s / --max-tokens %d: expected 0 (no budget) or more", r.instanceTimeout, r.maxTokens)
	}
	if r.idleTimeout < 0 {
		return o, fmt.Errorf("--idle-timeout %s: expected 0 (none) or a positive duration", r.idleTimeout)
	}
	if err := r.checkCredentials(); err != nil {
		return o, err
	}
	if !strings.Contains(r.imageTmpl, "{id}") {
		return o, fmt.Errorf("--image-template %q: must contain {id}", r.imageTmpl)
	}
	if r.maxLoops < 1 {
		return o, fmt.Errorf("--max-loops %d: expected a whole number >= 1", r.maxLoops)
	}
	if r.codexConfig != "" {
		if err := codex.CheckProfileFile(sbPath(env, r.codexConfig)); err != nil {
			return o, err
		}
	}
	if r.baseURL != "" {
		o.Provider = &codex.Provider{BaseURL: r.baseURL, Model: r.model, APIKeyEnv: r.apiKeyEnv}
	}
	p, err := ralph.LoadPrompts(sbPath(env, r.promptsDir))
	if err != nil {
		return o, err
	}
	o.Prompts = p
	dc, err := container.New(env.Getenv("DOCKER_HOST"))
	if err != nil {
		return o, err
	}
	o.Docker = dc
	return o, nil
}

// args records every argument of an invocation in the manifest, so that
// a run can be told apart from another and repeated. Secrets appear by
// variable name only: the API key as --api-key-env's name, --env entries
// as their names (their values may be keys).
func (r *runFlags) args(env *Env) map[string]any {
	var envNames []string
	for _, kv := range r.extraEnv {
		k, _, _ := strings.Cut(kv, "=")
		envNames = append(envNames, k)
	}
	return map[string]any{
		"max_loops": r.maxLoops, "phase_timeout": r.phaseTimeout.String(), "prompts_dir": sbPath(env, r.promptsDir),
		"dataset_file": sbPath(env, r.datasetFile), "image_template": r.imageTmpl, "codex_binary": sbPath(env, r.codexBinary),
		"codex_config": sbPath(env, r.codexConfig), "base_url": r.baseURL, "model": r.model, "api_key_env": r.apiKeyEnv,
		"code_dir": r.codeDir, "network": r.network, "env_names": envNames,
		"instance_timeout": r.instanceTimeout.String(), "max_tokens": r.maxTokens, "idle_timeout": r.idleTimeout.String(),
	}
}

// codexBinaryPath resolves --codex-binary: a bare name (codex) is looked
// up in PATH as a shell would, so that a runner with the static Codex CLI
// installed can say `codex-binary: codex`; anything else is a path. A
// bare name found neither in PATH nor in the working folder is an error
// that says where it was looked for, not a "no such file" of a path the
// user never wrote.
func codexBinaryPath(env *Env, p string) (string, error) {
	if p == "" || strings.ContainsRune(p, filepath.Separator) {
		return sbPath(env, p), nil
	}
	looked := 0
	for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		looked++
		c := filepath.Join(dir, p)
		if info, err := os.Stat(c); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return c, nil
		}
	}
	local := sbPath(env, p)
	if _, err := os.Stat(local); err == nil {
		return local, nil
	}
	return "", fmt.Errorf("--codex-binary %s: no such program in PATH (%d folders) nor file in %s; give its path, or put the static Codex CLI on PATH", p, looked, env.Dir)
}

func sbPath(env *Env, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(env.Dir, p)
}

func sbFlagSet(env *Env, name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.SortFlags = false
	return fs
}

// sbUsage is an error of a swebench command's input, with the flags
// named as the command line spells them: exit 2.
func sbUsage(err error) error { return usageError(sbFlags(err)) }

// swebenchFlags are the flags of the swebench commands by the option key
// the swebench and codex packages name a bad value by.
var swebenchFlags = map[string]string{
	"instance_id": "--instance-id", "output_dir": "--output-dir", "max_loops": "--max-loops",
	"phase_timeout": "--phase-timeout", "dataset_file": "--dataset-file", "codex_binary": "--codex-binary",
	"codex_config": "--codex-config", "slice": "--slice", "resume": "--resume", "shard": "--shard",
	"fail_on": "--fail-on", "retry_failed": "--retry-failed",
}

// sbFlags names the flags in an error of the swebench or codex packages.
func sbFlags(err error) error { return exitcode.Rename(err, swebenchFlags) }

// swebenchRun is `benchgate swebench run`: one instance. Its status line
// is on stdout; an incomplete instance exits 20, a failed one 1.
func swebenchRun(ctx context.Context, env *Env, args []string) error {
	fs := sbFlagSet(env, "swebench run")
	var rf runFlags
	rf.register(fs, env)
	id := fs.String("instance-id", "", "the one instance to run (owner__repo-NUMBER)")
	out := fs.String("output-dir", "", "per-instance output folder (required)")
	man := fs.String("manifest-dir", "", "folder of run_manifest.json (default: --output-dir)")
	skipPreflight := fs.Bool("skip-preflight", false, "do not check the endpoint given by --base-url before the instance")
	if run, err := parseCommandLine(env, fs, args); !run {
		return err
	}
	if fs.NArg() > 0 {
		return sbUsage(fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	o, err := rf.options(env)
	if err != nil {
		return sbUsage(err)
	}
	o.InstanceID, o.OutputDir, o.ManifestDir = *id, sbPath(env, *out), sbPath(env, *man)
	o.Args = rf.args(env)
	o.Args["instance_id"], o.Args["output_dir"], o.Args["manifest_dir"] = *id, o.OutputDir, o.ManifestDir
	if o.ManifestDir == "" {
		o.Args["manifest_dir"] = o.OutputDir
	}
	if err := o.Validate(); err != nil {
		return sbUsage(err)
	}
	// Codex retries a dead endpoint forever inside each phase; one cheap
	// request first says what is wrong before a container is created.
	if o.Provider != nil && !*skipPreflight {
		if err := codex.PreflightProvider(ctx, *o.Provider, env.Getenv); err != nil {
			if ctx.Err() != nil {
				return exitcode.WithCode(ExitFailed, fmt.Errorf("interrupted: %v", err))
			}
			// Nothing ran: a bad setup, said once with what to do.
			return usageError(fmt.Errorf("%v; %s", err, swebench.FixEndpoint))
		}
	}
	st, err := swebench.Run(ctx, o)
	if err != nil {
		return exitcode.WithCode(ExitFailed, sbFlags(err))
	}
	code := "null"
	if st.FailureReasonCode != nil {
		code = string(*st.FailureReasonCode)
	}
	fmt.Fprintf(env.Stdout, "instance_id=%s status=%s failure_reason_code=%s\n", st.InstanceID, st.Status, code)
	switch st.Status {
	case ralph.StatusSuccess:
		return nil
	case ralph.StatusIncomplete:
		return exitcode.WithCode(ExitIncomplete, nil)
	}
	return exitcode.WithCode(ExitFailed, nil)
}

// batchFlags is `swebench batch`'s command line as parsed: the flags it
// shares with run and its own.
type batchFlags struct {
	run                                             runFlags
	instanceFile, resultsDir, resume, shard, filter string
	retryFailed, progressMD, slice, failOn          string
	skipPreflight                                   bool
	checkTimeout                                    time.Duration
	maxFailures                                     int
}

// swebenchBatch is `benchgate swebench batch`: many instances under one
// run root. Its exit code says what --fail-on asks about the instances'
// outcomes; a batch that stopped or could not run exits 1, bad input 2.
func swebenchBatch(ctx context.Context, env *Env, args []string) error {
	f, run, err := parseBatchFlags(env, args)
	if !run {
		return err
	}
	b, err := f.batchOptions(env)
	if err != nil {
		return err
	}
	res, err := swebench.Batch(ctx, b)
	if env.Result != nil {
		env.Result.Batch = &res
	}
	return batchOutcome(ctx, res, err, f.failOn)
}

// parseBatchFlags parses batch's flags; run is false when batch stops
// there (see parseCommandLine).
func parseBatchFlags(env *Env, args []string) (f *batchFlags, run bool, err error) {
	f = &batchFlags{}
	fs := sbFlagSet(env, "swebench batch")
	f.run.register(fs, env)
	fs.StringVar(&f.instanceFile, "instance-file", "", "subset of instances: txt (one ID a line), json or jsonl (default: the whole SWE-bench Multilingual test split)")
	fs.StringVar(&f.resultsDir, "results-dir", "results/phase5/ralph-codex-local", "parent of the timestamped run root")
	fs.StringVar(&f.resume, "resume", "", "run root of an earlier batch: skip instances with a terminal status")
	fs.StringVar(&f.shard, "shard", "", "run only shard i/n of the sorted instances (merge the shards with 'swebench merge')")
	fs.BoolVar(&f.skipPreflight, "skip-preflight", false, "do not check the endpoint given by --base-url before the batch")
	fs.StringVar(&f.retryFailed, "retry-failed", "", "with --resume, run again the instances that ended with these failure codes, comma-separated ("+strings.Join(failcode.Names(), ", ")+"), or every one that is not a success (all)")
	fs.StringVar(&f.filter, "filter", "", "run only the instance IDs this regular expression matches")
	fs.DurationVar(&f.checkTimeout, "endpoint-check-timeout", codex.DefaultProbeTimeout, "time limit of the endpoint check the batch runs after instances in a row failed (model list and a one-token POST /responses, answer and body)")
	fs.IntVar(&f.maxFailures, "max-consecutive-endpoint-failures", swebench.DefaultMaxEndpointFailures, "stop the batch after this many instances in a row failed with runtime_error while the endpoint preflight fails too")
	fs.StringVar(&f.progressMD, "progress-md", "", "rewrite this Markdown file with the table of finished instances after each one (the Action passes its job summary)")
	fs.StringVar(&f.slice, "slice", "", "run only START:END (0-based, END excluded) of the sorted instance list, after --filter")
	fs.StringVar(&f.failOn, "fail-on", swebench.FailOnIncomplete, "what instance outcomes make the exit code non-zero: incomplete (1 if an instance failed, else 20 if one is incomplete), failed (1 if an instance failed) or never; a batch that was stopped or could not run exits 1 whatever this says")
	run, err = parseCommandLine(env, fs, args)
	if run && fs.NArg() > 0 {
		return f, false, sbUsage(fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	return f, run, err
}

// batchOptions checks the flags and turns them into the batch's options:
// the flags' own values first (a refused credential is the first thing
// to say, before the instance file is read), then the instances chosen,
// then what each instance runs with. Every error is the input's: exit 2.
func (f *batchFlags) batchOptions(env *Env) (swebench.BatchOptions, error) {
	b := swebench.BatchOptions{Stdout: env.Stdout, Args: f.run.args(env)}
	if err := f.check(&b); err != nil {
		return b, sbUsage(err)
	}
	for k, v := range map[string]any{"instance_file": sbPath(env, f.instanceFile), "resume": sbPath(env, f.resume), "shard": f.shard,
		"retry_failed": f.retryFailed, "filter": f.filter, "slice": f.slice, "results_dir": sbPath(env, f.resultsDir),
		"fail_on": f.failOn, "endpoint_check_timeout": f.checkTimeout.String(), "max_consecutive_endpoint_failures": f.maxFailures} {
		b.Args[k] = v
	}
	if f.progressMD != "" {
		path := sbPath(env, f.progressMD)
		b.OnInstance = func(done []swebench.InstanceReport, total int) {
			if err := fsutil.WriteFileAtomic(path, []byte(progressTable(done, total)), 0o644); err != nil {
				fmt.Fprintf(env.Stderr, "benchgate swebench batch: progress table: %v\n", err)
			}
		}
	}
	if err := f.chooseInstances(env, &b); err != nil {
		return b, sbUsage(err)
	}
	o, err := f.run.options(env)
	if err != nil {
		return b, sbUsage(err)
	}
	b.Instance = o
	if f.resume != "" {
		b.RunRoot, b.Resume = sbPath(env, f.resume), true
	} else {
		b.RunRoot = swebench.RunRootFor(sbPath(env, f.resultsDir), env.Now())
	}
	if o.Provider != nil && !f.skipPreflight {
		f.checkEndpoint(env, *o.Provider, &b)
	}
	return b, nil
}

// check checks the values of batch's own flags, in the order a person
// reads them, and sets the options they are.
func (f *batchFlags) check(b *swebench.BatchOptions) error {
	if err := f.run.checkCredentials(); err != nil {
		return err
	}
	if _, err := swebench.ParseFailOn(f.failOn); err != nil {
		return err
	}
	retry, err := swebench.ParseRetryFailed(f.retryFailed)
	if err != nil {
		return err
	}
	if retry != "" && f.resume == "" {
		return errors.New("--retry-failed needs --resume <run root>: it re-runs failed instances of an earlier batch")
	}
	b.RetryFailed = retry
	if f.maxFailures < 1 {
		return fmt.Errorf("--max-consecutive-endpoint-failures %d: expected a whole number >= 1", f.maxFailures)
	}
	b.MaxEndpointFailures = f.maxFailures
	if f.checkTimeout <= 0 {
		return fmt.Errorf("--endpoint-check-timeout %s: expected a positive duration", f.checkTimeout)
	}
	return nil
}

// chooseInstances sets which instances the batch runs: --filter,
// --slice, the instance file (or the whole test split), --shard; and the
// dataset they are read from when no flag names one.
func (f *batchFlags) chooseInstances(env *Env, b *swebench.BatchOptions) error {
	if f.filter != "" {
		re, err := regexp.Compile(f.filter)
		if err != nil {
			return fmt.Errorf("--filter %q: %v", f.filter, err)
		}
		b.Filter = re
	}
	if f.slice != "" {
		sl, err := swebench.ParseSlice(f.slice)
		if err != nil {
			return err
		}
		b.Slice = sl
	}
	if f.instanceFile != "" {
		if err := f.readInstanceFile(env, b); err != nil {
			return err
		}
	} else {
		b.IDs = swebench.DefaultIDs()
	}
	if f.shard != "" {
		sh, err := swebench.ParseShard(f.shard)
		if err != nil {
			return err
		}
		b.Shard = sh
	}
	if f.resume != "" && f.run.datasetFile == "" {
		// A resume without a dataset or instance file takes the one the
		// run root's last invocation recorded.
		if m, err := swebench.ReadManifest(filepath.Join(sbPath(env, f.resume), swebench.ManifestFile)); err == nil && m.Batch != nil {
			if ds := m.Batch.LastDatasetFile(); ds != "" {
				f.run.datasetFile = ds
				b.Args["dataset_file"] = ds
			}
		}
	}
	return nil
}

// readInstanceFile sets the batch's instances from --instance-file, with
// where each was read; a JSON or JSONL file is the dataset too unless
// --dataset-file names one.
func (f *batchFlags) readInstanceFile(env *Env, b *swebench.BatchOptions) error {
	insts, err := swebench.LoadInstances(sbPath(env, f.instanceFile))
	if err != nil {
		return err
	}
	b.IDSources = map[string]string{}
	for _, in := range insts {
		b.IDs = append(b.IDs, in.ID)
		if _, seen := b.IDSources[in.ID]; !seen {
			b.IDSources[in.ID] = in.Where
		}
	}
	b.Subset = f.instanceFile
	if ext := strings.ToLower(filepath.Ext(f.instanceFile)); f.run.datasetFile == "" && (ext == ".json" || ext == ".jsonl") {
		f.run.datasetFile = f.instanceFile
		b.Args["dataset_file"] = sbPath(env, f.run.datasetFile)
	}
	return nil
}

// checkEndpoint has the batch check the model endpoint before its first
// instance and again after instances in a row failed.
func (f *batchFlags) checkEndpoint(env *Env, p codex.Provider, b *swebench.BatchOptions) {
	b.Preflight = func(ctx context.Context) error { return codex.PreflightProvider(ctx, p, env.Getenv) }
	// After failures, /models answering is not enough: a /responses
	// that hangs fails every instance while /models looks fine.
	timeout := f.checkTimeout
	b.EndpointCheck = func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if err := codex.PreflightProvider(ctx, p, env.Getenv); err != nil {
			return err
		}
		return codex.ProbeResponses(ctx, p, env.Getenv)
	}
}

// batchOutcome is what ends a batch that returned res and err: its
// input's or its setup's error (exit 2, nothing ran), an interruption or
// a failure of its own (1), a stop before its last instance (1, already
// said in its results), else the code --fail-on gives its instances'
// outcomes.
func batchOutcome(ctx context.Context, res swebench.BatchResult, err error, failOn string) error {
	var ue *swebench.UsageError
	switch {
	case errors.As(err, &ue):
		return sbUsage(err)
	case errors.Is(err, exitcode.ErrSetup):
		// Nothing ran: a bad setup, said once with what to do.
		return usageError(sbFlags(err))
	case err != nil && ctx.Err() != nil:
		return exitcode.WithCode(ExitFailed, fmt.Errorf("interrupted: %v", err))
	case err != nil:
		return exitcode.WithCode(ExitFailed, sbFlags(err))
	case res.Stopped != "":
		// The batch gave up before its last instance: that is the
		// endpoint's or the engine's failure, not an instance result.
		return exitcode.WithCode(ExitFailed, nil)
	}
	return exitCode(res.Counts.ExitCodeFor(failOn))
}

// exitCode ends a command with code, its reason already said.
func exitCode(code int) error {
	if code == ExitOK {
		return nil
	}
	return exitcode.WithCode(code, nil)
}

// swebenchPrepare is `benchgate swebench prepare-images`: it exits 1 when
// an image could not be prepared.
func swebenchPrepare(ctx context.Context, env *Env, args []string) error {
	fs := sbFlagSet(env, "swebench prepare-images")
	ids := fs.StringArray("instance-id", nil, "instance whose image to prepare (repeatable)")
	instFile := fs.String("instance-file", "", "instances file (txt, json, jsonl)")
	tmpl := fs.String("image-template", swebench.DefaultImageTemplate, "instance image name; {id} is the lower-cased instance ID")
	bin := fs.String("codex-binary", "", "static codex binary to build into each image at /usr/local/bin/codex; a bare name is looked up in PATH (required but with --dry-run)")
	cfg := fs.String("codex-config", "", "file to put at /root/.codex/local.config.toml")
	dry := fs.Bool("dry-run", false, "print the images that would be changed")
	if run, err := parseCommandLine(env, fs, args); !run {
		return err
	}
	if fs.NArg() > 0 {
		return sbUsage(fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	if !strings.Contains(*tmpl, "{id}") {
		return sbUsage(fmt.Errorf("--image-template %q: must contain {id}", *tmpl))
	}
	all := append([]string{}, *ids...)
	for _, id := range all {
		if err := swebench.ValidateID(id); err != nil {
			return sbUsage(fmt.Errorf("--instance-id: %w", err))
		}
	}
	if *instFile != "" {
		insts, err := swebench.LoadInstances(sbPath(env, *instFile))
		if err != nil {
			return sbUsage(err)
		}
		for _, in := range insts {
			all = append(all, in.ID)
		}
	}
	if len(all) == 0 {
		return sbUsage(errors.New("no instances: pass --instance-id or --instance-file"))
	}
	if *cfg != "" {
		if err := codex.CheckProfileFile(sbPath(env, *cfg)); err != nil {
			return sbUsage(err)
		}
	}
	codexBin, err := codexBinaryPath(env, *bin)
	if err != nil {
		return sbUsage(err)
	}
	dc, err := container.New(env.Getenv("DOCKER_HOST"))
	if err != nil {
		return sbUsage(err)
	}
	failed, err := swebench.PrepareImages(ctx, swebench.PrepareOptions{IDs: all, ImageTemplate: *tmpl,
		CodexBinary: codexBin, CodexConfig: sbPath(env, *cfg), DryRun: *dry, Docker: dc, Stdout: env.Stdout})
	if err != nil {
		return sbUsage(err)
	}
	if failed > 0 {
		return exitcode.WithCode(ExitFailed, nil)
	}
	return nil
}

// swebenchMerge is `benchgate swebench merge`: the shards' run roots into
// one, with the exit code --fail-on gives the merged outcomes.
func swebenchMerge(env *Env, args []string) error {
	fs := sbFlagSet(env, "swebench merge")
	out := fs.String("output-dir", "", "merged run root (required); an existing folder must be empty or an earlier merge's output, which is replaced")
	allowMissing := fs.Bool("allow-missing-shards", false, "merge the shards given even when some shard k/n of the batch is absent")
	allowScope := fs.Bool("allow-scope-mismatch", false, "merge shards whose batches chose their instances differently (--filter, --slice, instance file)")
	failOn := fs.String("fail-on", swebench.FailOnIncomplete, "what makes the exit code non-zero: incomplete (1 if an instance failed, else 20 if one is incomplete), failed (1 if an instance failed) or never")
	if run, err := parseCommandLine(env, fs, args); !run {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return sbUsage(errors.New("usage: benchgate swebench merge --output-dir <dir> <run_root>..."))
	}
	if _, err := swebench.ParseFailOn(*failOn); err != nil {
		return sbUsage(err)
	}
	var roots []string
	for _, r := range fs.Args() {
		roots = append(roots, sbPath(env, r))
	}
	res, err := swebench.Merge(swebench.MergeOptions{Out: sbPath(env, *out), Roots: roots, AllowMissingShards: *allowMissing, AllowScopeMismatch: *allowScope, Now: env.Now().UTC()})
	for _, s := range res.Skipped {
		fmt.Fprintf(env.Stderr, "benchgate swebench merge: skipped %s: %s\n", s.Path, s.Reason)
	}
	var ue *swebench.UsageError
	if errors.As(err, &ue) {
		return sbUsage(err)
	}
	if err != nil {
		return exitcode.WithCode(ExitFailed, sbFlags(err))
	}
	for _, d := range res.ScopeMismatch {
		fmt.Fprintf(env.Stderr, "benchgate swebench merge: warning: scopes differ (--allow-scope-mismatch): %s\n", d)
	}
	if len(res.Missing) > 0 {
		fmt.Fprintf(env.Stderr, "benchgate swebench merge: merged without shard %s (--allow-missing-shards)\n", strings.Join(res.Missing, ", "))
	}
	fmt.Fprintf(env.Stdout, "run_root=%s total=%d success=%d failed=%d incomplete=%d not_run=%d\n",
		sbPath(env, *out), res.Counts.Total, res.Counts.Success, res.Counts.Failed, res.Counts.Incomplete, res.Counts.NotRun)
	return exitCode(res.Counts.ExitCodeFor(*failOn))
}

// progressTable is the Markdown table of the instances a batch finished
// so far, rewritten after each one.
func progressTable(done []swebench.InstanceReport, total int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## SWE-bench batch: %d of %d instances done\n\n", len(done), total)
	b.WriteString("| instance | status | reason | duration | passes | tokens |\n|---|---|---|---:|---:|---:|\n")
	for _, r := range done {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %d |\n", textfmt.CodeCell(r.ID), textfmt.Cell(r.Status), textfmt.Cell(r.Reason), r.Duration.Round(100*time.Millisecond), r.Passes, r.Tokens)
	}
	return b.String()
}

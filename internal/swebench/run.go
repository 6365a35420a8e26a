package swebench

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/benchgate/benchgate/internal/codex"
	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/failcode"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/proc"
	"github.com/benchgate/benchgate/internal/ralph"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// Options configure one single-instance run.
type Options struct {
	InstanceID  string
	OutputDir   string
	ManifestDir string // defaults to OutputDir
	MaxLoops    int
	// PhaseTimeout bounds each codex exec; Codex retries a dead endpoint
	// forever, so there is always one.
	PhaseTimeout time.Duration
	// IdleTimeout stops a phase in which codex makes no progress for that
	// long (no event but retry notices, no command running): a dead model
	// endpoint fails the instance in minutes, not after PhaseTimeout. Zero
	// means none; the commands default to codex.DefaultIdleTimeout.
	IdleTimeout time.Duration
	// InstanceTimeout bounds the whole instance (all phases); zero means
	// none. At the defaults one instance could otherwise take
	// (1 + 2 x MaxLoops) x PhaseTimeout, about 50 h.
	InstanceTimeout time.Duration
	// MaxTokens bounds the tokens (input + output, over all phases, from
	// the event ledger) one instance may spend; zero means none.
	MaxTokens int64
	Prompts   ralph.Prompts
	// DatasetFile holds the problem statements (json/jsonl records).
	DatasetFile   string
	ImageTemplate string
	// CodexBinary and CodexConfig are host files copied into a container
	// whose image has no codex (bootstrap). CodexConfig becomes
	// /root/.codex/local.config.toml.
	CodexBinary string
	CodexConfig string
	// Provider, when set, makes the runner write a CODEX_HOME with
	// local.config.toml under the output folder and use it.
	Provider *codex.Provider
	CodeDir  string
	// Env is passed to codex inside the container (K=V).
	Env     []string
	Network string
	Docker  *container.Client
	Now     func() time.Time
	// Log receives one line per step; may be nil.
	Log io.Writer
	// Owner ("uid:gid"), when set, is given the output folder's files the
	// agent created, after its container is removed and the folder is
	// scrubbed (see cleanOutput). Run sets it to the invoking user when
	// that is not root.
	Owner string
	// Getenv reads the host environment (the API key variable); nil means
	// os.Getenv.
	Getenv func(string) string
	// Args are the invocation arguments recorded in the manifest.
	Args map[string]any
}

// Validate checks the options that are usage errors; nothing is written
// before it passes.
func (o *Options) Validate() error {
	if err := ValidateID(o.InstanceID); err != nil {
		return exitcode.Optionf("instance_id", ": %w", err)
	}
	if o.OutputDir == "" {
		return exitcode.Optionf("output_dir", " is required")
	}
	if o.MaxLoops < 1 {
		return exitcode.Optionf("max_loops", " %d: expected a whole number of execute passes >= 1", o.MaxLoops)
	}
	if o.PhaseTimeout <= 0 {
		return exitcode.Optionf("phase_timeout", " %s: expected a positive duration", o.PhaseTimeout)
	}
	if o.Prompts == nil {
		return errors.New("prompts are not loaded")
	}
	if o.DatasetFile == "" {
		return exitcode.Optionf("dataset_file", " is required (json/jsonl records with instance_id and problem_statement; no problem statement source), or set SWE_BENCH_INSTANCES_FILE")
	}
	if _, err := os.Stat(o.DatasetFile); err != nil {
		return exitcode.Optionf("dataset_file", ": %w", err)
	}
	if err := CheckDataset(o.DatasetFile, []string{o.InstanceID}, nil); err != nil {
		return exitcode.Optionf("dataset_file", ": %w", err)
	}
	for _, f := range []struct{ option, path string }{{"codex_binary", o.CodexBinary}, {"codex_config", o.CodexConfig}} {
		if f.path != "" {
			if _, err := os.Stat(f.path); err != nil {
				return exitcode.Optionf(f.option, ": %w", err)
			}
		}
	}
	if o.Docker == nil {
		return errors.New("no Docker engine client")
	}
	return nil
}

// Run processes one instance and returns its status. The error is only
// for usage problems (see Validate) and for artifacts that could not be
// written; every other failure is a status.
func Run(ctx context.Context, o Options) (Status, error) {
	if err := o.prepare(); err != nil {
		return Status{}, err
	}
	id := o.InstanceID
	p := PathsFor(o.OutputDir, id)
	st := Status{InstanceID: id, MaxLoops: o.MaxLoops, StartTime: o.Now().UTC(), Image: ImageName(o.ImageTemplate, id)}
	var runnerLog *os.File
	logf := func(format string, a ...any) {
		line := fmt.Sprintf("%s [%s] "+format+"\n", append([]any{o.Now().UTC().Format(time.RFC3339), id}, a...)...)
		if o.Log != nil {
			io.WriteString(o.Log, line)
		}
		if runnerLog != nil {
			runnerLog.WriteString(line)
		}
	}
	// The manifest is updated first: when it cannot be (a corrupt file),
	// the earlier output of this instance is still intact.
	if err := o.markRunning(st); err != nil {
		return st, err
	}
	if err := o.resetOutput(p); err != nil {
		return st, err
	}
	runnerLogPath := filepath.Join(p.Logs, "runner.log")
	var err error
	if runnerLog, err = fsutil.CreateIn(o.OutputDir, runnerLogPath); err != nil {
		return st, fmt.Errorf("runner log: %w", err)
	}
	defer runnerLog.Close()
	o.reapLeftovers(ctx, logf)

	// The instance's own budgets end it as incomplete with a named detail;
	// a cancelled run (SIGTERM) stays an interruption.
	instCtx, stopInstance := context.WithCancelCause(ctx)
	defer stopInstance(nil)
	if o.InstanceTimeout > 0 {
		timer := time.AfterFunc(o.InstanceTimeout, func() {
			stopInstance(fmt.Errorf("%w: the instance ran for its whole --instance-timeout of %s", errBudget, o.InstanceTimeout))
		})
		defer timer.Stop()
	}
	outcome, base, ft, ftErr := o.process(instCtx, stopInstance, p, &st, logf)
	if cause := context.Cause(instCtx); ctx.Err() == nil && errors.Is(cause, errBudget) {
		logf("budget: %v", cause)
		outcome.Status, outcome.Code, outcome.Detail, outcome.Interrupted = ralph.StatusIncomplete, ralph.StatusIncomplete, cause.Error(), false
	}
	patch, pred := o.judge(ctx, p, &st, &outcome, base, ft, ftErr, logf)
	if outcome.Status == ralph.StatusFailed {
		// The runner log names the failing step and its phase logs.
		st.ErrorLog = runnerLogPath
	}
	st.record(outcome)
	st.EndTime = o.Now().UTC()
	logf("%s %s %s", st.Status, outcome.Code, st.FailureReasonDetail)
	if err := writeArtifacts(o.OutputDir, p, st, patch, pred); err != nil {
		return st, fmt.Errorf("write artifacts of %s: %w", id, err)
	}
	return st, o.markFinished(st)
}

// prepare fills the defaults, checks the options (Validate) and makes
// the folders absolute.
func (o *Options) prepare() error {
	if o.ManifestDir == "" {
		o.ManifestDir = o.OutputDir
	}
	if o.ImageTemplate == "" {
		o.ImageTemplate = DefaultImageTemplate
	}
	if o.CodeDir == "" {
		o.CodeDir = "/testbed"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Owner == "" && os.Getuid() != 0 {
		o.Owner = fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())
	}
	if err := o.Validate(); err != nil {
		return err
	}
	var err error
	if o.OutputDir, err = filepath.Abs(o.OutputDir); err != nil {
		return err
	}
	o.ManifestDir, err = filepath.Abs(o.ManifestDir)
	return err
}

// markRunning records the instance as running in the manifest.
func (o *Options) markRunning(st Status) error {
	id := o.InstanceID
	return UpdateManifest(o.ManifestDir, o.Now().UTC(), func(m *Manifest) {
		m.Instances[id] = InstanceEntry{InstanceID: id, Status: "running", OutputDir: o.OutputDir, StartTime: st.StartTime}
		m.LastInvocation = &Invocation{InstanceID: id, Args: o.Args, StartTime: st.StartTime}
	})
}

// markFinished records the instance's status in the manifest, as its
// status file (already written) says.
func (o *Options) markFinished(st Status) error {
	id := o.InstanceID
	return UpdateManifest(o.ManifestDir, o.Now().UTC(), func(m *Manifest) {
		m.Instances[id] = entryOf(st, o.OutputDir)
		if st.CodexVersion != "" {
			m.Codex.Version = st.CodexVersion
		}
		if m.LastInvocation != nil && m.LastInvocation.InstanceID == id {
			m.LastInvocation.EndTime = st.EndTime
		}
	})
}

// entryOf is the manifest entry a status file makes.
func entryOf(st Status, dir string) InstanceEntry {
	return InstanceEntry{InstanceID: st.InstanceID, Status: st.Status, FailureReasonCode: st.FailureReasonCode,
		FailureReasonDetail: st.FailureReasonDetail, ErrorLog: st.ErrorLog, OutputDir: dir, Interrupted: st.Interrupted,
		StartTime: st.StartTime, EndTime: st.EndTime, CodexVersion: st.CodexVersion}
}

// resetOutput gives a rerun a fresh plans folder and no patch,
// prediction or status.
func (o *Options) resetOutput(p Paths) error {
	for _, d := range []string{p.Plans, filepath.Join(o.OutputDir, "codex-home")} {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("reset %s: %w", d, err)
		}
	}
	for _, f := range []string{p.Patch, p.Pred, p.Status} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("reset %s: %w", f, err)
		}
	}
	if err := os.MkdirAll(o.OutputDir, 0o755); err != nil {
		return fmt.Errorf("output dir: %w", err)
	}
	return nil
}

// reapLeftovers removes the containers killed benchgate runs left and
// cleans their output folders.
func (o *Options) reapLeftovers(ctx context.Context, logf func(string, ...any)) {
	reaped, err := reapContainers(ctx, o.Docker)
	if err != nil {
		logf("warning: looking for containers of killed benchgate runs: %v", err)
	}
	for _, c := range reaped {
		logf("removed container %s, left by a benchgate run that was killed", containerName(c))
		o.cleanReaped(c, logf)
	}
}

// record copies the outcome and the phases' token totals into st.
func (st *Status) record(out ralph.Outcome) {
	st.Status, st.FailureReasonDetail, st.ExecutePasses, st.Interrupted, st.Phases = out.Status, out.Detail, out.Passes, out.Interrupted, out.Phases
	if out.Code != "" {
		st.FailureReasonCode = new(out.Code)
	}
	for _, ph := range st.Phases {
		st.Usage.InputTokens += ph.Usage.InputTokens
		st.Usage.CachedInputTokens += ph.Usage.CachedInputTokens
		st.Usage.OutputTokens += ph.Usage.OutputTokens
		st.Usage.ReasoningOutputTokens += ph.Usage.ReasoningOutputTokens
	}
	if st.Phases == nil {
		st.Phases = []ralph.Record{}
	}
}

// judge decides whether a finished loop is a success: the prediction is
// the change of the agent's final tree against the base commit (ft, from
// computeTree), read back as the harness reads it, and exactly that
// model_patch must apply and reproduce the tree (checkPrediction). It
// returns the agent's own patch file, kept as an artifact, and the
// .pred's bytes to write; the prediction carries the patch only on
// success. The agent's file is read without following a link (a link to a
// host file would put that file in the artifacts) and with a size cap.
func (o *Options) judge(ctx context.Context, p Paths, st *Status, out *ralph.Outcome, base baseState, ft finalTree, ftErr error, logf func(string, ...any)) (patch, pred []byte) {
	fail := func(check, detail string) {
		st.PatchCheck = check
		out.Status, out.Code, out.Detail = ralph.StatusFailed, failcode.RuntimeError, detail
		// A check cut short by SIGTERM is no verdict on the patch: the
		// instance stays an interruption, run again by a resume.
		out.Interrupted = out.Interrupted || ctx.Err() != nil
	}
	patch, err := fsutil.ReadFileIn(o.OutputDir, p.Patch, MaxPatchBytes)
	if errors.Is(err, fs.ErrNotExist) {
		patch, err = nil, nil
	}
	if err != nil {
		logf("warning: the agent's patch file is not kept: %v", err)
		patch = nil
		st.AgentPatch = AgentPatchRefused
		// A success judged failed says, too, what the agent's file was.
		defer func() {
			if out.Status == ralph.StatusFailed {
				out.Detail += "; the agent's patch file is not kept: " + err.Error()
			}
		}()
	}
	empty, _ := EncodePred(Pred{ModelNameOrPath: ModelName, InstanceID: o.InstanceID})
	if out.Status != ralph.StatusSuccess {
		return patch, empty
	}
	if ftErr != nil {
		logf("patch check: %s %v", PatchNotChecked, ftErr)
		fail(PatchNotChecked, "the prediction could not be computed from the final tree: "+ftErr.Error())
		return patch, empty
	}
	if n := len(ft.ignored); n > 0 {
		st.IgnoredNewFiles, st.IgnoredNewFileCount = ft.ignored[:min(n, maxNamedIgnored)], n
		logf("left out of the prediction, ignored by .gitignore: %d new file(s): %s", n, strings.Join(ft.ignored[:min(n, maxLoggedIgnored)], ", "))
	}
	if len(ft.nested) > 0 {
		st.NestedRepositories = ft.nested
		logf("nested repositories whose files are in the prediction as ordinary files: %s", strings.Join(ft.nested, ", "))
	}
	if st.AgentPatch == "" {
		switch {
		case len(patch) == 0:
			st.AgentPatch = AgentPatchNone
		case bytes.Equal(patch, ft.patch):
			st.AgentPatch = AgentPatchSame
		default:
			st.AgentPatch = AgentPatchDiffers
			logf("the agent's patch file (%d bytes) differs from the prediction computed from its final tree (%d bytes)", len(patch), len(ft.patch))
		}
	}
	if len(ft.patch) == 0 {
		out.Status, out.Code = ralph.StatusFailed, failcode.NoChange
		out.Detail = fmt.Sprintf("the agent archived its plans, but its final tree in %s equals the base commit %s: there is nothing to predict", o.CodeDir, base.sha)
		if st.AgentPatch == AgentPatchDiffers {
			out.Detail += fmt.Sprintf(" (its patch file %s is not empty, but the change it describes is not in the tree)", p.Patch)
		}
		if n := len(ft.ignored); n > 0 {
			out.Detail += fmt.Sprintf("; %d new file(s) are ignored by .gitignore (ignored_new_files)", n)
		}
		return patch, empty
	}
	pred, modelPatch, check, detail := predictionFor(o.InstanceID, ft.patch)
	if check != "" {
		logf("patch check: %s %s", check, detail)
		fail(check, detail)
		return patch, empty
	}
	check, detail = o.checkPrediction(ctx, st.Image, base, modelPatch, ft.entries, logf)
	logf("patch check: %s %s", check, detail)
	st.PatchCheck = check
	if check != PatchApplies {
		fail(check, detail)
		return patch, empty
	}
	return patch, pred
}

// How many new ignored files status.json names, and the log.
const (
	maxNamedIgnored  = 100
	maxLoggedIgnored = 1000
)

// process runs the agent's steps that can fail per instance and returns
// the outcome, the code's base commit as the container had it before the
// agent ran and, for a loop that ended in a success, the final tree the
// prediction is computed from (or why it could not be); the caller judges
// and writes the outcome whatever it is. stop ends the instance early
// with a cause (a spent budget).
func (o *Options) process(ctx context.Context, stop context.CancelCauseFunc, p Paths, st *Status, logf func(string, ...any)) (out ralph.Outcome, base baseState, ft finalTree, ftErr error) {
	fail := func(code failcode.Code, detail string) ralph.Outcome {
		return ralph.Outcome{Status: ralph.StatusFailed, Code: code, Detail: detail, Interrupted: ctx.Err() != nil}
	}
	if err := o.writeTask(p); err != nil {
		return fail(failcode.RuntimeError, err.Error()), base, ft, nil
	}
	if out, ok := o.findImage(ctx, st, logf); !ok {
		return out, base, ft, nil
	}
	cid, cleanup, out, ok := o.startContainer(ctx, st, logf)
	if !ok {
		return out, base, ft, nil
	}
	defer cleanup()
	base = o.baseCommit(ctx, cid)
	if base.sha != "" {
		if err := o.snapshotBase(ctx, cid, &base); err != nil {
			base = baseState{problem: "the tree before the first phase could not be read: " + err.Error()}
		}
	}
	if base.sha != "" {
		logf("code %s at commit %s (%d untracked and %d ignored file(s) of the image)", o.CodeDir, base.sha, len(base.untracked), len(base.ignored))
	} else {
		logf("warning: the prediction cannot be computed: %s", base.problem)
	}
	codexBin, out, ok := o.ensureCodex(ctx, cid, st, logf)
	if !ok {
		return out, base, ft, nil
	}
	env, err := o.agentEnv(p)
	if err != nil {
		return fail(failcode.RuntimeError, err.Error()), base, ft, nil
	}
	out = o.runLoop(ctx, stop, cid, codexBin, env, p, logf)
	if out.Status == ralph.StatusSuccess && ctx.Err() == nil {
		start := time.Now()
		ft, ftErr = o.computeTree(ctx, cid, base)
		logf("prediction computed from the final tree in %s: %d byte(s), %d path(s) in the tree", time.Since(start).Round(time.Millisecond), len(ft.patch), len(ft.entries))
	}
	return out, base, ft, ftErr
}

// writeTask seeds the plans folder with the instance's specification.
func (o *Options) writeTask(p Paths) error {
	inst, err := FindInstance(o.DatasetFile, o.InstanceID)
	if err != nil {
		return fmt.Errorf("problem statement: %w", err)
	}
	return fsutil.WriteFileAtomicIn(o.OutputDir, filepath.Join(p.Plans, ralph.SpecFile), []byte(SpecMarkdown(inst)), 0o644)
}

// findImage checks that the instance image is on the engine.
func (o *Options) findImage(ctx context.Context, st *Status, logf func(string, ...any)) (ralph.Outcome, bool) {
	img, err := o.Docker.ImageInspect(ctx, st.Image)
	if errors.Is(err, container.ErrNotFound) {
		return ralph.Outcome{Status: ralph.StatusFailed, Code: failcode.MissingImage, Interrupted: ctx.Err() != nil,
			Detail: fmt.Sprintf("image %s is not present on %s (build it, or set --image-template)", st.Image, o.Docker.Host())}, false
	}
	if err != nil {
		return ralph.Outcome{Status: ralph.StatusFailed, Code: failcode.RuntimeError, Detail: err.Error(), Interrupted: ctx.Err() != nil}, false
	}
	logf("image %s (%s)", st.Image, img.ID)
	return ralph.Outcome{}, true
}

// startContainer creates and starts the agent's container. cleanup
// removes it, with a fresh context (on SIGTERM ctx is already cancelled
// when it runs); only once it is gone (no process of the agent can plant
// a file again) is the output folder scrubbed and handed to the invoking
// user.
func (o *Options) startContainer(ctx context.Context, st *Status, logf func(string, ...any)) (cid string, cleanup func(), out ralph.Outcome, ok bool) {
	fail := func(code failcode.Code, detail string) (string, func(), ralph.Outcome, bool) {
		return "", nil, ralph.Outcome{Status: ralph.StatusFailed, Code: code, Detail: detail, Interrupted: ctx.Err() != nil}, false
	}
	id := o.InstanceID
	// The engine resolves a bind source on its host: when benchgate runs
	// in a container itself, the output folder is mounted from where that
	// container's own mount comes from, and a folder the engine cannot see
	// is an error here rather than an empty folder it creates.
	hostOut, err := o.Docker.HostPath(ctx, o.OutputDir)
	if err != nil {
		return fail(failcode.RuntimeError, err.Error())
	}
	mounts := []container.Mount{{Source: hostOut, Target: o.OutputDir}}
	boot, err := o.codexMounts(ctx)
	if err != nil {
		return fail(failcode.BootstrapFailed, err.Error())
	}
	mounts = append(mounts, boot...)
	// The agent works as root with only the capabilities it needs: no
	// device nodes, no file capabilities, no setuid escalation inside.
	cid, err = o.Docker.Create(ctx, container.LeastPrivilege(container.Spec{
		Name:       ContainerName(id, newInvocation()),
		Image:      st.Image,
		Entrypoint: sleeper,
		Labels:     map[string]string{LabelRunner: "1", LabelInstance: id, LabelOutputDir: o.OutputDir, LabelManifestDir: o.ManifestDir, LabelOwner: proc.SelfOwner(), LabelHost: hostname()},
		// The output folder at the same path inside, so the plans and the
		// patch the agent writes are the host's files.
		// The runner's codex (and profile), when given, read-only at a
		// fixed path: bootstrap copies nothing into the container.
		Mounts:      mounts,
		NetworkMode: o.Network,
	}, container.AgentCapabilities...))
	if err != nil {
		return fail(failcode.RuntimeError, err.Error())
	}
	started := false
	cleanup = func() {
		err := o.Docker.RemoveDetached(cid, 30*time.Second)
		if err != nil {
			logf("warning: %v", err)
		}
		if started {
			o.cleanOutput(st.Image, err == nil, logf)
		}
	}
	if err := o.Docker.Start(ctx, cid); err != nil {
		cleanup()
		return fail(failcode.RuntimeError, err.Error())
	}
	started = true
	return cid, cleanup, ralph.Outcome{}, true
}

// sleeper is the entry point of the runner's containers: it waits for
// execs until the container is removed.
var sleeper = []string{"/bin/sh", "-c", "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"}

// agentEnv is the environment codex runs with inside the container; with
// a Provider it also writes the CODEX_HOME it names.
func (o *Options) agentEnv(p Paths) ([]string, error) {
	env := append([]string{}, o.Env...)
	env = append(env,
		"SWE_BENCH_INSTANCE_ID="+o.InstanceID,
		"SWE_BENCH_OUTPUT_DIR="+o.OutputDir,
		"SWE_BENCH_PLANS_DIR="+p.Plans,
		"SWE_BENCH_PATCH_PATH="+p.Patch,
		"SWE_BENCH_CODE_DIR="+o.CodeDir,
	)
	if o.Provider == nil {
		return env, nil
	}
	home := filepath.Join(o.OutputDir, "codex-home")
	if err := fsutil.WriteFileAtomicIn(o.OutputDir, filepath.Join(home, codex.ProfileFile), codex.LocalConfigTOML(*o.Provider), 0o644); err != nil {
		return nil, err
	}
	if err := fsutil.WriteFileAtomicIn(o.OutputDir, filepath.Join(home, "config.toml"), nil, 0o644); err != nil {
		return nil, err
	}
	env = append(env, "CODEX_HOME="+home)
	if k := o.Provider.APIKeyEnv; k != "" {
		getenv := o.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		env = append(env, k+"="+getenv(k))
	}
	return env, nil
}

// runLoop runs the Ralph loop with codex in the container, stopping the
// instance when its token budget is spent.
func (o *Options) runLoop(ctx context.Context, stop context.CancelCauseFunc, cid, codexBin string, env []string, p Paths, logf func(string, ...any)) ralph.Outcome {
	var spent int64
	agent := &containerAgent{dc: o.Docker, containerID: cid, binary: codexBin, codeDir: o.CodeDir, env: env, timeout: o.PhaseTimeout, idle: o.IdleTimeout, logs: p.Logs, root: o.OutputDir}
	loop := &ralph.Loop{
		// No PatchPath: archiving is the agent's claim of done; the
		// prediction is computed from its final tree (see judge).
		Agent: agent, Prompts: o.Prompts, PlansDir: p.Plans, MaxLoops: o.MaxLoops, PhaseTimeout: o.PhaseTimeout,
		Vars: map[string]string{"PLANS_DIR": p.Plans, "PATCH_PATH": p.Patch, "CODE_DIR": o.CodeDir, "INSTANCE_ID": o.InstanceID},
		OnPhase: func(r ralph.Record) {
			logf("%s pass=%d exit=%d timed_out=%v failed=%v state=%s log=%s errors=%q", r.Phase, r.Pass, r.ExitCode, r.TimedOut, r.Failed, r.StateAfter, agent.lastLog, r.Errors)
			spent += r.Usage.InputTokens + r.Usage.OutputTokens
			if o.MaxTokens > 0 && spent > o.MaxTokens {
				stop(fmt.Errorf("%w: the instance spent %d tokens, over its --max-tokens of %d", errBudget, spent, o.MaxTokens))
			}
		},
	}
	return loop.Run(ctx)
}

// cleanOutput makes what the agent left in the output folder safe for
// the invoking user; it runs after the instance container is removed.
// When that user is not root, the files the agent created as root are
// first scrubbed and given to the user by a short-lived container (only
// root can chown them); then benchgate walks the folder itself, never
// following links, clearing setuid and setgid bits and removing FIFOs,
// sockets and device nodes, each with a warning naming it.
func (o *Options) cleanOutput(image string, removed bool, logf func(string, ...any)) {
	if o.Owner != "" {
		if removed {
			o.handOver(image, logf)
		} else {
			logf("warning: the files the agent created in %s are left to root: its container could not be removed", o.OutputDir)
		}
	}
	found, err := fsutil.Scrub(o.OutputDir)
	for _, f := range found {
		logf("warning: left by the agent: %s", f)
	}
	if err != nil {
		logf("warning: %v", err)
	}
}

// handOverScript runs as root in the hand-over container with the output
// folder ($1) and the owner ($2): it never follows a link (every test
// checks -L first; chown -R -h changes links, not their targets), removes
// FIFOs, sockets and device nodes, clears setuid and setgid bits, and
// only then changes the owner. It uses the shell's own tests and rm,
// chmod and chown, which every instance image has. Each change is one
// NUL-terminated line on stdout (a file name may hold a newline).
const handOverScript = `scrub() {
  for f in "$1"/* "$1"/.[!.]* "$1"/..?*; do
    if [ -L "$f" ]; then continue; fi
    if [ -p "$f" ] || [ -S "$f" ] || [ -b "$f" ] || [ -c "$f" ]; then
      rm -f "$f" && printf 'removed %s (a FIFO, socket or device)\0' "$f"; continue
    fi
    if [ -d "$f" ]; then scrub "$f"; continue; fi
    if [ -f "$f" ] && { [ -u "$f" ] || [ -g "$f" ]; }; then
      chmod u-s,g-s "$f" && printf 'cleared the setuid/setgid bits of %s\0' "$f"
    fi
  done
}
scrub "$1"
chown -R -h "$2" "$1"
`

// handOver runs handOverScript in a fresh container of the instance's
// image (the instance container is gone, so no agent process is left
// to plant files behind it), with no network and only the capabilities
// the script needs. It runs with its own context: on SIGTERM ctx is
// cancelled.
func (o *Options) handOver(image string, logf func(string, ...any)) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	hostOut, err := o.Docker.HostPath(ctx, o.OutputDir)
	if err != nil {
		logf("warning: hand the output folder over to %s: %v", o.Owner, err)
		return
	}
	cid, err := o.Docker.Create(ctx, container.LeastPrivilege(container.Spec{
		Name:        ContainerName(o.InstanceID, newInvocation()) + "-handover",
		Image:       image,
		Entrypoint:  []string{"/bin/sh", "-c", "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"},
		Labels:      map[string]string{LabelRunner: "1", LabelInstance: o.InstanceID, LabelOwner: proc.SelfOwner(), LabelHost: hostname()},
		Mounts:      []container.Mount{{Source: hostOut, Target: o.OutputDir}},
		NetworkMode: "none",
	}, "CHOWN", "DAC_OVERRIDE", "FOWNER"))
	if err != nil {
		logf("warning: hand the output folder over to %s: %v", o.Owner, err)
		return
	}
	defer func() {
		if err := o.Docker.RemoveDetached(cid, 30*time.Second); err != nil {
			logf("warning: %v", err)
		}
	}()
	if err := o.Docker.Start(ctx, cid); err != nil {
		logf("warning: hand the output folder over to %s: %v", o.Owner, err)
		return
	}
	var out, errb strings.Builder
	res, err := o.Docker.Exec(ctx, cid, container.ExecSpec{Cmd: []string{"/bin/sh", "-c", handOverScript, "sh", o.OutputDir, o.Owner}, Stdout: &out, Stderr: &errb})
	for _, line := range strings.Split(out.String(), "\x00") {
		if line != "" {
			logf("warning: left by the agent: %s", strings.ReplaceAll(line, "\n", `\n`))
		}
	}
	if err != nil || res.ExitCode != 0 {
		logf("warning: hand the output folder over to %s: exit %d %v %s", o.Owner, res.ExitCode, err, textfmt.Truncate(strings.TrimSpace(errb.String()), 500))
	}
}

// Where the runner's codex and its profile appear in a bootstrapped
// container: read-only bind mounts, so a container costs no copy of the
// binary and no image grows.
const (
	CodexMountPath   = "/opt/benchgate/bin/codex"
	codexProfilePath = "/root/.codex/" + codex.ProfileFile
)

// codexMounts are the read-only mounts of --codex-binary and
// --codex-config, with their sources as the engine sees them.
func (o *Options) codexMounts(ctx context.Context) ([]container.Mount, error) {
	var mounts []container.Mount
	for _, f := range []struct{ src, target string }{{o.CodexBinary, CodexMountPath}, {o.CodexConfig, codexProfilePath}} {
		if f.src == "" {
			continue
		}
		abs, err := filepath.Abs(f.src)
		if err != nil {
			return nil, err
		}
		// A link (codex on PATH often is one) is mounted as its target.
		if abs, err = filepath.EvalSymlinks(abs); err != nil {
			return nil, fmt.Errorf("codex bootstrap: %w", err)
		}
		host, err := o.Docker.HostPath(ctx, abs)
		if err != nil {
			return nil, fmt.Errorf("codex bootstrap: %w", err)
		}
		mounts = append(mounts, container.Mount{Source: host, Target: f.target, ReadOnly: true})
	}
	return mounts, nil
}

// ensureCodex finds the codex the agent runs: the image's own on PATH,
// else the runner's binary mounted at CodexMountPath. It records that
// codex's version in st. The image is never changed (prepare-images
// does that on purpose).
func (o *Options) ensureCodex(ctx context.Context, cid string, st *Status, logf func(string, ...any)) (string, ralph.Outcome, bool) {
	fail := func(detail string) (string, ralph.Outcome, bool) {
		return "", ralph.Outcome{Status: ralph.StatusFailed, Code: failcode.BootstrapFailed, Detail: detail, Interrupted: ctx.Err() != nil}, false
	}
	run := func(cmd ...string) (string, int, error) {
		var buf strings.Builder
		res, err := o.Docker.Exec(ctx, cid, container.ExecSpec{Cmd: cmd, Stdout: &buf, Stderr: &buf, Timeout: time.Minute})
		return strings.TrimSpace(buf.String()), res.ExitCode, err
	}
	if _, code, err := run("/bin/sh", "-c", "command -v codex"); err != nil {
		return "", ralph.Outcome{Status: ralph.StatusFailed, Code: failcode.RuntimeError, Detail: "codex check: " + err.Error(), Interrupted: ctx.Err() != nil}, false
	} else if code == 0 {
		if v, code, err := run("/bin/sh", "-c", "codex --version"); err == nil && code == 0 {
			st.CodexVersion = firstLine(v)
		}
		logf("codex of image %s: %s", st.Image, orUnknown(st.CodexVersion))
		return "codex", ralph.Outcome{}, true
	}
	if o.CodexBinary == "" {
		return fail(fmt.Sprintf("codex is not on PATH in image %s and no --codex-binary was given to bootstrap it (or run prepare-images)", st.Image))
	}
	msg, code, err := run(CodexMountPath, "--version")
	if err != nil || code != 0 {
		switch {
		case err != nil:
			msg = err.Error()
		case msg == "":
			// A binary that fails without a word still has an exit code:
			// 126/127 point at a wrong architecture or a missing loader.
			msg = fmt.Sprintf("codex --version exited %d with no output", code)
		default:
			msg = fmt.Sprintf("codex --version exited %d: %s", code, msg)
		}
		if strings.Contains(msg, "exec format error") {
			msg += o.architectureHint(ctx, st.Image)
		}
		return fail(fmt.Sprintf("codex mounted from %s does not run in image %s: %s", o.CodexBinary, st.Image, msg))
	}
	st.CodexVersion = firstLine(msg)
	logf("bootstrapped codex %s from %s (mounted read-only at %s)", st.CodexVersion, o.CodexBinary, CodexMountPath)
	return CodexMountPath, ralph.Outcome{}, true
}

// architectureHint says, for a codex the kernel refused to run ("exec
// format error", exit 1 through the engine), which platform the binary
// and the image are for: the usual cause is the x86_64 build mounted
// into arm64 images, or the reverse, on a runner without an emulator.
func (o *Options) architectureHint(ctx context.Context, image string) string {
	binArch := "an unknown machine"
	if f, err := elf.Open(o.CodexBinary); err == nil {
		binArch = elfArch(f.Machine)
		f.Close()
	}
	imgArch := "unknown"
	if img, err := o.Docker.ImageInspect(ctx, image); err == nil && img.Architecture != "" {
		imgArch = img.Architecture
	}
	return fmt.Sprintf(" (the binary is built for %s, the image is %s: use the Codex CLI built for the image's platform, vendor/<triple>/bin/codex of @openai/codex-<version>-linux-x64 or -linux-arm64)", binArch, imgArch)
}

// elfArch names an ELF machine as image platforms name it.
func elfArch(m elf.Machine) string {
	switch m {
	case elf.EM_X86_64:
		return "amd64"
	case elf.EM_AARCH64:
		return "arm64"
	}
	return m.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return textfmt.Truncate(strings.TrimSpace(line), 200)
}

func orUnknown(s string) string {
	if s == "" {
		return "version unknown"
	}
	return s
}

// errBudget marks the end of an instance by one of its own budgets.
var errBudget = errors.New("budget spent")

// Container labels; tests and operators find runner containers by them.
const (
	LabelRunner    = "io.benchgate.swebench"
	LabelInstance  = "io.benchgate.swebench.instance"
	LabelOutputDir = "io.benchgate.swebench.output-dir"
	// LabelManifestDir is the run root in a batch.
	LabelManifestDir = "io.benchgate.swebench.manifest-dir"
	// LabelOwner and LabelHost name the benchgate process that created
	// the container ("<pid>.<start time>") and its host, so that a later
	// run can remove what a killed one left (see ReapContainers).
	LabelOwner = "io.benchgate.owner"
	LabelHost  = "io.benchgate.host"
)

func hostname() string {
	h, _ := os.Hostname()
	return h
}

// ReapContainers removes the runner containers whose benchgate process
// is gone: one killed with SIGKILL cannot remove its container, whose
// entry point sleeps forever. Only containers created on this host are
// judged (the engine may serve several), and those of benchgate
// processes still running are left alone. It returns the names removed.
func ReapContainers(ctx context.Context, dc *container.Client) ([]string, error) {
	reaped, err := reapContainers(ctx, dc)
	var removed []string
	for _, c := range reaped {
		removed = append(removed, containerName(c))
	}
	return removed, err
}

func containerName(c container.Summary) string {
	if len(c.Names) > 0 {
		return strings.TrimPrefix(c.Names[0], "/")
	}
	return c.ID
}

// reapContainers is ReapContainers returning the containers removed.
func reapContainers(ctx context.Context, dc *container.Client) ([]container.Summary, error) {
	list, err := dc.List(ctx, LabelOwner)
	if err != nil {
		return nil, err
	}
	host := hostname()
	var removed []container.Summary
	for _, c := range list {
		owner := c.Labels[LabelOwner]
		if c.Labels[LabelRunner] == "" || c.Labels[LabelHost] != host || owner == "" || proc.OwnerAlive(owner) {
			continue
		}
		if err := dc.RemoveDetached(c.ID, 30*time.Second); err != nil {
			return removed, err
		}
		removed = append(removed, c)
	}
	return removed, nil
}

// cleanReaped does for the output folder of a container that a killed
// benchgate left (and reapContainers removed) what that run could not:
// the scrub, and the hand-over when the folder is the invoking user's
// (another user's folder is scrubbed, never taken).
func (o *Options) cleanReaped(c container.Summary, logf func(string, ...any)) {
	dir := c.Labels[LabelOutputDir]
	info, err := os.Lstat(dir)
	if dir == "" || err != nil || !info.IsDir() {
		return
	}
	r := *o
	r.OutputDir, r.InstanceID = dir, c.Labels[LabelInstance]
	if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		r.Owner = ""
	}
	r.cleanOutput(c.Image, true, func(format string, a ...any) {
		logf("%s: "+format, append([]any{containerName(c)}, a...)...)
	})
}

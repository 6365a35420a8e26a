package swebench

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/failcode"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/ralph"
)

// BatchOptions configure a sequential batch.
type BatchOptions struct {
	// IDs is the scope, already validated; the batch sorts and de-duplicates.
	IDs []string
	// IDSources says where the scope named each ID ("instances.txt:4"),
	// for messages; may be nil.
	IDSources map[string]string
	// Subset names the instance file, or is empty for the whole split.
	Subset string
	// RunRoot is <results>/<timestamp>, or the root being resumed.
	RunRoot string
	Resume  bool
	// RetryFailed, with Resume, also runs again the instances whose
	// status is terminal but not a success: a comma-separated list of
	// failure codes (runtime_error for an endpoint or engine problem,
	// worth another try once fixed), or RetryAllFailures for every failed
	// or incomplete one. Empty skips every terminal status, as before.
	RetryFailed string
	Shard       Shard
	// Filter keeps only the IDs it matches; Slice then keeps
	// [Start, End) of what is left (sorted), for smoke tests.
	Filter *regexp.Regexp
	Slice  *Slice
	// Instance is the template for every instance; the batch fills
	// InstanceID, OutputDir and ManifestDir.
	Instance Options
	// Preflight, when set, checks the model endpoint once before any
	// instance.
	Preflight func(ctx context.Context) error
	// EndpointCheck, when set, is what the batch asks after instances in
	// a row failed: does the endpoint still serve? Nil means Preflight.
	EndpointCheck func(ctx context.Context) error
	// MaxEndpointFailures stops the batch after that many instances in a
	// row ended failed with runtime_error and the endpoint preflight (when
	// there is one) fails too: the rest would only fail the same way, each
	// after its phase timeouts. Zero means DefaultMaxEndpointFailures.
	MaxEndpointFailures int
	// OnInstance, when set, is called after every instance with all the
	// instances finished or skipped so far, in order: a caller can keep a
	// table for people (the Action's job summary) that a cancelled job
	// still shows.
	OnInstance func(done []InstanceReport, total int)
	Stdout     io.Writer
	Args       map[string]any
}

// BatchResult is what the batch ran.
type BatchResult struct {
	RunRoot string
	Order   []string
	Skipped []string
	Counts  Counts
	// Stopped says why the batch ended before its last instance, when it
	// gave up on a failing endpoint; empty otherwise.
	Stopped string
	// Instances are the statuses of the instances in Order, read back
	// once the batch ended (skipped ones included); Manifest and
	// Predictions are the run root's files.
	Instances             []InstanceOutcome
	Manifest, Predictions string
}

// InstanceOutcome is one instance's status file, as the batch read it at
// its end; Err is why it could not be read (a missing file is
// fs.ErrNotExist).
type InstanceOutcome struct {
	ID     string
	Paths  Paths
	Status Status
	Err    error
}

// InstanceReport is one finished instance, for progress tables.
type InstanceReport struct {
	ID, Status, Reason string
	Duration           time.Duration
	Passes             int
	Tokens             int64
}

// DefaultMaxEndpointFailures is the default of MaxEndpointFailures.
const DefaultMaxEndpointFailures = 3

// RetryAllFailures is the RetryFailed that runs again every instance
// that is not a success; any other value is a list of failure codes.
const RetryAllFailures = "all"

// Slice is a half-open range [Start, End) of the sorted instance list;
// End 0 means to the end.
type Slice struct{ Start, End int }

// String is the START:END form ParseSlice reads.
func (s Slice) String() string {
	end := ""
	if s.End > 0 {
		end = strconv.Itoa(s.End)
	}
	return strconv.Itoa(s.Start) + ":" + end
}

// ParseSlice reads "START:END" (either may be empty).
func ParseSlice(s string) (*Slice, error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return nil, exitcode.Optionf("slice", " %q: expected START:END, e.g. 0:10", s)
	}
	var sl Slice
	for _, f := range []struct {
		text string
		dst  *int
	}{{a, &sl.Start}, {b, &sl.End}} {
		if f.text == "" {
			continue
		}
		n, err := strconv.Atoi(f.text)
		if err != nil || n < 0 {
			return nil, exitcode.Optionf("slice", " %q: %q is not a whole number >= 0", s, f.text)
		}
		*f.dst = n
	}
	if sl.End != 0 && sl.End <= sl.Start {
		return nil, exitcode.Optionf("slice", " %q: END must be greater than START", s)
	}
	return &sl, nil
}

// narrow applies the filter, then the slice, to sorted ids.
func (b BatchOptions) narrow(ids []string) []string {
	if b.Filter != nil {
		var kept []string
		for _, id := range ids {
			if b.Filter.MatchString(id) {
				kept = append(kept, id)
			}
		}
		ids = kept
	}
	if b.Slice != nil {
		start, end := b.Slice.Start, b.Slice.End
		if end == 0 || end > len(ids) {
			end = len(ids)
		}
		if start > end {
			start = end
		}
		ids = ids[start:end]
	}
	return ids
}

// retry reports whether a resumed batch runs st's instance again:
// RetryFailed is "all" (every instance that is not a success) or a
// comma-separated list of failure codes (ParseRetryFailed).
func (b BatchOptions) retry(st Status) bool {
	if st.Status == ralph.StatusSuccess || b.RetryFailed == "" {
		return false
	}
	if b.RetryFailed == RetryAllFailures {
		return true
	}
	var code failcode.Code
	if st.FailureReasonCode != nil {
		code = *st.FailureReasonCode
	}
	for _, c := range strings.Split(b.RetryFailed, ",") {
		// A patch that failed its check is the agent's or the image's
		// doing, not the endpoint's or the engine's: runtime_error leaves
		// it to "all".
		if failcode.Code(c) == code && (code != failcode.RuntimeError || st.PatchCheck == "") {
			return true
		}
	}
	return false
}

// ParseRetryFailed checks a --retry-failed value: "all", or failure
// codes separated by commas (runtime_error, missing_image, ...).
func ParseRetryFailed(s string) (string, error) {
	if s == "" || s == RetryAllFailures {
		return s, nil
	}
	codes, err := failcode.ParseList(s)
	if err != nil {
		return "", exitcode.Optionf("retry_failed", " %q: %v, or all", s, err)
	}
	var names []string
	for _, c := range codes {
		names = append(names, string(c))
	}
	return strings.Join(names, ","), nil
}

// endpointFailure reports whether an instance counts toward the endpoint
// circuit breaker: a failure whose code says so (failcode.Info.Endpoint),
// not interrupted, and not decided by the patch check (the endpoint
// served that instance's whole loop).
func endpointFailure(st Status) bool {
	if st.Status != ralph.StatusFailed || st.FailureReasonCode == nil || st.Interrupted || st.PatchCheck != "" {
		return false
	}
	info, ok := failcode.Lookup(*st.FailureReasonCode)
	return ok && info.Endpoint
}

// retryableFailure reports whether a finished instance failed for a
// reason on the runner's side (failcode.Info.Retryable), outside the
// patch check: a retry once that is fixed can end otherwise.
func retryableFailure(st Status) bool {
	if st.Status == ralph.StatusSuccess || st.FailureReasonCode == nil || st.PatchCheck != "" {
		return false
	}
	info, ok := failcode.Lookup(*st.FailureReasonCode)
	return ok && info.Retryable
}

// FailureCodes counts the instances of the batch's scope that ended with
// a failure code, by code in the table's order ("missing_image=2"), and
// how many of them are retryable (retryableFailure). Instances with no
// finished status are not here (Counts.NotRun has them).
func (r BatchResult) FailureCodes() (byCode []string, retryable int) {
	n := map[failcode.Code]int{}
	for _, in := range r.Instances {
		if in.Err != nil || in.Status.FailureReasonCode == nil || in.Status.Interrupted {
			continue
		}
		n[*in.Status.FailureReasonCode]++
		if retryableFailure(in.Status) {
			retryable++
		}
	}
	for _, info := range failcode.Table {
		if c := n[info.Code]; c > 0 {
			byCode = append(byCode, fmt.Sprintf("%s=%d", info.Code, c))
		}
	}
	return byCode, retryable
}

// ScopeInfo records what chose a batch's instances, so that merge can
// tell shards of one batch from shards of different scopes: the
// arguments, and the sorted IDs before sharding (their count and
// SHA-256), which hold even when the instance file lies at another path
// on another runner.
type ScopeInfo struct {
	InstanceFile string `json:"instance_file,omitempty"`
	Filter       string `json:"filter,omitempty"`
	Slice        string `json:"slice,omitempty"`
	// Instances and IDsSHA256 describe the scope before --shard.
	Instances int    `json:"instances"`
	IDsSHA256 string `json:"ids_sha256"`
}

// scopeInfo is the ScopeInfo of a new batch.
func (b BatchOptions) scopeInfo() *ScopeInfo {
	ids := b.narrow(SortUnique(b.IDs))
	sum := sha256.Sum256([]byte(strings.Join(ids, "\n")))
	si := &ScopeInfo{InstanceFile: filepath.Base(b.Subset), Instances: len(ids), IDsSHA256: hex.EncodeToString(sum[:])}
	if b.Subset == "" {
		si.InstanceFile = ""
	}
	if b.Filter != nil {
		si.Filter = b.Filter.String()
	}
	if b.Slice != nil {
		si.Slice = b.Slice.String()
	}
	return si
}

// UsageError marks a batch error caused by its input (exit 2), as opposed
// to one met while running.
type UsageError = exitcode.UsageError

// RunRootFor names a new run root under base (results/phase5/ralph-codex-local
// by default): the UTC time to the millisecond and a random suffix, e.g.
// 20261122T150405.123Z-3f9a1c. Two batches started in the same second (two
// shards side by side on one host) must never share a root: they would
// overwrite each other's manifest and predictions. Batch creates the root
// with an exclusive mkdir, so even a repeated name cannot be shared.
func RunRootFor(base string, now time.Time) string {
	suffix := make([]byte, 3)
	_, _ = rand.Read(suffix)
	return filepath.Join(base, now.UTC().Format("20060102T150405.000Z")+"-"+hex.EncodeToString(suffix))
}

// FixEndpoint says what to do when the model endpoint does not answer
// the preflight; it is said once, with the error.
const (
	FixEndpoint = "check that base-url is the API root of a running server (GET base-url/models must list the model) and that the variable api-key-env names holds a valid key"
)

// Batch runs the instances one after another, continuing after failures,
// then builds predictions.jsonl from the .pred files. Its steps: plan the
// scope, check what would fail every instance, open the run root (a
// resume repairs its manifest first), run, and finish (predictions,
// counts and the manifest from the same reading of the status files).
func Batch(ctx context.Context, b BatchOptions) (BatchResult, error) {
	o := b.Instance
	if o.Now == nil {
		o.Now = time.Now
	}
	b.Instance = o
	res := BatchResult{RunRoot: b.RunRoot}
	plan, err := b.plan()
	if err != nil {
		return res, err
	}
	res.Order = plan.scope
	if err := b.check(ctx, plan); err != nil {
		return res, err
	}
	start := o.Now().UTC()
	if err := b.openRoot(start, plan); err != nil {
		return res, err
	}
	b.runInstances(ctx, plan, &res)
	return res, b.finish(ctx, plan, &res)
}

// batchPlan is what one invocation runs and what its run root holds.
type batchPlan struct {
	// run are the instances this invocation selected, in order (some may
	// be skipped as finished).
	run []string
	// scope is every instance of the run root, in order: the selection of
	// a new batch; on resume, the root's earlier scope and this
	// selection. predictions.jsonl, instance_order.txt and the counts
	// cover it whole.
	scope []string
}

// plan resolves the instances. A resume keeps the run root's scope: its
// filter, slice or instance file only choose which of them (or which
// more) run now. Without an instance file, a resume selects from the
// root's own instance order (a sharded root's order is its shard's
// already).
func (b BatchOptions) plan() (batchPlan, error) {
	var prior []string
	fromRoot := false
	shard := b.Shard
	if b.Resume {
		if fi, err := os.Stat(b.RunRoot); err != nil || !fi.IsDir() {
			return batchPlan{}, &UsageError{Err: exitcode.Optionf("resume", " %s: not the run root of an earlier batch (no such folder)", b.RunRoot)}
		}
		m, err := ReadManifest(filepath.Join(b.RunRoot, ManifestFile))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return batchPlan{}, &UsageError{Err: exitcode.Optionf("resume", " %s: %w", b.RunRoot, err)}
		}
		if m.Batch != nil {
			prior = m.Batch.InstanceOrder
			if m.Batch.Shard != b.Shard.String() && b.Shard.N > 0 {
				return batchPlan{}, &UsageError{Err: exitcode.Optionf("shard", " %s: the run root %s ran shard %q; resume it with its own shard", b.Shard, b.RunRoot, m.Batch.Shard)}
			}
			if b.Shard.N == 0 && m.Batch.Shard != "" {
				// The root's shard applies to an instance file given
				// without --shard, so it cannot widen the root to every
				// shard's instances.
				if shard, err = ParseShard(m.Batch.Shard); err != nil {
					return batchPlan{}, &UsageError{Err: exitcode.Optionf("resume", " %s: field batch.shard: %w", b.RunRoot, err)}
				}
			}
			fromRoot = b.Subset == "" && len(prior) > 0
		}
	}
	var run []string
	if fromRoot {
		run = b.narrow(SortUnique(prior))
	} else {
		run = shard.Select(b.narrow(SortUnique(b.IDs)))
	}
	if len(run) == 0 {
		what := "empty instance file or shard"
		if b.Filter != nil || b.Slice != nil {
			what = "--filter and --slice leave none"
		}
		return batchPlan{}, &UsageError{Err: fmt.Errorf("the batch has no instances (%s)", what)}
	}
	return batchPlan{run: run, scope: SortUnique(append(append([]string{}, prior...), run...))}, nil
}

// check runs the checks that would otherwise fail every instance, before
// anything is written: the tasks of the instances to run, the instance
// options, the engine and the endpoint.
func (b BatchOptions) check(ctx context.Context, plan batchPlan) error {
	o := b.Instance
	// Every instance in scope needs its task before the first one runs:
	// one missing would otherwise fail only when its turn came.
	// A resume skips the finished ones: they need none.
	run := b.toRun(plan)
	if o.DatasetFile != "" {
		if err := CheckDataset(o.DatasetFile, run, b.IDSources); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return &UsageError{Err: exitcode.Optionf("dataset_file", ": %w", err)}
		}
	}
	// Usage checks on the template, with an instance that runs.
	if len(run) > 0 {
		probe := o
		probe.InstanceID, probe.OutputDir = run[0], filepath.Join(b.RunRoot, run[0])
		if err := probe.Validate(); err != nil {
			return &UsageError{Err: err}
		}
	}
	// A dead engine would fail every instance; say so once instead.
	if err := o.Docker.Ping(ctx); err != nil && ctx.Err() == nil {
		return &exitcode.SetupError{Err: err, Fix: container.FixUnreachable}
	} else if err != nil {
		return fmt.Errorf("docker engine: %w", err)
	}
	if b.Preflight != nil {
		if err := b.Preflight(ctx); err != nil && ctx.Err() == nil {
			return &exitcode.SetupError{Err: err, Fix: FixEndpoint}
		} else if err != nil {
			return fmt.Errorf("endpoint preflight: %w", err)
		}
	}
	return nil
}

// toRun are the plan's instances this invocation will run: on resume,
// not those already finished (unless retried).
func (b BatchOptions) toRun(plan batchPlan) []string {
	if !b.Resume {
		return plan.run
	}
	var ids []string
	for _, id := range plan.run {
		if st, err := ReadStatus(PathsFor(filepath.Join(b.RunRoot, id), id).Status); err == nil && st.Terminal() && !b.retry(st) {
			continue
		}
		ids = append(ids, id)
	}
	return ids
}

// openRoot creates the run root (a new one exclusively), writes its
// instance order and records the invocation. On resume it first repairs
// the manifest from the status files: a kill between an instance's
// status file and its manifest entry leaves "running" there.
func (b BatchOptions) openRoot(start time.Time, plan batchPlan) error {
	if b.Resume {
		if err := os.MkdirAll(b.RunRoot, 0o755); err != nil {
			return err
		}
	} else {
		if err := os.MkdirAll(filepath.Dir(b.RunRoot), 0o755); err != nil {
			return err
		}
		if err := os.Mkdir(b.RunRoot, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("run root %s already exists: another batch writes there (use --resume to continue it)", b.RunRoot)
			}
			return err
		}
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(b.RunRoot, "instance_order.txt"), []byte(strings.Join(plan.scope, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	outcomes := readOutcomes(b.RunRoot, plan.scope)
	return UpdateManifest(b.RunRoot, start, func(m *Manifest) {
		repairEntries(m, b.RunRoot, outcomes)
		if b.Subset != "" && m.Dataset.Subset == "" {
			m.Dataset.Subset = b.Subset
		}
		if b.Resume && m.Batch != nil {
			// Keep the first invocation; record this one beside it. The
			// scope is the root's: a wider instance file widens it.
			m.Batch.Resumed = true
			m.Batch.InstanceOrder = plan.scope
			m.Batch.Resumes = append(m.Batch.Resumes, Resume{Args: b.Args, StartTime: start, Selected: len(plan.run)})
			return
		}
		m.Batch = &BatchInfo{Args: b.Args, InstanceOrder: plan.scope, Shard: b.Shard.String(), Resumed: b.Resume, StartTime: start, Scope: b.scopeInfo()}
	})
}

// runInstances runs the plan's instances in order, skipping on resume
// those already finished (unless retried), and stops early when the
// endpoint keeps failing (the circuit breaker).
func (b BatchOptions) runInstances(ctx context.Context, plan batchPlan, res *BatchResult) {
	o := b.Instance
	ids := plan.run
	prog := progress{total: len(ids), began: time.Now(), held: map[string]string{}}
	// The success rate covers every finished instance the run root holds,
	// those of earlier invocations included.
	for _, id := range plan.scope {
		if st, err := ReadStatus(PathsFor(filepath.Join(b.RunRoot, id), id).Status); err == nil && st.Terminal() {
			prog.held[id] = st.Status
		}
	}
	limit := b.MaxEndpointFailures
	if limit <= 0 {
		limit = DefaultMaxEndpointFailures
	}
	inARow := 0
	var reports []InstanceReport
	report := func(r InstanceReport) {
		reports = append(reports, r)
		if b.OnInstance != nil {
			b.OnInstance(reports, len(ids))
		}
	}
	for i, id := range ids {
		if ctx.Err() != nil {
			break
		}
		dir := filepath.Join(b.RunRoot, id)
		if b.Resume {
			if st, err := ReadStatus(PathsFor(dir, id).Status); err == nil && st.Terminal() && !b.retry(st) {
				res.Skipped = append(res.Skipped, id)
				prog.skipped++
				report(InstanceReport{ID: id, Status: "skipped (" + st.Status + ")"})
				fmt.Fprintf(b.Stdout, "skip %s (%s)\n", id, st.Status)
				continue
			}
		}
		one := o
		one.InstanceID, one.OutputDir, one.ManifestDir = id, dir, b.RunRoot
		one.Args = map[string]any{}
		for k, v := range b.Args {
			one.Args[k] = v
		}
		one.Args["instance_id"], one.Args["output_dir"], one.Args["manifest_dir"] = id, dir, b.RunRoot
		fmt.Fprintf(b.Stdout, "start %s (%d/%d)\n", id, i+1, len(ids))
		delete(prog.held, id)
		st, err := Run(ctx, one)
		if err != nil {
			// Artifacts could not be written; record it and go on.
			fmt.Fprintf(b.Stdout, "%s: error: %v\n", id, err)
			continue
		}
		code := "null"
		if st.FailureReasonCode != nil {
			code = string(*st.FailureReasonCode)
		}
		prog.finished(st)
		fmt.Fprintf(b.Stdout, "%s status=%s reason=%s %s\n", id, st.Status, code, prog.line(st))
		report(InstanceReport{ID: id, Status: st.Status, Reason: code, Duration: st.EndTime.Sub(st.StartTime),
			Passes: st.ExecutePasses, Tokens: st.Usage.InputTokens + st.Usage.OutputTokens})
		if !endpointFailure(st) {
			inARow = 0
			continue
		}
		if inARow++; inARow < limit || i == len(ids)-1 {
			continue
		}
		why := fmt.Sprintf("%d instances in a row failed with runtime_error", inARow)
		check := b.EndpointCheck
		if check == nil {
			check = b.Preflight
		}
		if check != nil {
			perr := check(ctx)
			if perr == nil {
				inARow = 0 // the endpoint answers: the failures were the instances' own
				continue
			}
			why += " and the endpoint preflight fails: " + perr.Error()
		}
		res.Stopped = fmt.Sprintf("stopped after %s; %d instance(s) not run (continue with --resume %s --retry-failed runtime_error)", why, len(ids)-i-1, b.RunRoot)
		fmt.Fprintf(b.Stdout, "batch %s\n", res.Stopped)
		break
	}
}

// finish reads every status file of the root's scope once and makes
// predictions.jsonl, the manifest's entries and counts, batch.counts and
// the printed line from that one reading, so they agree whatever was
// killed before.
func (b BatchOptions) finish(ctx context.Context, plan batchPlan, res *BatchResult) error {
	outcomes := readOutcomes(b.RunRoot, plan.scope)
	var rows []Pred
	for _, oc := range outcomes {
		rows = append(rows, oc.row)
		res.Instances = append(res.Instances, InstanceOutcome{ID: oc.id, Paths: PathsFor(filepath.Join(b.RunRoot, oc.id), oc.id), Status: oc.st, Err: oc.err})
		res.Counts.addOutcome(oc.counted, oc.st.Interrupted)
	}
	res.Manifest, res.Predictions = filepath.Join(b.RunRoot, ManifestFile), filepath.Join(b.RunRoot, "predictions.jsonl")
	if err := WritePredictions(res.Predictions, rows); err != nil {
		return err
	}
	end := b.Instance.Now().UTC()
	if err := UpdateManifest(b.RunRoot, end, func(m *Manifest) {
		repairEntries(m, b.RunRoot, outcomes)
		if m.Batch == nil {
			return
		}
		m.Batch.EndTime, m.Batch.Counts = end, res.Counts
		interrupted := ctx.Err() != nil
		// Each invocation keeps its own stop: a resume must not erase
		// why an earlier one ended early.
		if n := len(m.Batch.Resumes); b.Resume && n > 0 {
			r := &m.Batch.Resumes[n-1]
			r.EndTime, r.Skipped, r.Stopped, r.Interrupted = end, res.Skipped, res.Stopped, interrupted
		} else {
			m.Batch.Skipped, m.Batch.Stopped, m.Batch.Interrupted = res.Skipped, res.Stopped, interrupted
		}
	}); err != nil {
		return err
	}
	fmt.Fprintf(b.Stdout, "run_root=%s total=%d success=%d failed=%d incomplete=%d not_run=%d\n",
		b.RunRoot, res.Counts.Total, res.Counts.Success, res.Counts.Failed, res.Counts.Incomplete, res.Counts.NotRun)
	return ctx.Err()
}

// rootOutcome is one instance of a run root as everything that counts
// reads it: its status file, and for a success its prediction.
type rootOutcome struct {
	id  string
	st  Status
	err error // why the status file could not be read
	// counted is the status the counts use: "" for an instance with no
	// status file (not run); a status file that cannot be read, or a
	// success whose prediction cannot, counts failed.
	counted string
	row     Pred
}

// readOutcomes reads the status file and prediction of every instance.
func readOutcomes(root string, ids []string) []rootOutcome {
	var out []rootOutcome
	for _, id := range ids {
		p := PathsFor(filepath.Join(root, id), id)
		oc := rootOutcome{id: id, row: Pred{ModelNameOrPath: ModelName, InstanceID: id}}
		oc.st, oc.err = ReadStatus(p.Status)
		switch {
		case errors.Is(oc.err, fs.ErrNotExist):
		case oc.err != nil:
			oc.counted = ralph.StatusFailed
		case !oc.st.Terminal() && !oc.st.Interrupted:
			// Not a result ("running" or unknown): not run.
		case oc.st.Status == ralph.StatusSuccess:
			pred, err := ReadPred(p.Pred, id)
			if err != nil {
				oc.counted, oc.err = ralph.StatusFailed, fmt.Errorf("%w: %v", errNoPrediction, err)
				break
			}
			oc.counted, oc.row = ralph.StatusSuccess, pred
		default:
			oc.counted = oc.st.Status
		}
		out = append(out, oc)
	}
	return out
}

// repairEntries makes the manifest's entries say what the status files
// say: an entry is only as good as the status file it was made from.
func repairEntries(m *Manifest, root string, outcomes []rootOutcome) {
	for _, oc := range outcomes {
		// The folder where the instance ran, as its entry says: a resumed
		// root may lie elsewhere now (a re-run job's download), and the
		// status file's error_log names the folder it was written in.
		dir := filepath.Join(root, oc.id)
		if e, ok := m.Instances[oc.id]; ok && e.OutputDir != "" {
			dir = e.OutputDir
		}
		switch {
		case oc.counted == "":
			if e, ok := m.Instances[oc.id]; ok && e.Status != "running" {
				// A status the entry has but no file holds: not run.
				e.Status = "running"
				m.Instances[oc.id] = e
			}
		case oc.err != nil:
			m.Instances[oc.id] = InstanceEntry{InstanceID: oc.id, Status: ralph.StatusFailed, FailureReasonCode: new(failcode.RuntimeError),
				FailureReasonDetail: oc.err.Error(), OutputDir: dir, StartTime: oc.st.StartTime, EndTime: oc.st.EndTime}
		default:
			m.Instances[oc.id] = entryOf(oc.st, dir)
		}
	}
}

// progress words a batch's advance for a person watching a long run: one
// line per instance with its own figures and the batch's so far.
type progress struct {
	total, done, skipped int
	began                time.Time
	// held is the finished status of every instance the run root holds,
	// by ID, earlier invocations' included.
	held map[string]string
}

func (p *progress) finished(st Status) {
	p.done++
	if st.Terminal() {
		p.held[st.InstanceID] = st.Status
	}
}

// successRate is the share of successes among the finished instances the
// run root holds, in whole percent, rounded (1 of 6 is 17%).
func (p *progress) successRate() int {
	if len(p.held) == 0 {
		return 0
	}
	n := 0
	for _, s := range p.held {
		if s == ralph.StatusSuccess {
			n++
		}
	}
	return int(math.Round(100 * float64(n) / float64(len(p.held))))
}

// line is "duration=... passes=... tokens=... done=3/10 success_rate=67% eta=12m0s".
func (p *progress) line(st Status) string {
	took := st.EndTime.Sub(st.StartTime).Round(100 * time.Millisecond)
	tokens := st.Usage.InputTokens + st.Usage.OutputTokens
	rate := p.successRate()
	left := p.total - p.done - p.skipped
	eta := time.Duration(0)
	if p.done > 0 {
		eta = (time.Since(p.began) / time.Duration(p.done) * time.Duration(left)).Round(time.Second)
	}
	return fmt.Sprintf("duration=%s passes=%d tokens=%d done=%d/%d success_rate=%d%% eta=%s",
		took, st.ExecutePasses, tokens, p.done+p.skipped, p.total, rate, eta)
}

package swebench

import (
	"context"
	"crypto/rand"
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

	"github.com/benchgate/benchgate/internal/exitcode"
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
	// status is terminal but not a success: RetryRuntimeErrors for those
	// that failed with runtime_error (an endpoint or engine problem, worth
	// another try once fixed), RetryAllFailures for every failed or
	// incomplete one. Empty skips every terminal status, as before.
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

// What RetryFailed re-runs.
const (
	RetryRuntimeErrors = "runtime_error"
	RetryAllFailures   = "all"
)

// Slice is a half-open range [Start, End) of the sorted instance list;
// End 0 means to the end.
type Slice struct{ Start, End int }

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

// retry reports whether a resumed batch runs st's instance again.
func (b BatchOptions) retry(st Status) bool {
	if st.Status == ralph.StatusSuccess {
		return false
	}
	switch b.RetryFailed {
	case RetryAllFailures:
		return true
	case RetryRuntimeErrors:
		// A patch that failed its check is the agent's or the image's
		// doing, not the endpoint's or the engine's: only "all" retries it.
		return st.FailureReasonCode != nil && *st.FailureReasonCode == ralph.CodeRuntimeError && st.PatchCheck == ""
	}
	return false
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

// Batch runs the instances one after another, continuing after failures,
// then builds predictions.jsonl from the .pred files.
func Batch(ctx context.Context, b BatchOptions) (BatchResult, error) {
	o := b.Instance
	if o.Now == nil {
		o.Now = time.Now
	}
	ids := b.Shard.Select(b.narrow(SortUnique(b.IDs)))
	res := BatchResult{RunRoot: b.RunRoot, Order: ids}
	if len(ids) == 0 {
		return res, &UsageError{Err: errors.New("the batch has no instances (empty instance file or shard)")}
	}
	// A resumed root must be an earlier batch's: a mistyped path would
	// otherwise start a whole new batch somewhere unexpected.
	if b.Resume {
		if fi, err := os.Stat(b.RunRoot); err != nil || !fi.IsDir() {
			return res, &UsageError{Err: exitcode.Optionf("resume", " %s: not the run root of an earlier batch (no such folder)", b.RunRoot)}
		}
	}
	// Every instance in scope needs its task before the first one runs:
	// one missing would otherwise fail only when its turn came.
	if o.DatasetFile != "" {
		if err := CheckDataset(o.DatasetFile, ids, b.IDSources); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, &UsageError{Err: exitcode.Optionf("dataset_file", ": %w", err)}
		}
	}
	// Usage checks on the template, with a valid placeholder ID.
	probe := o
	probe.InstanceID, probe.OutputDir = ids[0], filepath.Join(b.RunRoot, ids[0])
	if err := probe.Validate(); err != nil {
		return res, &UsageError{Err: err}
	}
	// A dead engine would fail every instance; say so once instead.
	if err := o.Docker.Ping(ctx); err != nil {
		return res, fmt.Errorf("docker engine: %w", err)
	}
	if b.Preflight != nil {
		if err := b.Preflight(ctx); err != nil {
			return res, fmt.Errorf("endpoint preflight: %w", err)
		}
	}
	start := o.Now().UTC()
	if b.Resume {
		if err := os.MkdirAll(b.RunRoot, 0o755); err != nil {
			return res, err
		}
	} else {
		if err := os.MkdirAll(filepath.Dir(b.RunRoot), 0o755); err != nil {
			return res, err
		}
		if err := os.Mkdir(b.RunRoot, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return res, fmt.Errorf("run root %s already exists: another batch writes there (use --resume to continue it)", b.RunRoot)
			}
			return res, err
		}
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(b.RunRoot, "instance_order.txt"), []byte(strings.Join(ids, "\n")+"\n"), 0o644); err != nil {
		return res, err
	}
	if err := UpdateManifest(b.RunRoot, start, func(m *Manifest) {
		if b.Subset != "" {
			m.Dataset.Subset = b.Subset
		}
		if b.Resume && m.Batch != nil {
			// Keep the first invocation; record this one beside it.
			m.Batch.Resumed = true
			m.Batch.Resumes = append(m.Batch.Resumes, Resume{Args: b.Args, StartTime: start})
			return
		}
		m.Batch = &BatchInfo{Args: b.Args, InstanceOrder: ids, Shard: b.Shard.String(), Resumed: b.Resume, StartTime: start}
	}); err != nil {
		return res, err
	}

	prog := progress{total: len(ids), began: time.Now(), held: map[string]string{}}
	// The success rate covers every finished instance the run root holds,
	// those of earlier invocations included.
	for _, id := range ids {
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
	for i, id := range ids {
		if ctx.Err() != nil {
			break
		}
		dir := filepath.Join(b.RunRoot, id)
		if b.Resume {
			if st, err := ReadStatus(PathsFor(dir, id).Status); err == nil && st.Terminal() && !b.retry(st) {
				res.Skipped = append(res.Skipped, id)
				prog.skipped++
				reports = append(reports, InstanceReport{ID: id, Status: "skipped (" + st.Status + ")"})
				if b.OnInstance != nil {
					b.OnInstance(reports, len(ids))
				}
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
			code = *st.FailureReasonCode
		}
		prog.finished(st)
		fmt.Fprintf(b.Stdout, "%s status=%s reason=%s %s\n", id, st.Status, code, prog.line(st))
		reports = append(reports, InstanceReport{ID: id, Status: st.Status, Reason: code, Duration: st.EndTime.Sub(st.StartTime),
			Passes: st.ExecutePasses, Tokens: st.Usage.InputTokens + st.Usage.OutputTokens})
		if b.OnInstance != nil {
			b.OnInstance(reports, len(ids))
		}
		// A failed patch check is the agent's or the image's: the endpoint
		// served the whole loop.
		if st.Status != ralph.StatusFailed || code != ralph.CodeRuntimeError || st.Interrupted || st.PatchCheck != "" {
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

	var rows []Pred
	for _, id := range ids {
		dir := filepath.Join(b.RunRoot, id)
		rows = append(rows, ReadPred(PathsFor(dir, id).Pred, id))
		st, err := ReadStatus(PathsFor(dir, id).Status)
		res.Instances = append(res.Instances, InstanceOutcome{ID: id, Paths: PathsFor(dir, id), Status: st, Err: err})
		if err != nil {
			st.Status = "" // a missing or invalid status: not run, counted as failed
		}
		res.Counts.addOutcome(st.Status, st.Interrupted)
	}
	res.Manifest, res.Predictions = filepath.Join(b.RunRoot, ManifestFile), filepath.Join(b.RunRoot, "predictions.jsonl")
	if err := WritePredictions(res.Predictions, rows); err != nil {
		return res, err
	}
	end := o.Now().UTC()
	if err := UpdateManifest(b.RunRoot, end, func(m *Manifest) {
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
		return res, err
	}
	fmt.Fprintf(b.Stdout, "run_root=%s total=%d success=%d failed=%d incomplete=%d not_run=%d\n",
		b.RunRoot, res.Counts.Total, res.Counts.Success, res.Counts.Failed, res.Counts.Incomplete, res.Counts.NotRun)
	return res, ctx.Err()
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

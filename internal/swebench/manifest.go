package swebench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/failcode"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/ralph"
)

// ManifestFile is the run-level manifest's name under the manifest dir.
const ManifestFile = "run_manifest.json"

// Manifest is run_manifest.json.
type Manifest struct {
	Dataset        DatasetInfo              `json:"dataset"`
	Codex          CodexInfo                `json:"codex"`
	CreatedAt      time.Time                `json:"created_at"`
	UpdatedAt      time.Time                `json:"updated_at"`
	Instances      map[string]InstanceEntry `json:"instances"`
	Counts         Counts                   `json:"counts"`
	LastInvocation *Invocation              `json:"last_invocation,omitempty"`
	Batch          *BatchInfo               `json:"batch,omitempty"`
	Merged         []string                 `json:"merged_from,omitempty"`
	// Shards, MissingShards and MergeSkipped are written by merge: the
	// run roots it took with their batches' arguments, the shards it was
	// allowed to go without, and what it left out and why.
	Shards        []MergedShard `json:"shards,omitempty"`
	MissingShards []string      `json:"missing_shards,omitempty"`
	MergeSkipped  []MergeSkip   `json:"merge_skipped,omitempty"`
	// ScopeMismatch says how the shards' scopes differed, in a merge
	// told to go on (--allow-scope-mismatch).
	ScopeMismatch []string `json:"scope_mismatch,omitempty"`
}

// DatasetInfo names the scope of the run.
type DatasetInfo struct {
	Name   string `json:"name"`
	Split  string `json:"split"`
	Subset string `json:"subset,omitempty"`
}

// CodexInfo records the fixed Codex mode.
type CodexInfo struct {
	Profile    string `json:"profile"`
	Unattended bool   `json:"unattended"`
	// Version is the `codex --version` of the latest instance that ran.
	Version string `json:"version,omitempty"`
}

// InstanceEntry is one instance's line in the manifest.
type InstanceEntry struct {
	InstanceID          string         `json:"instance_id"`
	Status              string         `json:"status"`
	FailureReasonCode   *failcode.Code `json:"failure_reason_code"`
	FailureReasonDetail string         `json:"failure_reason_detail"`
	ErrorLog            string         `json:"error_log"`
	OutputDir           string         `json:"output_dir"`
	// Interrupted: the run was cancelled (SIGTERM) before the instance ended.
	Interrupted bool      `json:"interrupted,omitempty"`
	StartTime   time.Time `json:"start_time"`
	EndTime     time.Time `json:"end_time,omitempty"`
	// CodexVersion is the codex that ran the instance (its status file's).
	CodexVersion string `json:"codex_version,omitempty"`
}

// Counts are the aggregate statuses; running instances count in Total only.
type Counts struct {
	Total      int `json:"total"`
	Success    int `json:"success"`
	Failed     int `json:"failed"`
	Incomplete int `json:"incomplete"`
	// NotRun counts the instances of a batch's scope that have no finished
	// status: never started (the batch was stopped or interrupted first)
	// or interrupted. They are in Failed too: their predictions are empty.
	NotRun int `json:"not_run"`
}

// Invocation is one single-instance run's arguments and times.
type Invocation struct {
	InstanceID string         `json:"instance_id"`
	Args       map[string]any `json:"args"`
	StartTime  time.Time      `json:"start_time"`
	EndTime    time.Time      `json:"end_time,omitempty"`
}

// BatchInfo is what the batch adds.
type BatchInfo struct {
	Args          map[string]any `json:"args"`
	InstanceOrder []string       `json:"instance_order"`
	Shard         string         `json:"shard,omitempty"`
	Resumed       bool           `json:"resumed,omitempty"`
	Skipped       []string       `json:"skipped,omitempty"`
	// StartTime and Args are the first invocation's: a resume adds an
	// entry to Resumes instead of overwriting them.
	StartTime time.Time `json:"start_time"`
	EndTime   time.Time `json:"end_time,omitempty"`
	Counts    Counts    `json:"counts"`
	// Resumes lists every later invocation on this run root.
	Resumes []Resume `json:"resumes,omitempty"`
	// Scope is what chose the first invocation's instances; merge
	// compares it across shards.
	Scope *ScopeInfo `json:"scope,omitempty"`
	// Stopped says why the first invocation gave up before the end (the
	// endpoint circuit breaker), Interrupted that it was cancelled
	// (SIGTERM); each resume records its own in Resumes, so the history
	// of stops survives any number of resumes. The state of the run root
	// is the last invocation's: the last of Resumes, or these.
	Stopped     string `json:"stopped,omitempty"`
	Interrupted bool   `json:"interrupted,omitempty"`
}

// Resume is one --resume of a batch.
type Resume struct {
	Args      map[string]any `json:"args"`
	StartTime time.Time      `json:"start_time"`
	EndTime   time.Time      `json:"end_time,omitempty"`
	// Selected is how many instances this invocation chose to run (its
	// filter, slice or instance file); the run root's scope stays whole.
	Selected    int      `json:"selected,omitempty"`
	Skipped     []string `json:"skipped,omitempty"`
	Stopped     string   `json:"stopped,omitempty"`
	Interrupted bool     `json:"interrupted,omitempty"`
}

// LastDatasetFile is the dataset file of the latest invocation that
// named one (a resume with a wider instance file names its own).
func (b *BatchInfo) LastDatasetFile() string {
	for i := len(b.Resumes) - 1; i >= 0; i-- {
		if ds, _ := b.Resumes[i].Args["dataset_file"].(string); ds != "" {
			return ds
		}
	}
	ds, _ := b.Args["dataset_file"].(string)
	return ds
}

// running reports whether the batch's last invocation has not ended (or
// was killed before it could say so).
func (b *BatchInfo) running() bool {
	if n := len(b.Resumes); n > 0 {
		return b.Resumes[n-1].EndTime.IsZero()
	}
	return b.EndTime.IsZero()
}

// UpdateManifest read-modify-writes dir/run_manifest.json under its file
// lock, so concurrent single-instance runs sharing a manifest dir never
// lose each other's entries. A corrupt manifest is an error, not reset.
func UpdateManifest(dir string, now time.Time, update func(m *Manifest)) error {
	path := filepath.Join(dir, ManifestFile)
	return fsutil.UpdateLocked(path, func() error {
		m, err := ReadManifest(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if m.CreatedAt.IsZero() {
			m.CreatedAt = now
			m.Dataset = DatasetInfo{Name: DefaultDataset, Split: DefaultSplit}
		}
		m.Codex.Profile, m.Codex.Unattended = "local", true
		if m.Instances == nil {
			m.Instances = map[string]InstanceEntry{}
		}
		update(&m)
		m.UpdatedAt = now
		m.Counts = countEntries(m.Instances)
		if m.Batch != nil && !m.Batch.running() {
			// Between invocations the counts cover the batch's whole
			// scope, as batch.counts does.
			m.Counts = countScope(m.Instances, m.Batch.InstanceOrder)
		}
		return fsutil.WriteJSONAtomic(path, m)
	})
}

// MaxManifestBytes bounds what is read of a run_manifest.json: a few
// hundred bytes per instance, so a run of tens of thousands fits.
const MaxManifestBytes = 64 << 20

// ReadManifest reads a run_manifest.json. Its folder may be the output
// folder an agent writes (--manifest-dir defaults to --output-dir): the
// file is read without following a link (one to a host JSON file would
// be merged into the manifest), only when it is a regular file (a FIFO
// would block forever, a link to /dev/zero exhaust memory), and at most
// MaxManifestBytes of it.
func ReadManifest(path string) (Manifest, error) {
	var m Manifest
	b, err := fsutil.ReadFileIn(filepath.Dir(path), path, MaxManifestBytes)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: not a valid run manifest: %w", path, err)
	}
	return m, nil
}

func countEntries(es map[string]InstanceEntry) Counts {
	var c Counts
	for _, e := range es {
		c.Total++
		c.add(e.Status)
	}
	return c
}

// countScope counts the instances of a batch's scope (order) and any
// other entry: an instance with no entry, or one still "running" once the
// batch ended, was not run; an interrupted one was not run to its end.
func countScope(es map[string]InstanceEntry, order []string) Counts {
	var c Counts
	seen := map[string]bool{}
	count := func(id string) {
		if seen[id] {
			return
		}
		seen[id] = true
		e, ok := es[id]
		status := e.Status
		if !ok || status == "running" {
			status = ""
		}
		c.addOutcome(status, e.Interrupted)
	}
	for _, id := range order {
		count(id)
	}
	for _, id := range slices.Sorted(maps.Keys(es)) {
		count(id)
	}
	return c
}

// addOutcome counts one instance of a batch's scope: status "" is one
// with no finished status (not run, counted as failed).
func (c *Counts) addOutcome(status string, interrupted bool) {
	c.Total++
	if status == "" {
		c.Failed++
		c.NotRun++
		return
	}
	c.add(status)
	if interrupted {
		c.NotRun++
	}
}

func (c *Counts) add(status string) {
	switch status {
	case ralph.StatusSuccess:
		c.Success++
	case ralph.StatusFailed:
		c.Failed++
	case ralph.StatusIncomplete:
		c.Incomplete++
	}
}

// ExitCode maps counts to the batch exit code: 1 if any failed, else 20
// if any is incomplete, else 0.
func (c Counts) ExitCode() int {
	switch {
	case c.Failed > 0:
		return exitcode.Failed
	case c.Incomplete > 0:
		return exitcode.Incomplete
	}
	return exitcode.OK
}

// What instance outcomes make a batch or merge fail (--fail-on).
const (
	// FailOnNever: the step ran, whatever its instances did.
	FailOnNever = "never"
	// FailOnFailed: exit 1 when an instance failed.
	FailOnFailed = "failed"
	// FailOnIncomplete: exit 1 when an instance failed, else 20 when
	// one is incomplete (ExitCode).
	FailOnIncomplete = "incomplete"
)

// ParseFailOn checks a --fail-on value.
func ParseFailOn(s string) (string, error) {
	switch s {
	case FailOnNever, FailOnFailed, FailOnIncomplete:
		return s, nil
	}
	return "", exitcode.Optionf("fail_on", " %q: expected never, failed or incomplete", s)
}

// ExitCodeFor is ExitCode as far as failOn asks: instance outcomes are
// results, and only the ones failOn names fail the command.
func (c Counts) ExitCodeFor(failOn string) int {
	switch failOn {
	case FailOnNever:
		return exitcode.OK
	case FailOnFailed:
		if c.Failed > 0 {
			return exitcode.Failed
		}
		return exitcode.OK
	}
	return c.ExitCode()
}

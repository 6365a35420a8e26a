package swebench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/failcode"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/ralph"
)

// MergeOptions configure Merge.
type MergeOptions struct {
	// Out is the merged run root. It must not exist, be empty, or hold
	// the output of an earlier merge, which is then replaced whole.
	Out string
	// Roots are the run roots of the shards (or of unsharded batches).
	Roots []string
	// AllowMissingShards merges a sharded batch some of whose shards are
	// absent; without it a missing shard is a usage error.
	AllowMissingShards bool
	// AllowScopeMismatch merges shards whose batches chose their
	// instances differently (another --filter, --slice or instance file);
	// without it that is a usage error naming the difference.
	AllowScopeMismatch bool
	Now                time.Time
}

// MergeResult is the merged scope.
type MergeResult struct {
	Order  []string
	Counts Counts
	// Shards are the run roots merged, in shard order.
	Shards []MergedShard
	// Missing names the shards ("k/n") absent from a merge allowed to
	// go without them.
	Missing []string
	// Skipped lists what was left out, and why.
	Skipped []MergeSkip
	// ScopeMismatch names how the shards' scopes differ, in a merge
	// allowed to go on (AllowScopeMismatch).
	ScopeMismatch []string
}

// MergedShard records one run root a merge took: where it was, which
// shard it ran, and its batch's arguments and times, so that the merged
// manifest says how every prediction was made.
type MergedShard struct {
	Root      string         `json:"root"`
	Shard     string         `json:"shard,omitempty"`
	Args      map[string]any `json:"args,omitempty"`
	Resumes   []Resume       `json:"resumes,omitempty"`
	StartTime time.Time      `json:"start_time,omitempty"`
	EndTime   time.Time      `json:"end_time,omitempty"`
	Counts    Counts         `json:"counts"`
	Stopped   string         `json:"stopped,omitempty"`
}

// MergeSkip is one thing a merge did not take.
type MergeSkip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Caps on the files a merge reads back: run roots come from artifacts
// that an agent could fill.
const (
	maxManifestBytes = 64 << 20
	maxStatusBytes   = 1 << 20
)

// shardRun is one run root as the merge sees it.
type shardRun struct {
	root  string
	m     Manifest
	shard Shard
	scope []string
}

// Merge combines the run roots of a sharded batch into o.Out: it copies
// each instance folder, writes one manifest with every instance and one
// predictions.jsonl in lexicographic ID order.
//
// Each root's manifest says which shard k/n it ran; every shard of 1..n
// must be there once. Two roots of the same shard that are states of one
// batch (the same start time: a job re-run that resumed from its earlier
// artifact) are one shard, and the later state is taken; two different
// batches of one shard are refused. The scope of a root is its batch's
// instance order as well as its manifest's instances, so an instance an
// interrupted shard never reached keeps its row (an empty patch, counted
// failed) as it has in that shard's own totals.
//
// Shards are read, and the output written, through os.Root: nothing is
// read or written through a link, whatever an agent left in a run root;
// links, special files, oversize predictions and error logs outside the
// instance folder are skipped and reported. The merged folder is built
// beside Out and renamed into place, so a failed merge leaves Out as it
// was.
func Merge(o MergeOptions) (MergeResult, error) {
	var res MergeResult
	if len(o.Roots) == 0 {
		return res, &UsageError{Err: errors.New("merge: no run roots given")}
	}
	out, err := filepath.Abs(o.Out)
	if err != nil {
		return res, err
	}
	runs, err := loadRuns(out, o.Roots)
	if err != nil {
		return res, err
	}
	runs, err = pickShards(runs, o.AllowMissingShards, &res)
	if err != nil {
		return res, err
	}
	if err := checkScopes(runs, o.AllowScopeMismatch, &res); err != nil {
		return res, err
	}
	if err := checkOutput(out); err != nil {
		return res, err
	}

	from := map[string]*shardRun{}
	for _, r := range runs {
		for _, id := range r.scope {
			if err := ValidateID(id); err != nil {
				return res, &UsageError{Err: fmt.Errorf("merge: %s: %w", filepath.Join(r.root, ManifestFile), err)}
			}
			if prev, dup := from[id]; dup {
				return res, &UsageError{Err: fmt.Errorf("merge: instance %s is in both %s and %s (shards overlap)", id, prev.root, r.root)}
			}
			from[id] = r
		}
	}
	for id := range from {
		res.Order = append(res.Order, id)
	}
	sort.Strings(res.Order)

	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return res, fmt.Errorf("merge: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".merge-")
	if err != nil {
		return res, fmt.Errorf("merge: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	dst, err := os.OpenRoot(tmp)
	if err != nil {
		return res, fmt.Errorf("merge: %w", err)
	}
	defer dst.Close()

	entries := map[string]InstanceEntry{}
	var rows []Pred
	for _, id := range res.Order {
		r := from[id]
		entry, finished, err := mergeInstance(r, id, out, tmp, dst, &res)
		if err != nil {
			return res, fmt.Errorf("merge: %s: %w", id, err)
		}
		p := PathsFor(filepath.Join(tmp, id), id)
		pred, perr := ReadPred(p.Pred, id)
		if entry.Status == ralph.StatusSuccess && perr != nil {
			// A success is its patch: one whose prediction cannot be read
			// (over MaxPredBytes, not JSON, a link) is not a success of
			// the merge, as in the batch.
			entry.Status, entry.FailureReasonCode = ralph.StatusFailed, new(failcode.RuntimeError)
			entry.FailureReasonDetail = fmt.Sprintf("a success in %s whose prediction was not merged: %v", shardName(r), perr)
		}
		if entry.Status != ralph.StatusSuccess {
			// Only a success carries its patch, as in the batch.
			pred.ModelPatch = ""
		}
		rows = append(rows, pred)
		entries[id] = entry
		// Counted as the batch counts its scope: an instance with no
		// finished status, or an interrupted one, was not run.
		if finished {
			res.Counts.addOutcome(entry.Status, entry.Interrupted)
		} else {
			res.Counts.addOutcome("", false)
		}
	}
	if err := WritePredictions(filepath.Join(tmp, "predictions.jsonl"), rows); err != nil {
		return res, err
	}
	if err := writeMergedManifest(tmp, out, o, runs, entries, &res); err != nil {
		return res, err
	}
	if err := replaceDir(tmp, out); err != nil {
		return res, fmt.Errorf("merge: %w", err)
	}
	done = true
	return res, nil
}

// loadRuns reads each root's manifest and scope.
func loadRuns(out string, roots []string) ([]*shardRun, error) {
	var runs []*shardRun
	seen := map[string]string{}
	for _, root := range roots {
		abs, err := filepath.Abs(root)
		if err != nil {
			return nil, err
		}
		// Copying a root onto itself would truncate its files, and
		// replacing a folder that holds a root would delete it.
		if samePath(out, abs) || inside(abs, out) || inside(out, abs) {
			return nil, &UsageError{Err: fmt.Errorf("merge: %w", exitcode.Optionf("output_dir", " %s is one of the run roots, or holds one, or lies in one; merge into a new folder", out))}
		}
		if prev, ok := seen[abs]; ok {
			return nil, &UsageError{Err: fmt.Errorf("merge: run root %s is given twice (as %s and %s)", abs, prev, root)}
		}
		seen[abs] = root
		// A folder that is not there is most often a mistyped path or a
		// shard's artifact not yet downloaded: say that, not that the
		// folder lacks a manifest.
		if info, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
			return nil, &UsageError{Err: fmt.Errorf("merge: run root %s does not exist: give the folder a batch wrote (results/phase5/ralph-codex-local/<timestamp>, or where a shard's artifact was downloaded)", root)}
		} else if err == nil && !info.IsDir() {
			return nil, &UsageError{Err: fmt.Errorf("merge: run root %s is a file: give the folder a batch wrote", root)}
		}
		m, err := readManifestIn(abs)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &UsageError{Err: fmt.Errorf("merge: %s is not a run root: it has no %s", root, ManifestFile)}
		}
		if err != nil {
			return nil, &UsageError{Err: fmt.Errorf("merge: run root %s: %w", root, err)}
		}
		r := &shardRun{root: abs, m: m, scope: slices.Sorted(maps.Keys(m.Instances))}
		if m.Batch != nil {
			for _, id := range m.Batch.InstanceOrder {
				if _, ok := m.Instances[id]; !ok {
					r.scope = append(r.scope, id)
				}
			}
			if m.Batch.Shard != "" {
				if r.shard, err = ParseShard(m.Batch.Shard); err != nil {
					return nil, &UsageError{Err: fmt.Errorf("merge: %s: field batch.shard: %w", filepath.Join(root, ManifestFile), err)}
				}
			}
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// pickShards checks that the sharded roots are every shard of one batch
// once, and keeps the latest state of a shard given more than once.
func pickShards(runs []*shardRun, allowMissing bool, res *MergeResult) ([]*shardRun, error) {
	n := 0
	var plain []string
	for _, r := range runs {
		switch {
		case r.shard.N == 0:
			plain = append(plain, r.root)
		case n == 0:
			n = r.shard.N
		case r.shard.N != n:
			return nil, &UsageError{Err: fmt.Errorf("merge: the run roots are shards of different splits (%s is shard %s, another is of %d): merge the shards of one batch", r.root, r.shard, n)}
		}
	}
	if n == 0 {
		return runs, nil
	}
	if len(plain) > 0 {
		return nil, &UsageError{Err: fmt.Errorf("merge: %s ran no shard, the other run roots are shards of %d: merge the shards of one batch", strings.Join(plain, ", "), n)}
	}
	byShard := make([][]*shardRun, n+1)
	for _, r := range runs {
		byShard[r.shard.I] = append(byShard[r.shard.I], r)
	}
	var kept []*shardRun
	var missing, dups []string
	for k := 1; k <= n; k++ {
		cands := byShard[k]
		switch {
		case len(cands) == 0:
			missing = append(missing, fmt.Sprintf("%d/%d", k, n))
			continue
		case len(cands) > 1:
			best, ok := latestState(cands)
			if !ok {
				var roots []string
				for _, c := range cands {
					roots = append(roots, c.root)
				}
				dups = append(dups, fmt.Sprintf("%d/%d (%s)", k, n, strings.Join(roots, ", ")))
				continue
			}
			for _, c := range cands {
				if c != best {
					res.Skipped = append(res.Skipped, MergeSkip{Path: c.root, Reason: fmt.Sprintf("an earlier state of shard %d/%d of the batch started %s; %s is newer and is merged", k, n, c.m.Batch.StartTime.Format(time.RFC3339), best.root)})
				}
			}
			cands = []*shardRun{best}
		}
		kept = append(kept, cands[0])
	}
	if len(dups) > 0 {
		return nil, &UsageError{Err: fmt.Errorf("merge: duplicated shard %s: each is a different batch of the same shard; give one run root per shard", strings.Join(dups, "; "))}
	}
	if len(missing) > 0 {
		if !allowMissing {
			return nil, &UsageError{Err: fmt.Errorf("merge: missing shard %s of %d: the run roots given hold shard(s) %s; pass every shard's run root, or --allow-missing-shards to merge without them", strings.Join(missing, ", "), n, shardList(kept))}
		}
		res.Missing = missing
	}
	return kept, nil
}

// checkScopes compares the scope of every shard with the first's: the
// --filter, --slice and instance file its batch was started with, and
// the IDs they chose (ScopeInfo). Shards of different scopes would merge
// into a run that is neither batch's.
func checkScopes(runs []*shardRun, allow bool, res *MergeResult) error {
	var sharded []*shardRun
	for _, r := range runs {
		if r.shard.N > 0 && r.m.Batch != nil {
			sharded = append(sharded, r)
		}
	}
	var diffs []string
	for _, r := range sharded[min(1, len(sharded)):] {
		diffs = append(diffs, scopeDiff(sharded[0], r)...)
	}
	if len(diffs) == 0 {
		return nil
	}
	if !allow {
		return &UsageError{Err: fmt.Errorf("merge: the shards were run with different scopes: %s; merge the shards of one batch, or pass --allow-scope-mismatch", strings.Join(diffs, "; "))}
	}
	res.ScopeMismatch = diffs
	return nil
}

// scopeDiff names how b's scope differs from a's.
func scopeDiff(a, b *shardRun) []string {
	var diffs []string
	arg := func(r *shardRun, k string) string {
		v, _ := r.m.Batch.Args[k].(string)
		if k == "instance_file" && v != "" {
			v = filepath.Base(v)
		}
		return v
	}
	show := func(v string) string {
		if v == "" {
			return "none"
		}
		return fmt.Sprintf("%q", v)
	}
	keys := []struct{ arg, flag string }{{"filter", "--filter"}, {"slice", "--slice"}, {"instance_file", "--instance-file"}}
	sa, sb := a.m.Batch.Scope, b.m.Batch.Scope
	for _, k := range keys {
		if k.arg == "instance_file" && sa != nil && sb != nil {
			continue // the IDs say more than the file name
		}
		if va, vb := arg(a, k.arg), arg(b, k.arg); va != vb {
			diffs = append(diffs, fmt.Sprintf("%s has %s %s, %s has %s %s", shardName(a), k.flag, show(va), shardName(b), k.flag, show(vb)))
		}
	}
	if sa != nil && sb != nil && (sa.Instances != sb.Instances || sa.IDsSHA256 != sb.IDsSHA256) {
		diffs = append(diffs, fmt.Sprintf("%s chose %d instances (%s, ids sha256 %.12s), %s chose %d (%s, ids sha256 %.12s)",
			shardName(a), sa.Instances, orAll(sa.InstanceFile), sa.IDsSHA256, shardName(b), sb.Instances, orAll(sb.InstanceFile), sb.IDsSHA256))
	}
	return diffs
}

func orAll(file string) string {
	if file == "" {
		return "the whole split"
	}
	return file
}

// latestState returns the newest of roots that are states of one batch
// (the same non-zero start time, kept by every resume), or false when
// they are different batches.
func latestState(cands []*shardRun) (*shardRun, bool) {
	best := cands[0]
	for _, c := range cands {
		if c.m.Batch.StartTime.IsZero() || !c.m.Batch.StartTime.Equal(cands[0].m.Batch.StartTime) {
			return nil, false
		}
		if c.m.UpdatedAt.After(best.m.UpdatedAt) || c.m.UpdatedAt.Equal(best.m.UpdatedAt) && len(c.m.Batch.Resumes) > len(best.m.Batch.Resumes) {
			best = c
		}
	}
	return best, true
}

func shardList(runs []*shardRun) string {
	var s []string
	for _, r := range runs {
		s = append(s, r.shard.String())
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// checkOutput refuses an output folder that holds anything but an
// earlier merge: replacing it would delete files merge did not write.
func checkOutput(out string) error {
	info, err := os.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &UsageError{Err: fmt.Errorf("merge: %w", exitcode.Optionf("output_dir", ": %w", err))}
	}
	if !info.IsDir() {
		return &UsageError{Err: fmt.Errorf("merge: %w", exitcode.Optionf("output_dir", " %s exists and is not a folder (%s); name a new folder", out, info.Mode().Type()))}
	}
	names, err := os.ReadDir(out)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("merge: %w", exitcode.Optionf("output_dir", ": %w", err))}
	}
	if len(names) == 0 {
		return nil
	}
	m, err := readManifestIn(out)
	if err != nil || (len(m.Merged) == 0 && len(m.Shards) == 0) {
		return &UsageError{Err: fmt.Errorf("merge: %w", exitcode.Optionf("output_dir", " %s exists and is not the output of an earlier merge (no %s with merged_from); name a new or empty folder", out, ManifestFile))}
	}
	return nil
}

// mergeInstance copies one instance folder of r into dst and returns its
// merged manifest entry, read from the copied status file; finished is
// false when there is no finished status to read (the entry then says
// why, counted failed).
func mergeInstance(r *shardRun, id, out, tmp string, dst *os.Root, res *MergeResult) (entry InstanceEntry, finished bool, err error) {
	entry = InstanceEntry{InstanceID: id, Status: ralph.StatusFailed, OutputDir: filepath.Join(out, id)}
	entry.FailureReasonCode = new(failcode.RuntimeError)
	src, err := os.OpenRoot(r.root)
	if err != nil {
		return entry, false, err
	}
	defer src.Close()
	info, err := src.Lstat(id)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		entry.FailureReasonDetail = "never started: the batch of " + shardName(r) + " stopped before it"
		return entry, false, dst.Mkdir(id, 0o755)
	case err != nil:
		return entry, false, err
	case !info.IsDir():
		res.Skipped = append(res.Skipped, MergeSkip{Path: filepath.Join(r.root, id), Reason: "the instance folder is a " + fsutil.Kind(info.Mode()) + ", not a folder; not followed"})
		entry.FailureReasonDetail = "its folder in " + shardName(r) + " was a " + fsutil.Kind(info.Mode()) + " and was not merged"
		return entry, false, dst.Mkdir(id, 0o755)
	}
	if err := copyTree(src, dst, id, r.root, res); err != nil {
		return entry, false, err
	}
	p := PathsFor(filepath.Join(tmp, id), id)
	b, err := fsutil.ReadFileIn(tmp, p.Status, maxStatusBytes)
	var raw map[string]any
	var st Status
	if err == nil {
		if err = json.Unmarshal(b, &raw); err == nil {
			err = json.Unmarshal(b, &st)
		}
	}
	if err != nil || st.InstanceID != id {
		if err == nil {
			err = fmt.Errorf("instance_id %q, expected %q", st.InstanceID, id)
		}
		entry.FailureReasonDetail = fmt.Sprintf("no valid status file in %s: %v", shardName(r), err)
		return entry, false, nil
	}
	// error_log pointed into the shard's folder where it ran; the merged
	// copy is at out/<id>. A path outside the instance folder (an agent
	// can write the status' neighbours, not this field, but a hand-made
	// root can) is dropped rather than carried over.
	if st.ErrorLog != "" {
		base := filepath.Join(r.root, id)
		if e, ok := r.m.Instances[id]; ok && e.OutputDir != "" {
			base = e.OutputDir
		}
		rel, err := filepath.Rel(base, st.ErrorLog)
		if err != nil || !filepath.IsAbs(st.ErrorLog) || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			res.Skipped = append(res.Skipped, MergeSkip{Path: filepath.Join(r.root, id, id+".status.json"), Reason: fmt.Sprintf("error_log %s is outside the instance folder %s; dropped", st.ErrorLog, base)})
			st.ErrorLog = ""
		} else {
			st.ErrorLog = filepath.Join(out, id, rel)
		}
		raw["error_log"] = st.ErrorLog
		if err := fsutil.WriteJSONAtomicIn(tmp, p.Status, raw); err != nil {
			return entry, false, err
		}
	}
	switch st.Status {
	case ralph.StatusSuccess, ralph.StatusFailed, ralph.StatusIncomplete:
	default:
		entry.FailureReasonDetail = fmt.Sprintf("status %q in %s is not a result", st.Status, shardName(r))
		return entry, false, nil
	}
	entry = InstanceEntry{InstanceID: id, Status: st.Status, FailureReasonCode: st.FailureReasonCode,
		FailureReasonDetail: st.FailureReasonDetail, ErrorLog: st.ErrorLog, OutputDir: filepath.Join(out, id),
		Interrupted: st.Interrupted, StartTime: st.StartTime, EndTime: st.EndTime, CodexVersion: st.CodexVersion}
	// A success is its patch: one whose prediction was not merged (over
	// the cap, a link) is not a success of the merge.
	if pi, err := os.Lstat(p.Pred); st.Status == ralph.StatusSuccess && (err != nil || !pi.Mode().IsRegular()) {
		entry.Status, entry.FailureReasonCode = ralph.StatusFailed, new(failcode.RuntimeError)
		entry.FailureReasonDetail = "a success in " + shardName(r) + " whose prediction " + id + ".pred was not merged (see merge_skipped)"
	}
	return entry, true, nil
}

func shardName(r *shardRun) string {
	if r.shard.N > 0 {
		return "shard " + r.shard.String() + " (" + r.root + ")"
	}
	return r.root
}

// copyTree copies the folder name of src to dst: folders and regular
// files only, every path resolved inside its root, every file opened
// without following a link. What it leaves out goes to res.Skipped.
func copyTree(src, dst *os.Root, name, srcPath string, res *MergeResult) error {
	skip := func(p, reason string) {
		res.Skipped = append(res.Skipped, MergeSkip{Path: filepath.Join(srcPath, p), Reason: reason})
	}
	return fs.WalkDir(src.FS(), name, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			skip(p, "a symbolic link; not followed")
			return nil
		case d.IsDir():
			return dst.Mkdir(p, 0o755)
		case !d.Type().IsRegular():
			skip(p, "a "+fsutil.Kind(d.Type())+"; only folders and regular files are merged")
			return nil
		}
		in, err := src.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != nil {
			return err
		}
		defer in.Close()
		info, err := in.Stat()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			skip(p, "no longer a regular file when opened; not copied")
			return nil
		}
		base := filepath.Base(p)
		if strings.HasSuffix(base, ".pred") && info.Size() > MaxPredBytes {
			skip(p, fmt.Sprintf("%d bytes, over the %d-byte cap of a prediction; the instance's prediction is empty", info.Size(), MaxPredBytes))
			return nil
		}
		if strings.HasSuffix(base, ".status.json") && info.Size() > maxStatusBytes {
			skip(p, fmt.Sprintf("%d bytes, over the %d-byte cap of a status file; the instance counts as failed", info.Size(), maxStatusBytes))
			return nil
		}
		outF, err := dst.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(outF, in); err != nil {
			outF.Close()
			return err
		}
		return outF.Close()
	})
}

// writeMergedManifest writes the merged run_manifest.json into tmp, with
// the paths it will have once tmp is renamed to out.
func writeMergedManifest(tmp, out string, o MergeOptions, runs []*shardRun, entries map[string]InstanceEntry, res *MergeResult) error {
	now := o.Now.UTC()
	m := Manifest{CreatedAt: now, UpdatedAt: now, Instances: entries, Counts: res.Counts,
		Dataset: DatasetInfo{Name: DefaultDataset, Split: DefaultSplit}, Codex: CodexInfo{Profile: "local", Unattended: true}}
	var start time.Time
	for _, r := range runs {
		if r.m.Dataset.Name != "" {
			m.Dataset = r.m.Dataset
		}
		if r.m.Codex.Version != "" {
			m.Codex.Version = r.m.Codex.Version
		}
		sh := MergedShard{Root: r.root, Shard: r.shard.String(), Counts: r.m.Counts}
		if b := r.m.Batch; b != nil {
			sh.Args, sh.Resumes, sh.StartTime, sh.EndTime, sh.Counts, sh.Stopped = b.Args, b.Resumes, b.StartTime, b.EndTime, b.Counts, b.Stopped
			if !b.StartTime.IsZero() && (start.IsZero() || b.StartTime.Before(start)) {
				start = b.StartTime
			}
		}
		res.Shards = append(res.Shards, sh)
		m.Merged = append(m.Merged, r.root)
	}
	sort.SliceStable(res.Shards, func(i, j int) bool { return res.Shards[i].Shard < res.Shards[j].Shard })
	m.Shards, m.MissingShards, m.MergeSkipped, m.ScopeMismatch = res.Shards, res.Missing, res.Skipped, res.ScopeMismatch
	m.Batch = &BatchInfo{Args: map[string]any{"merged_from": m.Merged, "output_dir": out, "allow_missing_shards": o.AllowMissingShards, "allow_scope_mismatch": o.AllowScopeMismatch},
		InstanceOrder: res.Order, StartTime: start, EndTime: now, Counts: res.Counts}
	return fsutil.WriteJSONAtomicIn(tmp, filepath.Join(tmp, ManifestFile), m)
}

// replaceDir renames tmp to out; an earlier out is moved aside first and
// removed once the new one is in place, or put back if that fails.
func replaceDir(tmp, out string) error {
	if _, err := os.Lstat(out); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(tmp, out)
	}
	old := tmp + ".old"
	if err := os.Rename(out, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		if rerr := os.Rename(old, out); rerr != nil {
			return fmt.Errorf("%w; the earlier merge is at %s", err, old)
		}
		return err
	}
	return os.RemoveAll(old)
}

// readManifestIn reads root/run_manifest.json without following a link,
// with a size cap.
func readManifestIn(root string) (Manifest, error) {
	var m Manifest
	path := filepath.Join(root, ManifestFile)
	b, err := fsutil.ReadFileIn(root, path, maxManifestBytes)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: not a valid run manifest: %w", path, err)
	}
	return m, nil
}

// inside reports whether path lies below dir.
func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// samePath reports whether a and b name the same folder.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	if aa == bb {
		return true
	}
	ai, err1 := os.Stat(aa)
	bi, err2 := os.Stat(bb)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}

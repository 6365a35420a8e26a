package swebench

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/ralph"
)

// MergeResult is the merged scope.
type MergeResult struct {
	Order  []string
	Counts Counts
}

// Merge combines the run roots of a sharded batch into out: it copies each
// instance folder, writes one manifest with every instance and one
// predictions.jsonl in lexicographic ID order. The scope of a root is its
// batch's instance order as well as its manifest's instances, so an
// instance an interrupted shard never reached keeps its row (an empty
// patch, counted failed) as it has in that shard's own totals. An instance
// that appears in two roots is an error: shards must not overlap.
func Merge(out string, roots []string, now time.Time) (MergeResult, error) {
	var res MergeResult
	if len(roots) == 0 {
		return res, fmt.Errorf("merge: no run roots given")
	}
	// Copying a root onto itself would truncate its files.
	for _, root := range roots {
		if samePath(out, root) {
			return res, &UsageError{Err: fmt.Errorf("merge: %w", exitcode.Optionf("output_dir", " %s is one of the run roots; merge into a new folder", out))}
		}
	}
	from := map[string]string{}
	entries := map[string]InstanceEntry{}
	var subset string
	var start time.Time // the earliest shard's start
	for _, root := range roots {
		m, err := ReadManifest(filepath.Join(root, ManifestFile))
		if errors.Is(err, fs.ErrNotExist) {
			return res, &UsageError{Err: fmt.Errorf("merge: %s is not a run root: it has no %s", root, ManifestFile)}
		}
		if err != nil {
			return res, fmt.Errorf("merge: run root %s: %w", root, err)
		}
		if m.Dataset.Subset != "" {
			subset = m.Dataset.Subset
		}
		if m.Batch != nil && !m.Batch.StartTime.IsZero() && (start.IsZero() || m.Batch.StartTime.Before(start)) {
			start = m.Batch.StartTime
		}
		scope := sortedKeys(m.Instances)
		if m.Batch != nil {
			for _, id := range m.Batch.InstanceOrder {
				if _, ok := m.Instances[id]; !ok {
					scope = append(scope, id)
				}
			}
		}
		for _, id := range scope {
			if err := ValidateID(id); err != nil {
				return res, fmt.Errorf("merge: %s: %w", filepath.Join(root, ManifestFile), err)
			}
			if prev, dup := from[id]; dup {
				return res, fmt.Errorf("merge: instance %s is in both %s and %s (shards overlap)", id, prev, root)
			}
			from[id] = root
			if e, ok := m.Instances[id]; ok {
				e.OutputDir = filepath.Join(out, id)
				// Point the log at the merged copy, not into the shard.
				if rel, err := filepath.Rel(filepath.Join(root, id), e.ErrorLog); e.ErrorLog != "" && err == nil && !strings.HasPrefix(rel, "..") {
					e.ErrorLog = filepath.Join(out, id, rel)
				}
				entries[id] = e
			}
		}
	}
	for id, root := range from {
		if _, err := os.Stat(filepath.Join(root, id)); errors.Is(err, fs.ErrNotExist) {
			continue // never started in its shard
		}
		if err := copyTree(filepath.Join(root, id), filepath.Join(out, id)); err != nil {
			return res, fmt.Errorf("merge: copy %s: %w", id, err)
		}
	}
	for id := range from {
		res.Order = append(res.Order, id)
	}
	sort.Strings(res.Order)
	var rows []Pred
	for _, id := range res.Order {
		p := PathsFor(filepath.Join(out, id), id)
		rows = append(rows, ReadPred(p.Pred, id))
		// Counted as Batch counts: a missing or invalid status is failed.
		st, err := ReadStatus(p.Status)
		if err != nil {
			st.Status = ralph.StatusFailed
		}
		res.Counts.Total++
		res.Counts.add(st.Status)
	}
	if err := WritePredictions(filepath.Join(out, "predictions.jsonl"), rows); err != nil {
		return res, err
	}
	err := UpdateManifest(out, now, func(m *Manifest) {
		m.Dataset.Subset = subset
		for id, e := range entries {
			m.Instances[id] = e
		}
		m.Merged = append(m.Merged, roots...)
		m.Batch = &BatchInfo{Args: map[string]any{"merged_from": roots, "output_dir": out}, InstanceOrder: res.Order,
			StartTime: start, EndTime: now, Counts: res.Counts}
	})
	return res, err
}

// copyTree copies regular files and folders (symlinks are skipped).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		// O_NOFOLLOW on both ends: a file an agent swapped for a link
		// after the walk listed it is refused, not copied from the link's
		// target, and nothing is written through a link in dst.
		in, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != nil {
			return err
		}
		defer in.Close()
		if info, err := in.Stat(); err != nil || !info.Mode().IsRegular() {
			return fmt.Errorf("%s: no longer a regular file", p)
		}
		outF, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o644)
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

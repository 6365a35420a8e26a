package drift

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/runrecord"
	"github.com/benchgate/benchgate/internal/suite"
)

// maxFiles bounds how many files a history walk reads, so that a folder
// named by mistake (a home directory) fails fast.
const maxFiles = 100000

// ReadHistory reads every run record (run-record.json) and suite file
// (*suite.jsonl) under dir, at any depth, into runs ordered by the time
// they started. Unlike a flakiness window, a drift history is read
// strictly: a row or record that is not valid stops the reading with an
// error naming the file, the line and the field, since a silently
// skipped or miscounted run would move the levels drift compares.
// Hidden folders, symbolic links and set's per-attempt folders (_run)
// are skipped, as report's --history skips them.
func ReadHistory(dir string) (*History, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	var modes []runrecord.Mode
	read := func(p string) error {
		ms, err := readFile(p)
		modes = append(modes, ms...)
		return err
	}
	if !info.IsDir() {
		if err := read(dir); err != nil {
			return nil, err
		}
	} else {
		n := 0
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if p != dir && (name == "_run" || strings.HasPrefix(name, ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !(runrecord.IsSuiteFile(name) || name == runrecord.FileName) {
				return nil
			}
			if n++; n > maxFiles {
				return fmt.Errorf("%s: more than %d suite or record files; name a narrower folder", dir, maxFiles)
			}
			return read(p)
		})
		if err != nil {
			return nil, err
		}
	}
	h := Group(modes)
	if len(h.Runs) == 0 {
		return nil, fmt.Errorf("%s: no *suite.jsonl or %s with rows found", dir, runrecord.FileName)
	}
	return h, nil
}

// readFile reads one record or suite file into its modes.
func readFile(p string) ([]runrecord.Mode, error) {
	if filepath.Base(p) == runrecord.FileName {
		b, err := fsutil.ReadFileIn(filepath.Dir(p), p, runrecord.MaxRecordBytes)
		if err != nil {
			return nil, err
		}
		rec, err := DecodeRecord(p, b)
		if err != nil {
			return nil, err
		}
		for i := range rec.Modes {
			rec.Modes[i].Source = p
		}
		return rec.Modes, nil
	}
	b := runrecord.NewBuilder(p)
	err := suite.ReadFileWith(p, suite.ReadOptions{Upstream: true}, func(r *suite.Row) error {
		b.AddRow(r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	modes := b.Record().Modes
	for i := range modes {
		modes[i].Source = p
	}
	return modes, nil
}

// DecodeRecord is runrecord.DecodeRecord with the line of a JSON error
// added: "run-record.json:12: ...".
func DecodeRecord(name string, b []byte) (*runrecord.Record, error) {
	rec, err := runrecord.DecodeRecord(name, b)
	if err == nil {
		return rec, nil
	}
	var off int64 = -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off < 0 {
		return nil, err
	}
	line := 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n"))
	msg := strings.TrimPrefix(err.Error(), name+": ")
	if typ != nil && typ.Field != "" {
		msg = fmt.Sprintf("field %s: expected %s, got JSON %s", typ.Field, typ.Type, typ.Value)
	}
	return nil, fmt.Errorf("%s:%d: %s", name, line, msg)
}

// Group joins the modes of one run (the modes of one run-record.json, or
// the suite files of one folder written by one run: <stamp>-<mode>-
// suite.jsonl with the same stamp) and orders runs by their start. Two
// copies of one run (the same mode, run IDs and start) count once.
func Group(modes []runrecord.Mode) *History {
	h := &History{}
	seen := map[string]string{}
	byKey := map[string]*Run{}
	for _, m := range modes {
		if first, ok := seen[m.Key()]; ok {
			h.Notes = append(h.Notes, fmt.Sprintf("%s: %s run is the same run as %s; counted once", m.Source, m.Mode, first))
			continue
		}
		seen[m.Key()] = m.Source
		k := runKey(m)
		r := byKey[k]
		if r == nil {
			r = &Run{key: k, modes: map[string]*runrecord.Mode{}}
			byKey[k] = r
			h.Runs = append(h.Runs, r)
		}
		if _, dup := r.modes[m.Mode]; dup {
			h.Notes = append(h.Notes, fmt.Sprintf("%s: a second %s run in %s; only the first is used", m.Source, m.Mode, k))
			continue
		}
		m := m
		r.modes[m.Mode] = &m
		r.sources = append(r.sources, m.Source)
		if m.StartedAt != "" && (r.StartedAt == "" || compareStarts(m.StartedAt, r.StartedAt) < 0) {
			r.StartedAt = m.StartedAt
		}
	}
	for _, r := range h.Runs {
		names := make([]string, 0, len(r.modes))
		for k := range r.modes {
			names = append(names, k)
		}
		sort.Strings(names)
		sort.Strings(r.sources)
		r.Source = strings.Join(r.sources, ", ")
		for _, k := range names {
			m := r.modes[k]
			if r.RunID == "" && len(m.RunIDs) > 0 {
				r.RunID = m.RunIDs[0]
			}
			if r.Commit == "" && len(m.GitCommits) > 0 {
				r.Commit = m.GitCommits[0]
			}
		}
	}
	sort.SliceStable(h.Runs, func(i, j int) bool {
		a, b := h.Runs[i], h.Runs[j]
		if c := compareStarts(a.StartedAt, b.StartedAt); c != 0 {
			return c < 0
		}
		return a.key < b.key
	})
	return h
}

// compareStarts orders two starts: as instants when both are RFC 3339
// times (rows written with an offset, "+02:00", or with fractions of a
// second of varying length do not sort as text), else as text.
func compareStarts(a, b string) int {
	ta, errA := time.Parse(time.RFC3339Nano, a)
	tb, errB := time.Parse(time.RFC3339Nano, b)
	if errA == nil && errB == nil {
		return ta.Compare(tb)
	}
	return strings.Compare(a, b)
}

// runKey names the run a mode belongs to: its record file, or its suite
// file's folder and the stamp before "<mode>-suite.jsonl".
func runKey(m runrecord.Mode) string {
	if filepath.Base(m.Source) == runrecord.FileName {
		return m.Source
	}
	dir, base := filepath.Split(m.Source)
	stamp := strings.TrimSuffix(base, m.Mode+"-suite.jsonl")
	return filepath.Join(dir, stamp)
}

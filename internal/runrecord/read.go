package runrecord

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/suite"
	"github.com/benchgate/benchgate/internal/textfmt"
	"golang.org/x/sync/errgroup"
)

// SummaryFileName is report's default summary JSON name. A folder that
// holds only a summary can still be compared mode by mode, without
// scenarios.
const SummaryFileName = "latest-summary.json"

// MaxRecordBytes bounds a run-record.json: a record of 100,000 scenarios
// in three modes stays far below it.
const MaxRecordBytes = 64 << 20

// maxFiles bounds how many files a folder walk reads, so that a folder
// given by mistake (a home directory) fails fast with a clear message.
const maxFiles = 10000

// Folder is what ReadPath found: the runs, the summaries and what was
// left out.
type Folder struct {
	// Runs holds one entry per run of each mode, duplicates removed,
	// oldest first (by StartedAt, then Source).
	Runs []Mode
	// Summaries are the v2 summary files found, by path.
	Summaries []Summary
	// Notes say what was left out and why (duplicate runs), for logs.
	Notes []string
}

// Summary is the part of a v2 summary a baseline can use when no rows
// are at hand: per mode, the run count, success rate and medians.
type Summary struct {
	Path  string
	Modes []SummaryMode
}

// SummaryMode is one mode of a v2 summary.
type SummaryMode struct {
	Mode               string  `json:"mode"`
	Runs               int     `json:"runs"`
	SuccessRate        float64 `json:"successRate"`
	MedianTokensActive float64 `json:"medianTokensActive"`
	MedianLatencyMs    float64 `json:"medianLatencyMs"`
	MedianToolCalls    float64 `json:"medianToolCalls"`
}

// IsSuiteFile says whether a file name is a suite file: the benchmark
// writes <timestamp>-<mode>-suite.jsonl and set writes <mode>-suite.jsonl.
func IsSuiteFile(name string) bool { return strings.HasSuffix(name, "suite.jsonl") }

// ReadPath reads a suite file, a run-record.json, a latest-summary.json,
// or a folder holding any of them at any depth. In a folder, symbolic
// links, hidden folders and set's per-attempt folders (_run: their rows
// are already merged into the set's suite files) are skipped. A path that
// holds none of these files is an error naming what was looked for.
func ReadPath(path string) (*Folder, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	f := &Folder{}
	if !info.IsDir() {
		if err := f.readFile(path); err != nil {
			return nil, err
		}
	} else if err := f.walk(path); err != nil {
		return nil, err
	}
	f.dedupe()
	if len(f.Runs) == 0 && len(f.Summaries) == 0 {
		return nil, fmt.Errorf("%s: no *suite.jsonl, %s or %s found", path, FileName, SummaryFileName)
	}
	return f, nil
}

func (f *Folder) walk(root string) error {
	n := 0
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "_run" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !(IsSuiteFile(name) || name == FileName || name == SummaryFileName) {
			return nil
		}
		if n++; n > maxFiles {
			return fmt.Errorf("%s: more than %d suite, record or summary files; name a narrower folder", root, maxFiles)
		}
		return f.readFile(p)
	})
}

func (f *Folder) readFile(p string) error {
	switch name := filepath.Base(p); {
	case name == SummaryFileName:
		s, err := readSummary(p)
		if err != nil {
			return err
		}
		f.Summaries = append(f.Summaries, *s)
	case strings.HasSuffix(name, ".json"):
		b, err := fsutil.ReadFileIn(filepath.Dir(p), p, MaxRecordBytes)
		if err != nil {
			return err
		}
		rec, err := DecodeRecord(p, b)
		if err != nil {
			return err
		}
		for _, m := range rec.Modes {
			m.Source = p
			f.Runs = append(f.Runs, m)
		}
	default:
		rec, err := ReadSuite(p)
		if err != nil {
			return err
		}
		f.Runs = append(f.Runs, rec.Modes...)
	}
	return nil
}

// ReadSuite reads one suite file leniently into a record: malformed rows
// count as failing rows of the scenario they name.
func ReadSuite(path string) (*Record, error) {
	fh, err := fsutil.OpenRegular(path, true)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return readSuite(fh, path)
}

func readSuite(r io.Reader, name string) (*Record, error) {
	b := NewBuilder(name)
	err := suite.ReadChecked(r, name, func(c suite.Checked) error {
		b.AddChecked(c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read suite %s: %w", name, err)
	}
	return b.Record(), nil
}

// dedupe keeps the first source of each run and orders runs oldest first.
func (f *Folder) dedupe() {
	seen := map[string]string{}
	out := f.Runs[:0]
	for _, m := range f.Runs {
		if first, ok := seen[m.Key()]; ok {
			f.Notes = append(f.Notes, fmt.Sprintf("%s: %s run %s is the same run as %s; counted once", m.Source, m.Mode, strings.Join(m.RunIDs, ","), first))
			continue
		}
		seen[m.Key()] = m.Source
		out = append(out, m)
	}
	f.Runs = out
	sort.SliceStable(f.Runs, func(i, j int) bool {
		a, b := f.Runs[i], f.Runs[j]
		if a.StartedAt != b.StartedAt {
			return a.StartedAt < b.StartedAt
		}
		return a.Source < b.Source
	})
}

// RunsOf returns the runs of mode, oldest first.
func (f *Folder) RunsOf(mode string) []Mode {
	var out []Mode
	for _, m := range f.Runs {
		if m.Mode == mode {
			out = append(out, m)
		}
	}
	return out
}

// DecodeRecord parses a run-record.json strictly and checks every field,
// naming the file, the field and what was expected.
func DecodeRecord(name string, b []byte) (*Record, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var rec Record
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("%s: not a run record: %w", name, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: not a run record: data after the JSON object", name)
	}
	bad := func(field, want string, got any) error {
		return fmt.Errorf("%s: %s: expected %s, got %v", name, field, want, got)
	}
	if rec.Schema != Schema {
		return nil, bad("schema", fmt.Sprintf("%q", Schema), fmt.Sprintf("%q", rec.Schema))
	}
	modes := map[string]bool{}
	for i, m := range rec.Modes {
		at := fmt.Sprintf("modes[%d]", i)
		if !suite.IsMode(m.Mode) {
			return nil, bad(at+".mode", "one of agent_direct, mcp, ghx", strconv.Quote(textfmt.Truncate(m.Mode, 80)))
		}
		if modes[m.Mode] {
			return nil, bad(at+".mode", "each mode once", fmt.Sprintf("%q again", m.Mode))
		}
		modes[m.Mode] = true
		if len(m.RunIDs) > MaxRunIDs || m.RunIDCount < len(m.RunIDs) {
			return nil, bad(at+".run_ids", fmt.Sprintf("at most %d IDs and run_id_count at least their number", MaxRunIDs), fmt.Sprintf("%d IDs, run_id_count %d", len(m.RunIDs), m.RunIDCount))
		}
		for j, s := range m.Scenarios {
			at := fmt.Sprintf("%s.scenarios[%d]", at, j)
			switch {
			case !RecordID(s.ID):
				// IDs from an artifact reach outputs, annotations and
				// summaries: none may break a line or hide a character.
				return nil, bad(at+".id", recordIDExpected, strconv.Quote(textfmt.Truncate(s.ID, 80)))
			case j > 0 && m.Scenarios[j-1].ID >= s.ID:
				return nil, bad(at+".id", fmt.Sprintf("IDs sorted and unique (after %q)", m.Scenarios[j-1].ID), fmt.Sprintf("%q", s.ID))
			case s.Rows < 1:
				return nil, bad(at+".rows", "at least 1", s.Rows)
			case s.Passed < 0 || s.Passed > s.Rows:
				return nil, bad(at+".passed", fmt.Sprintf("0 to rows (%d)", s.Rows), s.Passed)
			case s.Stable < 0 || s.Stable > s.Rows:
				return nil, bad(at+".stable", fmt.Sprintf("0 to rows (%d)", s.Rows), s.Stable)
			}
			for _, v := range []struct {
				field string
				v     *float64
			}{{"median_active_tokens", s.MedianActiveTokens}, {"median_latency_ms", s.MedianLatencyMs}, {"median_tool_calls", s.MedianToolCalls}} {
				if (v.v == nil) != (s.Stable == 0) {
					return nil, bad(at+"."+v.field, "null exactly when stable is 0", describe(v.v))
				}
				if v.v != nil && (math.IsNaN(*v.v) || math.Abs(*v.v) > suite.MaxMagnitude) {
					return nil, bad(at+"."+v.field, fmt.Sprintf("a number of magnitude at most %g", suite.MaxMagnitude), *v.v)
				}
			}
			for _, v := range []struct {
				field string
				v     []float64
			}{{"active_tokens", s.ActiveTokens}, {"latency_ms", s.LatencyMs}, {"tool_calls", s.ToolCalls}} {
				if v.v == nil {
					continue
				}
				if len(v.v) != s.Stable {
					return nil, bad(at+"."+v.field, fmt.Sprintf("one value per stable row (%d)", s.Stable), fmt.Sprintf("%d values", len(v.v)))
				}
				for k, x := range v.v {
					if !(x >= 0 && x <= suite.MaxMagnitude) {
						return nil, bad(fmt.Sprintf("%s.%s[%d]", at, v.field, k), fmt.Sprintf("a number from 0 to %g", suite.MaxMagnitude), x)
					}
				}
			}
		}
		if rec.Modes[i].Scenarios == nil {
			rec.Modes[i].Scenarios = []Scenario{}
		}
	}
	return &rec, nil
}

// recordIDExpected says what RecordID accepts.
const recordIDExpected = "a scenario ID of at most 256 printable characters without spaces"

// RecordID reports whether a scenario ID may be read into a record: not
// empty, at most 256 bytes, every character printable and none a space
// (suite.ShowID shows it as written), so that no ID read from a
// downloaded artifact can break a line of a log, an output or a
// summary. The benchmark's own IDs (pr-view-001) and foreign suites'
// (s1, Repo_Issue_1, swe/django-1234) pass.
func RecordID(id string) bool {
	return id != "" && len(id) <= 256 && suite.ShowID(id) == id
}

func describe(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(*v)
}

func readSummary(p string) (*Summary, error) {
	b, err := fsutil.ReadFileIn(filepath.Dir(p), p, MaxRecordBytes)
	if err != nil {
		return nil, err
	}
	return DecodeSummary(p, b)
}

// DecodeSummary reads the modes of a v2 summary JSON.
func DecodeSummary(name string, b []byte) (*Summary, error) {
	var raw struct {
		Modes map[string]SummaryMode `json:"modes"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: not a summary JSON: %w", name, err)
	}
	if raw.Modes == nil {
		return nil, fmt.Errorf("%s: modes: expected an object of modes, got none", name)
	}
	s := &Summary{Path: name}
	for k, m := range raw.Modes {
		m.Mode = k
		for _, v := range []float64{m.SuccessRate, m.MedianTokensActive, m.MedianLatencyMs, m.MedianToolCalls} {
			if math.Abs(v) > suite.MaxMagnitude {
				return nil, fmt.Errorf("%s: modes.%s: expected numbers of magnitude at most %g, got %g", name, k, suite.MaxMagnitude, v)
			}
		}
		s.Modes = append(s.Modes, m)
	}
	sort.Slice(s.Modes, func(i, j int) bool { return s.Modes[i].Mode < s.Modes[j].Mode })
	return s, nil
}

// Write writes rec as indented JSON, atomically.
func Write(path string, rec *Record) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, append(b, '\n'), 0o644)
}

// ErrNoRows is returned by FromSuites when the files hold no rows.
var ErrNoRows = errors.New("no rows")

// FromSuites reads suite files into one record, the current run; a mode
// present in two files is one run of that mode. The files are read
// concurrently, one per CPU, as report reads them.
func FromSuites(paths []string) (*Record, error) {
	builders := make([]*Builder, len(paths))
	errs := make([]error, len(paths))
	// Each file keeps its own error, so that every broken file is named.
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, p := range paths {
		g.Go(func() error {
			builders[i], errs[i] = readSuiteFile(p)
			return nil
		})
	}
	_ = g.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	b := NewBuilder(strings.Join(paths, ", "))
	for _, fb := range builders {
		b.merge(fb)
	}
	rec := b.Record()
	if len(rec.Modes) == 0 {
		return nil, fmt.Errorf("%s: %w", strings.Join(paths, ", "), ErrNoRows)
	}
	return rec, nil
}

// readSuiteFile reads one suite file with the strict reader, which reuses
// one row for the whole file; at the first malformed row it starts over
// with the lenient one, which counts a malformed row as a failing row of
// the scenario it names, as set does. Malformed rows are rare, so the
// common case pays for no salvage.
func readSuiteFile(path string) (*Builder, error) {
	b := NewBuilder(path)
	bad := false
	// The current run of report is read as report reads it: as
	// upstream's report does.
	err := suite.ReadFileWith(path, suite.ReadOptions{Upstream: true, OnBadRow: func(*suite.Diagnostic) error {
		bad = true
		return suite.ErrStop
	}}, func(r *suite.Row) error {
		b.AddRow(r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read suite %s: %w", path, err)
	}
	if !bad {
		return b, nil
	}
	fh, err := fsutil.OpenRegular(path, true)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b = NewBuilder(path)
	if err := suite.ReadCheckedWith(fh, path, suite.ReadOptions{Upstream: true}, func(c suite.Checked) error {
		b.AddChecked(c)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read suite %s: %w", path, err)
	}
	return b, nil
}

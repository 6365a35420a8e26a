package action

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/qaaudit/qreport"
)

// results is what a mode left on disk, read back after it ran.
type results struct {
	Sets []*setResult
	// SummaryJSON / SummaryMD: the report's files, or ordered's consolidated summary.
	SummaryJSON, SummaryMD string
	// ModeError is the mode's last own error line on stderr, if any.
	ModeError  string
	Suites     map[string]*suiteStats // report mode: by suite mode name
	SuiteOrder []string
	Batch      *batchResult
	Audit      *auditResult
}

// tracking is the part of a set's tracking.json the summary shows.
type tracking struct {
	Set          string         `json:"set"`
	Provider     string         `json:"provider"`
	Model        string         `json:"model"`
	RowsExpected map[string]int `json:"rows_expected"`
	RowsActual   map[string]int `json:"rows_actual"`
	Checks       map[string]struct {
		Pass int `json:"pass"`
		Fail int `json:"fail"`
	} `json:"checks"`
	FailingScenarios []string `json:"failing_scenarios"`
	Reruns           []struct {
		Attempt     int      `json:"attempt"`
		ScenarioIDs []string `json:"scenario_ids"`
		Result      string   `json:"result"`
	} `json:"reruns"`
	FinalStatus string `json:"final_status"`
	// Error says why the set stopped (bad input, a benchmark command
	// that could not start, a cancel); empty when the rows decided.
	Error string `json:"error"`
}

type setResult struct {
	Dir, TrackingPath string
	Tracking          tracking
	TrackingErr       error
	Suites            map[string]*suiteStats
	SuiteOrder        []string
	SummaryMD         string
}

type instanceStatus struct {
	InstanceID          string `json:"instance_id"`
	Status              string `json:"status"`
	FailureReasonCode   string `json:"failure_reason_code"`
	FailureReasonDetail string `json:"failure_reason_detail"`
	Dir                 string `json:"-"`
}

type batchResult struct {
	Root, Manifest, Predictions string
	Instances                   []instanceStatus
}

type auditCase struct {
	File, ID, Verdict, Reason string
	Line                      int
	NeedsHuman                bool
	// Original is the verdict of the question as written; a case whose
	// fix was verified has Verdict Valid and Fixed set.
	Original string
	Fixed    bool
}

type auditResult struct {
	Report, SummaryMD string
	Cases             []auditCase
	PRURLs            []string
}

// collect reads back the files plan's mode wrote.
func collect(p *Plan, since time.Time) *results {
	r := &results{}
	switch p.Mode {
	case "report":
		r.SummaryJSON, r.SummaryMD = existing(p.SummaryJSON), existing(p.SummaryMD)
		r.Suites = map[string]*suiteStats{}
		for i := 0; i+1 < len(p.Args); i++ {
			if p.Args[i] == "--suite-jsonl" {
				path := resolve(p.WorkDir, p.Args[i+1])
				if st, err := readSuite(path); err == nil {
					name := suiteMode(path)
					if _, dup := r.Suites[name]; !dup {
						r.SuiteOrder = append(r.SuiteOrder, name)
					}
					r.Suites[name] = st
				}
			}
		}
	case "set", "ordered":
		r.Sets = collectSets(p.OutDir, since)
		if p.Mode == "ordered" {
			r.SummaryJSON, r.SummaryMD = topLevelSummary(p.OutDir)
		} else if len(r.Sets) == 1 {
			r.SummaryJSON = existing(filepath.Join(r.Sets[0].Dir, "latest-summary.json"))
			r.SummaryMD = r.Sets[0].SummaryMD
		}
	case "swebench-batch":
		r.Batch = collectBatch(p.OutDir, since)
	case "qa-audit":
		r.Audit = collectAudit(p.OutDir)
	}
	return r
}

func existing(path string) string {
	if path == "" {
		return ""
	}
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}

// suiteMode names a suite file by its benchmark mode: "ghx-suite.jsonl"
// and "2026-02-25-ghx-suite.jsonl" are both "ghx".
func suiteMode(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	base = strings.TrimSuffix(base, "-suite")
	for _, m := range []string{"agent_direct", "ghx", "mcp"} {
		if strings.HasSuffix(base, m) {
			return m
		}
	}
	return base
}

// collectSets finds every folder under root holding a tracking.json
// written since the step started, in the order the sets ran (file
// modification time, then path). A set folder an earlier run left in a
// reused out-dir is not this step's result: it is neither reported nor
// annotated nor uploaded.
func collectSets(root string, since time.Time) []*setResult {
	var sets []*setResult
	type found struct {
		path string
		mod  time.Time
	}
	var paths []found
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !d.IsDir() && d.Name() == "tracking.json" {
			info, err := d.Info()
			if err == nil && !info.ModTime().Before(since.Add(-time.Second)) {
				paths = append(paths, found{path, info.ModTime()})
			}
		}
		return nil
	})
	sort.SliceStable(paths, func(i, j int) bool {
		if !paths[i].mod.Equal(paths[j].mod) {
			return paths[i].mod.Before(paths[j].mod)
		}
		return paths[i].path < paths[j].path
	})
	for _, f := range paths {
		s := &setResult{Dir: filepath.Dir(f.path), TrackingPath: f.path, Suites: map[string]*suiteStats{}}
		if b, err := os.ReadFile(f.path); err != nil {
			s.TrackingErr = err
		} else if err := json.Unmarshal(b, &s.Tracking); err != nil {
			s.TrackingErr = err
		}
		if s.Tracking.Set == "" {
			s.Tracking.Set = filepath.Base(s.Dir)
		}
		suites, _ := filepath.Glob(filepath.Join(s.Dir, "*-suite.jsonl"))
		sort.Strings(suites)
		for _, sp := range suites {
			st, err := readSuite(sp)
			if st == nil && err != nil {
				continue
			}
			m := suiteMode(sp)
			s.SuiteOrder = append(s.SuiteOrder, m)
			s.Suites[m] = st
		}
		s.SummaryMD = existing(filepath.Join(s.Dir, "latest-summary.md"))
		sets = append(sets, s)
	}
	return sets
}

// topLevelSummary finds the consolidated summary files an ordered run
// writes next to its set folders.
func topLevelSummary(root string) (jsonPath, mdPath string) {
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.Contains(n, "summary") {
			continue
		}
		switch filepath.Ext(n) {
		case ".json":
			if jsonPath == "" {
				jsonPath = filepath.Join(root, n)
			}
		case ".md":
			if mdPath == "" {
				mdPath = filepath.Join(root, n)
			}
		}
	}
	return jsonPath, mdPath
}

// collectBatch finds the run root the batch wrote: the newest folder with
// a run_manifest.json changed since the step started.
func collectBatch(root string, since time.Time) *batchResult {
	var best string
	var bestMod time.Time
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && strings.Count(strings.TrimPrefix(path, root), string(filepath.Separator)) > 4 {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "run_manifest.json" {
			if info, err := d.Info(); err == nil && !info.ModTime().Before(since.Add(-time.Second)) && info.ModTime().After(bestMod) {
				best, bestMod = path, info.ModTime()
			}
		}
		return nil
	})
	if best == "" {
		return nil
	}
	b := &batchResult{Root: filepath.Dir(best), Manifest: best}
	b.Predictions = existing(filepath.Join(b.Root, "predictions.jsonl"))
	entries, _ := os.ReadDir(b.Root)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(b.Root, e.Name())
		data, err := os.ReadFile(filepath.Join(dir, e.Name()+".status.json"))
		st := instanceStatus{InstanceID: e.Name(), Status: "missing", Dir: dir}
		if err == nil {
			if json.Unmarshal(data, &st) != nil {
				st.Status = "unreadable"
			}
			st.Dir = dir
		}
		b.Instances = append(b.Instances, st)
	}
	return b
}

var prURL = regexp.MustCompile(`https?://[^\s"'<>()]+/pull/[0-9]+`)

func collectAudit(root string) *auditResult {
	a := &auditResult{}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "quality_report.json" && a.Report == "" {
			a.Report = path
		}
		return nil
	})
	if a.Report == "" {
		return a
	}
	dir := filepath.Dir(a.Report)
	if mds, _ := filepath.Glob(filepath.Join(dir, "*.md")); len(mds) > 0 {
		sort.Strings(mds)
		a.SummaryMD = mds[0]
	}
	// qa-audit keeps the pull requests it published next to the report.
	if b, err := os.ReadFile(filepath.Join(dir, "pull-requests", "pull_requests.json")); err == nil {
		a.PRURLs = mergeURLs(a.PRURLs, prURL.FindAllString(string(b), -1))
	}
	data, err := os.ReadFile(a.Report)
	if err != nil {
		return a
	}
	a.PRURLs = mergeURLs(a.PRURLs, prURL.FindAllString(string(data), -1))
	// Read through the type qa-audit writes it with: a renamed field is a
	// compile error here, not a silently empty annotation.
	var doc qreport.Report
	if json.Unmarshal(data, &doc) != nil {
		return a
	}
	for _, c := range doc.Cases {
		a.Cases = append(a.Cases, auditCase{
			File: c.File, ID: c.ID, Line: c.Line, Verdict: string(c.Verdict),
			Reason:     firstNonEmpty(c.Reason, c.Skipped, c.Error),
			NeedsHuman: c.NeedsHumanReview, Original: string(c.OriginalVerdict), Fixed: c.ProposedFix != nil,
		})
	}
	return a
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

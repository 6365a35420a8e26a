package action

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/internal/cli"
	"github.com/benchgate/benchgate/internal/driftissue"
	"github.com/benchgate/benchgate/internal/qaaudit/audit"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/swebench"
	"github.com/benchgate/benchgate/internal/verify"

	"github.com/benchgate/benchgate/internal/failcode"
)

// Result is what a mode hands back to the adapter (cli.Result): the
// values it wrote its files from, with their paths. The adapter renders
// these and never looks for a mode's files by name or age.
type Result = cli.Result

// results is what the step reports, gathered from the mode's Result.
type results struct {
	Sets []*setResult
	// SummaryJSON / SummaryMD: the report's files, or ordered's consolidated summary.
	SummaryJSON, SummaryMD string
	// ModeError is the mode's last own error line on stderr, if any.
	ModeError  string
	Suites     map[string]*suiteStats // report mode: by suite mode name
	SuiteOrder []string
	// Gate is the report's gate, nil when report did not compute one.
	Gate  *report.GateResult
	Batch *batchResult
	Audit *auditResult
	// NotRun are the sets of an ordered run that did not run, in order.
	NotRun []string
	// Drift is what drift found; DriftIssues what became of its issues,
	// and DriftIssueWarnings what could not be done with them.
	Drift              *cli.DriftResult
	DriftIssues        *driftissue.Result
	DriftIssueWarnings []string
}

type setResult struct {
	Dir, TrackingPath string
	Tracking          verify.Tracking
	Suites            map[string]*suiteStats
	SuiteOrder        []string
	SummaryMD         string
}

// instanceStatus is one SWE-bench instance as the summary shows it.
type instanceStatus struct {
	InstanceID, Status  string
	FailureReasonCode   failcode.Code
	FailureReasonDetail string
	Dir, StatusPath     string
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

// collectReport judges the suites the report read (or, when it stopped
// before reading them, the ones the step named), so that malformed rows
// are still annotated.
func collectReport(r *results, p *Plan, rep *report.Result) {
	paths := []string{}
	if rep != nil && len(rep.SuitePaths) > 0 {
		paths = rep.SuitePaths
	} else {
		for i := 0; i+1 < len(p.Args); i++ {
			if p.Args[i] == "--suite-jsonl" {
				paths = append(paths, p.Args[i+1])
			}
		}
	}
	if rep != nil {
		r.SummaryJSON, r.SummaryMD = existing(rep.SummaryJSON), existing(rep.SummaryMD)
		if rep.Summary != nil {
			r.Gate = &rep.Gate
		}
	}
	r.Suites = map[string]*suiteStats{}
	for _, path := range paths {
		path = resolve(p.WorkDir, path)
		if st, err := readSuite(path); err == nil {
			name := suiteMode(path)
			if _, dup := r.Suites[name]; !dup {
				r.SuiteOrder = append(r.SuiteOrder, name)
			}
			r.Suites[name] = st
		}
	}
}

func newSetResult(v *verify.SetResult) *setResult {
	s := &setResult{Dir: v.OutDir, TrackingPath: v.TrackingPath, Suites: map[string]*suiteStats{}, SummaryMD: existing(v.SummaryMD)}
	if v.Tracking != nil {
		s.Tracking = *v.Tracking
	}
	if s.Tracking.Set == "" {
		s.Tracking.Set = filepath.Base(s.Dir)
	}
	for _, sp := range v.SuitePaths {
		st, err := readSuite(sp)
		if st == nil && err != nil {
			continue
		}
		m := suiteMode(sp)
		s.SuiteOrder = append(s.SuiteOrder, m)
		s.Suites[m] = st
	}
	return s
}

// newBatchResult shows the instances whose folder exists; nil when the
// batch wrote no run manifest (it stopped before its first instance).
func newBatchResult(v *swebench.BatchResult) *batchResult {
	if v == nil || v.RunRoot == "" || existing(filepath.Join(v.RunRoot, swebench.ManifestFile)) == "" {
		return nil
	}
	b := &batchResult{Root: v.RunRoot, Manifest: filepath.Join(v.RunRoot, swebench.ManifestFile), Predictions: existing(v.Predictions)}
	for _, in := range v.Instances {
		if _, err := os.Stat(in.Paths.Dir); err != nil {
			continue // never started: not run in this batch
		}
		st := instanceStatus{InstanceID: in.ID, Dir: in.Paths.Dir, StatusPath: in.Paths.Status, Status: in.Status.Status,
			FailureReasonDetail: in.Status.FailureReasonDetail}
		if in.Status.FailureReasonCode != nil {
			st.FailureReasonCode = *in.Status.FailureReasonCode
		}
		switch {
		case errors.Is(in.Err, fs.ErrNotExist):
			st.Status = "missing"
		case in.Err != nil:
			st.Status = "unreadable"
		}
		b.Instances = append(b.Instances, st)
	}
	return b
}

func newAuditResult(v *audit.Summary) *auditResult {
	a := &auditResult{}
	if v == nil {
		return a
	}
	for _, pr := range v.PullRequests {
		if pr.URL != "" {
			a.PRURLs = mergeURLs(a.PRURLs, []string{pr.URL})
		}
	}
	if v.Result == nil || v.Result.Report == nil {
		return a
	}
	a.Report = existing(v.Result.ReportPath)
	if a.Report == "" {
		return a
	}
	a.SummaryMD = existing(strings.TrimSuffix(a.Report, ".json") + ".md")
	for _, c := range v.Result.Report.Cases {
		a.Cases = append(a.Cases, auditCase{
			File: c.File, ID: c.ID, Line: c.Line, Verdict: string(c.Verdict),
			Reason:     firstNonEmpty(c.Reason, c.Skipped, c.Error),
			NeedsHuman: c.NeedsHumanReview, Original: string(c.OriginalVerdict), Fixed: c.ProposedFix != nil,
		})
	}
	return a
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

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// mergeURLs appends the URLs of b not yet in a, keeping first-seen order.
func mergeURLs(a, b []string) []string {
	seen := map[string]bool{}
	for _, u := range a {
		seen[u] = true
	}
	for _, u := range b {
		if !seen[u] {
			seen[u] = true
			a = append(a, u)
		}
	}
	return a
}

// Package audit runs a whole qa-audit: it loads question files, audits every
// case with the agent pipeline, keeps quality_report.json and its Markdown
// summary up to date after each case (so an interrupted run leaves a usable
// report), writes the verified fixes into copies of the question files, and
// turns them into pull-request changes.
package audit

import (
	"context"
	"errors"
	"fmt"
	"html"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/ghpr"
	"github.com/benchgate/benchgate/internal/qaaudit/pipeline"
	"github.com/benchgate/benchgate/internal/qaaudit/qreport"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// CaseAuditor audits one case; *pipeline.Auditor is the implementation.
type CaseAuditor interface {
	AuditCase(ctx context.Context, c *questions.Case) pipeline.CaseResult
}

// Options configure a run.
type Options struct {
	Files []string // question files
	// RepoRoot is the benchmark repository's root: code_snippet_ref paths
	// and pull-request paths are relative to it.
	RepoRoot string
	OutDir   string
	Model    string // recorded in the report
	Sandbox  string // how the tests ran, recorded in the report
	Auditor  CaseAuditor
	Now      func() time.Time
	// Only, when non-empty, restricts the audit to these case ids.
	Only map[string]bool
	// Kinds, when non-empty, restricts the audit to these benchmark types.
	Kinds map[questions.Kind]bool
	// Annotate, when set, adds run-level facts to the report before each
	// write (the model check).
	Annotate func(*qreport.Report)
	// Jobs is how many cases are audited at once (their option tests and
	// checks run in parallel); zero or less means one. Results go into the
	// report in file and case order whatever order they finish in.
	Jobs int
	// OnCase, when set, is called with each case as the report records
	// it, in report order, from one goroutine (the progress lines).
	OnCase func(*questions.Case, qreport.Case)
	// SnapshotEvery is the least time between two rewrites of the report
	// while cases are audited; zero means DefaultSnapshotEvery. The report
	// is always written when the run ends, stopped or not.
	SnapshotEvery time.Duration
}

// DefaultSnapshotEvery keeps a partial report on disk during a long audit
// without rewriting it after every case: each rewrite costs time and
// memory in proportion to the cases so far, so rewriting per case made a
// run quadratic (minutes to stop after SIGTERM on a large file).
const DefaultSnapshotEvery = 5 * time.Second

// Result is what a run produced.
type Result struct {
	Report     *qreport.Report
	ReportPath string
	// Fixed lists the question files with verified fixes, as written under OutDir/fixed.
	Fixed []FixedFile
	// AllValid is true when every audited case as written is Valid and no case is malformed.
	AllValid bool
}

// FixedFile is a question file with one or more verified fixes applied.
type FixedFile struct {
	Source  string // the original file
	RelPath string // path relative to RepoRoot, forward slashes
	Written string // the fixed copy under OutDir/fixed
	Content []byte
	Cases   []ghpr.CaseChange
}

// LoadAll loads every file; the returned error joins every file-level
// problem (unreadable file, invalid YAML, no benchmarks list) so the user
// sees them all at once. Per-case problems are not errors: they are
// reported per case by Run.
func LoadAll(files []string, repoRoot string) ([]*questions.File, error) {
	var out []*questions.File
	var errs []error
	for _, f := range files {
		qf, err := questions.Load(f, questions.Options{SnippetRoot: repoRoot})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, qf)
	}
	return out, errors.Join(errs...)
}

// Run audits every case of files in order.
func Run(ctx context.Context, files []*questions.File, opts Options) (*Result, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating output folder: %w", err)
	}
	rep := &qreport.Report{StartedAt: opts.Now(), Model: opts.Model, Sandbox: opts.Sandbox}
	res := &Result{Report: rep, ReportPath: filepath.Join(opts.OutDir, "quality_report.json"), AllValid: true}
	for _, f := range files {
		rep.Files = append(rep.Files, f.Path)
	}
	every := opts.SnapshotEvery
	if every <= 0 {
		every = DefaultSnapshotEvery
	}
	var lastWrite time.Time
	write := func() error {
		lastWrite = time.Now()
		rep.FinishedAt = opts.Now()
		if opts.Annotate != nil {
			opts.Annotate(rep)
		}
		if err := rep.WriteJSON(res.ReportPath); err != nil {
			return err
		}
		return rep.WriteMarkdown(filepath.Join(opts.OutDir, "quality_report.md"))
	}
	next := auditInParallel(ctx, files, opts)
	defer next.stop()
	for _, f := range files {
		var changes []ghpr.CaseChange
		for _, c := range f.Cases() {
			if !opts.selected(c) {
				continue
			}
			r := next.result()
			rc := ReportCase(c, r)
			rep.Cases = append(rep.Cases, rc)
			if rc.Skipped == "" && (rc.Error != "" || rc.OriginalVerdict != verdict.Valid) || len(c.Problems) > 0 {
				res.AllValid = false
			}
			if r.Fix != nil && r.FinalVerdict == verdict.Valid {
				if err := f.ApplyFix(c.ID, *r.Fix); err != nil {
					rep.Cases[len(rep.Cases)-1].Error = "verified fix could not be applied: " + err.Error()
				} else {
					changes = append(changes, ghpr.CaseChange{CaseID: c.ID, Before: string(r.Verdict), After: string(r.FinalVerdict), Proof: Proof(r)})
				}
			}
			if opts.OnCase != nil {
				opts.OnCase(c, rep.Cases[len(rep.Cases)-1])
			}
			// Snapshots only while the audit runs: once stopped, the rest
			// is marked "not audited" at once and written a single time.
			if ctx.Err() == nil && time.Since(lastWrite) >= every {
				if err := write(); err != nil {
					return res, err
				}
			}
		}
		if len(changes) > 0 {
			ff, err := writeFixed(f, opts, changes)
			if err != nil {
				return res, err
			}
			res.Fixed = append(res.Fixed, ff)
		}
	}
	if err := write(); err != nil {
		return res, err
	}
	return res, ctx.Err()
}

// selected reports whether --case and --kinds keep the case.
func (o Options) selected(c *questions.Case) bool {
	return (len(o.Only) == 0 || o.Only[c.ID]) && (len(o.Kinds) == 0 || o.Kinds[c.Kind])
}

func writeFixed(f *questions.File, opts Options, changes []ghpr.CaseChange) (FixedFile, error) {
	rel := f.Path
	if opts.RepoRoot != "" {
		if abs, err := filepath.Abs(f.Path); err == nil {
			if root, err := filepath.Abs(opts.RepoRoot); err == nil {
				if r, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(r, "..") {
					rel = r
				}
			}
		}
	}
	rel = filepath.ToSlash(filepath.Clean(rel))
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "../") {
		rel = filepath.Base(rel)
	}
	content, err := f.Bytes()
	if err != nil {
		return FixedFile{}, err
	}
	out := filepath.Join(opts.OutDir, "fixed", filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return FixedFile{}, err
	}
	if err := f.WriteAtomic(out); err != nil {
		return FixedFile{}, fmt.Errorf("writing fixed copy of %s: %w", f.Path, err)
	}
	return FixedFile{Source: f.Path, RelPath: rel, Written: out, Content: content, Cases: changes}, nil
}

func reportOptions(opts []pipeline.OptionResult) []qreport.Option {
	var out []qreport.Option
	for _, o := range opts {
		out = append(out, qreport.Option{
			Key: o.Option, Text: o.Text, Claim: o.Claim, Derived: o.Derived, Truth: o.Truth,
			TestPath: o.TestPath, Outcome: sandbox.Status(o.Outcome), Evidence: o.Evidence, Runs: o.Runs,
			Message: o.Message, Duration: qreport.Seconds(time.Duration(o.DurationMS) * time.Millisecond), Limit: o.Limit,
			AnswerCheck: o.AnswerCheck, Undecided: o.Undecided, ProvedBy: o.ProvedBy,
		})
	}
	return out
}

// ReportCase converts a pipeline result into the report's case record.
func ReportCase(c *questions.Case, r pipeline.CaseResult) qreport.Case {
	rc := qreport.Case{
		File: c.File, Line: c.Line, ID: c.ID, Kind: string(c.Kind), Question: c.Question,
		CorrectAnswer: c.CorrectAnswer, NeedsHumanReview: r.NeedsHumanReview,
		Problems: r.Problems, Warnings: c.Warnings, Skipped: r.Skipped, Error: r.Error, ModelCalls: int(r.ModelCalls),
		Duration: qreport.Seconds(time.Duration(r.DurationMS) * time.Millisecond),
	}
	if ref := c.SnippetRef; ref != nil {
		rc.CodeSnippet = &qreport.Snippet{File: ref.File, Section: ref.Section, Lines: strings.Count(c.CodeSnippet, "\n")}
	}
	if len(r.Problems) > 0 && !c.OK() {
		rc.Skipped = fmt.Sprintf("malformed case (%d problem(s))", len(r.Problems))
		return rc
	}
	if r.Skipped != "" {
		return rc
	}
	for _, at := range r.Attempts {
		ra := qreport.Attempt{Number: at.Number, Fix: at.Fix, Rationale: at.Rationale, ModelCalls: int(at.ModelCalls), Verdict: at.Verdict, Options: reportOptions(at.Options),
			Error: at.Error, Duration: qreport.Seconds(time.Duration(at.DurationMS) * time.Millisecond)}
		if at.Decision != nil {
			ra.Reason = at.Decision.Reason
		}
		rc.Attempts = append(rc.Attempts, ra)
	}
	if len(r.Attempts) > 0 {
		first := r.Attempts[0]
		if first.Error != "" && first.Verdict == verdict.Inconclusive && rc.Error == "" {
			rc.Error = first.Error
		}
		final := rc.Attempts[0]
		if r.Fix != nil {
			final = rc.Attempts[len(rc.Attempts)-1]
		}
		rc.Options, rc.Reason = final.Options, final.Reason
	}
	rc.OriginalVerdict, rc.Verdict = r.Verdict, r.FinalVerdict
	rc.ProposedFix = r.Fix
	return rc
}

// Proof renders the Markdown evidence of a fixed case for its pull request:
// what was wrong, the change, and the per-option outcomes that make the
// fixed case Valid, with the test files.
func Proof(r pipeline.CaseResult) string {
	var sb strings.Builder
	if len(r.Attempts) == 0 {
		return ""
	}
	first, last := r.Attempts[0], r.Attempts[len(r.Attempts)-1]
	if first.Decision != nil {
		fmt.Fprintf(&sb, "As written: **%s**, %s.\n\n", first.Verdict, textfmt.InertCell(first.Decision.Reason))
	}
	writeTable(&sb, first.Options)
	if r.Fix != nil {
		sb.WriteString("\nChange:\n")
		if r.Fix.Question != nil {
			fmt.Fprintf(&sb, "- question: %s\n", textfmt.InertCell(*r.Fix.Question))
		}
		for _, k := range slices.Sorted(maps.Keys(r.Fix.Options)) {
			fmt.Fprintf(&sb, "- option %s: %s\n", textfmt.InertCell(k), textfmt.InertCell(r.Fix.Options[k]))
		}
		if r.Fix.CorrectAnswer != nil {
			fmt.Fprintf(&sb, "- correct_answer: %s\n", textfmt.InertCell(*r.Fix.CorrectAnswer))
		}
		if r.Fix.Explanation != nil {
			fmt.Fprintf(&sb, "- explanation: %s\n", textfmt.InertCell(*r.Fix.Explanation))
		}
		if last.Rationale != "" {
			fmt.Fprintf(&sb, "\nRationale: %s\n", textfmt.InertCell(last.Rationale))
		}
	}
	if last.Decision != nil {
		fmt.Fprintf(&sb, "\nAfter the fix (attempt %d): **%s**, %s.\n\n", last.Number, last.Verdict, textfmt.InertCell(last.Decision.Reason))
	}
	writeTable(&sb, last.Options)
	for _, o := range last.Options {
		if o.TestPath == "" {
			continue
		}
		src, err := os.ReadFile(o.TestPath)
		if err != nil {
			continue
		}
		fmt.Fprintf(&sb, "\n<details><summary>test_option_%s.py (%s)</summary>\n\n%s\n</details>\n", html.EscapeString(textfmt.Inert(o.Option)), html.EscapeString(textfmt.Inert(o.Outcome)), textfmt.Fence("python", string(src)))
	}
	return sb.String()
}

func writeTable(sb *strings.Builder, opts []pipeline.OptionResult) {
	sb.WriteString("| option | text | outcome | truth |\n|---|---|---|---|\n")
	for _, o := range opts {
		fmt.Fprintf(sb, "| %s | %s | %s | %s |\n", textfmt.InertCell(o.Option), textfmt.InertCell(o.Text), textfmt.InertCell(o.Outcome), o.Truth)
	}
}

// Changes turns fixed files into pull-request changes.
func Changes(fixed []FixedFile) []ghpr.Change {
	var out []ghpr.Change
	for _, f := range fixed {
		out = append(out, ghpr.Change{Path: f.RelPath, Content: f.Content, Cases: f.Cases})
	}
	return out
}

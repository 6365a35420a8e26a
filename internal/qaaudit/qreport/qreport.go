// Package qreport writes the result of a qa-audit run: quality_report.json
// (every case with its verdict, the evidence per option, the remediation
// attempts and whether a person must look at it) and a Markdown summary
// for pull requests and job summaries.
//
// The JSON is written atomically because reruns and other tools read it,
// and both outputs are deterministic: cases are ordered by file and line,
// so two runs over the same evidence give the same bytes.
package qreport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
)

// SchemaVersion identifies the layout of quality_report.json.
const SchemaVersion = 1

// FileName is the report's conventional name.
const FileName = "quality_report.json"

// Seconds is a duration written as seconds with millisecond precision.
type Seconds time.Duration

// MarshalJSON writes the duration in seconds.
func (s Seconds) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(time.Duration(s).Seconds(), 'f', 3, 64)), nil
}

// UnmarshalJSON reads seconds.
func (s *Seconds) UnmarshalJSON(b []byte) error {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("duration: expected seconds, got %s", b)
	}
	*s = Seconds(time.Duration(f * float64(time.Second)))
	return nil
}

// Report is one qa-audit run.
type Report struct {
	SchemaVersion int       `json:"schema_version"`
	StartedAt     time.Time `json:"started_at"`
	FinishedAt    time.Time `json:"finished_at"`
	Model         string    `json:"model,omitempty"`
	// Sandbox says how the tests ran: isolation and every limit.
	Sandbox string `json:"sandbox,omitempty"`
	// ModelCheck is the one small call made before the first case that
	// needed the model; nil when no case did.
	ModelCheck *ModelCheck `json:"model_check,omitempty"`
	Files      []string    `json:"files"`
	Totals     Totals      `json:"totals"`
	Cases      []Case      `json:"cases"`
}

// Snippet locates the code a question shows.
type Snippet struct {
	File    string `json:"file"`
	Section string `json:"section"`
	Lines   int    `json:"lines"` // lines resolved; 0 when the section could not be read
}

// ModelCheck is the outcome of the model check call.
type ModelCheck struct {
	Model    string  `json:"model"`
	OK       bool    `json:"ok"`
	Error    string  `json:"error,omitempty"`
	Duration Seconds `json:"duration_s"`
}

// Totals count the run's cases. Valid, Ambiguous, Incorrect and
// Inconclusive count the verdicts of the questions as written; Fixed
// counts those of them whose proposed fix was verified Valid.
type Totals struct {
	Cases            int     `json:"cases"`
	Audited          int     `json:"audited"`
	Valid            int     `json:"valid"`
	Ambiguous        int     `json:"ambiguous"`
	Incorrect        int     `json:"incorrect"`
	Inconclusive     int     `json:"inconclusive"`
	Skipped          int     `json:"skipped"` // not audited: malformed, or a kind the audit does not prove
	Errors           int     `json:"errors"`  // the audit itself failed (model, sandbox)
	Fixed            int     `json:"fixed"`   // a proposed fix was verified Valid
	NeedsHumanReview int     `json:"needs_human_review"`
	Attempts         int     `json:"attempts"`      // verification rounds that ran a test or called the model, originals included
	ModelCalls       int     `json:"model_calls"`   // the cases' model calls, and the model check
	TestRuns         int     `json:"test_runs"`     // pytest runs (an option's test, retries included; a check file)
	Duration         Seconds `json:"duration_s"`    // wall time of the run
	TestDuration     Seconds `json:"test_duration"` // sum of the pytest runs' times
}

// Case is the result for one question.
type Case struct {
	File          string `json:"file"`
	Line          int    `json:"line"`
	ID            string `json:"id"`
	Kind          string `json:"kind"`
	Question      string `json:"question,omitempty"`
	CorrectAnswer string `json:"correct_answer,omitempty"`
	// CodeSnippet is the code the question shows (its code_snippet_ref),
	// as resolved: file, section and the number of lines shown.
	CodeSnippet *Snippet `json:"code_snippet,omitempty"`
	// Verdict is the final verdict (after remediation); empty when the
	// case was skipped or the audit failed.
	Verdict verdict.Verdict `json:"verdict,omitempty"`
	Reason  string          `json:"reason,omitempty"`
	// OriginalVerdict is the verdict of the question as it is in the file.
	OriginalVerdict  verdict.Verdict `json:"original_verdict,omitempty"`
	NeedsHumanReview bool            `json:"needs_human_review"`
	// Options is the evidence of the final attempt.
	Options  []Option  `json:"options,omitempty"`
	Attempts []Attempt `json:"attempts,omitempty"`
	// ProposedFix is the remediation that was verified Valid, if any.
	ProposedFix *questions.Fix      `json:"proposed_fix,omitempty"`
	Skipped     string              `json:"skipped,omitempty"` // why the case was not audited
	Problems    []questions.Problem `json:"problems,omitempty"`
	// Warnings are oddities of the case that did not stop its audit (an
	// unclosed snippet section read to the end of its file).
	Warnings   []questions.Problem `json:"warnings,omitempty"`
	Error      string              `json:"error,omitempty"`
	ModelCalls int                 `json:"model_calls,omitempty"`
	Duration   Seconds             `json:"duration_s"`
}

// Attempt is one verification round: number 0 is the question as written,
// 1..n are remediation proposals.
type Attempt struct {
	Number int            `json:"number"`
	Fix    *questions.Fix `json:"fix,omitempty"`
	// Rationale is the remediation engineer's reason for the fix.
	Rationale  string          `json:"rationale,omitempty"`
	ModelCalls int             `json:"model_calls,omitempty"`
	Verdict    verdict.Verdict `json:"verdict,omitempty"`
	Reason     string          `json:"reason,omitempty"`
	Options    []Option        `json:"options,omitempty"`
	Error      string          `json:"error,omitempty"`
	Duration   Seconds         `json:"duration_s"`
}

// Option is the evidence about one option in one attempt.
type Option struct {
	Key  string `json:"key"`
	Text string `json:"text"`
	// Claim is the analyst's testable statement of the option.
	Claim string `json:"claim,omitempty"`
	// Derived is true for a none-of-the-above option, whose truth comes
	// from the other options instead of a test.
	Derived  bool           `json:"derived,omitempty"`
	Truth    verdict.Truth  `json:"truth"`
	TestPath string         `json:"test_path,omitempty"`
	Outcome  sandbox.Status `json:"outcome,omitempty"`
	Evidence bool           `json:"evidence"`
	// Runs is how many times pytest ran for this option (retries
	// included); checks that share one test file share its run.
	Runs     int     `json:"runs,omitempty"`
	ExitCode int     `json:"exit_code,omitempty"`
	Message  string  `json:"message,omitempty"`
	Duration Seconds `json:"duration_s"`
	// Limit names the sandbox limit its test ran into (memory, cpu,
	// file_size, processes); the message says it too.
	Limit string `json:"limit,omitempty"`
	// AnswerCheck marks a check of the answer itself (not only that a
	// name exists): a case is Valid only with one proven true.
	AnswerCheck bool `json:"answer_check,omitempty"`
	// Undecided says what the execution rules did not decide, and
	// ProvedBy "prover" when a model's test decided it instead.
	Undecided string `json:"undecided,omitempty"`
	ProvedBy  string `json:"proved_by,omitempty"`
}

// testRuns counts the pytest runs of an attempt and their time: each
// option's runs, except that options sharing one test file (the checks of
// an api_understanding case) share its runs. An option that was not run
// ("not_run", a derived none-of-the-above) counts nothing.
func (a Attempt) testRuns() (int, Seconds) {
	type file struct {
		runs int
		d    Seconds
	}
	files := map[string]file{}
	runs, d := 0, Seconds(0)
	for _, o := range a.Options {
		if o.Runs == 0 {
			continue
		}
		if o.TestPath == "" {
			runs, d = runs+o.Runs, d+o.Duration
			continue
		}
		f := files[o.TestPath]
		files[o.TestPath] = file{max(f.runs, o.Runs), max(f.d, o.Duration)}
	}
	for _, f := range files {
		runs, d = runs+f.runs, d+f.d
	}
	return runs, d
}

// OptionFromOutcome fills an Option from a sandbox outcome.
func OptionFromOutcome(key, text, claim string, o sandbox.Outcome) Option {
	truth := verdict.Unknown
	if t, ev := o.Proven(); ev {
		truth = verdict.False
		if t {
			truth = verdict.True
		}
	}
	return Option{Key: key, Text: text, Claim: claim, Truth: truth, TestPath: o.TestPath, Outcome: o.Status,
		Evidence: o.Evidence, Runs: 1, ExitCode: o.ExitCode, Message: o.Message, Duration: Seconds(o.Duration)}
}

// Finalize orders the cases and files and computes the totals. Call it
// before writing; it is idempotent.
func (r *Report) Finalize() {
	r.SchemaVersion = SchemaVersion
	sort.SliceStable(r.Cases, func(i, j int) bool {
		a, b := r.Cases[i], r.Cases[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.ID < b.ID
	})
	files := map[string]bool{}
	for _, f := range r.Files {
		files[f] = true
	}
	var t Totals
	for i := range r.Cases {
		c := &r.Cases[i]
		files[c.File] = true
		sort.SliceStable(c.Attempts, func(i, j int) bool { return c.Attempts[i].Number < c.Attempts[j].Number })
		t.Cases++
		for _, a := range c.Attempts {
			runs, d := a.testRuns()
			t.TestRuns += runs
			t.TestDuration += d
			if runs > 0 || a.ModelCalls > 0 {
				t.Attempts++
			}
		}
		t.ModelCalls += c.ModelCalls
		if c.NeedsHumanReview {
			t.NeedsHumanReview++
		}
		if c.ProposedFix != nil && c.Verdict == verdict.Valid {
			t.Fixed++
		}
		switch {
		case c.Error != "":
			t.Errors++
			continue
		case c.Skipped != "":
			t.Skipped++
			continue
		}
		t.Audited++
		// The verdicts count the questions as written (as the exit code
		// does); a case fixed since is counted under Fixed as well.
		v := c.OriginalVerdict
		if v == "" {
			v = c.Verdict
		}
		switch v {
		case verdict.Valid:
			t.Valid++
		case verdict.Ambiguous:
			t.Ambiguous++
		case verdict.Incorrect:
			t.Incorrect++
		default:
			t.Inconclusive++
		}
	}
	if r.ModelCheck != nil {
		t.ModelCalls++
	}
	r.Files = r.Files[:0]
	for f := range files {
		r.Files = append(r.Files, f)
	}
	sort.Strings(r.Files)
	if !r.StartedAt.IsZero() && !r.FinishedAt.IsZero() {
		t.Duration = Seconds(r.FinishedAt.Sub(r.StartedAt))
	}
	r.Totals = t
}

// JSON returns the report as indented JSON.
func (r *Report) JSON() ([]byte, error) {
	r.Finalize()
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode quality report: %w", err)
	}
	return append(data, '\n'), nil
}

// WriteJSON writes quality_report.json atomically: a reader sees the old
// report or the new one, never half of one.
//
// The cases are encoded one at a time straight into the file, so writing
// the report needs memory for one case, not for the whole report; the
// bytes are the same as JSON's.
func (r *Report) WriteJSON(path string) error {
	if err := fsutil.WriteAtomicFunc(path, 0o644, r.writeJSONTo); err != nil {
		return fmt.Errorf("write quality report: %w", err)
	}
	return nil
}

// writeJSONTo writes what JSON returns, case by case.
func (r *Report) writeJSONTo(w io.Writer) error {
	r.Finalize()
	head := *r
	head.Cases = nil
	data, err := json.MarshalIndent(head, "", "  ")
	if err != nil {
		return fmt.Errorf("encode quality report: %w", err)
	}
	// Cases is the last field: cut the head before its value.
	const tail = "\"cases\": null\n}"
	if !bytes.HasSuffix(data, []byte(tail)) {
		return fmt.Errorf("encode quality report: unexpected layout")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(data[:len(data)-len(tail)])
	bw.WriteString(`"cases": `)
	switch {
	case r.Cases == nil:
		bw.WriteString("null")
	case len(r.Cases) == 0:
		bw.WriteString("[]")
	default:
		bw.WriteString("[")
		for i := range r.Cases {
			c, err := json.MarshalIndent(r.Cases[i], "    ", "  ")
			if err != nil {
				return fmt.Errorf("encode quality report: case %s: %w", r.Cases[i].ID, err)
			}
			if i > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n    ")
			bw.Write(c)
		}
		bw.WriteString("\n  ]")
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// WriteMarkdown writes the Markdown summary atomically.
func (r *Report) WriteMarkdown(path string) error {
	if err := fsutil.WriteAtomicFunc(path, 0o644, r.WriteMarkdownTo); err != nil {
		return fmt.Errorf("write quality summary: %w", err)
	}
	return nil
}

// Read loads a quality report, for resuming a run or publishing it.
func Read(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read quality report: %w", err)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a quality report: %w", path, err)
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: schema_version %d, expected %d", path, r.SchemaVersion, SchemaVersion)
	}
	return &r, nil
}

package qreport

import (
	"bytes"
	"encoding/json"
	"flag"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
)

var update = flag.Bool("update", false, "rewrite golden files")

func str(s string) *string { return &s }

func opt(key, text string, truth verdict.Truth, status sandbox.Status, d time.Duration) Option {
	return Option{Key: key, Text: text, Claim: "claim " + key, Truth: truth, Outcome: status,
		Evidence: status == sandbox.StatusPassed || status == sandbox.StatusFailed, Runs: 1,
		TestPath: "/tmp/qa/test_option_" + key + ".py", Duration: Seconds(d)}
}

func withMessage(o Option, msg string) Option {
	o.Message = msg
	return o
}

// sampleReport has one case of every kind of result, deliberately out of
// order.
func sampleReport() *Report {
	valid := []Option{
		opt("A", "[1, 2, 3]", verdict.True, sandbox.StatusPassed, time.Second),
		opt("B", "None | in place", verdict.False, sandbox.StatusFailed, time.Second),
		{Key: "C", Text: "None of the above", Derived: true, Truth: verdict.False},
	}
	amb := []Option{
		opt("A", "0", verdict.True, sandbox.StatusPassed, time.Second),
		opt("B", "[] | empty list", verdict.True, sandbox.StatusPassed, time.Second),
	}
	fixedOpts := []Option{
		opt("A", "It raises ValueError.", verdict.True, sandbox.StatusPassed, time.Second),
		withMessage(opt("B", "It returns 3.", verdict.False, sandbox.StatusFailed, time.Second), "test_option: ValueError: invalid literal for int() with base 10: '3.5' | raised"),
	}
	return &Report{
		StartedAt:  time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC),
		FinishedAt: time.Date(2026, 11, 22, 1, 2, 30, 0, time.UTC),
		Model:      "gemini-3-pro-preview",
		Cases: []Case{
			{File: "b.yaml", Line: 20, ID: "b:ambiguous", Kind: "multiple_choice", Question: "Which value is falsy?", CorrectAnswer: "A",
				Verdict: verdict.Ambiguous, OriginalVerdict: verdict.Ambiguous, Reason: "B proven true besides the correct_answer A",
				NeedsHumanReview: true, Options: amb, ModelCalls: 9,
				Attempts: []Attempt{{Number: 1, Verdict: verdict.Ambiguous, Options: amb}, {Number: 0, Verdict: verdict.Ambiguous, Options: amb}}},
			{File: "a.yaml", Line: 3, ID: "a:valid", Kind: "multiple_choice", Question: "What does sorted return?", CorrectAnswer: "A",
				Verdict: verdict.Valid, OriginalVerdict: verdict.Valid, Reason: "ok", Options: valid, ModelCalls: 3,
				Attempts: []Attempt{{Number: 0, Verdict: verdict.Valid, Options: valid}}},
			{File: "b.yaml", Line: 3, ID: "b:fixed", Kind: "multiple_choice", Question: "What does int(\"3.5\") do?", CorrectAnswer: "B",
				Verdict: verdict.Valid, OriginalVerdict: verdict.Incorrect, Reason: "the correct_answer A is proven true and every other option is proven false",
				Options: fixedOpts, ProposedFix: &questions.Fix{CorrectAnswer: str("A"), Explanation: str("int() rejects a float string.")},
				Attempts: []Attempt{{Number: 0, Verdict: verdict.Incorrect, Options: fixedOpts}, {Number: 1, Verdict: verdict.Valid, Options: fixedOpts, Fix: &questions.Fix{CorrectAnswer: str("A")},
					Reason: "the correct_answer A is proven true", Rationale: "int(\"3.5\") raises ValueError, so A is the key"}}},
			{File: "a.yaml", Line: 40, ID: "a:inconclusive", Kind: "multiple_choice", CorrectAnswer: "A", Verdict: verdict.Inconclusive,
				Reason: "no evidence for the correct_answer A", NeedsHumanReview: true,
				Options:  []Option{withMessage(opt("A", "x", verdict.Unknown, sandbox.StatusCollectionError, 2*time.Second), "test_option_A: collection failure\nImportError: cannot import name 'Y'")},
				Attempts: []Attempt{{Number: 0, Verdict: verdict.Inconclusive}}},
			{File: "a.yaml", Line: 50, ID: "a:broken", Kind: "multiple_choice", Skipped: "malformed case",
				Problems: []questions.Problem{{CaseID: "a:broken", File: "a.yaml", Line: 52, Field: "correct_answer", Message: "missing or empty"}}},
			{File: "a.yaml", Line: 60, ID: "a:api", Kind: "api_understanding", Skipped: "api_understanding cases are not proven by execution"},
			{File: "c.yaml", Line: 1, ID: "c:error", Kind: "multiple_choice", Error: "model call budget exhausted", NeedsHumanReview: true},
		},
	}
}

func TestFinalizeOrdersAndCounts(t *testing.T) {
	r := sampleReport()
	r.Finalize()
	var ids []string
	for _, c := range r.Cases {
		ids = append(ids, c.ID)
	}
	want := "a:valid a:inconclusive a:broken a:api b:fixed b:ambiguous c:error"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("order = %s, want %s", got, want)
	}
	if r.Cases[5].Attempts[0].Number != 0 {
		t.Error("attempts not ordered")
	}
	tt := r.Totals
	checks := []struct {
		name      string
		got, want int
	}{
		// b:fixed counts as written (Incorrect), and as fixed.
		{"cases", tt.Cases, 7}, {"audited", tt.Audited, 4}, {"valid", tt.Valid, 1}, {"ambiguous", tt.Ambiguous, 1},
		{"incorrect", tt.Incorrect, 1}, {"inconclusive", tt.Inconclusive, 1}, {"skipped", tt.Skipped, 2},
		{"errors", tt.Errors, 1}, {"fixed", tt.Fixed, 1}, {"review", tt.NeedsHumanReview, 3},
		// The inconclusive case's attempt ran nothing: it is no attempt.
		{"attempts", tt.Attempts, 5},
		{"model calls", tt.ModelCalls, 12}, {"test runs", tt.TestRuns, 10},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if time.Duration(tt.Duration) != 150*time.Second || time.Duration(tt.TestDuration) != 10*time.Second {
		// 10 runs of 1 s; the inconclusive case's 2 s option is in no attempt.
		t.Errorf("durations %v %v", time.Duration(tt.Duration), time.Duration(tt.TestDuration))
	}
	if strings.Join(r.Files, ",") != "a.yaml,b.yaml,c.yaml" {
		t.Errorf("files = %v", r.Files)
	}
}

func TestJSONIsDeterministicAndRoundTrips(t *testing.T) {
	a, err := sampleReport().JSON()
	if err != nil {
		t.Fatal(err)
	}
	r := sampleReport()
	// Reverse the cases: the output must not depend on insertion order.
	for i, j := 0, len(r.Cases)-1; i < j; i, j = i+1, j-1 {
		r.Cases[i], r.Cases[j] = r.Cases[j], r.Cases[i]
	}
	b, _ := r.JSON()
	if !bytes.Equal(a, b) {
		t.Error("JSON depends on the order cases were added")
	}
	var raw map[string]any
	if err := json.Unmarshal(a, &raw); err != nil {
		t.Fatal(err)
	}
	first := raw["cases"].([]any)[0].(map[string]any)
	for _, key := range []string{"file", "id", "verdict", "reason", "options", "attempts", "needs_human_review", "duration_s"} {
		if _, ok := first[key]; !ok {
			t.Errorf("case key %q missing", key)
		}
	}
	o := first["options"].([]any)[0].(map[string]any)
	for _, key := range []string{"key", "claim", "truth", "test_path", "outcome", "evidence", "duration_s"} {
		if _, ok := o[key]; !ok {
			t.Errorf("option key %q missing", key)
		}
	}
	if o["duration_s"].(float64) != 1 {
		t.Errorf("duration_s = %v", o["duration_s"])
	}

	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := sampleReport().WriteJSON(path); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := back.JSON()
	if !bytes.Equal(a, c) {
		t.Error("report does not survive a write and read")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temp files left: %v", entries)
	}
}

func TestReadRejectsBadReports(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, content, err string }{
		{"not json", "{", "not a quality report"},
		{"wrong schema", `{"schema_version": 99}`, "schema_version 99"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name+".json")
			os.WriteFile(p, []byte(tt.content), 0o644)
			if _, err := Read(p); err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), p) {
				t.Errorf("err = %v", err)
			}
		})
	}
}

func TestWriteJSONKeepsTheOldReportOnFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := sampleReport().WriteJSON(path); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	r := sampleReport()
	r.Cases[0].Options[0].Duration = Seconds(1)
	// A folder is not writable: the write fails and the old report stays whole.
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	if os.Geteuid() == 0 {
		t.Skip("root ignores folder permissions")
	}
	if err := r.WriteJSON(path); err == nil {
		t.Fatal("write into a read-only folder succeeded")
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("old report changed")
	}
}

func TestMarkdownGolden(t *testing.T) {
	got := sampleReport().Markdown()
	gfm.Require(t, "quality_report.md", string(got))
	golden := filepath.Join("testdata", "summary.golden.md")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Markdown differs from %s:\n%s", golden, got)
	}
	md := string(got)
	for _, s := range []string{"\\[\\] \\| empty list", "**needs human review**", "## Ambiguous (1)", "## Skipped (2)", "- correct_answer: A", "| 1 | 1 | 1 | 1 | 2 | 1 | 1 | 3 |"} {
		if !strings.Contains(md, s) {
			t.Errorf("summary lacks %q", s)
		}
	}
	if strings.Index(md, "## Ambiguous") > strings.Index(md, "## Valid") {
		t.Error("cases that need attention must come before the valid ones")
	}
}

func TestCaseMarkdown(t *testing.T) {
	r := sampleReport()
	r.Finalize()
	var fixed Case
	for _, c := range r.Cases {
		if c.ID == "b:fixed" {
			fixed = c
		}
	}
	md := string(fixed.Markdown())
	for _, want := range []string{"### `b:fixed`\n", "was Incorrect", "| A | It raises ValueError. | passed | true |", "- correct_answer: A\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("case Markdown lacks %q:\n%s", want, md)
		}
	}
	if !strings.HasPrefix(md, "### ") {
		t.Errorf("case Markdown starts with %q", md[:10])
	}
}

// TestWriteJSONStreamsTheSameBytes checks that the case-by-case writer
// gives exactly what JSON gives, for a report with cases, with none and
// with an empty list.
func TestWriteJSONStreamsTheSameBytes(t *testing.T) {
	empty := sampleReport()
	empty.Cases = []Case{}
	none := sampleReport()
	none.Cases = nil
	for name, r := range map[string]*Report{"cases": sampleReport(), "empty": empty, "nil": none} {
		t.Run(name, func(t *testing.T) {
			want, err := r.JSON()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), FileName)
			if err := r.WriteJSON(path); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if !bytes.Equal(got, want) {
				t.Errorf("streamed report differs from JSON():\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestCountersCountWhatRan: options that were not run count no test run;
// checks sharing one test file count one run; an option retried counts
// every run; an attempt in which nothing ran is no attempt.
func TestCountersCountWhatRan(t *testing.T) {
	shared := "/w/test_fqn.py"
	r := &Report{Cases: []Case{
		{ID: "mc", Attempts: []Attempt{{Number: 0, ModelCalls: 4, Options: []Option{
			{Key: "A", Outcome: sandbox.StatusPassed, Runs: 2, TestPath: "/w/a.py", Duration: Seconds(3 * time.Second)},
			{Key: "B", Outcome: "not_run"},
			{Key: "C", Derived: true, Outcome: "derived"},
		}}}},
		{ID: "api", Attempts: []Attempt{{Number: 0, Options: []Option{
			{Key: "fqn0", Outcome: sandbox.StatusPassed, Runs: 1, TestPath: shared, Duration: Seconds(time.Second)},
			{Key: "fqn1", Outcome: sandbox.StatusPassed, Runs: 1, TestPath: shared, Duration: Seconds(time.Second)},
			{Key: "answer", Outcome: sandbox.StatusSkipped, Runs: 1, TestPath: shared, Duration: Seconds(time.Second)},
		}}}},
		{ID: "nolib", Attempts: []Attempt{{Number: 0, Options: []Option{{Key: "A", Outcome: "not_run"}, {Key: "B", Outcome: "not_run"}}}}},
	}}
	r.Finalize()
	if r.Totals.TestRuns != 3 || r.Totals.Attempts != 2 || time.Duration(r.Totals.TestDuration) != 4*time.Second {
		t.Errorf("test runs %d, attempts %d, test time %v; want 3, 2, 4s", r.Totals.TestRuns, r.Totals.Attempts, time.Duration(r.Totals.TestDuration))
	}
}

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestQAAuditStdlibQuestionBank runs the binary, as a user types it in
// the folder of a question bank over the standard library
// (testdata/qabank), with no model key: one case per way an
// execution-proven case can turn out, each with the verdict it must get
// and the words its reason must carry.
func TestQAAuditStdlibQuestionBank(t *testing.T) {
	py := testenv.Python(t)
	dir := t.TempDir()
	bin := testenv.Benchgate(t)
	bank := filepath.Join(dir, "bank")
	if err := os.CopyFS(bank, os.DirFS(filepath.Join("testdata", "qabank"))); err != nil {
		t.Fatal(err)
	}
	code, log, took := runBinary(t, bank, noModelEnv(), bin, "qa-audit", "--python", py, "--test-timeout", "10s", "bank.benchmark.yaml")
	if code != ExitFailed {
		t.Fatalf("exit %d, want 1:\n%s", code, log)
	}
	want := map[string]struct{ verdict, reason string }{
		"bank:valid":                        {"Valid", "checked: "},
		"bank:wrong_name":                   {"Incorrect", "json.decoder.LazyJSONDecoder"},
		"bank:answer_names_nothing":         {"Incorrect", "lazy_objects"},
		"bank:init_attribute":               {"Valid", "checked: "},
		"bank:kwargs":                       {"Inconclusive", "takes **kwargs, so help may be a keyword it forwards"},
		"bank:kwargs_forwarded":             {"Valid", "checked: "},
		"bank:fix_works":                    {"Valid", "checked: "},
		"bank:fix_does_not_fix":             {"Incorrect", "the test passes against the fixed code (fixed): proven false: test_mean_of_nothing_is_zero: ZeroDivisionError"},
		"bank:unfixed_already_passes":       {"Incorrect", "the test fails against the unfixed code (unfixed): proven false: every test passed against the unfixed code"},
		"bank:hangs":                        {"Inconclusive", "killed after the timeout"},
		"bank:fixed_does_not_compile":       {"Incorrect", "the fixed code does not compile in this Python: SyntaxError"},
		"bank:unfixed_hangs":                {"Valid", "checked: "},
		"bank:unfixed_syntax_module_import": {"Valid", "checked: "},
	}
	raw, err := os.ReadFile(filepath.Join(bank, "qa-audit", "quality_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Model string `json:"model"`
		Cases []struct {
			ID, Verdict, Reason string
			ModelCalls          int `json:"model_calls"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Model != "none" || len(rep.Cases) != len(want) {
		t.Fatalf("model %q, %d cases; want none and %d", rep.Model, len(rep.Cases), len(want))
	}
	checkProgressWords(t, log, filepath.Join(bank, "qa-audit", "quality_report.json"))
	md, _ := os.ReadFile(filepath.Join(bank, "qa-audit", "quality_report.md"))
	for _, c := range rep.Cases {
		w, ok := want[c.ID]
		if !ok {
			t.Errorf("unexpected case %s", c.ID)
			continue
		}
		if c.Verdict != w.verdict || !strings.Contains(c.Reason, w.reason) || c.ModelCalls != 0 {
			t.Errorf("%s: %s (%q), %d model calls; want %s with %q", c.ID, c.Verdict, c.Reason, c.ModelCalls, w.verdict, w.reason)
		}
		if w.verdict != "Valid" && !strings.Contains(strings.ToLower(string(md)), strings.ToLower(w.reason)) {
			t.Errorf("%s: the Markdown summary does not give the reason %q", c.ID, w.reason)
		}
	}
	// The hanging cases cost three timeouts, not more.
	if took.Seconds() > 120 {
		t.Errorf("the bank took %s", took)
	}
}

// TestQAAuditHelpNamesItsFiles checks that --help names every file and
// folder the audit writes, as docs/qa-audit.md lists them.
func TestQAAuditHelpNamesItsFiles(t *testing.T) {
	r := runQA(t, t.TempDir(), nil, "--help")
	if r.code != ExitOK {
		t.Fatalf("--help exit %d", r.code)
	}
	help := r.stdout + r.stderr
	docs, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "docs", "qa-audit.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"quality_report.json", "quality_report.md", "fixed/", "work/", "pull-requests/", "plan.md", "pull_requests.json"} {
		if !strings.Contains(help, name) {
			t.Errorf("--help does not name %s", name)
		}
		if !strings.Contains(string(docs), name) {
			t.Errorf("docs/qa-audit.md does not name %s", name)
		}
	}
	for _, flag := range []string{"--kinds", "--require-module", "--python", "--image", "--test-timeout", "--max-consecutive-model-failures", "--jobs"} {
		if !strings.Contains(help, flag) || !strings.Contains(string(docs), flag) {
			t.Errorf("%s is missing from --help or from docs/qa-audit.md", flag)
		}
	}
}

// TestQAAuditFlagErrorsNameFlagAndValue: an unknown flag, a bad value, or
// a flag whose value was forgotten (so it took the next flag) exits 2
// with one line naming the flag and the value, and audits nothing.
func TestQAAuditFlagErrorsNameFlagAndValue(t *testing.T) {
	py := testenv.Python(t)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--bogus"}, []string{"--bogus"}},
		{[]string{"--test-timeout", "soon"}, []string{"--test-timeout", `"soon"`}},
		{[]string{"--test-timeout", "-5s"}, []string{"--test-timeout", "-5s"}},
		{[]string{"--max-remediations", "x"}, []string{"--max-remediations", `"x"`}},
		{[]string{"--max-remediations", "11"}, []string{"--max-remediations", "11"}},
		{[]string{"--max-consecutive-model-failures", "0"}, []string{"--max-consecutive-model-failures", "0"}},
		{[]string{"--jobs", "0"}, []string{"--jobs", "0"}},
		{[]string{"--jobs", "two"}, []string{"--jobs", `"two"`}},
		{[]string{"--max-proof-iterations", "-1"}, []string{"--max-proof-iterations", `"-1"`}},
		{[]string{"--model-backend", "claude"}, []string{"--model-backend", `"claude"`}},
		{[]string{"--pr-grouping", "folder"}, []string{"--pr-grouping", `"folder"`}},
		{[]string{"--kinds", "essay"}, []string{"--kinds", `"essay"`}},
		{[]string{"--api-key-env", "GITHUB_TOKEN"}, []string{"--api-key-env", "GITHUB_TOKEN"}},
		{[]string{"--case", "--python", py}, []string{"--case", `"--python"`}},
		{[]string{"--case", "no:such_case"}, []string{"--case", `"no:such_case"`}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "q.yaml"), []byte("benchmarks:\n- {id: a:b, benchmark_type: fix_error, test_file: t.py}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"--python", py, "--out-dir", "out"}, tt.args...)
			r := runQA(t, dir, nil, append(args, "q.yaml")...)
			if r.code != ExitUsage {
				t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			first := strings.SplitN(r.stderr, "\n", 2)[0]
			for _, w := range tt.want {
				if !strings.Contains(first, w) {
					t.Errorf("the error line %q does not name %s", first, w)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "out", "quality_report.json")); err == nil {
				t.Error("a report was written")
			}
		})
	}
}

// checkProgressWords checks that the progress line of every case in a
// report uses the word the totals count it under: "error" for an audit
// error, "skipped" for a skipped case, else the verdict as written.
func checkProgressWords(t *testing.T, stdout, reportPath string) {
	t.Helper()
	raw, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Cases []struct {
			ID, Error, Skipped string
			Original           string `json:"original_verdict"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Cases {
		word := c.Original
		switch {
		case c.Error != "":
			word = "error"
		case c.Skipped != "":
			word = "skipped"
		}
		if !strings.Contains(stdout, " "+c.ID+": "+word) {
			t.Errorf("no progress line %q in the output:\n%s", c.ID+": "+word, stdout)
		}
	}
}

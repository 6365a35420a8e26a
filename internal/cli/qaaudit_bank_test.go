package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testenv"
)

// TestQAAuditStdlibQuestionBank runs the binary, as a user types it in
// the folder of a question bank over the standard library
// (testdata/qabank), with no model key: one case per way an
// execution-proven case can turn out, each with the verdict it must get
// and the words its reason must carry.
func TestQAAuditStdlibQuestionBank(t *testing.T) {
	py := testenv.Python(t)
	dir := t.TempDir()
	bin := buildBenchgate(t, dir)
	bank := filepath.Join(dir, "bank")
	if err := os.CopyFS(bank, os.DirFS(filepath.Join("testdata", "qabank"))); err != nil {
		t.Fatal(err)
	}
	code, log, took := runBinary(t, bank, noModelEnv(), bin, "qa-audit", "--python", py, "--test-timeout", "3s", "bank.benchmark.yaml")
	if code != ExitFailed {
		t.Fatalf("exit %d, want 1:\n%s", code, log)
	}
	want := map[string]struct{ verdict, reason string }{
		"bank:valid":                  {"Valid", "proven true"},
		"bank:wrong_name":             {"Incorrect", "json.decoder.LazyJSONDecoder"},
		"bank:answer_names_nothing":   {"Incorrect", "lazy_objects"},
		"bank:init_attribute":         {"Valid", "proven true"},
		"bank:kwargs":                 {"Inconclusive", "takes **kwargs, so help may be a keyword it forwards"},
		"bank:kwargs_forwarded":       {"Valid", "proven true"},
		"bank:fix_works":              {"Valid", "proven true"},
		"bank:fix_does_not_fix":       {"Incorrect", "the test passes against the fixed code (fixed): proven false"},
		"bank:unfixed_already_passes": {"Incorrect", "the test fails against the unfixed code (unfixed): proven false"},
		"bank:hangs":                  {"Inconclusive", "killed after the timeout"},
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
	// The hanging case cost two timeouts, not more.
	if took.Seconds() > 60 {
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
	for _, flag := range []string{"--kinds", "--require-module", "--python", "--image", "--test-timeout", "--max-consecutive-model-failures"} {
		if !strings.Contains(help, flag) || !strings.Contains(string(docs), flag) {
			t.Errorf("%s is missing from --help or from docs/qa-audit.md", flag)
		}
	}
}

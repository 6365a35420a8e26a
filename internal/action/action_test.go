package action

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/ghpr"
	"github.com/benchgate/benchgate/internal/jobsummary"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
	"github.com/benchgate/benchgate/internal/verify"
	"github.com/sethvargo/go-githubactions"
)

func TestBuildPlan(t *testing.T) {
	ws := "/ws"
	tests := []struct {
		name     string
		inputs   map[string]string
		wantArgs []string
		wantEnv  map[string]string
		ignored  []string
		wantErr  string
	}{
		{
			name:     "report with suites and gate",
			inputs:   map[string]string{"mode": "report", "suite-jsonl": "a-suite.jsonl\n\n  b-suite.jsonl  \n", "gate": "true", "gate-profile": "verify_release"},
			wantArgs: []string{"report", "--suite-jsonl", "a-suite.jsonl", "--suite-jsonl", "b-suite.jsonl", "--gate", "--gate-profile", "verify_release", "--summary-json", "/ws/benchgate-results/report-77-2/latest-summary.json", "--summary-md", "/ws/benchgate-results/report-77-2/latest-summary.md"},
		},
		{
			name:     "report gate false passes no flag and summary paths are kept",
			inputs:   map[string]string{"mode": "report", "gate": "False", "summary-json": "s.json", "summary-md": "/abs/s.md"},
			wantArgs: []string{"report", "--summary-json", "/ws/s.json", "--summary-md", "/abs/s.md"},
		},
		{
			name:     "set with scenario ids repeats the flag",
			inputs:   map[string]string{"mode": "set", "set": "pr-exec", "provider": "openai", "model": "gpt-5.1-codex-mini", "repetitions": "2", "scenario-ids": "pr-view-001\npr-branch-update-001\n", "working-directory": "packages/benchmark", "out-dir": "out/pr-exec"},
			wantArgs: []string{"set", "--set", "pr-exec", "--provider", "openai", "--model", "gpt-5.1-codex-mini", "--repetitions", "2", "--scenario-id", "pr-view-001", "--scenario-id", "pr-branch-update-001", "--out-dir", "/ws/packages/benchmark/out/pr-exec"},
		},
		{
			name:     "ordered with extra args last",
			inputs:   map[string]string{"mode": "ordered", "provider": "openai", "extra-args": "--cleanup-on-stop\n--bench-config\nbench.json"},
			wantArgs: []string{"ordered", "--provider", "openai", "--out-dir", "/ws/benchgate-results/ordered-77-2", "--cleanup-on-stop", "--bench-config", "bench.json"},
		},
		{
			name:     "swebench-batch has no out-dir flag",
			inputs:   map[string]string{"mode": "swebench-batch", "instance-file": "ids.txt", "max-loops": "3"},
			wantArgs: []string{"swebench-batch", "--instance-file", "ids.txt", "--max-loops", "3", "--fail-on", "never"},
		},
		{
			name:     "swebench-batch shard from the matrix strategy, fail-on given",
			inputs:   map[string]string{"mode": "swebench-batch", "shard-index": "2", "shard-total": "3", "fail-on": "incomplete", "instance-timeout": "90m"},
			wantArgs: []string{"swebench-batch", "--instance-timeout", "90m", "--shard", "3/3", "--fail-on", "incomplete"},
		},
		{
			name:     "swebench-batch shard 1 of 1",
			inputs:   map[string]string{"mode": "swebench-batch", "shard-index": "0", "shard-total": "1"},
			wantArgs: []string{"swebench-batch", "--shard", "1/1", "--fail-on", "never"},
		},
		{
			name:     "swebench-batch out-dir is the results dir",
			inputs:   map[string]string{"mode": "swebench-batch", "out-dir": "runs", "shard": "1/4", "base-url": "http://llm:8000/v1", "api-key-env": "OPENAI_API_KEY"},
			wantArgs: []string{"swebench-batch", "--shard", "1/4", "--base-url", "http://llm:8000/v1", "--api-key-env", "OPENAI_API_KEY", "--fail-on", "never", "--results-dir", "/ws/runs"},
		},
		{
			name:     "set and ordered contract flags",
			inputs:   map[string]string{"mode": "ordered", "provider": "openai", "bench-config": "bench.json", "bench-dir": "pkg", "gate-profile": "verify_release", "cleanup-on-failure": "true", "confirm": "false"},
			wantArgs: []string{"ordered", "--gate-profile", "verify_release", "--provider", "openai", "--config", "bench.json", "--bench-dir", "pkg", "--cleanup-on-failure", "--out-dir", "/ws/benchgate-results/ordered-77-2"},
		},
		{
			name:     "qa-audit secrets go to the environment only",
			inputs:   map[string]string{"mode": "qa-audit", "definitions": "a.yaml\nb.yaml", "open-prs": "true", "github-token": "ghs_secret", "gemini-api-key": "g-key"},
			wantArgs: []string{"qa-audit", "--definitions", "a.yaml", "--definitions", "b.yaml", "--open-prs", "--out-dir", "/ws/benchgate-results/qa-audit-77-2"},
			wantEnv:  map[string]string{"GITHUB_TOKEN": "ghs_secret", "GOOGLE_API_KEY": "g-key"},
		},
		{
			name:     "inputs of other modes are ignored with a warning",
			inputs:   map[string]string{"mode": "report", "set": "pr-exec", "max-loops": "4"},
			wantArgs: []string{"report", "--summary-json", "/ws/benchgate-results/report-77-2/latest-summary.json", "--summary-md", "/ws/benchgate-results/report-77-2/latest-summary.md"},
			ignored:  []string{"set", "max-loops"},
		},
		{name: "unknown mode", inputs: map[string]string{"mode": "bench"}, wantErr: `input "mode": expected one of report, set, ordered, swebench-batch, qa-audit, drift, pr-comment, got "bench"`},
		{name: "missing mode", inputs: map[string]string{}, wantErr: `input "mode": expected one of`},
		{name: "bad bool", inputs: map[string]string{"mode": "report", "gate": "yes"}, wantErr: `input "gate": expected true or false, got "yes"`},
		{name: "bad int", inputs: map[string]string{"mode": "set", "set": "s", "provider": "p", "repetitions": "two"}, wantErr: `input "repetitions": expected a non-negative whole number, got "two"`},
		{name: "negative int", inputs: map[string]string{"mode": "swebench-batch", "max-loops": "-1"}, wantErr: `input "max-loops": expected a non-negative whole number`},
		{name: "required set", inputs: map[string]string{"mode": "set", "provider": "openai"}, wantErr: `input "set": expected a value (required by mode set)`},
		{name: "required definitions", inputs: map[string]string{"mode": "qa-audit"}, wantErr: `input "definitions": expected a value`},
		{name: "shard index out of range", inputs: map[string]string{"mode": "swebench-batch", "shard-index": "3", "shard-total": "3"}, wantErr: `input "shard-index": expected a whole number from 0 to 2 (strategy.job-index), got "3"`},
		{name: "shard index outside a matrix", inputs: map[string]string{"mode": "swebench-batch", "shard-index": "0", "shard-total": ""}, wantErr: `input "shard-total": expected a whole number >= 1`},
		{name: "shard total without index", inputs: map[string]string{"mode": "swebench-batch", "shard-total": "2"}, wantErr: `input "shard-index": expected a whole number from 0 to 1`},
		{name: "shard and shard-index", inputs: map[string]string{"mode": "swebench-batch", "shard": "1/2", "shard-index": "0", "shard-total": "2"}, wantErr: `input "shard-index": expected no value when shard is given`},
		{name: "unknown fail-on", inputs: map[string]string{"mode": "swebench-batch", "fail-on": "always"}, wantErr: `input "fail-on": expected never, failed or incomplete, got "always"`},
		{name: "bad upload flag", inputs: map[string]string{"mode": "report", "upload-artifacts": "maybe"}, wantErr: `input "upload-artifacts": expected true or false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := BuildPlan(func(k string) string { return tt.inputs[k] }, ws, "77-2")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Args, tt.wantArgs) {
				t.Errorf("args\n got %q\nwant %q", p.Args, tt.wantArgs)
			}
			if tt.wantEnv == nil {
				tt.wantEnv = map[string]string{}
			}
			if !reflect.DeepEqual(p.Env, tt.wantEnv) {
				t.Errorf("env = %v, want %v", p.Env, tt.wantEnv)
			}
			for _, a := range p.Args {
				for _, secret := range tt.wantEnv {
					if strings.Contains(a, secret) {
						t.Errorf("secret %q reached argv", secret)
					}
				}
			}
			if !reflect.DeepEqual(p.Ignored, tt.ignored) {
				t.Errorf("ignored = %v, want %v", p.Ignored, tt.ignored)
			}
		})
	}
}

// harness runs Run as the runner would: INPUT_* and GITHUB_* variables,
// real GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, stdout captured.
type harness struct {
	t         *testing.T
	ws        string
	env       map[string]string
	stdout    bytes.Buffer
	uploads   []string
	excludes  map[string][]string // artifact name -> paths left out
	uploadErr map[string]error
	gotArgs   []string
	gotDir    string
	gotEnv    map[string]string
	modeOut   io.Writer
	// now is the step's clock; nil is time.Now.
	now func() time.Time
	// result is what the stand-in mode returned; nil hands the adapter
	// filesResult of the files the stand-in wrote.
	result *Result
	// environ is the step's environment list (stray INPUT_* warnings).
	environ []string
}

func newHarness(t *testing.T, inputs map[string]string) *harness {
	t.Helper()
	h := &harness{t: t, ws: t.TempDir(), env: map[string]string{}}
	files := t.TempDir()
	h.env["GITHUB_WORKSPACE"] = h.ws
	h.env["GITHUB_OUTPUT"] = filepath.Join(files, "set_output")
	h.env["GITHUB_STEP_SUMMARY"] = filepath.Join(files, "step_summary")
	h.env["GITHUB_RUN_ID"] = "4242"
	h.env["GITHUB_RUN_ATTEMPT"] = "1"
	h.env["GITHUB_JOB"] = "bench"
	for k, v := range inputs {
		h.env["INPUT_"+strings.ToUpper(k)] = v
	}
	return h
}

func (h *harness) run(mode func(dir string, args []string) int) int {
	getenv := func(k string) string { return h.env[k] }
	cfg := Config{
		GHA:     githubactions.New(githubactions.WithWriter(&h.stdout), githubactions.WithGetenv(getenv)),
		Getenv:  getenv,
		Dir:     "/nonexistent",
		Now:     h.now,
		Stdout:  &h.stdout,
		Environ: func() []string { return h.environ },
		Run: func(ctx context.Context, dir string, env map[string]string, args []string, stdout io.Writer, res *Result) int {
			h.gotArgs, h.gotDir, h.gotEnv = args, dir, env
			h.modeOut = stdout
			code := mode(dir, args)
			if h.result != nil {
				*res = *h.result
			} else {
				*res = *filesResult(h.t, args[0], dir, args)
			}
			return code
		},
		Upload: func(ctx context.Context, name, dir string, exclude []string) (int64, int64, error) {
			if _, err := os.Stat(dir); err != nil {
				h.t.Errorf("upload of missing folder %s", dir)
			}
			h.uploads = append(h.uploads, name)
			if h.excludes == nil {
				h.excludes = map[string][]string{}
			}
			h.excludes[name] = exclude
			if err := h.uploadErr[name]; err != nil {
				return 0, 0, err
			}
			return int64(len(h.uploads)), 100, nil
		},
	}
	return Run(context.Background(), cfg)
}

// outputs parses the GITHUB_OUTPUT file written by go-githubactions.
func (h *harness) outputs() map[string]string {
	h.t.Helper()
	return testenv.ReadGitHubOutput(h.t, h.env["GITHUB_OUTPUT"])
}

func (h *harness) summary() string {
	b, err := os.ReadFile(h.env["GITHUB_STEP_SUMMARY"])
	if err != nil {
		h.t.Fatalf("read summary: %v", err)
	}
	return string(b)
}

// writeSuite copies a real suite and makes the rows at the given 1-based
// lines fail: odd ones with success=false, even ones with an error object.
func writeSuite(t *testing.T, src, dst string, failLines map[int]bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "suites", src))
	if err != nil {
		t.Fatal(err)
	}
	ls := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for i := range ls {
		n := i + 1
		if !failLines[n] {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(ls[i]), &m); err != nil {
			t.Fatal(err)
		}
		if n%2 == 1 {
			m["success"] = false
		} else {
			m["error"] = map[string]any{"type": "runner_error", "message": "boom"}
		}
		nb, _ := json.Marshal(m)
		ls[i] = string(nb)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, []byte(strings.Join(ls, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, _ := json.MarshalIndent(v, "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func trackingDoc(set, status string, failing []string) map[string]any {
	return map[string]any{
		"set": set, "provider": "openai", "model": "gpt-5.1-codex-mini",
		"rows_expected":     map[string]int{"agent_direct": 20, "ghx": 20},
		"rows_actual":       map[string]int{"agent_direct": 20, "ghx": 20},
		"checks":            map[string]any{"success": map[string]int{"pass": 40, "fail": 0}, "output_valid": map[string]int{"pass": 40, "fail": 0}, "error_null": map[string]int{"pass": 40, "fail": 0}},
		"failing_scenarios": failing,
		"reruns":            []map[string]any{{"attempt": 1, "scenario_ids": []string{}, "result": "fail"}},
		"final_status":      status,
	}
}

func TestRunSetAnnotatesFirstTenFailingRows(t *testing.T) {
	h := newHarness(t, map[string]string{"mode": "set", "set": "pr-exec", "provider": "openai", "scenario-ids": "a-001\nb-002", "github-token": "ghs_topsecret"})
	// 12 failing rows in all: 8 in agent_direct, 4 in ghx.
	code := h.run(func(dir string, args []string) int {
		out := args[len(args)-1]
		writeSuite(t, "agent_direct-suite.jsonl", filepath.Join(out, "agent_direct-suite.jsonl"), map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true})
		writeSuite(t, "ghx-suite.jsonl", filepath.Join(out, "ghx-suite.jsonl"), map[int]bool{11: true, 12: true, 13: true, 14: true})
		writeJSON(t, filepath.Join(out, "tracking.json"), trackingDoc("pr-exec", "terminal_fail", []string{"issue-triage-comment-wf-001"}))
		if err := os.WriteFile(filepath.Join(out, "latest-summary.md"), []byte("# Benchmark Report\n\nrows\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return 1
	})
	if code != 1 {
		t.Fatalf("exit code = %d, want the mode's 1", code)
	}
	stdout := h.stdout.String()
	if !strings.HasPrefix(stdout, "::add-mask::ghs_topsecret\n") {
		t.Errorf("the token is not masked before anything else:\n%s", stdout)
	}
	if strings.Count(stdout, "ghs_topsecret") != 1 {
		t.Errorf("the token shows outside its mask command:\n%s", stdout)
	}
	errs := 0
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "::error ") {
			errs++
		}
	}
	if errs != MaxErrorAnnotations {
		t.Errorf("%d error annotations, want %d:\n%s", errs, MaxErrorAnnotations, stdout)
	}
	rel := "benchgate-results/set-4242-1/agent_direct-suite.jsonl"
	for _, want := range []string{
		"::error file=" + rel + ",line=1,title=pr-exec%3A issue-triage-comment-wf-001::success: expected true, got false\n",
		"::error file=" + rel + ",line=2,title=pr-exec%3A issue-triage-comment-wf-001::error: expected null, got runner_error: boom\n",
		"::error file=benchgate-results/set-4242-1/ghx-suite.jsonl,line=12,",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "ghx-suite.jsonl,line=13") {
		t.Errorf("the 11th failing row was annotated")
	}
	if h.gotEnv["GITHUB_TOKEN"] != "ghs_topsecret" {
		t.Errorf("mode env = %v, want the token", h.gotEnv)
	}
	out := h.outputs()
	want := map[string]string{
		"status":       "fail",
		"exit-code":    "1",
		"out-dir":      "benchgate-results/set-4242-1",
		"tracking":     "benchgate-results/set-4242-1/tracking.json",
		"summary-md":   "benchgate-results/set-4242-1/latest-summary.md",
		"failing-rows": "12",
		"artifacts":    "benchgate-bench-pr-exec",
	}
	for k, v := range want {
		if out[k] != v {
			t.Errorf("output %s = %q, want %q", k, out[k], v)
		}
	}
	sum := h.summary()
	for _, want := range []string{
		"❌ **benchgate set: fail**: ",
		"12 failing rows; the first 10 are annotated",
		"**2 more failing rows are not annotated**",
		"## Set pr-exec: terminal_fail",
		"| agent_direct | 20 | 20 | 8 |",
		"xychart-beta horizontal",
		"| benchgate-results/set-4242-1/ghx-suite.jsonl:14 | ",
		"Failing scenarios: `issue-triage-comment-wf-001`",
		"From `benchgate-results/set-4242-1/latest-summary.md`:\n\n### Benchmark Report",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
}

func TestRunOrderedUploadsPerSetAndWarnsOnFailure(t *testing.T) {
	h := newHarness(t, map[string]string{"mode": "ordered", "provider": "openai", "artifact-prefix": "nightly"})
	h.uploadErr = map[string]error{"nightly-bench-issues": errors.New("service unavailable")}
	code := h.run(func(dir string, args []string) int {
		out := args[len(args)-1]
		for i, set := range []string{"pr-exec", "issues"} {
			d := filepath.Join(out, set)
			writeSuite(t, "agent_direct-suite.jsonl", filepath.Join(d, "agent_direct-suite.jsonl"), nil)
			writeSuite(t, "ghx-suite.jsonl", filepath.Join(d, "ghx-suite.jsonl"), nil)
			writeJSON(t, filepath.Join(d, "tracking.json"), trackingDoc(set, "pass", nil))
			mt := time.Now().Add(time.Duration(i) * time.Second)
			os.Chtimes(filepath.Join(d, "tracking.json"), mt, mt)
		}
		writeJSON(t, filepath.Join(out, "mini-summary.json"), map[string]any{"sets": 2})
		os.WriteFile(filepath.Join(out, "mini-summary.md"), []byte("# Mini summary\n"), 0o644)
		return 0
	})
	if code != 0 {
		t.Fatalf("exit code = %d", code)
	}
	wantUploads := []string{"nightly-bench-pr-exec", "nightly-bench-issues", "nightly-bench-run"}
	if !reflect.DeepEqual(h.uploads, wantUploads) {
		t.Errorf("uploads = %q, want %q", h.uploads, wantUploads)
	}
	// Each set folder is uploaded once: the run artifact leaves them out,
	// and no artifact carries the set's lock file.
	wantExcludes := map[string][]string{
		"nightly-bench-pr-exec": {".benchgate.lock"},
		"nightly-bench-issues":  {".benchgate.lock"},
		"nightly-bench-run":     {"pr-exec", "issues", ".benchgate.lock"},
	}
	if !reflect.DeepEqual(h.excludes, wantExcludes) {
		t.Errorf("excluded paths = %q, want %q", h.excludes, wantExcludes)
	}
	stdout := h.stdout.String()
	if !strings.Contains(stdout, "::warning title=artifact nightly-bench-issues::upload of nightly-bench-issues failed: service unavailable; the files stay in benchgate-results/ordered-4242-1/issues") {
		t.Errorf("no warning for the failed upload:\n%s", stdout)
	}
	if strings.Contains(stdout, "::error") {
		t.Errorf("a failed upload must not be an error:\n%s", stdout)
	}
	out := h.outputs()
	if out["status"] != "pass" || out["artifacts"] != "nightly-bench-pr-exec\nnightly-bench-run" {
		t.Errorf("outputs = %v", out)
	}
	if out["tracking"] != "benchgate-results/ordered-4242-1/pr-exec/tracking.json\nbenchgate-results/ordered-4242-1/issues/tracking.json" {
		t.Errorf("tracking = %q, want both sets in run order", out["tracking"])
	}
	if out["summary-json"] != "benchgate-results/ordered-4242-1/mini-summary.json" || out["summary-md"] != "benchgate-results/ordered-4242-1/mini-summary.md" {
		t.Errorf("consolidated summary outputs = %q, %q", out["summary-json"], out["summary-md"])
	}
	sum := h.summary()
	for _, want := range []string{"| 1 | [pr-exec](#set-pr-exec-pass) | pass | - | - | - | 1 |", "| 2 | [issues](#set-issues-pass) | pass | - | - | - | 1 |", "## Consolidated summary", "| nightly-bench-issues | benchgate-results/ordered-4242-1/issues | failed: service unavailable |"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
}

func TestRunSwebenchBatch(t *testing.T) {
	h := newHarness(t, map[string]string{"mode": "swebench-batch", "max-loops": "2"})
	statuses := []struct{ id, status, code string }{
		{"astropy__astropy-1", "success", ""},
		{"django__django-2", "failed", "blocked"},
		{"sympy__sympy-3", "incomplete", "incomplete"},
	}
	code := h.run(func(dir string, args []string) int {
		root := filepath.Join(dir, "results", "phase5", "ralph-codex-local", "20261122T010000Z")
		for _, s := range statuses {
			st := map[string]any{"instance_id": s.id, "status": s.status, "failure_reason_code": nil, "failure_reason_detail": nil, "error_log": nil}
			if s.code != "" {
				st["failure_reason_code"] = s.code
				st["failure_reason_detail"] = "plan moved to blocked"
			}
			writeJSON(t, filepath.Join(root, s.id, s.id+".status.json"), st)
		}
		os.WriteFile(filepath.Join(root, "predictions.jsonl"), []byte("{}\n"), 0o644)
		writeJSON(t, filepath.Join(root, "run_manifest.json"), map[string]any{"instances": 3})
		return 1
	})
	if code != 1 {
		t.Fatalf("code = %d", code)
	}
	out := h.outputs()
	root := "results/phase5/ralph-codex-local/20261122T010000Z"
	if out["predictions"] != root+"/predictions.jsonl" || out["run-manifest"] != root+"/run_manifest.json" || out["out-dir"] != root {
		t.Errorf("outputs = %v", out)
	}
	// The run root is one artifact, whole: swebench merge reads the
	// instance folders back from it.
	want := []string{"benchgate-bench-run"}
	if !reflect.DeepEqual(h.uploads, want) {
		t.Errorf("uploads = %q, want %q", h.uploads, want)
	}
	if ex := h.excludes["benchgate-bench-run"]; !reflect.DeepEqual(ex, []string{verify.LockFile}) {
		t.Errorf("the run artifact leaves out %q, want only the lock file", ex)
	}
	if kept, err := os.ReadFile(filepath.Join(h.ws, root, SummaryFile)); err != nil || !strings.Contains(string(kept), "| django__django-2 | failed | blocked | plan moved to blocked |") {
		t.Errorf("the run root keeps no job summary with the instance table: %v\n%s", err, kept)
	}
	sum := h.summary()
	for _, w := range []string{"pie title Instance statuses", `"success" : 1`, `"failed" : 1`, "| django__django-2 | failed | blocked | plan moved to blocked |", "3 instances (success 1, failed 1, incomplete 1)"} {
		if !strings.Contains(sum, w) {
			t.Errorf("summary lacks %q:\n%s", w, sum)
		}
	}
}

func TestRunQAAudit(t *testing.T) {
	h := newHarness(t, map[string]string{"mode": "qa-audit", "definitions": "questions/a.yaml", "openai-api-key": "sk-line1\nsk-line2"})
	code := h.run(func(dir string, args []string) int {
		out := args[len(args)-1]
		writeJSON(t, filepath.Join(out, "quality_report.json"), map[string]any{
			"cases": []map[string]any{
				{"file": filepath.Join(dir, "questions/a.yaml"), "id": "q1", "verdict": "Valid"},
				{"file": filepath.Join(dir, "questions/a.yaml"), "line": 14, "id": "q2", "verdict": "Incorrect", "reason": "option B is proven true, the key says A", "needs_human_review": true, "pull_request": "https://github.com/o/r/pull/7"},
			},
			"pull_requests": []string{"https://github.com/o/r/pull/7", "https://github.com/o/r/pull/8"},
		})
		os.WriteFile(filepath.Join(out, "quality_report.md"), []byte("# Quality\n"), 0o644)
		// The pull requests come from what qa-audit returns; a URL in its
		// output is a line of the log, not a pull request it opened.
		fmt.Fprintf(h.modeOut, "see https://github.com/o/r/pull/10 for context\n")
		h.result = filesResult(t, "qa-audit", dir, args)
		h.result.Audit.PullRequests = []ghpr.Result{{URL: "https://github.com/o/r/pull/7"}, {URL: "https://github.com/o/r/pull/8"}, {URL: "https://github.com/o/r/pull/9", Created: true}}
		return 1
	})
	if code != 1 {
		t.Fatalf("code = %d", code)
	}
	stdout := h.stdout.String()
	for _, m := range []string{"::add-mask::sk-line1%0Ask-line2\n", "::add-mask::sk-line1\n", "::add-mask::sk-line2\n"} {
		if !strings.Contains(stdout, m) {
			t.Errorf("missing mask %q in:\n%s", m, stdout)
		}
	}
	if !strings.Contains(stdout, "::error file=questions/a.yaml,line=14,title=qa-audit q2::Incorrect: option B is proven true, the key says A\n") || strings.Count(stdout, "::error") != 1 {
		t.Errorf("case annotation missing or extra:\n%s", stdout)
	}
	out := h.outputs()
	if out["pr-urls"] != "https://github.com/o/r/pull/7\nhttps://github.com/o/r/pull/8\nhttps://github.com/o/r/pull/9" {
		t.Errorf("pr-urls = %q", out["pr-urls"])
	}
	if out["quality-report"] != "benchgate-results/qa-audit-4242-1/quality_report.json" {
		t.Errorf("quality-report = %q", out["quality-report"])
	}
	sum := h.summary()
	for _, w := range []string{"2 cases, 1 need human review", "| questions/a.yaml | q2 | Incorrect | yes |", "pie title Verdicts", "- https://github.com/o/r/pull/8"} {
		if !strings.Contains(sum, w) {
			t.Errorf("summary lacks %q:\n%s", w, sum)
		}
	}
}

func TestRunBadInput(t *testing.T) {
	tests := []struct {
		name, wantErr string
		inputs        map[string]string
	}{
		{"unknown mode", "::error title=benchgate%3A input mode::input \"mode\": expected one of", map[string]string{"mode": "benchmark"}},
		{"bad bool", "::error title=benchgate%3A input gate::input \"gate\": expected true or false, got \"1\"", map[string]string{"mode": "report", "gate": "1"}},
		{"missing working directory", "::error title=benchgate%3A input working-directory::input \"working-directory\": expected an existing folder under the workspace, got \"packages/nope\"", map[string]string{"mode": "report", "working-directory": "packages/nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.inputs)
			code := h.run(func(string, []string) int { t.Fatal("the mode ran despite bad input"); return 0 })
			if code != 2 {
				t.Errorf("code = %d, want 2", code)
			}
			if !strings.Contains(h.stdout.String(), tt.wantErr) {
				t.Errorf("stdout lacks %q:\n%s", tt.wantErr, h.stdout.String())
			}
			if out := h.outputs(); out["status"] != "error" || out["exit-code"] != "2" {
				t.Errorf("outputs = %v", out)
			}
			if !strings.Contains(h.summary(), "The step did not run") {
				t.Errorf("summary = %q", h.summary())
			}
		})
	}
}

func TestRunOutsideActionsDoesNotPanic(t *testing.T) {
	// Without GITHUB_OUTPUT / GITHUB_STEP_SUMMARY the library would panic
	// on file commands; the adapter must skip them instead.
	h := newHarness(t, map[string]string{"mode": "report"})
	delete(h.env, "GITHUB_OUTPUT")
	delete(h.env, "GITHUB_STEP_SUMMARY")
	if code := h.run(func(string, []string) int { return 0 }); code != 0 {
		t.Errorf("code = %d", code)
	}
	if !strings.Contains(h.stdout.String(), "::group::benchgate report --summary-json") {
		t.Errorf("stdout = %q", h.stdout.String())
	}
}

func TestRunUploadUnavailableWarns(t *testing.T) {
	h := newHarness(t, map[string]string{"mode": "report"})
	getenv := func(k string) string { return h.env[k] }
	cfg := Config{
		GHA:               githubactions.New(githubactions.WithWriter(&h.stdout), githubactions.WithGetenv(getenv)),
		Getenv:            getenv,
		UploadUnavailable: fmt.Errorf("ACTIONS_RESULTS_URL is not set"),
		Run: func(ctx context.Context, dir string, env map[string]string, args []string, stdout io.Writer, res *Result) int {
			os.MkdirAll(filepath.Join(dir, "benchgate-results", "report-4242-1"), 0o755)
			return 0
		},
	}
	if code := Run(context.Background(), cfg); code != 0 {
		t.Fatalf("code = %d", code)
	}
	if !strings.Contains(h.stdout.String(), "::warning::artifacts not uploaded (ACTIONS_RESULTS_URL is not set); results stay in benchgate-results/report-4242-1") {
		t.Errorf("stdout = %s", h.stdout.String())
	}
}

// FuzzBuildPlan feeds arbitrary input values: BuildPlan must either
// reject them with an InputError or produce argv where every flag came
// from the table, and a secret never reaches argv.
func FuzzBuildPlan(f *testing.F) {
	f.Add("set", "pr-exec\n", "a\nb\n\n", "2", "true", "tok")
	f.Add("report", "", "x-suite.jsonl", "", "yes", "")
	f.Add("qa-audit", "", "q.yaml\r\n", "-3", "False", "s\ns")
	f.Fuzz(func(t *testing.T, mode, set, list, num, boolean, secret string) {
		inputs := map[string]string{
			"mode": mode, "set": set, "provider": set, "scenario-ids": list, "suite-jsonl": list,
			"definitions": list, "repetitions": num, "max-loops": num, "gate": boolean, "open-prs": boolean,
			"github-token": secret,
		}
		p, err := BuildPlan(func(k string) string { return strings.TrimSpace(inputs[k]) }, "/ws", "1-1")
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an InputError", err)
			}
			return
		}
		if p.Args[0] != strings.TrimSpace(mode) {
			t.Fatalf("args[0] = %q, mode %q", p.Args[0], mode)
		}
		// The secret must not reach argv, unless the same text was also
		// given as a non-secret input (then it is that input's value).
		s := strings.TrimSpace(secret)
		given := false
		for k, v := range inputs {
			if k == "github-token" {
				continue
			}
			for _, l := range append(lines(v), strings.TrimSpace(v)) {
				given = given || l == s
			}
		}
		if len(s) > 3 && !given {
			for _, a := range p.Args {
				if a == s {
					t.Fatalf("secret in argv: %q", p.Args)
				}
			}
		}
	})
}

func TestRunBrokenEventIsAWarning(t *testing.T) {
	h := newHarness(t, map[string]string{"mode": "report"})
	ev := filepath.Join(t.TempDir(), "event.json")
	os.WriteFile(ev, []byte(`{"pull_request": `), 0o644)
	h.env["GITHUB_EVENT_PATH"] = ev
	h.env["GITHUB_EVENT_NAME"] = "pull_request"
	if code := h.run(func(string, []string) int { return 0 }); code != 0 {
		t.Fatalf("code = %d", code)
	}
	if !strings.Contains(h.stdout.String(), "::warning::the event of this run could not be read") {
		t.Errorf("stdout = %s", h.stdout.String())
	}
	if h.outputs()["status"] != "pass" {
		t.Errorf("a broken event changed the status")
	}
}

// TestRunStopsCommandsInModeOutput: whatever the mode prints cannot act
// as a workflow command; processing resumes before the adapter's own.
func TestRunStopsCommandsInModeOutput(t *testing.T) {
	h := newHarness(t, map[string]string{"mode": "report"})
	h.run(func(string, []string) int {
		fmt.Fprintln(h.modeOut, "::error::injected by a row value")
		return 1
	})
	log := h.stdout.String()
	stop := strings.Index(log, "::stop-commands::")
	injected := strings.Index(log, "::error::injected")
	if stop < 0 || injected < stop {
		t.Fatalf("no stop-commands before the mode output:\n%s", log)
	}
	token := strings.TrimSpace(log[stop+len("::stop-commands::"):][:32])
	resume := strings.Index(log, "::"+token+"::\n")
	own := strings.Index(log, "::error title=benchgate report::")
	if resume < injected || own < resume {
		t.Errorf("commands not resumed between the mode output and the adapter's annotation:\n%s", log)
	}
}

// TestChartsOfEverySize: every scenario of a run up to 50 is charted,
// latency in seconds, the axis from 0; more scenarios are a table of the
// medians instead of a chart no one can read.
func TestChartsOfEverySize(t *testing.T) {
	mk := func(n int) *suiteStats {
		st := &suiteStats{Active: map[string][]float64{}, Latency: map[string][]float64{}}
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("sc-%03d", i)
			st.Active[id] = []float64{float64(i), float64(i + 2)}
			st.Latency[id] = []float64{38839.5, 38839.5}
		}
		return st
	}
	for _, n := range []int{1, 4, 16, 50, 51} {
		var doc jobsummary.Doc
		chartSection(doc.Section("s"), map[string]*suiteStats{"agent_direct": mk(n), "ghx": mk(n)})
		out := doc.Render(jobsummary.MaxBytes)
		last := fmt.Sprintf("sc-%03d", n-1)
		switch {
		case n <= jobsummary.MaxChartLabels:
			// One scenario: its name is in the title, the modes are the
			// two bars (mermaid draws a line of one point as nothing).
			named := `"` + last + `"]`
			if n == 1 {
				named = ": " + last + `"` + "\n" + `  x-axis ["agent_direct", "ghx"]`
			}
			if strings.Count(out, "xychart-beta horizontal") != 2 || !strings.Contains(out, named) || !strings.Contains(out, `"seconds" 0 --> `) ||
				!strings.Contains(out, "bar [38.8") || strings.Contains(out, "38839") {
				t.Errorf("%d scenarios: chart:\n%s", n, out)
			}
		default:
			if strings.Contains(out, "xychart") || !strings.Contains(out, "| "+last+" | 38.8 | 38.8 |") || !strings.Contains(out, "51 scenarios are too many for a chart") {
				t.Errorf("%d scenarios: want a table:\n%s", n, out)
			}
		}
	}
}

// TestAuditAnnotationsWorstFirst: the runner shows ten annotations of a
// step, so wrong questions (fixed or not) come before ambiguous ones and
// those before the ones the audit could not decide, whatever their order
// in the report; a fixed question says it was fixed.
func TestAuditAnnotationsWorstFirst(t *testing.T) {
	h := newHarness(t, map[string]string{"mode": "qa-audit", "definitions": "questions/a.yaml"})
	code := h.run(func(dir string, args []string) int {
		out := args[len(args)-1]
		file := filepath.Join(dir, "questions/a.yaml")
		var cases []map[string]any
		for i := range 11 {
			cases = append(cases, map[string]any{"file": file, "line": 100 + i, "id": fmt.Sprintf("undecided%d", i), "verdict": "Inconclusive", "reason": "library not installed"})
		}
		cases = append(cases,
			map[string]any{"file": file, "line": 5, "id": "ambiguous", "verdict": "Ambiguous", "reason": "B and C both hold"},
			map[string]any{"file": file, "line": 3, "id": "fixed", "verdict": "Valid", "original_verdict": "Incorrect", "reason": "A is proven true",
				"proposed_fix": map[string]any{"correct_answer": "A"}},
			map[string]any{"file": file, "line": 9, "id": "wrong", "verdict": "Incorrect", "reason": "B is proven true, the key says A"},
			map[string]any{"file": file, "line": 1, "id": "fine", "verdict": "Valid"},
		)
		writeJSON(t, filepath.Join(out, "quality_report.json"), map[string]any{"cases": cases})
		return 1
	})
	if code != 1 {
		t.Fatalf("code = %d", code)
	}
	var titles []string
	for _, l := range strings.Split(h.stdout.String(), "\n") {
		if _, rest, ok := strings.Cut(l, "title=qa-audit "); ok && strings.HasPrefix(l, "::error") {
			id, msg, _ := strings.Cut(rest, "::")
			titles = append(titles, id+": "+msg)
		}
	}
	want := []string{
		"fixed: Incorrect, fixed (the fix was verified Valid): A is proven true",
		"wrong: Incorrect: B is proven true, the key says A",
		"ambiguous: Ambiguous: B and C both hold",
	}
	for i := range 7 {
		want = append(want, fmt.Sprintf("undecided%d: Inconclusive: library not installed", i))
	}
	if strings.Join(titles, "\n") != strings.Join(want, "\n") {
		t.Errorf("annotations, in order:\n%s\nwant:\n%s", strings.Join(titles, "\n"), strings.Join(want, "\n"))
	}
}

// TestReportAnnotations: report exits 0 whenever it wrote its summaries
// (only --gate fails it), so the rows of a passing report that break a
// blocking rule are warnings, never errors beside status=pass; a failing
// gate's annotation names the checks that failed, from the summary JSON.
func TestReportAnnotations(t *testing.T) {
	row, err := os.ReadFile(filepath.Join("testdata", "suites", "ghx-suite.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(row), "\n")
	failing := strings.Replace(first, `"success":true`, `"success":false`, 1)
	if failing == first {
		t.Fatal(`the first testdata row has no "success":true to break`)
	}
	tests := []struct {
		name     string
		code     int
		gate     map[string]any
		want     []string
		wantNone string
	}{
		{name: "passing report with a failing row", code: 0, want: []string{"::warning file=s.jsonl,line=1,title=report%3A "}, wantNone: "::error"},
		{name: "failing gate", code: 1, gate: map[string]any{"profile": "verify_pr", "passed": false, "checks": []map[string]any{
			{"name": "efficiency_latency_reduction", "passed": true, "value": 22.41, "threshold": 15, "operator": ">="},
			{"name": "efficiency_tool_call_reduction", "passed": false, "value": 16.666, "threshold": 20, "operator": ">="},
		}}, want: []string{"::error file=s.jsonl,line=1,", "::error title=benchgate report::❌ benchgate report: fail: tool-call reduction 16.67%25, needs ≥ 20.00%25 · 1 check failed, 1 scenario failing;"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := map[string]string{"mode": "report", "suite-jsonl": "s.jsonl"}
			if tt.code != 0 {
				in["gate"] = "true"
			}
			h := newHarness(t, in)
			if err := os.WriteFile(filepath.Join(h.ws, "s.jsonl"), []byte(failing+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			code := h.run(func(dir string, args []string) int {
				for i, a := range args {
					if a == "--summary-json" && tt.gate != nil {
						writeJSON(t, args[i+1], map[string]any{"gateV2": tt.gate})
					}
				}
				return tt.code
			})
			if code != tt.code {
				t.Fatalf("code = %d, want %d", code, tt.code)
			}
			out := h.stdout.String()
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("log lacks %q:\n%s", w, out)
				}
			}
			if tt.wantNone != "" && strings.Contains(out, tt.wantNone) {
				t.Errorf("log has %q:\n%s", tt.wantNone, out)
			}
		})
	}
}

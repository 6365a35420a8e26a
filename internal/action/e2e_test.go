package action_test

// End-to-end tests: the real benchgate binary runs as the Actions runner
// starts a Docker action's entry point ("benchgate action"), with the
// INPUT_* environment, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files, a
// workspace folder and an event JSON file; set and ordered drive the
// benchmark simulator (cmd/benchsim), and artifacts go to nektos/act's
// artifact server.

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	actartifacts "github.com/nektos/act/pkg/artifacts"
	actcommon "github.com/nektos/act/pkg/common"

	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
	"github.com/benchgate/benchgate/internal/verify"
)

// binaries returns the benchgate and benchsim binaries, built once per
// content of their sources for every test package (testenv.Benchgate).
func binaries(t *testing.T) (benchgate, benchsim string) {
	t.Helper()
	return testenv.Benchgate(t), testenv.Benchsim(t)
}

type step struct {
	ws, files string
	env       map[string]string
	stdout    string
	code      int
	// splitStderr keeps the process's stderr apart, in stderr; otherwise
	// both streams go to stdout as the runner's log shows them.
	splitStderr bool
	stderr      string
}

// newStep prepares a workspace and the runner's variables for one step.
func newStep(t *testing.T, inputs map[string]string) *step {
	t.Helper()
	s := &step{ws: t.TempDir(), files: t.TempDir(), env: map[string]string{}}
	event := filepath.Join(s.files, "event.json")
	os.WriteFile(event, []byte(`{"pull_request":{"number":12,"head":{"ref":"bench"}},"repository":{"full_name":"o/r"}}`), 0o644)
	for k, v := range map[string]string{
		"GITHUB_ACTIONS": "true", "CI": "true",
		"GITHUB_WORKSPACE":    s.ws,
		"GITHUB_OUTPUT":       filepath.Join(s.files, "set_output_1"),
		"GITHUB_STEP_SUMMARY": filepath.Join(s.files, "step_summary_1"),
		"GITHUB_EVENT_PATH":   event,
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_REPOSITORY":   "o/r",
		"GITHUB_RUN_ID":       "9001",
		"GITHUB_RUN_ATTEMPT":  "1",
		"GITHUB_JOB":          "bench",
		"HOME":                s.files,
	} {
		s.env[k] = v
	}
	for k, v := range inputs {
		// The runner upper-cases the name and keeps dashes.
		s.env["INPUT_"+strings.ToUpper(k)] = v
	}
	return s
}

func (s *step) run(t *testing.T) {
	t.Helper()
	bg, sim := binaries(t)
	cmd := exec.Command(bg, "action")
	cmd.Dir = s.ws
	cmd.Env = []string{"PATH=" + filepath.Dir(bg) + ":" + filepath.Dir(sim) + ":" + os.Getenv("PATH")}
	for k, v := range s.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if s.splitStderr {
		cmd.Stderr = &errOut
	}
	err := cmd.Run()
	s.stdout, s.stderr = out.String(), errOut.String()
	s.code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		s.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
}

func (s *step) outputs(t *testing.T) map[string]string {
	t.Helper()
	if _, err := os.Stat(s.env["GITHUB_OUTPUT"]); err != nil {
		t.Fatalf("outputs: %v\nstdout:\n%s", err, s.stdout)
	}
	return testenv.ReadGitHubOutput(t, s.env["GITHUB_OUTPUT"])
}

func (s *step) summary(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(s.env["GITHUB_STEP_SUMMARY"])
	if err != nil {
		t.Fatalf("summary: %v", err)
	}
	if len(b) > 1024*1024 {
		t.Errorf("summary is %d bytes, over the 1 MiB limit", len(b))
	}
	return string(b)
}

func errorLines(stdout string) []string {
	var out []string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "::error") {
			out = append(out, l)
		}
	}
	return out
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(dst), 0o755)
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// actServer starts nektos/act's artifact server and returns the
// variables a runner gives a Docker action for uploads.
func actServer(t *testing.T) (env map[string]string, storage string) {
	t.Helper()
	storage = t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	stop := actartifacts.Serve(context.Background(), storage, "127.0.0.1", port)
	t.Cleanup(stop)
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("artifact server did not start: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	token, err := actcommon.CreateAuthorizationToken(1, 9001, 7)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"ACTIONS_RESULTS_URL": "http://127.0.0.1:" + port + "/", "ACTIONS_RUNTIME_TOKEN": token}, storage
}

// storedNames lists the names under which act stored artifacts.
func storedNames(t *testing.T, storage string) string {
	var names []string
	filepath.WalkDir(storage, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			names = append(names, strings.TrimPrefix(p, storage))
		}
		return nil
	})
	return strings.Join(names, "\n")
}

// TestReportMode runs the report over the real suites: the Action passes
// the same flags the command line takes, so its exit code and summary
// files equal those of "benchgate report" run by hand; the run folder is
// uploaded to a real artifact server.
func TestReportMode(t *testing.T) {
	s := newStep(t, map[string]string{
		"mode":         "report",
		"suite-jsonl":  "suites/agent_direct-suite.jsonl\nsuites/ghx-suite.jsonl\n",
		"gate":         "true",
		"gate-profile": "verify_pr",
		"github-token": "ghs_e2e_secret_value",
	})
	for _, f := range []string{"agent_direct-suite.jsonl", "ghx-suite.jsonl"} {
		copyFile(t, filepath.Join("testdata", "suites", f), filepath.Join(s.ws, "suites", f))
	}
	art, storage := actServer(t)
	for k, v := range art {
		s.env[k] = v
	}
	s.run(t)

	// The same command by hand.
	hand := t.TempDir()
	cmd := exec.Command(testenv.Benchgate(t), "report", "--suite-jsonl", filepath.Join(s.ws, "suites/agent_direct-suite.jsonl"),
		"--suite-jsonl", filepath.Join(s.ws, "suites/ghx-suite.jsonl"), "--gate", "--gate-profile", "verify_pr",
		"--summary-json", filepath.Join(hand, "s.json"), "--summary-md", filepath.Join(hand, "s.md"))
	handErr := cmd.Run()
	handCode := 0
	if ee, ok := handErr.(*exec.ExitError); ok {
		handCode = ee.ExitCode()
	}
	if s.code != handCode {
		t.Fatalf("action exit %d, by hand %d\n%s", s.code, handCode, s.stdout)
	}
	if !strings.HasPrefix(s.stdout, "::add-mask::ghs_e2e_secret_value\n") || strings.Count(s.stdout, "ghs_e2e_secret_value") != 1 {
		t.Errorf("token not masked first or printed again:\n%s", s.stdout)
	}
	out := s.outputs(t)
	wantStatus := map[int]string{0: "pass", 1: "fail"}[handCode]
	if out["status"] != wantStatus || out["summary-json"] != "benchgate-results/report-9001-1/latest-summary.json" || out["failing-rows"] != "0" {
		t.Errorf("outputs = %v", out)
	}
	got, err := os.ReadFile(filepath.Join(s.ws, out["summary-md"]))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(hand, "s.md"))
	if g, w := withoutGenerated(got), withoutGenerated(want); g != w {
		t.Errorf("the Action's summary Markdown differs from the command line's:\n%s\n---\n%s", g, w)
	}
	// The rows all pass; a failing gate gets one step-level annotation.
	errs := errorLines(s.stdout)
	wantErrs := 0
	if handCode != 0 {
		wantErrs = 1
		if len(errs) == 1 && errs[0] != "::error title=benchgate report::❌ benchgate report: fail: tool-call reduction 16.67%25, needs ≥ 20.00%25 · 1 check failed, 0 scenarios failing; the job summary and benchgate-results/report-9001-1 tell why" {
			t.Errorf("annotation = %q", errs[0])
		}
	}
	if len(errs) != wantErrs {
		t.Errorf("error annotations: %q, want %d", errs, wantErrs)
	}
	sum := s.summary(t)
	for _, w := range []string{"**benchgate report: " + wantStatus + "**", "Triggered by `pull_request` on `o/r`, pull request #12.", "## Report", "xychart-beta", "From `benchgate-results/report-9001-1/latest-summary.md`"} {
		if !strings.Contains(sum, w) {
			t.Errorf("summary lacks %q:\n%s", w, sum)
		}
	}
	if out["artifacts"] != "benchgate-bench-run" || !strings.Contains(storedNames(t, storage), "benchgate-bench-run") {
		t.Errorf("artifacts output %q; stored:\n%s\nstdout:\n%s", out["artifacts"], storedNames(t, storage), s.stdout)
	}
}

// withoutGenerated drops the time stamp line both summaries carry.
func withoutGenerated(b []byte) string {
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "Generated: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// benchStep prepares a set or ordered step on the simulator's benchmark
// package: inputs come on top of the package's own (working-directory
// bench, its bench.json, no uploads).
func benchStep(t *testing.T, inputs map[string]string) *step {
	t.Helper()
	all := map[string]string{"working-directory": "bench", "bench-config": "bench.json", "upload-artifacts": "false"}
	for k, v := range inputs {
		all[k] = v
	}
	s := newStep(t, all)
	benchWorkspace(t, s)
	return s
}

// failWith makes the simulator break rows by the given failure rules.
func (s *step) failWith(t *testing.T, rules string) {
	t.Helper()
	path := filepath.Join(s.files, "failures.json")
	if err := os.WriteFile(path, []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	s.env["BENCHSIM_FAILURES"] = path
}

// runWant runs the step and stops the test when it exits otherwise.
func (s *step) runWant(t *testing.T, code int) {
	t.Helper()
	s.run(t)
	if s.code != code {
		t.Fatalf("exit %d, want %d\n%s", s.code, code, s.stdout)
	}
}

// benchWorkspace copies the simulator's benchmark package into the
// workspace and seeds its shared fixture manifest.
func benchWorkspace(t *testing.T, s *step) {
	t.Helper()
	root := testenv.RepoRoot(t)
	src := filepath.Join(root, "examples")
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		copyFile(t, p, filepath.Join(s.ws, "bench", rel))
		return nil
	})
	os.Remove(filepath.Join(s.ws, "bench", "failures.json"))
	cmd := exec.Command(testenv.Benchsim(t), "fixtures", "seed", "--seed-id", "e2e-shared", "--out", filepath.Join(s.ws, "bench", "fixtures", "latest.json"))
	cmd.Dir = filepath.Join(s.ws, "bench")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("seed: %v\n%s", err, out)
	}
}

// TestSetModeAnnotatesFailingRows verifies a set whose every scenario
// fails: 18 failing rows, the first 10 annotated on their suite file and
// line, the rest counted in the summary.
func TestSetModeAnnotatesFailingRows(t *testing.T) {
	s := benchStep(t, map[string]string{"mode": "set", "set": "pr-exec", "provider": "openai", "model": "gpt-5.1-codex-mini", "out-dir": "out/pr-exec"})
	s.failWith(t, `{"rules":[{"behavior":"always_fail"}]}`)
	s.runWant(t, 1)
	out := s.outputs(t)
	if out["status"] != "fail" || out["tracking"] != "bench/out/pr-exec/tracking.json" || out["failing-rows"] != "18" {
		t.Errorf("outputs = %v", out)
	}
	errs := errorLines(s.stdout)
	if len(errs) != 10 {
		t.Fatalf("%d error annotations, want 10:\n%s", len(errs), strings.Join(errs, "\n"))
	}
	if !strings.HasPrefix(errs[0], "::error file=bench/out/pr-exec/agent_direct-suite.jsonl,line=1,title=pr-exec%3A ") ||
		!strings.Contains(errs[0], "::success: expected true, got false") {
		t.Errorf("first annotation = %q", errs[0])
	}
	tr, err := verify.ReadTracking(filepath.Join(s.ws, out["tracking"]))
	if err != nil {
		t.Fatal(err)
	}
	sum := s.summary(t)
	for _, w := range []string{"## Set pr-exec: " + tr.FinalStatus, "18 failing rows; the first 10 are annotated", "**8 more failing rows are not annotated**", "| agent_direct | 9 | 9 | 9 |"} {
		if !strings.Contains(sum, w) {
			t.Errorf("summary lacks %q:\n%s", w, sum)
		}
	}
}

// TestSetModeStoppedByBadInput shows why a set stopped before anything
// ran: the mode's error reaches the job summary and the step's error
// annotation, and no tracking.json is written.
func TestSetModeStoppedByBadInput(t *testing.T) {
	s := benchStep(t, map[string]string{"mode": "set", "set": "pr-exec", "provider": "openai", "scenario-ids": "pr-branch-update-001\nissue-view-001", "out-dir": "out/pr-exec"})
	s.runWant(t, 2)
	why := `scenario id "issue-view-001" is not in set "pr-exec"`
	errs := errorLines(s.stdout)
	if len(errs) != 1 || !strings.Contains(errs[0], "benchgate set: bad input: "+why) {
		t.Errorf("error annotations = %q, want one naming %q", errs, why)
	}
	if sum := s.summary(t); !strings.Contains(sum, why) {
		t.Errorf("summary lacks the reason %q:\n%s", why, sum)
	}
	// Bad input judges nothing: no tracking.json reads as a failed set.
	if _, err := os.Stat(filepath.Join(s.ws, "bench", "out", "pr-exec", "tracking.json")); err == nil {
		t.Errorf("bad input wrote tracking.json")
	}
}

// TestOrderedMode runs the nine sets on the healthy simulator and checks
// one tracking path per set, the consolidated summary outputs and one
// artifact per set plus one for the run.
func TestOrderedMode(t *testing.T) {
	s := newStep(t, map[string]string{
		"mode": "ordered", "provider": "openai", "working-directory": "bench", "bench-config": "bench.json",
	})
	benchWorkspace(t, s)
	art, storage := actServer(t)
	for k, v := range art {
		s.env[k] = v
	}
	s.run(t)
	if s.code != 0 {
		t.Fatalf("exit %d\n%s", s.code, s.stdout)
	}
	out := s.outputs(t)
	tracks := strings.Split(out["tracking"], "\n")
	if len(tracks) != 9 || !strings.HasSuffix(tracks[0], "/pr-exec/tracking.json") || !strings.HasSuffix(tracks[8], "/ci-log-analysis/tracking.json") {
		t.Errorf("tracking = %q", out["tracking"])
	}
	if !strings.HasSuffix(out["summary-json"], ".json") || !strings.HasSuffix(out["summary-md"], ".md") {
		t.Errorf("consolidated summary outputs %q %q", out["summary-json"], out["summary-md"])
	}
	names := strings.Split(out["artifacts"], "\n")
	if len(names) != 10 || names[0] != "benchgate-bench-pr-exec" || names[9] != "benchgate-bench-run" {
		t.Errorf("artifacts = %q\n%s", names, s.stdout)
	}
	stored := storedNames(t, storage)
	for _, n := range names {
		if !strings.Contains(stored, n) {
			t.Errorf("artifact %s not stored by the server", n)
		}
	}
	sum := s.summary(t)
	for _, w := range []string{"✅ **benchgate ordered: pass**", "| [ci-log-analysis](#set-ci-log-analysis-pass) | pass |", "## Set workflows: pass", "## Consolidated summary", "## Artifacts", "](https://github.com/o/r/actions/runs/9001/artifacts/"} {
		if !strings.Contains(sum, w) {
			t.Errorf("summary lacks %q", w)
		}
	}
}

// TestBadInputs checks that bad inputs stop the step before anything
// runs, with an error annotation naming the input and exit code 2.
func TestBadInputs(t *testing.T) {
	tests := []struct {
		name   string
		inputs map[string]string
		want   string
	}{
		{"unknown mode", map[string]string{"mode": "verify"}, `::error title=benchgate%3A input mode::input "mode": expected one of report, set, ordered, swebench-batch, qa-audit, drift, pr-comment, got "verify"`},
		{"bad pr-comment", map[string]string{"mode": "report", "suite-jsonl": "a-suite.jsonl", "pr-comment": "yes"}, `::error title=benchgate%3A input pr-comment::input "pr-comment": expected always, on-failure or off, got "yes"`},
		{"pr-comment without a file", map[string]string{"mode": "pr-comment"}, `::error title=benchgate%3A input comment-file::input "comment-file": expected a value (required by mode pr-comment)`},
		{"bad number", map[string]string{"mode": "swebench-batch", "max-loops": "many"}, `::error title=benchgate%3A input max-loops::input "max-loops": expected a non-negative whole number, got "many"`},
		{"missing set", map[string]string{"mode": "set", "provider": "openai"}, `::error title=benchgate%3A input set::input "set": expected a value (required by mode set)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStep(t, tt.inputs)
			s.run(t)
			if s.code != 2 || !strings.Contains(s.stdout, tt.want) {
				t.Errorf("exit %d, stdout:\n%s\nwant %q", s.code, s.stdout, tt.want)
			}
			if out := s.outputs(t); out["status"] != "error" {
				t.Errorf("outputs = %v", out)
			}
		})
	}
}

// TestModeBadFlagValue shows a value the mode itself rejects: the
// mode's exit code 2 and its message pass through unchanged.
func TestModeBadFlagValue(t *testing.T) {
	s := newStep(t, map[string]string{"mode": "report", "gate-profile": "nightly", "suite-jsonl": "missing-suite.jsonl"})
	s.run(t)
	if s.code != 2 {
		t.Fatalf("exit %d, want the mode's 2\n%s", s.code, s.stdout)
	}
	if out := s.outputs(t); out["status"] != "error" || out["exit-code"] != "2" {
		t.Errorf("outputs = %v", out)
	}
}

// TestSwebenchBatchMode runs a two-instance batch on the real engine (one
// image holds the fake codex and succeeds, the other image is missing):
// outputs point at the run root, predictions and manifest; each instance
// folder and the run become artifacts; the summary charts the statuses.
func TestSwebenchBatchMode(t *testing.T) {
	host := testenv.DockerHost(t)
	dc := swebenchtest.Docker(t)
	swebenchtest.ImportImage(t, dc, "sweb.eval.arm64.acme__actione2e-1:latest", true)
	s := newStep(t, map[string]string{
		"mode":       "swebench-batch",
		"max-loops":  "1",
		"out-dir":    "runs",
		"extra-args": "--network\nnone\n--env\nFAKE_CODEX_SCENARIO=success",
	})
	dataset := swebenchtest.DatasetFile(t, s.ws, "acme__actione2e-2", "acme__actione2e-1")
	s.env["INPUT_INSTANCE-FILE"] = filepath.Base(dataset)
	s.env["DOCKER_HOST"] = host
	art, storage := actServer(t)
	for k, v := range art {
		s.env[k] = v
	}
	s.run(t)
	// An instance that failed is a result: with the default fail-on
	// never the step passes, and status and the counts say what happened.
	if s.code != 0 {
		t.Fatalf("exit %d, want 0 (the batch ran; fail-on never)\n%s", s.code, s.stdout)
	}
	out := s.outputs(t)
	if out["status"] != "fail" || out["exit-code"] != "0" || out["instances-total"] != "2" || out["instances-success"] != "1" || out["instances-failed"] != "1" || out["instances-incomplete"] != "0" || out["instances-not-run"] != "0" {
		t.Errorf("outputs status=%q exit-code=%q counts %s/%s/%s/%s, want fail, 0 and 2 total, 1 success, 1 failed, 0 incomplete",
			out["status"], out["exit-code"], out["instances-total"], out["instances-success"], out["instances-failed"], out["instances-incomplete"])
	}
	if out["failure-codes"] != "missing_image=1" || out["instances-retryable"] != "1" {
		t.Errorf("failure-codes %q, instances-retryable %q; want missing_image=1 and 1", out["failure-codes"], out["instances-retryable"])
	}
	root := out["out-dir"]
	if !strings.HasPrefix(root, "runs/") || out["predictions"] != root+"/predictions.jsonl" || out["run-manifest"] != root+"/run_manifest.json" {
		t.Fatalf("outputs = %v\n%s", out, s.stdout)
	}
	if _, err := os.Stat(filepath.Join(s.ws, out["predictions"])); err != nil {
		t.Error(err)
	}
	if out["artifacts"] != "benchgate-bench-run" {
		t.Errorf("artifacts = %q, want the run root as one artifact", out["artifacts"])
	}
	if stored := storedNames(t, storage); !strings.Contains(stored, "benchgate-bench-run") {
		t.Errorf("artifact benchgate-bench-run not stored:\n%s", stored)
	}
	// fail-on never let the step pass: the failed instance is a warning.
	if errs := errorLines(s.stdout); len(errs) != 0 || !strings.Contains(s.stdout, "::warning file="+root+"/acme__actione2e-2/acme__actione2e-2.status.json,title=SWE-bench acme__actione2e-2::failed: missing_image") {
		t.Errorf("annotations = %q, want one warning\n%s", errs, s.stdout)
	}
	sum := s.summary(t)
	if out["enforced"] != "false" {
		t.Errorf("output enforced = %q, want false (fail-on: never)", out["enforced"])
	}
	for _, w := range []string{"⚠️ **benchgate swebench-batch: not enforced**: 1 of 2 instances did not succeed (fail-on: never)\n", "## SWE-bench batch", "pie title Instance statuses", `"success" : 1`, `"failed" : 1`, "| acme__actione2e-2 | failed | missing_image |"} {
		if !strings.Contains(sum, w) {
			t.Errorf("summary lacks %q:\n%s", w, sum)
		}
	}
}

// TestOrderedModeStopsAtFailingSet: a scenario of the third set always
// fails, so ordered stops there; the outputs list the three sets that
// ran and the failing rows are annotated with the set's name.
func TestOrderedModeStopsAtFailingSet(t *testing.T) {
	s := benchStep(t, map[string]string{"mode": "ordered", "provider": "openai"})
	s.failWith(t, `{"rules":[{"scenario":"issue-close-001","behavior":"always_fail","field":"output_valid"}]}`)
	s.runWant(t, 1)
	out := s.outputs(t)
	tracks := strings.Split(out["tracking"], "\n")
	if len(tracks) != 3 || !strings.HasSuffix(tracks[2], "/issues/tracking.json") {
		t.Errorf("tracking = %q", out["tracking"])
	}
	if out["status"] != "fail" || out["failing-rows"] != "2" {
		t.Errorf("outputs = %v", out)
	}
	errs := errorLines(s.stdout)
	if len(errs) != 2 {
		t.Fatalf("annotations = %q", errs)
	}
	for _, e := range errs {
		if !strings.Contains(e, "title=issues%3A issue-close-001::") || !strings.Contains(e, "output_valid: expected true, got false") {
			t.Errorf("annotation = %q", e)
		}
	}
	sum := s.summary(t)
	for _, w := range []string{"❌ **benchgate ordered: fail**: issues: failing rows after reruns", "| [issues](#set-issues-terminal_fail) | terminal_fail |", "## Set issues: terminal_fail", "Failing scenarios: `issue-close-001`"} {
		if !strings.Contains(sum, w) {
			t.Errorf("summary lacks %q", w)
		}
	}
}

// TestOrderedModeIgnoresEarlierRunsFolders reuses an out-dir holding a set
// folder from an earlier run: only the sets this step ran are reported,
// annotated and listed in the outputs.
func TestOrderedModeIgnoresEarlierRunsFolders(t *testing.T) {
	s := benchStep(t, map[string]string{"mode": "ordered", "provider": "openai", "out-dir": "out/ordered"})
	stale := filepath.Join(s.ws, "bench", "out", "ordered", "workflows")
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"tracking.json":   `{"set":"workflows","final_status":"terminal_fail","failing_scenarios":["workflow-list-001"]}`,
		"ghx-suite.jsonl": `{"scenario_id":"workflow-list-001","mode":"ghx","success":false,"output_valid":true,"error":null}` + "\n",
	}
	old := time.Now().Add(-time.Hour)
	for name, body := range files {
		p := filepath.Join(stale, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	s.failWith(t, `{"rules":[{"scenario":"issue-close-001","behavior":"always_fail","field":"output_valid"}]}`)
	s.runWant(t, 1)
	out := s.outputs(t)
	if tracks := strings.Split(out["tracking"], "\n"); len(tracks) != 3 || out["failing-rows"] != "2" {
		t.Errorf("tracking = %q, failing-rows = %q: an earlier run's set counted", out["tracking"], out["failing-rows"])
	}
	if errs := errorLines(s.stdout); len(errs) != 2 || strings.Contains(strings.Join(errs, "\n"), "workflow-list-001") {
		t.Errorf("annotations = %q", errs)
	}
	if sum := s.summary(t); strings.Contains(sum, "## Set workflows") {
		t.Errorf("summary reports an earlier run's set:\n%s", sum)
	}
}

// TestModeUsageErrorIsShown checks that a value the mode itself refuses,
// before it writes any result file, still reaches the step's annotation
// and the job summary with the mode's own message, once each.
func TestModeUsageErrorIsShown(t *testing.T) {
	s := benchStep(t, map[string]string{"mode": "set", "set": "issues", "provider": "openai", "repetitions": "0"})
	s.runWant(t, 2)
	why := "benchgate set: --repetitions: expected an integer >= 1, got 0"
	if errs := errorLines(s.stdout); len(errs) != 1 || !strings.Contains(errs[0], why) {
		t.Errorf("error annotations = %q, want one with %q", errs, why)
	}
	// Said once: nothing was judged, so there is nothing else to say.
	if sum := s.summary(t); strings.Count(sum, why) != 1 {
		t.Errorf("summary does not say the mode's message once:\n%s", sum)
	}
}

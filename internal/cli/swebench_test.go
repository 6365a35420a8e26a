package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/swebench"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

func swebenchEnv(t *testing.T, dir string, vars map[string]string) (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &Env{Stdout: &out, Stderr: &errb, Dir: dir, Now: time.Now,
		Getenv: func(k string) string { return vars[k] }}, &out, &errb
}

// TestSwebenchBadInput checks that usage errors exit 2 with a message
// naming the problem, and leave an earlier instance's output untouched.
func TestSwebenchBadInput(t *testing.T) {
	dir := t.TempDir()
	// An earlier run left its artifacts and manifest here.
	earlier := filepath.Join(dir, "run", "acme__widget-1")
	if err := os.MkdirAll(earlier, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		filepath.Join(earlier, "acme__widget-1.status.json"): `{"instance_id":"acme__widget-1","status":"success"}`,
		filepath.Join(dir, "run", "run_manifest.json"):       `{"instances":{}}`,
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dataset := swebenchtest.DatasetFile(t, dir, "acme__widget-1", "acme__widget-2")
	if err := os.WriteFile(filepath.Join(dir, "old-profile.toml"), []byte("model_provider = \"dgx\"\n\n[profiles.local]\nmodel = \"m\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad-ids.txt"), []byte("acme__widget-2\n../../etc__passwd-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"ids-nodata.txt": "acme__widget-2\nacme__widget-9\n",
		"dup.jsonl":      "{\"instance_id\":\"acme__widget-2\",\"problem_statement\":\"P\"}\n{\"instance_id\":\"acme__widget-2\",\"problem_statement\":\"P again\"}\n",
		"num.jsonl":      "{\"instance_id\":\"acme__widget-2\",\"problem_statement\":42}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(extra ...string) []string {
		return append([]string{"run", "--output-dir", "run/acme__widget-2", "--manifest-dir", "run", "--dataset-file", dataset}, extra...)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"path trick in the ID", run("--instance-id", "../acme__widget-1"), `"../acme__widget-1" contains ".."`},
		{"slash in the ID", run("--instance-id", "acme/widget-1"), "owner__repo-NUMBER"},
		{"dot-dot inside the ID", run("--instance-id", "acme__w..x-1"), `contains ".."`},
		{"space in the ID", run("--instance-id", "acme__w x-1"), "owner__repo-NUMBER"},
		{"missing ID", run(), "instance ID is empty"},
		{"max-loops 0", run("--instance-id", "acme__widget-2", "--max-loops", "0"), "--max-loops 0"},
		{"max-loops text", run("--instance-id", "acme__widget-2", "--max-loops", "many"), `--max-loops "many": expected a whole number`},
		{"another profile", run("--instance-id", "acme__widget-2", "--profile", "cloud"), "unknown flag: --profile"},
		{"missing prompt folder", run("--instance-id", "acme__widget-2", "--prompts-dir", "nope"), "missing required prompt file"},
		{"missing output dir", []string{"run", "--instance-id", "acme__widget-2", "--dataset-file", dataset}, "--output-dir is required"},
		{"no dataset", []string{"run", "--instance-id", "acme__widget-2", "--output-dir", "x"}, "--dataset-file is required"},
		{"unreadable instance file", []string{"batch", "--instance-file", "missing.txt", "--dataset-file", dataset}, "missing.txt"},
		{"bad ID in the instance file", []string{"batch", "--instance-file", "bad-ids.txt", "--dataset-file", dataset}, "bad-ids.txt:2"},
		{"bad shard", []string{"batch", "--shard", "3/2", "--dataset-file", dataset}, `--shard "3/2": expected i/n`},
		{"resume of a missing run root", []string{"batch", "--resume", "typo/root", "--dataset-file", dataset}, "--resume " + filepath.Join(dir, "typo", "root")},
		{"image template without {id}", []string{"prepare-images", "--instance-id", "acme__widget-2", "--codex-binary", dataset, "--image-template", "sweb.eval:latest"}, "must contain {id}"},
		{"stray argument to prepare-images", []string{"prepare-images", "--instance-id", "acme__widget-2", "--codex-binary", dataset, "acme__widget-1"}, "unexpected arguments"},
		{"codex config in the pre-0.134 shape", run("--instance-id", "acme__widget-2", "--codex-binary", dataset, "--codex-config", "old-profile.toml"), "old-profile.toml:3: profiles: a [profiles.*] table is the shape of Codex before 0.134"},
		{"codex config in the pre-0.134 shape, prepare-images", []string{"prepare-images", "--instance-id", "acme__widget-2", "--codex-binary", dataset, "--codex-config", "old-profile.toml"}, "old-profile.toml:3: profiles"},
		{"retry without resume", []string{"batch", "--retry-failed", "all", "--dataset-file", dataset}, "--retry-failed needs --resume"},
		{"retry of an unknown kind", []string{"batch", "--retry-failed", "some", "--dataset-file", dataset}, `--retry-failed "some": "some" is not a failure code (expected one of blocked, codex_bootstrap_failed, incomplete, missing_image, no_change, runtime_error), or all`},
		{"bad filter", []string{"batch", "--filter", "(", "--dataset-file", dataset}, `--filter "("`},
		{"bad slice", []string{"batch", "--slice", "3:1", "--dataset-file", dataset}, `--slice "3:1": END must be greater than START`},
		{"instance without a dataset record", run("--instance-id", "acme__widget-9"), "--dataset-file: " + dataset + ": no record with instance_id acme__widget-9"},
		{"batch scope without dataset records", []string{"batch", "--instance-file", "ids-nodata.txt", "--dataset-file", dataset},
			dataset + ": no record with instance_id acme__widget-9 (" + filepath.Join(dir, "ids-nodata.txt") + ":2)"},
		{"duplicate dataset records", run("--instance-id", "acme__widget-2", "--dataset-file", "dup.jsonl"), filepath.Join(dir, "dup.jsonl") + ":2: a second record of instance acme__widget-2 (the first is at " + filepath.Join(dir, "dup.jsonl") + ":1)"},
		{"duplicate records in a batch's instance file", []string{"batch", "--instance-file", "dup.jsonl"}, "dup.jsonl:2: a second record of instance acme__widget-2"},
		{"a problem statement that is no string", []string{"batch", "--instance-file", "num.jsonl"}, "num.jsonl:1: instance acme__widget-2: field \"problem_statement\" is a number; expected a string"},
		{"unknown subcommand", []string{"evaluate"}, "unknown subcommand"},
		{"merge without roots", []string{"merge", "--output-dir", "m"}, "usage"},
		{"merge with an unknown fail-on", []string{"merge", "--output-dir", "m", "--fail-on", "always", "typo"}, `--fail-on "always": expected never, failed or incomplete`},
		{"merge of a folder that does not exist", []string{"merge", "--output-dir", "m", "typo"}, "merge: run root " + filepath.Join(dir, "typo") + " does not exist: give the folder a batch wrote"},
		{"merge of a folder that is no run root", []string{"merge", "--output-dir", "m", "not-a-root"}, filepath.Join(dir, "not-a-root") + " is not a run root: it has no"},
	}
	if err := os.MkdirAll(filepath.Join(dir, "not-a-root"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, stderr := swebenchEnv(t, dir, map[string]string{"DOCKER_HOST": "unix:///nonexistent.sock"})
			if code := runSwebench(context.Background(), env, tc.args); code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr: %s", code, ExitUsage, stderr)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.want)
			}
			for p, c := range files {
				if b, err := os.ReadFile(p); err != nil || string(b) != c {
					t.Errorf("%s changed: %q %v", p, b, err)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "run", "acme__widget-2")); err == nil {
				t.Errorf("a usage error created the new instance's output folder")
			}
			if _, err := os.Stat(filepath.Join(dir, "results")); err == nil {
				t.Errorf("a usage error created the batch's results folder")
			}
		})
	}
}

// TestSwebenchRunExitCodes runs the command end to end on the real engine.
func TestSwebenchRunExitCodes(t *testing.T) {
	dc := swebenchtest.Docker(t)
	host := testenv.DockerHost(t)
	tests := []struct {
		scenario string
		want     int
		status   string
	}{
		{"success", ExitOK, "status=success failure_reason_code=null"},
		{"blocked", ExitFailed, "status=failed failure_reason_code=blocked"},
		{"noop", ExitIncomplete, "status=incomplete failure_reason_code=incomplete"},
	}
	for _, tc := range tests {
		t.Run(tc.scenario, func(t *testing.T) {
			dir := t.TempDir()
			id := "acme__cli" + tc.scenario + "-7"
			swebenchtest.ImportImage(t, dc, "sweb.eval.arm64."+id+":latest", true)
			dataset := swebenchtest.DatasetFile(t, dir, id)
			env, stdout, stderr := swebenchEnv(t, dir, map[string]string{"DOCKER_HOST": host, "SWE_BENCH_INSTANCES_FILE": dataset})
			code := runSwebench(context.Background(), env, []string{"run", "--instance-id", id, "--output-dir", "out", "--max-loops", "1",
				"--network", "none", "--env", "FAKE_CODEX_SCENARIO=" + tc.scenario})
			if code != tc.want {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.want, stderr)
			}
			if !strings.Contains(stdout.String(), tc.status) {
				t.Errorf("stdout %q lacks %q", stdout, tc.status)
			}
			// The manifest defaults to the output dir.
			if _, err := os.Stat(filepath.Join(dir, "out", "run_manifest.json")); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestSwebenchSIGTERM starts the built binary, sends SIGTERM while codex
// hangs in the execute phase, and checks that the container is removed
// and status.json and the manifest are written.
func TestSwebenchSIGTERM(t *testing.T) {
	dc := swebenchtest.Docker(t)
	host := testenv.DockerHost(t)
	dir := t.TempDir()
	bin := testenv.Benchgate(t)
	id := "acme__sigterm-9"
	swebenchtest.ImportImage(t, dc, "sweb.eval.arm64."+id+":latest", true)
	out := filepath.Join(dir, "out")
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "swebench", "run", "--instance-id", id, "--output-dir", out, "--network", "none",
		"--dataset-file", swebenchtest.DatasetFile(t, dir, id), "--env", "FAKE_CODEX_SCENARIO=hang")
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+host)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the execute phase is running.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(out, "logs", "codex_execute_1.jsonl")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("execute never started; stderr: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitFailed {
		t.Fatalf("exit: %v, want code %d; stderr: %s", err, ExitFailed, stderr.String())
	}
	swebenchtest.NoLeaks(t, dc, swebench.LabelOutputDir+"="+out)
	var st swebench.Status
	swebenchtest.ReadJSON(t, filepath.Join(out, id+".status.json"), &st)
	if st.Status != "failed" || !st.Interrupted || !strings.Contains(st.FailureReasonDetail, "interrupted") {
		t.Errorf("status %+v", st)
	}
	var m swebench.Manifest
	swebenchtest.ReadJSON(t, filepath.Join(out, "run_manifest.json"), &m)
	if m.Instances[id].Status != "failed" || m.LastInvocation == nil || m.LastInvocation.EndTime.IsZero() {
		t.Errorf("manifest %+v", m)
	}
}

// TestSwebenchBatchPreflight checks that a dead engine or a dead endpoint
// stops the batch before any instance runs or any run root is created.
func TestSwebenchBatchPreflight(t *testing.T) {
	tests := []struct {
		name, dockerHost, want, fix string
	}{
		{"dead engine", "unix:///nonexistent.sock", "no Docker engine answers at unix:///nonexistent.sock", container.FixUnreachable},
		{"dead endpoint", testenv.DockerHost(t), "endpoint preflight", swebench.FixEndpoint},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			dataset := swebenchtest.DatasetFile(t, dir, "acme__widget-1")
			env, stdout, stderr := swebenchEnv(t, dir, map[string]string{"DOCKER_HOST": tc.dockerHost})
			code := runSwebench(context.Background(), env, []string{"batch", "--instance-file", dataset, "--base-url", "http://127.0.0.1:1/v1", "--results-dir", "results"})
			// Nothing was judged: a bad setup is exit code 2, said once
			// with what to do.
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr: %s", code, ExitUsage, stderr)
			}
			if n := strings.Count(stderr.String(), tc.want); n != 1 || !strings.Contains(stderr.String(), tc.fix) {
				t.Errorf("stderr %q: want %q once (said %d times) and the fix %q", stderr, tc.want, n, tc.fix)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "results")); err == nil || stdout.Len() > 0 {
				t.Errorf("the batch started: %v %q", err, stdout)
			}
		})
	}
}

// TestSwebenchRunPreflight: a single instance checks its endpoint first
// too, and a dead one stops it before any output folder exists.
func TestSwebenchRunPreflight(t *testing.T) {
	dir := t.TempDir()
	dataset := swebenchtest.DatasetFile(t, dir, "acme__widget-1")
	env, stdout, stderr := swebenchEnv(t, dir, map[string]string{"DOCKER_HOST": "unix:///nonexistent.sock"})
	code := runSwebench(context.Background(), env, []string{"run", "--instance-id", "acme__widget-1", "--output-dir", "out",
		"--dataset-file", dataset, "--base-url", "http://127.0.0.1:1/v1"})
	if code != ExitUsage || !strings.Contains(stderr.String(), "benchgate swebench run: model endpoint preflight:") || !strings.Contains(stderr.String(), swebench.FixEndpoint) {
		t.Fatalf("exit %d, stderr %q; want %d, the preflight named and what to do", code, stderr, ExitUsage)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil || stdout.Len() > 0 {
		t.Errorf("the instance started: %v %q", err, stdout)
	}
}

// TestSwebenchBatchCLI runs the Action's mode name end to end: the run
// root is dated from env.Now, one instance lacks its image, the batch goes
// on and exits 1 with the counts on stdout.
func TestSwebenchBatchCLI(t *testing.T) {
	dc := swebenchtest.Docker(t)
	host := testenv.DockerHost(t)
	dir := t.TempDir()
	swebenchtest.ImportImage(t, dc, "sweb.eval.arm64.acme__clibatch-1:latest", true)
	dataset := swebenchtest.DatasetFile(t, dir, "acme__clibatch-2", "acme__clibatch-1")
	env, stdout, stderr := swebenchEnv(t, dir, map[string]string{"DOCKER_HOST": host})
	env.Now = func() time.Time { return time.Date(2026, 11, 22, 3, 4, 5, 0, time.UTC) }
	code := Main(context.Background(), env, []string{"swebench-batch", "--instance-file", dataset, "--max-loops", "1",
		"--network", "none", "--env", "FAKE_CODEX_SCENARIO=success", "--progress-md", "progress.md"})
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d; stderr: %s", code, ExitFailed, stderr)
	}
	m := regexp.MustCompile(`run_root=(\S+) total=2 success=1 failed=1 incomplete=0`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("stdout %q lacks the run root and counts", stdout)
	}
	root := m[1]
	if want := filepath.Join(dir, "results", "phase5", "ralph-codex-local", "20261122T030405.000Z-"); !strings.HasPrefix(root, want) {
		t.Errorf("run root %s, want it under %s<suffix>", root, want)
	}
	// One progress line per instance: its own figures and the batch's.
	progress := regexp.MustCompile(`(?m)^acme__clibatch-1 status=success reason=null duration=[0-9.]+m?s passes=1 tokens=240 done=1/2 success_rate=100% eta=[0-9a-z.]+$`)
	if !progress.MatchString(stdout.String()) {
		t.Errorf("no progress line for the first instance in:\n%s", stdout)
	}
	if !strings.Contains(stdout.String(), "done=2/2 success_rate=50% eta=0s") {
		t.Errorf("the last line does not count the batch:\n%s", stdout)
	}
	// The progress table holds every finished instance (rewritten after each).
	table, err := os.ReadFile(filepath.Join(dir, "progress.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## SWE-bench batch: 2 of 2 instances done", "| `acme__clibatch-1` | success | null |", "| `acme__clibatch-2` | failed | missing_image |"} {
		if !strings.Contains(string(table), want) {
			t.Errorf("progress table lacks %q:\n%s", want, table)
		}
	}
	first := strings.Index(stdout.String(), "acme__clibatch-1 status=success")
	second := strings.Index(stdout.String(), "acme__clibatch-2 status=failed reason=missing_image")
	if first < 0 || second < first {
		t.Errorf("instances not run in sorted order:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(root, "predictions.jsonl")); err != nil {
		t.Error(err)
	}
	// --fail-on decides what the failed instance does to the exit code;
	// the resume runs nothing (both statuses are terminal).
	for _, tc := range []struct {
		failOn string
		want   int
	}{{"never", ExitOK}, {"failed", ExitFailed}, {"incomplete", ExitFailed}} {
		stdout.Reset()
		code := Main(context.Background(), env, []string{"swebench", "batch", "--instance-file", dataset, "--max-loops", "1",
			"--network", "none", "--resume", root, "--fail-on", tc.failOn})
		if code != tc.want || !strings.Contains(stdout.String(), "total=2 success=1 failed=1") {
			t.Errorf("--fail-on %s: exit %d, want %d; stdout %s", tc.failOn, code, tc.want, stdout)
		}
	}
}

// TestSwebenchBatchSIGTERMThenResume stops a batch with SIGTERM while its
// first instance hangs, then resumes the run root: the interrupted
// instance runs again, the finished one is not touched twice.
func TestSwebenchBatchSIGTERMThenResume(t *testing.T) {
	dc := swebenchtest.Docker(t)
	host := testenv.DockerHost(t)
	dir := t.TempDir()
	bin := testenv.Benchgate(t)
	ids := []string{"acme__resume-1", "acme__resume-2"}
	for _, id := range ids {
		swebenchtest.ImportImage(t, dc, "sweb.eval.arm64."+id+":latest", true)
	}
	dataset := swebenchtest.DatasetFile(t, dir, ids...)
	results := filepath.Join(dir, "results")
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "swebench", "batch", "--instance-file", dataset, "--results-dir", results, "--network", "none",
		"--max-loops", "1", "--env", "FAKE_CODEX_SCENARIO=hang")
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+host)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var root string
	deadline := time.Now().Add(60 * time.Second)
	for root == "" {
		m, _ := filepath.Glob(filepath.Join(results, "*", ids[0], "logs", "codex_execute_1.jsonl"))
		if len(m) == 1 {
			root = filepath.Dir(filepath.Dir(filepath.Dir(m[0])))
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("execute never started; stderr: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("an interrupted batch exited 0")
	}
	swebenchtest.NoLeaks(t, dc, swebench.LabelManifestDir+"="+root)
	var st swebench.Status
	swebenchtest.ReadJSON(t, filepath.Join(root, ids[0], ids[0]+".status.json"), &st)
	if !st.Interrupted {
		t.Fatalf("first instance status %+v", st)
	}
	if _, err := os.Stat(filepath.Join(root, ids[1])); err == nil {
		t.Fatal("the batch went on after SIGTERM")
	}
	if _, err := os.Stat(filepath.Join(root, "predictions.jsonl")); err != nil {
		t.Errorf("no predictions.jsonl after SIGTERM: %v", err)
	}
	// The manifest says the batch was interrupted, and its two counts
	// agree: the interrupted instance and the one never started are
	// not_run (and failed).
	var m swebench.Manifest
	swebenchtest.ReadJSON(t, filepath.Join(root, swebench.ManifestFile), &m)
	want := swebench.Counts{Total: 2, Failed: 2, NotRun: 2}
	if !m.Batch.Interrupted || m.Counts != want || m.Batch.Counts != want {
		t.Errorf("after SIGTERM: batch.interrupted %v, counts %+v, batch.counts %+v, want %+v in both", m.Batch.Interrupted, m.Counts, m.Batch.Counts, want)
	}

	// Resume: both run now (the first was interrupted, so not terminal).
	env, stdout, errb := swebenchEnv(t, dir, map[string]string{"DOCKER_HOST": host})
	code := runSwebench(context.Background(), env, []string{"batch", "--instance-file", dataset, "--resume", root, "--network", "none",
		"--max-loops", "1", "--env", "FAKE_CODEX_SCENARIO=success"})
	if code != ExitOK {
		t.Fatalf("resume exit %d; stderr %s", code, errb)
	}
	if strings.Contains(stdout.String(), "skip ") || !strings.Contains(stdout.String(), "total=2 success=2") {
		t.Errorf("resume output:\n%s", stdout)
	}
	swebenchtest.ReadJSON(t, filepath.Join(root, swebench.ManifestFile), &m)
	want = swebench.Counts{Total: 2, Success: 2}
	if !m.Batch.Interrupted || len(m.Batch.Resumes) != 1 || m.Batch.Resumes[0].Interrupted || m.Counts != want || m.Batch.Counts != want {
		t.Errorf("after the resume: batch.interrupted %v (the first invocation's), resumes %+v, counts %+v, batch.counts %+v", m.Batch.Interrupted, m.Batch.Resumes, m.Counts, m.Batch.Counts)
	}
	// A second resume skips both.
	env, stdout, _ = swebenchEnv(t, dir, map[string]string{"DOCKER_HOST": host})
	if code := runSwebench(context.Background(), env, []string{"batch", "--instance-file", dataset, "--resume", root, "--network", "none"}); code != ExitOK {
		t.Fatalf("second resume exit %d", code)
	}
	if strings.Count(stdout.String(), "skip ") != 2 {
		t.Errorf("second resume output:\n%s", stdout)
	}
}

// TestSwebenchStoppedBatchFailsWhateverFailOn: the endpoint's /models
// answers (the preflight passes) but POST /responses answers 503, and the
// first instance fails with runtime_error; the circuit breaker's probe
// finds the endpoint dead and stops the batch. That is the endpoint's
// failure, not an instance's result: exit 1 even with --fail-on never.
func TestSwebenchStoppedBatchFailsWhateverFailOn(t *testing.T) {
	dc := swebenchtest.Docker(t)
	host := testenv.DockerHost(t)
	dir := t.TempDir()
	ids := []string{"acme__stopped-1", "acme__stopped-2"}
	for _, id := range ids {
		swebenchtest.ImportImage(t, dc, swebench.ImageName(swebench.DefaultImageTemplate, id), true)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Write([]byte(`{"object":"list","data":[{"id":"qwen3-coder-next-FP8","object":"model"}]}`))
			return
		}
		http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	env, stdout, stderr := swebenchEnv(t, dir, map[string]string{"DOCKER_HOST": host})
	code := Main(context.Background(), env, []string{"swebench", "batch", "--instance-file", swebenchtest.DatasetFile(t, dir, ids...),
		"--max-loops", "1", "--network", "none", "--env", "FAKE_CODEX_SCENARIO=crash", "--base-url", srv.URL + "/v1",
		"--max-consecutive-endpoint-failures", "1", "--fail-on", "never"})
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d (the batch was stopped); stdout %s stderr %s", code, ExitFailed, stdout, stderr)
	}
	if !strings.Contains(stdout.String(), "batch stopped after") || !strings.Contains(stdout.String(), "1 instance(s) not run") {
		t.Errorf("stdout does not say the batch stopped:\n%s", stdout)
	}
}

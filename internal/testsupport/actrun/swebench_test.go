package actrun

import (
	"archive/zip"
	"context"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/swebench"
	"github.com/benchgate/benchgate/internal/testsupport/fakeresponses"
	"github.com/benchgate/benchgate/internal/testsupport/imagetest"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// artifactFileGlob returns the one file of an uploaded artifact whose
// name matches pattern (path.Match), as a user who downloads it would
// read it.
func artifactFileGlob(t *testing.T, dir, artifact, pattern string) []byte {
	t.Helper()
	var names []string
	for _, f := range artifactEntries(t, dir, artifact) {
		if ok, _ := path.Match(pattern, f); ok {
			names = append(names, f)
		}
	}
	if len(names) != 1 {
		t.Fatalf("artifact %s: files %v match %s, want one", artifact, names, pattern)
	}
	return artifactFile(t, dir, artifact, names[0])
}

// artifactEntries lists the file names in an uploaded artifact.
func artifactEntries(t *testing.T, dir, artifact string) []string {
	t.Helper()
	zips, _ := filepath.Glob(filepath.Join(dir, "*", artifact, artifact+".zip"))
	if len(zips) != 1 {
		t.Fatalf("artifact %s: %d uploads (%v), want 1; artifacts: %v", artifact, len(zips), zips, artifactNames(t, dir))
	}
	zr, err := zip.OpenReader(zips[0])
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	return names
}

// gitBlob is git's object ID of a file with content c.
func gitBlob(c string) string {
	return fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(c), c))))
}

// withMatrixStrategy is the example workflow as GitHub runs it, for act:
// act (0.2.72, and its main branch too) leaves strategy.job-index and
// strategy.job-total unset, so each is replaced by a matrix value that
// holds what GitHub would give, and the example's one-line shard list
// by those entries. Nothing else of the workflow changes.
func withMatrixStrategy(t *testing.T, wf string, shards int) string {
	t.Helper()
	const list = "        shard: [1, 2, 3, 4]\n"
	if strings.Count(wf, list) != 1 || !strings.Contains(wf, "${{ strategy.job-index }}") || !strings.Contains(wf, "${{ strategy.job-total }}") {
		t.Fatalf("the example no longer has the matrix %q and the strategy expressions this test stands in for", list)
	}
	include := "        include:\n"
	for k := 0; k < shards; k++ {
		include += fmt.Sprintf("          - {shard: %d, job_index: %d, job_total: %d}\n", k+1, k, shards)
	}
	wf = strings.Replace(wf, list, include, 1)
	wf = strings.ReplaceAll(wf, "${{ strategy.job-index }}", "${{ matrix.job_index }}")
	return strings.ReplaceAll(wf, "${{ strategy.job-total }}", "${{ matrix.job_total }}")
}

// stopBenchgateOf sends SIGTERM to the benchgate process that runs the
// container of instance id (its owner label names the process).
func stopBenchgateOf(dc *container.Client, id string) error {
	list, err := dc.List(context.Background(), swebench.LabelInstance+"="+id)
	if err != nil {
		return err
	}
	for _, c := range list {
		pid, _, _ := strings.Cut(c.Labels[swebench.LabelOwner], ".")
		if n, err := strconv.Atoi(pid); err == nil && n > 1 {
			return syscall.Kill(n, syscall.SIGTERM)
		}
	}
	return fmt.Errorf("no container of %s with an owner label", id)
}

// TestSwebenchShardsWorkflow runs .github/workflows/examples/swebench-
// shards.yml with two shards on the host runner, as GitHub would: the
// instance images are on the real Docker engine the runner's DOCKER_HOST
// names, the static Codex CLI is on its PATH and benchgate gives it to
// each instance container, and Codex talks to the Responses endpoint of
// the CODEX_BASE_URL repository variable. The four instances end
// differently: a success (a real `git diff` of an edited /testbed), a
// blocked plan, a missing image, and an archived plan that left the
// tree as it was (failed, no_change: a tree equal to the base predicts
// nothing), so shard 1 has a success and a failure and passes.
// Shard 2's step is stopped (SIGTERM, as when a step's time runs out)
// while its second instance runs: that job fails, still uploads its run
// root, and the merge job still merges both shards. "Re-run failed
// jobs" (attempt 2, shard 2 only) downloads shard 2's first artifact,
// resumes it (the blocked instance is kept, the stopped one runs again),
// and the merge job of attempt 2 takes the newest state of each shard:
// its predictions.jsonl is checked line by line.
func TestSwebenchShardsWorkflow(t *testing.T) {
	codexBin := testenv.Codex(t)
	dockerHost := testenv.DockerHost(t)
	dc := swebenchtest.Docker(t)
	root := testenv.RepoRoot(t)

	// Sorted, shard 1/2 runs ids[0] and ids[2], shard 2/2 ids[1] and ids[3].
	ids := []string{"apache__druid-13704", "apache__druid-14092", "apache__druid-14136", "apache__druid-15402"}
	success, blocked, missing, incomplete := ids[0], ids[1], ids[2], ids[3]
	for _, id := range []string{success, blocked, incomplete} {
		swebenchtest.ImportRealCodexImage(t, dc, swebench.ImageName(swebench.DefaultImageTemplate, id))
	}
	agent := &swebenchtest.Agent{Outcome: map[string]string{success: "success", blocked: "blocked", incomplete: "incomplete"},
		Arrived: make(chan struct{}, 1), Release: make(chan struct{})}
	agent.Hold.Store(&incomplete)
	srv := fakeresponses.New([]string{"qwen3-coder-next-FP8"}, agent.Script(40)...)
	defer srv.Close()

	repo := t.TempDir()
	copyTree(t, filepath.Join(root, ".github", "workflows", "examples"), filepath.Join(repo, ".github", "workflows"))
	wfPath := filepath.Join(repo, ".github", "workflows", "swebench-shards.yml")
	wf, err := os.ReadFile(wfPath)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, wfPath, withMatrixStrategy(t, string(wf), 2))
	var dataset strings.Builder
	for _, id := range ids {
		row, _ := json.Marshal(map[string]string{"instance_id": id, "repo": "apache/druid", "problem_statement": "The README of " + id + " says code; it should say fixed code."})
		dataset.Write(append(row, '\n'))
	}
	writeFile(t, filepath.Join(repo, "swebench", "instances.jsonl"), dataset.String())
	gitCommitAll(t, repo)

	const image = "ghcr.io/benchgate/benchgate:v1"
	imagetest.Bases(t, dc)
	if log, err := imagetest.Build(t, image, false); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}

	r := newRunner(t, filepath.Dir(codexBin))
	artifacts := t.TempDir()
	// The job token GitHub gives every run; download-artifact needs it
	// to read earlier attempts' artifacts.
	args := []string{"--var", "CODEX_BASE_URL=" + srv.BaseURL(), "--secret", "OPENAI_API_KEY=sk-swebench-123456", "--secret", "GITHUB_TOKEN=ghs-job-token"}
	shard1, shard2 := "batch[job_index=0,job_total=2,shard=1]", "batch[job_index=1,job_total=2,shard=2]"

	// Attempt 1: shard 2 is stopped while its second instance runs.
	stopped := make(chan error, 1)
	go func() {
		select {
		case <-agent.Arrived:
		case <-time.After(20 * time.Minute): // a guard: the run's own timeout ends the test first
			stopped <- errors.New("the held instance never asked the endpoint")
			return
		}
		err := stopBenchgateOf(dc, incomplete)
		agent.Hold.Store(nil)
		close(agent.Release)
		stopped <- err
	}()
	res := r.exec(t, Run{Repo: repo, Workflow: ".github/workflows/swebench-shards.yml", Event: "workflow_dispatch", ArtifactDir: artifacts,
		Args: args, Env: []string{"DOCKER_HOST=" + dockerHost}, Timeout: 20 * time.Minute})
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("stopping shard 2: %v", err)
		}
	default:
		t.Fatalf("shard 2 was never stopped; log:\n%s", tail(res.Log, 8000))
	}
	checkJobs(t, res, map[string]string{shard1: "success", shard2: "failure", "merge": "success"})
	outs := res.Outputs(shard1)
	if outs["status"] != "fail" || outs["exit-code"] != "0" || outs["instances-total"] != "2" || outs["instances-success"] != "1" || outs["instances-failed"] != "1" {
		t.Errorf("shard 1 outputs %v: want status fail, exit code 0 (fail-on never), 2 instances, 1 success, 1 failed", outs)
	}
	if out := res.Output(shard1); !strings.Contains(out, success) || !strings.Contains(out, missing) || strings.Contains(out, blocked) {
		t.Errorf("shard 1/2 did not run exactly %s and %s; output:\n%s", success, missing, tail(out, 4000))
	}
	firstMerge := string(artifactFile(t, artifacts, "swebench-predictions-attempt-1", "predictions.jsonl"))
	if n := strings.Count(firstMerge, "\n"); n != 4 || !strings.Contains(firstMerge, `"instance_id":"`+incomplete+`","model_patch":""`) {
		t.Errorf("attempt 1's merged predictions, with shard 2 stopped, want 4 rows:\n%s", firstMerge)
	}

	// Attempt 2: "Re-run failed jobs" runs shard 2 and the merge again.
	res = r.exec(t, Run{Repo: repo, Workflow: ".github/workflows/swebench-shards.yml", Event: "workflow_dispatch", ArtifactDir: artifacts,
		Args: append(args, "--matrix", "shard:2", "--env", "GITHUB_RUN_ATTEMPT=2"), Env: []string{"DOCKER_HOST=" + dockerHost}, Timeout: 20 * time.Minute})
	checkJobs(t, res, map[string]string{shard2: "success", "merge": "success"})
	if v := srv.Violations(); len(v) > 0 {
		t.Errorf("Responses protocol violations: %q", v)
	}
	out := res.Output(shard2)
	if !strings.Contains(out, "continuing from earlier/swebench-shard-1-attempt-1/") {
		t.Errorf("the re-run did not continue from attempt 1's artifact; output:\n%s", tail(out, 4000))
	}
	var again swebench.Manifest
	if err := json.Unmarshal(artifactFileGlob(t, artifacts, "swebench-shard-1-attempt-2", "*/run_manifest.json"), &again); err != nil {
		t.Fatal(err)
	}
	if again.Batch == nil || again.Batch.Shard != "2/2" || len(again.Batch.Resumes) != 1 || strings.Join(again.Batch.Resumes[0].Skipped, ",") != blocked {
		t.Errorf("attempt 2's manifest batch %+v: want shard 2/2 resumed once, skipping %s", again.Batch, blocked)
	}
	if names, want := strings.Join(artifactNames(t, artifacts), " "), "swebench-predictions-attempt-1 swebench-predictions-attempt-2 swebench-shard-0-attempt-1 swebench-shard-1-attempt-1 swebench-shard-1-attempt-2"; names != want {
		t.Errorf("artifacts %q, want %q", names, want)
	}

	// The merge of attempt 2, line by line.
	patch := fmt.Sprintf("diff --git a/README b/README\nindex %s..%s 100644\n--- a/README\n+++ b/README\n@@ -1 +1 @@\n-code\n+fixed code\n", gitBlob("code\n"), gitBlob("fixed code\n"))
	want := []swebench.Pred{
		{ModelNameOrPath: swebench.ModelName, InstanceID: success, ModelPatch: patch},
		{ModelNameOrPath: swebench.ModelName, InstanceID: blocked},
		{ModelNameOrPath: swebench.ModelName, InstanceID: missing},
		{ModelNameOrPath: swebench.ModelName, InstanceID: incomplete},
	}
	merged := string(artifactFile(t, artifacts, "swebench-predictions-attempt-2", "predictions.jsonl"))
	lines := strings.Split(strings.TrimSuffix(merged, "\n"), "\n")
	if len(lines) != len(want) || !strings.HasSuffix(merged, "\n") {
		t.Fatalf("merged predictions.jsonl has %d lines, want %d:\n%s\nmerge log:\n%s", len(lines), len(want), merged, tail(res.Output("merge"), 4000))
	}
	for i, w := range want {
		b, _ := json.Marshal(w)
		if lines[i] != string(b) {
			t.Errorf("predictions.jsonl line %d:\n got %s\nwant %s", i+1, lines[i], b)
		}
	}
	var m swebench.Manifest
	if err := json.Unmarshal(artifactFile(t, artifacts, "swebench-predictions-attempt-2", swebench.ManifestFile), &m); err != nil {
		t.Fatal(err)
	}
	wantStatus := map[string]string{success: "success", blocked: "failed/blocked", missing: "failed/missing_image", incomplete: "failed/no_change"}
	for id, w := range wantStatus {
		e := m.Instances[id]
		got := e.Status
		if e.FailureReasonCode != nil {
			got += "/" + string(*e.FailureReasonCode)
		}
		if got != w {
			t.Errorf("merged manifest %s: %s (%s), want %s", id, got, e.FailureReasonDetail, w)
		}
	}
	if m.Counts != (swebench.Counts{Total: 4, Success: 1, Failed: 3}) || len(m.Shards) != 2 || m.Shards[0].Shard != "1/2" || m.Shards[1].Shard != "2/2" || len(m.MergeSkipped) != 1 {
		t.Errorf("merged manifest counts %+v, shards %+v, skipped %+v: want 4 = 1+3, shards 1/2 and 2/2, attempt 1 of shard 2 skipped", m.Counts, m.Shards, m.MergeSkipped)
	}
	if log := res.Output("merge"); !strings.Contains(log, "total=4 success=1 failed=3 incomplete=0") || !strings.Contains(log, "an earlier state of shard 2/2") {
		t.Errorf("the merge job's log lacks the counts or the skipped attempt:\n%s", tail(log, 4000))
	}
}

package actrun

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/codex/fakeresponses"
	"github.com/benchgate/benchgate/internal/imagetest"
	"github.com/benchgate/benchgate/internal/swebench"
	"github.com/benchgate/benchgate/internal/swebench/swebenchtest"
	"github.com/benchgate/benchgate/internal/testenv"
)

var (
	plansDirRe  = regexp.MustCompile("`([^`]+)/SPECIFICATION\\.md`")
	patchPathRe = regexp.MustCompile("HEAD > ([^`\\s]+)`")
)

const swebenchPatch = "diff --git a/README b/README\n--- a/README\n+++ b/README\n@@ -1 +1 @@\n-code\n+fixed code\n"

// solvingAgent answers every Responses request as a model that solves
// the task would, from what the request says rather than from a fixed
// order, so that shards running at once can share one endpoint: after a
// tool result it reports done; given the plan prompt it writes the plan
// where the prompt says; given the execute prompt it writes the patch and
// archives the plan documents.
func solvingAgent(r fakeresponses.Request) []fakeresponses.Item {
	if n := len(r.Input); n > 0 && r.Input[n-1]["type"] == "function_call_output" {
		return []fakeresponses.Item{fakeresponses.Message("Done.")}
	}
	text := r.InputText()
	plans := plansDirRe.FindAllStringSubmatch(text, -1)
	if len(plans) == 0 {
		return []fakeresponses.Item{fakeresponses.Message("I cannot tell where the task is.")}
	}
	dir := plans[len(plans)-1][1]
	if m := patchPathRe.FindAllStringSubmatch(text, -1); len(m) > 0 && strings.LastIndex(text, "# Execute") > strings.LastIndex(text, "# Plan") {
		return []fakeresponses.Item{fakeresponses.Shell(fmt.Sprintf(
			"mkdir -p %[1]s/archive && mv %[1]s/SPECIFICATION.md %[1]s/EXECUTION_PLAN.md %[1]s/archive/ && printf '%[2]s' > %[3]s && echo EXECUTED",
			dir, strings.ReplaceAll(swebenchPatch, "\n", "\\n"), m[len(m)-1][1]))}
	}
	return []fakeresponses.Item{fakeresponses.Shell(fmt.Sprintf("printf '# Plan\\n1. fix README\\n' > %s/EXECUTION_PLAN.md && echo PLAN_WRITTEN", dir))}
}

// TestSwebenchShardsWorkflow runs .github/workflows/examples/swebench-
// shards.yml, two of its four shards and the merge job, on the host
// runner: the instance images are on the real Docker engine the runner's
// DOCKER_HOST names, the static Codex CLI is on its PATH and benchgate
// copies it into each instance container, and Codex talks to the
// Responses endpoint of the CODEX_BASE_URL repository variable. Each
// shard runs its one instance to a patch and uploads its run root; the
// merge job downloads them and runs `swebench merge` in the image built
// from the Dockerfile (ghcr.io/benchgate/benchgate:v1, as the example
// names it), and uploads one predictions.jsonl with both predictions.
func TestSwebenchShardsWorkflow(t *testing.T) {
	codexBin := testenv.Codex(t)
	dockerHost := testenv.DockerHost(t)
	dc := swebenchtest.Docker(t)
	root := testenv.RepoRoot(t)

	ids := []string{"apache__druid-13704", "apache__druid-14092"}
	for _, id := range ids {
		swebenchtest.ImportRealCodexImage(t, dc, swebench.ImageName(swebench.DefaultImageTemplate, id))
	}
	var script []fakeresponses.Turn
	for range 4 * len(ids) { // plan and execute, each a call and its answer after the tool
		script = append(script, fakeresponses.Turn{ItemsFrom: solvingAgent, Usage: fakeresponses.Usage{InputTokens: 1000, OutputTokens: 20}})
	}
	srv := fakeresponses.New([]string{"qwen3-coder-next-FP8"}, script...)
	defer srv.Close()

	repo := t.TempDir()
	copyTree(t, filepath.Join(root, ".github", "workflows", "examples"), filepath.Join(repo, ".github", "workflows"))
	if err := copyFile(filepath.Join(root, "examples", "swebench", "instances.jsonl"), filepath.Join(repo, "swebench", "instances.jsonl")); err != nil {
		t.Fatal(err)
	}
	gitCommitAll(t, repo)

	const image = "ghcr.io/benchgate/benchgate:v1"
	imagetest.Bases(t, dc)
	if log, err := imagetest.Build(t, image, false); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}

	r := newRunner(t, filepath.Dir(codexBin))
	artifacts := t.TempDir()
	res := r.exec(t, Run{Repo: repo, Workflow: ".github/workflows/swebench-shards.yml", Event: "workflow_dispatch", ArtifactDir: artifacts,
		Args: []string{"--matrix", "shard:1", "--matrix", "shard:2",
			"--var", "CODEX_BASE_URL=" + srv.BaseURL(), "--secret", "OPENAI_API_KEY=sk-swebench-123456"},
		Env: []string{"DOCKER_HOST=" + dockerHost}})
	checkJobs(t, res, map[string]string{"batch[shard=1]": "success", "batch[shard=2]": "success", "merge": "success"})
	if v := srv.Violations(); len(v) > 0 {
		t.Errorf("Responses protocol violations: %q", v)
	}
	for shard, id := range ids {
		name := fmt.Sprintf("swebench-%d-batch-run", shard+1)
		var pred swebench.Pred
		if err := json.Unmarshal(artifactFile(t, artifacts, name, "predictions.jsonl"), &pred); err != nil {
			t.Errorf("%s: predictions.jsonl: %v", name, err)
			continue
		}
		if pred.InstanceID != id || pred.ModelPatch != swebenchPatch {
			t.Errorf("%s: prediction %+v, want instance %s with the agent's patch; its status.json:\n%s\nbatch log:\n%s",
				name, pred, id, artifactFile(t, artifacts, name, id+"/"+id+".status.json"), tail(res.Output(fmt.Sprintf("batch[shard=%d]", shard+1)), 6000))
		}
		jobSummary(t, artifacts, name, "## benchgate swebench-batch: pass", "| "+id+" | success |")
		outs := res.Outputs(fmt.Sprintf("batch[shard=%d]", shard+1))
		if outs["status"] != "pass" || outs["artifacts"] != name || !strings.HasSuffix(outs["predictions"], "/predictions.jsonl") {
			t.Errorf("shard %d outputs status=%q artifacts=%q predictions=%q, want pass, %s and the run root's predictions.jsonl", shard+1, outs["status"], outs["artifacts"], outs["predictions"], name)
		}
	}
	if names, want := strings.Join(artifactNames(t, artifacts), " "), "swebench-1-batch-run swebench-2-batch-run swebench-predictions"; names != want {
		t.Errorf("artifacts %q, want %q: a shard's run root is one artifact, whole", names, want)
	}
	merged := string(artifactFile(t, artifacts, "swebench-predictions", "predictions.jsonl"))
	for _, id := range ids {
		if !strings.Contains(merged, `"instance_id":"`+id+`"`) && !strings.Contains(merged, `"instance_id": "`+id+`"`) {
			t.Errorf("merged predictions.jsonl lacks %s:\n%s", id, merged)
		}
	}
	out := res.Output("batch[shard=1]")
	if !strings.Contains(out, ids[0]) || strings.Contains(out, ids[1]) {
		t.Errorf("shard 1/4 did not run exactly %s; output:\n%s", ids[0], tail(out, 4000))
	}
}

package swebench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/codex"
	"github.com/benchgate/benchgate/internal/codex/fakeresponses"
	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/ralph"
	"github.com/benchgate/benchgate/internal/testenv"
)

// TestRunRealCodex runs one instance end to end with the real Codex CLI:
// the image has no codex, so the runner bootstraps the pinned binary into
// the container; the container shares the host network and reaches a
// scripted Responses API server on 127.0.0.1. The scripted model makes
// Codex write the plan, then archive the plan documents and write the
// patch, which the runner must classify as a success.
func TestRunRealCodex(t *testing.T) {
	codexBin := testenv.Codex(t)
	dc := dockerClient(t)
	const model = "qwen3-coder-next-FP8"
	id := "acme__realcodex-4242"
	dir := t.TempDir()
	out := filepath.Join(dir, "run", id)
	p := PathsFor(out, id)
	const patch = "diff --git a/README b/README\n--- a/README\n+++ b/README\n@@ -1 +1 @@\n-code\n+fixed code\n"

	srv := fakeresponses.New([]string{model},
		// plan: one tool call writing the plan, then a closing message.
		fakeresponses.Turn{
			Items: []fakeresponses.Item{fakeresponses.Shell("printf '# Plan\\n1. fix README\\n' > " + filepath.Join(p.Plans, ralph.PlanFile) + " && echo PLAN_WRITTEN")},
			Usage: fakeresponses.Usage{InputTokens: 1000, CachedTokens: 200, OutputTokens: 30, ReasoningTokens: 5},
		},
		fakeresponses.Turn{
			Items: []fakeresponses.Item{fakeresponses.Message("Plan written.")},
			Usage: fakeresponses.Usage{InputTokens: 1100, CachedTokens: 1000, OutputTokens: 4},
		},
		// execute pass 1: archive both plan documents and write the patch.
		fakeresponses.Turn{
			Items: []fakeresponses.Item{fakeresponses.Shell("mkdir -p " + filepath.Join(p.Plans, "archive") +
				" && mv " + filepath.Join(p.Plans, ralph.SpecFile) + " " + filepath.Join(p.Plans, ralph.PlanFile) + " " + filepath.Join(p.Plans, "archive") + "/" +
				" && printf '" + strings.ReplaceAll(patch, "\n", "\\n") + "' > " + p.Patch + " && echo EXECUTED")},
			Usage: fakeresponses.Usage{InputTokens: 2000, CachedTokens: 100, OutputTokens: 60, ReasoningTokens: 9},
		},
		fakeresponses.Turn{
			Items: []fakeresponses.Item{fakeresponses.Message("Done.")},
			Usage: fakeresponses.Usage{InputTokens: 2100, CachedTokens: 2000, OutputTokens: 3},
		},
	)
	defer srv.Close()

	tmpl := "sweb.eval.arm64.{id}:latest"
	importRealCodexImage(t, dc, ImageName(tmpl, id))
	prompts, err := ralph.LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{
		InstanceID: id, OutputDir: out, ManifestDir: filepath.Dir(out),
		MaxLoops: 2, PhaseTimeout: 2 * time.Minute, Prompts: prompts,
		DatasetFile: datasetFile(t, dir, id), ImageTemplate: tmpl,
		CodexBinary: codexBin,
		Provider:    &codex.Provider{BaseURL: srv.BaseURL(), Model: model},
		Env:         []string{"HOME=/root"},
		Network:     "host", Docker: dc,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	st, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer noLeaks(t, dc, out)
	if st.Status != ralph.StatusSuccess {
		logs, _ := os.ReadDir(p.Logs)
		for _, l := range logs {
			b, _ := os.ReadFile(filepath.Join(p.Logs, l.Name()))
			t.Logf("--- %s\n%s", l.Name(), b)
		}
		t.Fatalf("status %s (%v): %s; violations %q", st.Status, st.FailureReasonCode, st.FailureReasonDetail, srv.Violations())
	}
	if v := srv.Violations(); len(v) > 0 {
		t.Errorf("protocol violations: %q", v)
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d scripted turns unused", srv.Remaining())
	}

	// The agent's files, written by real commands inside the container.
	for _, f := range []string{ralph.SpecFile, ralph.PlanFile} {
		if _, err := os.Stat(filepath.Join(p.Plans, "archive", f)); err != nil {
			t.Errorf("plan document not archived: %v", err)
		}
	}
	if b, _ := os.ReadFile(p.Patch); string(b) != patch {
		t.Errorf("%s = %q, want %q", p.Patch, b, patch)
	}
	var pred Pred
	readJSON(t, p.Pred, &pred)
	if pred != (Pred{ModelNameOrPath: "qwen3-coder-next-FP8,codex,ralph", InstanceID: id, ModelPatch: patch}) {
		t.Errorf(".pred = %+v", pred)
	}

	// status.json: the outcome and the tokens Codex reported per phase.
	var got Status
	readJSON(t, p.Status, &got)
	if got.Status != "success" || got.FailureReasonCode != nil || got.ExecutePasses != 1 {
		t.Errorf("status.json: status %q code %v passes %d", got.Status, got.FailureReasonCode, got.ExecutePasses)
	}
	wantPhases := []struct {
		phase ralph.Phase
		usage ralph.Usage
	}{
		{ralph.PhasePlan, ralph.Usage{InputTokens: 2100, CachedInputTokens: 1200, OutputTokens: 34, ReasoningOutputTokens: 5}},
		{ralph.PhaseExecute, ralph.Usage{InputTokens: 4100, CachedInputTokens: 2100, OutputTokens: 63, ReasoningOutputTokens: 9}},
	}
	if len(got.Phases) != len(wantPhases) {
		t.Fatalf("status.json has %d phases, want %d: %+v", len(got.Phases), len(wantPhases), got.Phases)
	}
	for i, w := range wantPhases {
		ph := got.Phases[i]
		if ph.Phase != w.phase || ph.Usage != w.usage || ph.ExitCode != 0 || ph.Failed {
			t.Errorf("phase %d = %+v, want %s with usage %+v", i, ph, w.phase, w.usage)
		}
		if len(ph.ThreadID) != 36 {
			t.Errorf("phase %d thread id %q", i, ph.ThreadID)
		}
	}
	if got.Phases[0].ThreadID == got.Phases[1].ThreadID {
		t.Error("execute reused the plan session; it must start a new one")
	}
	if want := (ralph.Usage{InputTokens: 6200, CachedInputTokens: 3300, OutputTokens: 97, ReasoningOutputTokens: 14}); got.Usage != want {
		t.Errorf("status.json usage %+v, want %+v", got.Usage, want)
	}

	// What Codex sent: the rendered prompts, from inside the container.
	reqs := srv.ResponseRequests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	if !strings.Contains(reqs[0].InputText(), "Fix the bug in "+id) && !strings.Contains(reqs[0].InputText(), p.Plans) {
		t.Errorf("the plan prompt names neither the problem nor the plans folder:\n%s", reqs[0].InputText())
	}
	if outs := reqs[3].FunctionOutputs(); len(outs) != 1 || !strings.Contains(outs[0], "EXECUTED") {
		t.Errorf("execute tool output %q", outs)
	}

	// The manifest records the instance.
	var m struct {
		Instances map[string]struct{ Status string } `json:"instances"`
	}
	readJSON(t, filepath.Join(o.ManifestDir, "run_manifest.json"), &m)
	if m.Instances[id].Status != "success" {
		t.Errorf("run_manifest.json: %+v", m.Instances)
	}
}

// importRealCodexImage builds an instance image without codex: static
// busybox with the applets the scripted commands use, a bash shim (Codex
// runs commands with `bash -lc`; SWE-bench images have a real bash) and a
// root account.
func importRealCodexImage(t testing.TB, dc *container.Client, ref string) {
	t.Helper()
	bb, err := os.ReadFile(testenv.Busybox(t))
	if err != nil {
		t.Fatal(err)
	}
	files := []container.File{
		{Path: "/bin/busybox", Mode: 0o755, Data: bb},
		{Path: "/bin/bash", Mode: 0o755, Data: []byte("#!/bin/sh\nexec /bin/sh \"$@\"\n")},
		{Path: "/etc/passwd", Mode: 0o644, Data: []byte("root:x:0:0:root:/root:/bin/bash\n")},
		{Path: "/etc/group", Mode: 0o644, Data: []byte("root:x:0:\n")},
		{Path: "/root/.keep"},
		{Path: "/testbed/README", Data: []byte("code\n")},
		{Path: "/tmp/.keep"},
	}
	var base bytes.Buffer
	if err := container.WriteTar(&base, files); err != nil {
		t.Fatal(err)
	}
	var rootfs bytes.Buffer
	applets := []string{"sh", "sleep", "cat", "ls", "mv", "mkdir", "rm", "echo", "printf", "cp", "kill", "chmod", "test", "env", "pwd", "uname", "id", "head", "tail", "grep", "sed", "tr", "wc", "which"}
	if err := writeTarWithLinks(&rootfs, base.Bytes(), applets); err != nil {
		t.Fatal(err)
	}
	if err := dc.ImageImport(context.Background(), &rootfs, ref, "ENV PATH=/usr/local/bin:/usr/bin:/bin", "WORKDIR /testbed"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.ImageRemove(context.Background(), ref) })
}

var _ = json.Marshal

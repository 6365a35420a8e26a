package swebench

import (
	"context"
	"debug/elf"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/ralph"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestRunEndToEnd drives the single-instance runner against the real
// engine with the fake codex in tiny images named like the real ones.
func TestRunEndToEnd(t *testing.T) {
	dc := dockerClient(t)
	tests := []struct {
		name       string
		scenario   string
		image      string // "codex", "bare", "nogit" or "" (missing)
		bootstrap  string // "", "fake" or "broken"
		owner      string
		maxLoops   int
		timeout    time.Duration
		idle       time.Duration
		wantStatus string
		wantCode   string
		wantDetail string
		wantPatch  bool
		wantPhases int
		wantCheck  string // patch_check
	}{
		{name: "success", scenario: "success", image: "codex", owner: "4321:4321", wantStatus: "success", wantPatch: true, wantPhases: 2, wantCheck: "applies"},
		{name: "success, and the agent committed its change", scenario: "commit", image: "codex", wantStatus: "success", wantPatch: true, wantPhases: 2, wantCheck: "applies"},
		{name: "success on pass 2", scenario: "success", image: "codex", wantStatus: "success", wantPatch: true, wantPhases: 4, wantCheck: "applies"},
		{name: "blocked", scenario: "blocked", image: "codex", wantStatus: "failed", wantCode: "blocked", wantDetail: "toolchain is missing", wantPhases: 2},
		{name: "incomplete at the loop budget", scenario: "noop", image: "codex", maxLoops: 2, wantStatus: "incomplete", wantCode: "incomplete", wantDetail: "after 2 execute passes", wantPhases: 5},
		{name: "archived without a change", scenario: "archive_no_patch", image: "codex", wantStatus: "failed", wantCode: "no_change", wantDetail: "its final tree in /testbed equals the base commit", wantPhases: 2},
		{name: "missing image", scenario: "success", image: "", wantStatus: "failed", wantCode: "missing_image", wantDetail: "is not present"},
		{name: "bootstrap", scenario: "success", image: "bare", bootstrap: "fake", wantStatus: "success", wantPatch: true, wantPhases: 2, wantCheck: "applies"},
		{name: "bootstrap without binary", scenario: "success", image: "bare", wantStatus: "failed", wantCode: "codex_bootstrap_failed", wantDetail: "no --codex-binary"},
		{name: "bootstrap with a broken binary", scenario: "success", image: "bare", bootstrap: "broken", wantStatus: "failed", wantCode: "codex_bootstrap_failed", wantDetail: "does not run"},
		{name: "bootstrap with a binary for another architecture", scenario: "success", image: "bare", bootstrap: "foreign", wantStatus: "failed", wantCode: "codex_bootstrap_failed", wantDetail: "codex --version exited 1: exec /opt/benchgate/bin/codex: exec format error (the binary is built for EM_VAX, the image is amd64: use the Codex CLI built for the image's platform"},
		{name: "bootstrap with a binary that fails silently", scenario: "success", image: "bare", bootstrap: "silent", wantStatus: "failed", wantCode: "codex_bootstrap_failed", wantDetail: "codex --version exited 3 with no output"},
		{name: "a patch file that is no diff, and no change", scenario: "badpatch", image: "codex", wantStatus: "failed", wantCode: "no_change", wantDetail: "equals the base commit", wantPhases: 2},
		{name: "a patch file of lines the code does not have, and no change", scenario: "badcontext", image: "codex", wantStatus: "failed", wantCode: "no_change", wantDetail: "(its patch file /", wantPhases: 2},
		{name: "no git in the image", scenario: "handpatch", image: "nogit", wantStatus: "failed", wantCode: "runtime_error", wantDetail: "the prediction could not be computed from the final tree: git is not available in the image (exit 126: OCI runtime exec failed", wantPhases: 2, wantCheck: "not_checked"},
		{name: "codex crash", scenario: "crash", image: "codex", wantStatus: "failed", wantCode: "runtime_error", wantDetail: "exited with code 3: stream disconnected", wantPhases: 2},
		{name: "phase timeout", scenario: "hang", image: "codex", timeout: 2 * time.Second, wantStatus: "failed", wantCode: "runtime_error", wantDetail: "execute pass 1: phase timed out after its limit of 2s (--phase-timeout)", wantPhases: 2},
		{name: "no progress: only retry notices", scenario: "retrying", image: "codex", idle: time.Second, wantStatus: "failed", wantCode: "runtime_error",
			wantDetail: "plan: no progress from codex for 1s (--idle-timeout): the model endpoint does not answer; codex said: Reconnecting... waiting for network", wantPhases: 1},
		{name: "a command longer than the idle timeout", scenario: "longcommand", image: "codex", idle: time.Second, wantStatus: "success", wantPatch: true, wantPhases: 2, wantCheck: "applies"},
		{name: "plan writes no plan", scenario: "noplan", image: "codex", wantStatus: "failed", wantCode: "runtime_error", wantDetail: "without writing", wantPhases: 1},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			id := "acme__widget" + strings.Repeat("x", i) + "-100"
			tmpl := "sweb.eval.arm64.{id}:latest"
			switch tc.image {
			case "codex", "bare":
				importImage(t, dc, ImageName(tmpl, id), tc.image == "codex")
			case "nogit":
				swebenchtest.ImportImageWithoutGit(t, dc, ImageName(tmpl, id))
			}
			o := baseOptions(t, dc, datasetFile(t, dir, id), tmpl, tc.scenario)
			o.InstanceID, o.OutputDir = id, filepath.Join(dir, "out", id)
			if tc.maxLoops > 0 {
				o.MaxLoops = tc.maxLoops
			}
			o.Owner = tc.owner
			if tc.timeout > 0 {
				o.PhaseTimeout = tc.timeout
			}
			o.IdleTimeout = tc.idle
			if tc.scenario == "longcommand" {
				o.Env = append(o.Env, "FAKE_CODEX_COMMAND_TIME=3s")
			}
			if tc.name == "success on pass 2" {
				o.Env = append(o.Env, "FAKE_CODEX_PASS=2")
			}
			switch tc.bootstrap {
			case "fake":
				o.CodexBinary = fakeCodex(t)
			case "silent":
				o.CodexBinary = filepath.Join(dir, "codex-silent")
				if err := os.WriteFile(o.CodexBinary, []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			case "foreign":
				// A static program whose ELF header names a machine no
				// kernel here runs and no emulator is registered for, as
				// the x86_64 codex is on an arm64 runner without qemu.
				b, err := os.ReadFile(testenv.Busybox(t))
				if err != nil {
					t.Fatal(err)
				}
				b[18], b[19] = byte(elf.EM_VAX), 0
				o.CodexBinary = filepath.Join(dir, "codex-foreign")
				if err := os.WriteFile(o.CodexBinary, b, 0o755); err != nil {
					t.Fatal(err)
				}
			case "broken":
				o.CodexBinary = filepath.Join(dir, "codex-broken")
				if err := os.WriteFile(o.CodexBinary, []byte("not a program"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			st, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			noLeaks(t, dc, LabelOutputDir+"="+o.OutputDir)
			code := ""
			if st.FailureReasonCode != nil {
				code = string(*st.FailureReasonCode)
			}
			if st.Status != tc.wantStatus || code != tc.wantCode {
				t.Fatalf("status %s/%s (%s), want %s/%s", st.Status, code, st.FailureReasonDetail, tc.wantStatus, tc.wantCode)
			}
			if !strings.Contains(st.FailureReasonDetail, tc.wantDetail) {
				t.Errorf("detail %q does not contain %q", st.FailureReasonDetail, tc.wantDetail)
			}
			if idled := len(st.Phases) > 0 && st.Phases[len(st.Phases)-1].IdleTimeout; idled != (tc.scenario == "retrying") {
				t.Errorf("last phase idle_timed_out %v, want %v", idled, tc.scenario == "retrying")
			}
			if st.PatchCheck != tc.wantCheck {
				t.Errorf("patch_check %q, want %q", st.PatchCheck, tc.wantCheck)
			}
			if len(st.Phases) != tc.wantPhases {
				t.Errorf("%d phases, want %d", len(st.Phases), tc.wantPhases)
			}
			p := PathsFor(o.OutputDir, id)
			var disk map[string]any
			readJSON(t, p.Status, &disk)
			for _, k := range []string{"instance_id", "status", "failure_reason_code", "failure_reason_detail", "error_log"} {
				if _, ok := disk[k]; !ok {
					t.Errorf("status.json lacks %q", k)
				}
			}
			if tc.wantCode == "" && disk["failure_reason_code"] != nil {
				t.Errorf("failure_reason_code on success is %v, want null", disk["failure_reason_code"])
			}
			if st.Status == ralph.StatusFailed {
				if b, err := os.ReadFile(st.ErrorLog); err != nil || len(b) == 0 {
					t.Errorf("error_log %q of a failed run: %v (%d bytes)", st.ErrorLog, err, len(b))
				}
			}
			var pred Pred
			readJSON(t, p.Pred, &pred)
			if pred.ModelNameOrPath != ModelName || pred.InstanceID != id {
				t.Errorf("pred %+v", pred)
			}
			if got := pred.ModelPatch != ""; got != tc.wantPatch {
				t.Errorf("pred has patch %v, want %v", got, tc.wantPatch)
			}
			if _, err := os.Stat(p.Patch); err != nil {
				t.Errorf("patch file: %v", err)
			}
			var m Manifest
			readJSON(t, filepath.Join(o.OutputDir, ManifestFile), &m)
			if e := m.Instances[id]; e.Status != tc.wantStatus || m.Counts.Total != 1 || m.Codex.Profile != "local" {
				t.Errorf("manifest entry %+v counts %+v codex %+v", e, m.Counts, m.Codex)
			}
			if tc.wantPhases > 0 && st.Usage.InputTokens != int64(100*tc.wantPhases) && tc.scenario != "hang" && tc.scenario != "crash" && tc.scenario != "retrying" {
				t.Errorf("usage %+v over %d phases, want %d input tokens", st.Usage, tc.wantPhases, 100*tc.wantPhases)
			}
			if st.Status == ralph.StatusSuccess {
				assertCalls(t, o.OutputDir)
				assertGitDiff(t, dc, ImageName(tmpl, id), pred.ModelPatch)
				// The agent wrote its patch with the prompt's command: the
				// same bytes as the prediction computed from its tree.
				if st.AgentPatch != AgentPatchSame {
					t.Errorf("agent_patch %q, want %q", st.AgentPatch, AgentPatchSame)
				}
			}
			if tc.owner != "" {
				// Files the agent created as root belong to the owner.
				fi, err := os.Stat(filepath.Join(o.OutputDir, "plans", "archive", "EXECUTION_PLAN.md"))
				if err != nil {
					t.Fatal(err)
				}
				if sys, ok := fi.Sys().(*syscall.Stat_t); !ok || sys.Uid != 4321 || sys.Gid != 4321 {
					t.Errorf("archived plan owned by %v, want 4321:4321", fi.Sys())
				}
			}
		})
	}
}

// assertCalls checks the fake codex saw `exec -p local --json`, and that
// every handoff resumed the thread of the execute pass before it.
func assertCalls(t *testing.T, out string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "fake_calls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, l := range lines {
		if !strings.Contains(l, `"argv":["exec","-p","local","--json"`) {
			t.Errorf("codex call is not `exec -p local --json`: %s", l)
		}
		if strings.Contains(l, `"phase":"handoff"`) && !strings.Contains(l, `"resume":"thread-execute-`) {
			t.Errorf("handoff did not resume the execute thread: %s", l)
		}
	}
}

// assertGitDiff checks that the prediction is the diff the execute
// prompt's command writes with the real git (the fake agent changed f from
// "old" to "new"), and that it applies to a fresh container of the image.
func assertGitDiff(t *testing.T, dc *container.Client, image, patch string) {
	t.Helper()
	if !strings.HasPrefix(patch, "diff --git a/f b/f\nindex ") || !strings.HasSuffix(patch, "\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new\n") {
		t.Errorf("model_patch is not git's diff of f:\n%s", patch)
	}
	if !regexp.MustCompile(`\nindex [0-9a-f]{40}\.\.[0-9a-f]{40} 100644\n`).MatchString(patch) {
		t.Errorf("model_patch lacks the full index line of --full-index:\n%s", patch)
	}
	var out strings.Builder
	code := swebenchtest.RunInImage(t, dc, image, &out, []container.File{{Path: "/tmp/p.diff", Data: []byte(patch)}},
		"sh", "-c", "git apply /tmp/p.diff && cat f")
	if code != 0 || out.String() != "new\n" {
		t.Errorf("the prediction does not apply to a fresh container of %s: exit %d: %s", image, code, out.String())
	}
}

package swebench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/testenv"
)

// attackerCodex is a `codex` that does what a hostile or confused agent
// could do in its container: plant symbolic links in the bind-mounted
// output folder, pointing at host paths, for benchgate to follow on the
// host. ATTACK picks the link: "log" links the next phase's event log to
// a host file (benchgate would overwrite it), "patch" links the patch to
// a root-only host file and claims success (benchgate would publish it).
const attackerCodex = `#!/bin/sh
case "$1" in --version) echo "codex-cli 0.169.0 (attacker)"; exit 0;; esac
echo '{"type":"thread.started","thread_id":"t-'"$SWE_BENCH_RUNTIME_PHASE"'"}'
echo '{"type":"turn.started"}'
if [ "$SWE_BENCH_RUNTIME_PHASE" = plan ]; then
  echo "1. fix" > "$SWE_BENCH_PLANS_DIR/EXECUTION_PLAN.md"
  if [ "$ATTACK" = log ]; then
    ln -sf "$VICTIM" "$SWE_BENCH_OUTPUT_DIR/logs/codex_execute_1.jsonl"
  fi
else
  if [ "$ATTACK" = patch ]; then
    ln -sf "$SECRET" "$SWE_BENCH_PATCH_PATH"
  fi
  mkdir -p "$SWE_BENCH_PLANS_DIR/archive"
  mv "$SWE_BENCH_PLANS_DIR/SPECIFICATION.md" "$SWE_BENCH_PLANS_DIR/EXECUTION_PLAN.md" "$SWE_BENCH_PLANS_DIR/archive/"
fi
echo '{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0}}'
`

func importAttackerImage(t *testing.T, dc *container.Client, ref string) {
	t.Helper()
	bb, err := os.ReadFile(testenv.Busybox(t))
	if err != nil {
		t.Fatal(err)
	}
	var base bytes.Buffer
	files := []container.File{{Path: "/bin/busybox", Mode: 0o755, Data: bb}, {Path: "/testbed/README", Data: []byte("code\n")}, {Path: "/tmp/.keep"},
		{Path: "/usr/local/bin/codex", Mode: 0o755, Data: []byte(attackerCodex)}}
	if err := container.WriteTar(&base, files); err != nil {
		t.Fatal(err)
	}
	var rootfs bytes.Buffer
	if err := writeTarWithLinks(&rootfs, base.Bytes(), []string{"sh", "sleep", "cat", "ln", "mv", "mkdir", "echo", "chown"}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := dc.ImageImport(ctx, &rootfs, ref, "ENV PATH=/usr/local/bin:/usr/bin:/bin", "WORKDIR /testbed", `CMD ["/bin/sh"]`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.ImageRemove(context.Background(), ref) })
}

// TestAgentLinksNeverReachTheHost runs the attacker agent in a real
// container: no host file is written through its links, no host file's
// content reaches the patch or the prediction, and the instance fails
// with a detail that names the refused link.
func TestAgentLinksNeverReachTheHost(t *testing.T) {
	dc := dockerClient(t)
	host := t.TempDir()
	victim := filepath.Join(host, "authorized_keys")
	secret := filepath.Join(host, "id_rsa")
	if err := os.WriteFile(victim, []byte("host file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("-----BEGIN PRIVATE KEY----- host secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tmpl := "sweb.eval.arm64.{id}:attacker"
	for i, attack := range []string{"log", "patch"} {
		t.Run(attack, func(t *testing.T) {
			dir := t.TempDir()
			id := "evil__agent" + strings.Repeat("x", i) + "-1"
			importAttackerImage(t, dc, ImageName(tmpl, id))
			o := baseOptions(t, dc, datasetFile(t, dir, id), tmpl, "")
			o.Env = []string{"ATTACK=" + attack, "VICTIM=" + victim, "SECRET=" + secret}
			o.InstanceID, o.OutputDir = id, filepath.Join(dir, "out", id)
			st, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(victim); string(b) != "host file\n" {
				t.Fatalf("the host file was overwritten through the agent's link: %q", b)
			}
			p := PathsFor(o.OutputDir, id)
			for _, f := range []string{p.Pred, p.Patch, p.Status} {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if bytes.Contains(b, []byte("host secret")) {
					t.Fatalf("%s holds the host secret:\n%s", f, b)
				}
			}
			if info, err := os.Lstat(p.Patch); err != nil || info.Mode()&os.ModeSymlink != 0 {
				t.Errorf("the patch is still a link after the run: %v", err)
			}
			if st.Status != "failed" || !strings.Contains(st.FailureReasonDetail, "symbolic link") {
				t.Errorf("status %s detail %q, want failed naming the symbolic link", st.Status, st.FailureReasonDetail)
			}
		})
	}
}

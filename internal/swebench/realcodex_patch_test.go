package swebench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/ralph"
	"github.com/benchgate/benchgate/internal/testsupport/fakeresponses"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
)

// TestRunRealCodexPatchKinds runs the real Codex CLI (bootstrapped into
// images with Debian's git, bash and GNU patch) over edits whose patches
// the harness treats differently from `git apply --cached`: the scripted
// model's shell commands make the change and write the patch with the
// execute prompt's own git diff command. Each success's .pred applies in
// a fresh container as the harness applies it; the others are named
// failures with an empty prediction.
func TestRunRealCodexPatchKinds(t *testing.T) {
	rc := swebenchtest.NewRealCodex(t)
	markup := `for ((i=0; i<110000; i++)); do printf '<div class="row" data-i="%d"><a href="/x?a=1&b=2">&lt;item&gt;</a></div>\n' $i; done > /testbed/page.html && git -C /testbed add -N page.html`
	tests := []struct {
		name, edit, after string
		untracked         map[string]string
		check, detail     string
		applied           string // what the check command prints once the harness applied the row
		agentPatch        string // agent_patch of a success
	}{
		{name: "a Latin-1 file", edit: `printf 'caf\351 cr\350me\n' > /testbed/README`, check: PatchNotUTF8, detail: "(in the diff of README) holds bytes of another encoding"},
		{name: "8 MB of markup", edit: `printf 'fixed code\n' > /testbed/README && ` + markup, check: PatchApplies, applied: "page=110000", agentPatch: AgentPatchSame},
		// The agent's patch file is its own: the prediction is computed
		// from its tree, so CRLF line ends in the file and build output a
		// `git add -N .` put in it are no longer in the prediction.
		{name: "CRLF line ends", edit: `printf 'fixed code\n' > /testbed/README`, after: ` && sed -i "s/\$/$(printf '\r')/" PATCH`, check: PatchApplies, applied: "readme=fixed code", agentPatch: AgentPatchDiffers},
		{name: "git add -N . over build output", edit: `printf 'fixed code\n' > /testbed/README && git -C /testbed add -N .`, untracked: map[string]string{"build/out.o": "built\n"},
			check: PatchApplies, applied: "readme=fixed code", agentPatch: AgentPatchDiffers},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := "acme__realpatch-" + string(rune('1'+i)) + "00"
			dir := t.TempDir()
			out := filepath.Join(dir, "run", id)
			p := PathsFor(out, id)
			cmd := rc.ExecuteCommand(t, p.Plans, p.Patch, tc.edit, strings.ReplaceAll(tc.after, "PATCH", p.Patch))
			srv := fakeresponses.New([]string{swebenchtest.RealCodexModel}, swebenchtest.Script(p.Plans, "# Plan\\n1. fix README\\n", cmd)...)
			defer srv.Close()
			image := ImageName(realCodexImages, id)
			swebenchtest.ImportImageWithUntracked(t, rc.Docker, image, false, tc.untracked)
			o := realCodexOptions(t, rc, dir, id, srv.BaseURL())
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			st, err := Run(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			swebenchtest.NoLeaks(t, rc.Docker, LabelInstance+"="+id)
			if st.PatchCheck != tc.check || !strings.Contains(st.FailureReasonDetail, tc.detail) {
				log, _ := os.ReadFile(filepath.Join(p.Logs, "runner.log"))
				t.Fatalf("%s patch_check=%s detail %q; want %s with %q; violations %q\n%s", st.Status, st.PatchCheck, st.FailureReasonDetail, tc.check, tc.detail, srv.Violations(), log)
			}
			pred, err := os.ReadFile(p.Pred)
			if err != nil {
				t.Fatal(err)
			}
			row, err := DecodePred(pred, id)
			if err != nil {
				t.Fatal(err)
			}
			if tc.check != PatchApplies {
				if st.Status != ralph.StatusFailed || row.ModelPatch != "" {
					t.Errorf("status %s, model_patch of %d bytes; want failed and an empty prediction", st.Status, len(row.ModelPatch))
				}
				return
			}
			patch, _ := os.ReadFile(p.Patch)
			if st.Status != ralph.StatusSuccess || st.AgentPatch != tc.agentPatch || (row.ModelPatch == string(patch)) != (tc.agentPatch == AgentPatchSame) {
				t.Fatalf("status %s, agent_patch %q (want %q); model_patch of %d bytes, the agent's patch of %d", st.Status, st.AgentPatch, tc.agentPatch, len(row.ModelPatch), len(patch))
			}
			if strings.Contains(row.ModelPatch, "\r") || strings.Contains(row.ModelPatch, "build/out.o") {
				t.Errorf("model_patch holds CRLF line ends or the image's build output:\n%.2000s", row.ModelPatch)
			}
			code, applied := swebenchtest.ApplyAsHarness(t, rc.Docker, image, []byte(row.ModelPatch),
				`echo "readme=$(cat /testbed/README)"; [ -f /testbed/page.html ] && echo "page=$(grep -c '<div' /testbed/page.html)"; true`)
			if code != 0 || !strings.Contains(applied, tc.applied) {
				t.Errorf("the .pred's model_patch applied as the harness applies it: exit %d, want output with %q:\n%.3000s", code, tc.applied, applied)
			}
		})
	}
}

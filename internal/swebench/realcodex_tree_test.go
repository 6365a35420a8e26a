package swebench

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/ralph"
	"github.com/benchgate/benchgate/internal/testsupport/fakeresponses"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"

	"github.com/benchgate/benchgate/internal/failcode"
)

// treeFingerprint prints the tree of /testbed as the reproduction must
// keep it: every file and link (no .git, no ignored build/), with its
// exec bit and content hash, or its link target.
const treeFingerprint = `cd /testbed && find . -name .git -prune -o -path ./build -prune -o ! -type d -print | LC_ALL=C sort | while IFS= read -r f; do ` +
	`if [ -L "$f" ]; then echo "L $f -> $(readlink "$f")"; else x=-; [ -x "$f" ] && x=x; echo "F $x $(md5sum < "$f" | cut -c1-32) $f"; fi; done`

// TestRunRealCodexTreeBehaviours runs the real Codex CLI (bootstrapped
// into images with Debian's git, bash and GNU patch) over what agents do
// with git and files: the scripted model's shell command changes the
// tree, writes its patch file with the execute prompt's own command and
// archives the plans. The prediction is computed from the final tree, so
// each success's model_patch, applied in a fresh container as the
// harness applies it, leaves the tree the agent left (the fingerprint
// the agent's command printed). A tree equal to the base is no_change.
func TestRunRealCodexTreeBehaviours(t *testing.T) {
	rc := swebenchtest.NewRealCodex(t)
	const commit = "git -c user.name=agent -c user.email=agent@example.com commit -q"
	tests := []struct {
		name string
		// edit runs in /testbed before the patch file is written; after
		// runs after it.
		edit, after string
		noChange    bool
		agentPatch  string
		ignored     []string
		nested      []string
		inPatch     string // text the prediction must hold
	}{
		{name: "commit once", edit: "printf 'new\\n' > f && " + commit + "am fix", agentPatch: AgentPatchNone},
		{name: "commit twice then edit", edit: "printf 'one\\n' > f && " + commit + "am 1 && printf 'two\\n' >> f && " + commit + "am 2 && printf 'docs\\n' > README",
			agentPatch: AgentPatchDiffers, inPatch: "+one\n+two\n"},
		{name: "new branch", edit: "git checkout -qb fix && printf 'new\\n' > f && " + commit + "am fix", agentPatch: AgentPatchNone},
		{name: "stash after writing the patch", edit: "printf 'new\\n' > f", after: " && git -c user.name=a -c user.email=a@example.com stash -q", noChange: true, agentPatch: AgentPatchDiffers},
		{name: "reset after writing the patch", edit: "printf 'new\\n' > f", after: " && git reset -q --hard", noChange: true, agentPatch: AgentPatchDiffers},
		{name: "git mv", edit: "git mv f g && printf 'more\\n' >> g", agentPatch: AgentPatchSame, inPatch: "new file mode 100644"},
		{name: "plain mv", edit: "mv f g", agentPatch: AgentPatchDiffers, inPatch: "diff --git a/g b/g\nnew file mode 100644"},
		{name: "delete", edit: "rm README", agentPatch: AgentPatchSame, inPatch: "deleted file mode 100644"},
		{name: "chmod", edit: "chmod +x f", agentPatch: AgentPatchSame, inPatch: "new mode 100755"},
		{name: "symlink", edit: "ln -s f link && git add -N link", agentPatch: AgentPatchSame, inPatch: "new file mode 120000"},
		{name: "binary file", edit: "printf '\\000\\001\\002\\377' > bin.dat && git add -N bin.dat", agentPatch: AgentPatchSame, inPatch: "GIT binary patch"},
		{name: "names with spaces and non-ASCII", edit: "printf 'a\\n' > 'with space.txt' && printf 'b\\n' > 'café.txt' && git add -N .", agentPatch: AgentPatchSame,
			inPatch: `"b/caf\303\251.txt"`},
		{name: "no newline at end of file", edit: "printf 'new' > f", agentPatch: AgentPatchSame, inPatch: "\\ No newline at end of file"},
		{name: "ignored folder", edit: "printf 'build/\\n' > .gitignore && mkdir -p build && printf 'obj\\n' > build/out.o && printf 'new\\n' > f && git add -N .gitignore",
			agentPatch: AgentPatchSame, ignored: []string{"build/out.o"}},
		{name: "nested repository", edit: "mkdir dep && git -C dep init -q && printf 'lib\\n' > dep/lib.py && git -C dep add lib.py && git -C dep -c user.name=a -c user.email=a@example.com commit -qm lib && printf 'new\\n' > f",
			agentPatch: AgentPatchDiffers, nested: []string{"dep"}, inPatch: "diff --git a/dep/lib.py b/dep/lib.py\nnew file mode 100644"},
		{name: "tests-only edits", edit: "mkdir -p tests && printf 'def test_x():\\n    assert True\\n' > tests/test_x.py", agentPatch: AgentPatchNone, inPatch: "b/tests/test_x.py"},
		{name: "detached HEAD", edit: "git checkout -q --detach && printf 'new\\n' > f && " + commit + "am fix", agentPatch: AgentPatchNone},
		{name: "diff.noprefix", edit: "git config diff.noprefix true && printf 'new\\n' > f", agentPatch: AgentPatchDiffers, inPatch: "diff --git a/f b/f"},
		{name: "core.autocrlf", edit: "git config core.autocrlf true && printf 'new\\r\\n' > f", agentPatch: AgentPatchDiffers, inPatch: "+new\r\n"},
		{name: "diff.context=0", edit: "git config diff.context 0 && printf 'new\\n' >> f", agentPatch: AgentPatchDiffers, inPatch: "@@ -1"},
		{name: "clean filter set by the agent", edit: "git config filter.up.clean 'tr a-z A-Z' && printf 'f filter=up\\n' > .gitattributes && printf 'hello\\n' > f && git add -N .gitattributes",
			agentPatch: AgentPatchDiffers, inPatch: "+hello\n"},
		{name: "user name set", edit: "git config user.name Agent && git config user.email agent@example.com && printf 'new\\n' > f && git commit -qam fix", agentPatch: AgentPatchNone},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			id := "acme__tree-" + strconv.Itoa(100+i)
			dir := t.TempDir()
			out := filepath.Join(dir, "run", id)
			p := PathsFor(out, id)
			fingerprint := filepath.Join(out, "tree.txt")
			cmd := rc.ExecuteCommand(t, p.Plans, p.Patch, "cd /testbed && "+tc.edit, tc.after+" && ("+treeFingerprint+") > "+fingerprint)
			srv := fakeresponses.New([]string{swebenchtest.RealCodexModel}, swebenchtest.Script(p.Plans, "# Plan\\n1. fix f\\n", cmd)...)
			defer srv.Close()
			image := ImageName(realCodexImages, id)
			swebenchtest.ImportRealCodexImage(t, rc.Docker, image)
			o := realCodexOptions(t, rc, dir, id, srv.BaseURL())
			o.PhaseTimeout = 3 * time.Minute
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			st, err := Run(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			swebenchtest.NoLeaks(t, rc.Docker, LabelInstance+"="+id)
			log, _ := os.ReadFile(filepath.Join(p.Logs, "runner.log"))
			code := ""
			if st.FailureReasonCode != nil {
				code = string(*st.FailureReasonCode)
			}
			wantStatus, wantCode := ralph.StatusSuccess, ""
			if tc.noChange {
				wantStatus, wantCode = ralph.StatusFailed, string(failcode.NoChange)
			}
			if st.Status != wantStatus || code != wantCode || st.AgentPatch != tc.agentPatch {
				t.Fatalf("status %s/%s agent_patch %q patch_check %q: %s; want %s/%s agent_patch %q; violations %q\n%s",
					st.Status, code, st.AgentPatch, st.PatchCheck, st.FailureReasonDetail, wantStatus, wantCode, tc.agentPatch, srv.Violations(), log)
			}
			if !reflect.DeepEqual(st.IgnoredNewFiles, tc.ignored) || !reflect.DeepEqual(st.NestedRepositories, tc.nested) {
				t.Errorf("ignored_new_files %q nested_repositories %q, want %q and %q", st.IgnoredNewFiles, st.NestedRepositories, tc.ignored, tc.nested)
			}
			pred, err := os.ReadFile(p.Pred)
			if err != nil {
				t.Fatal(err)
			}
			row, err := DecodePred(pred, id)
			if err != nil {
				t.Fatal(err)
			}
			if tc.noChange {
				if row.ModelPatch != "" {
					t.Errorf("a tree equal to the base has a prediction of %d bytes", len(row.ModelPatch))
				}
				return
			}
			if st.PatchCheck != PatchApplies || !strings.Contains(row.ModelPatch, tc.inPatch) || strings.Contains(row.ModelPatch, "Subproject commit") {
				t.Errorf("patch_check %q; model_patch lacks %q (or holds a gitlink):\n%s", st.PatchCheck, tc.inPatch, row.ModelPatch)
			}
			want, err := os.ReadFile(fingerprint)
			if err != nil || len(want) == 0 {
				t.Fatalf("the agent's tree fingerprint: %v (%d bytes)\n%s", err, len(want), log)
			}
			rc, applied := swebenchtest.ApplyAsHarness(t, rc.Docker, image, []byte(row.ModelPatch), "echo ===; "+treeFingerprint)
			_, got, _ := strings.Cut(applied, "===\n")
			if rc != 0 || got != string(want) {
				t.Errorf("the harness's apply of model_patch exited %d and left the tree\n%s\nthe agent left\n%s\nmodel_patch:\n%s", rc, applied, want, row.ModelPatch)
			}
		})
	}
}

package swebench

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestTreeScriptHostGit runs the prediction's own script (treePrelude,
// a temporary index, treeDiffArgs) with the host's git on what agents
// and repositories do to names, file kinds and git config, then applies
// the prediction at the base commit of a clone with the harness's first
// command that exits 0 (git apply --verbose unless said) and requires the
// clone's files (bytes, exec bits, link targets) to be the agent's. The
// truth of each case was checked by hand with git and GNU patch: the
// diff.context and filter cases fail without the overrides (a hunk
// without context that git apply misplaces; a file stored as its clean
// filter printed it).
func TestTreeScriptHostGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Missing(t, "git", err.Error())
	}
	tests := []struct {
		name, setup, edit string
		inPatch           string
	}{
		{name: "diff.context=0", setup: "seq 1 30 > f", edit: `git config diff.context 0 && seq 1 30 | sed 's/^15$/X/; s/^5$/5\nins/' > f`, inPatch: "@@ -3,6 +3,7 @@"},
		{name: "clean filter set by the agent", edit: `git config filter.up.clean 'tr a-z A-Z' && git config filter.up.required true && printf 'f filter=up\n' > .gitattributes && printf 'hello\n' > f`, inPatch: "+hello\n"},
		{name: "diff.noprefix", edit: "git config diff.noprefix true && printf 'new\\n' > f", inPatch: "diff --git a/f b/f"},
		{name: "names with newline, tab, backslash, quote", edit: `mv f "$(printf 'a\nb')" && printf 'x\n' > "$(printf 't\tu\\\\v\"w')"`, inPatch: `"b/a\nb"`},
		{name: "names starting with a dash", edit: "printf 'x\\n' > ./-rf && printf 'y\\n' > ./--x", inPatch: "b/-rf"},
		{name: "file replaced by a folder", edit: "rm f && mkdir f && printf 'in\\n' > f/x", inPatch: "b/f/x"},
		{name: "folder replaced by a file", setup: "mkdir d && printf 'q\\n' > d/a", edit: "rm -r d && printf 'file\\n' > d", inPatch: "deleted file mode 100644"},
		{name: "symlinks out of the repository", edit: "ln -s /etc etc && ln -s .. up", inPatch: "new file mode 120000"},
		{name: "empty new file", edit: ": > empty", inPatch: "new file mode 100644\nindex 0000000000000000000000000000000000000000..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"},
		{name: "CRLF without a newline at the end", edit: "printf 'a\\r\\nb' > f", inPatch: "+a\r\n+b\n\\ No newline at end of file"},
		{name: "core.fileMode=false", edit: "git config core.fileMode false && chmod +x f", inPatch: "new mode 100755"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			repo, clone := filepath.Join(dir, "repo"), filepath.Join(dir, "clone")
			sh(t, dir, "git init -q repo && cd repo && printf 'line1\\nline2\\n' > f && printf 'readme\\n' > README && "+orTrue(tc.setup)+
				" && git add -A && git -c user.name=a -c user.email=a@example.com commit -qm base && git clone -q . ../clone")
			base := strings.TrimSpace(sh(t, repo, "git rev-parse HEAD"))
			sh(t, repo, tc.edit)
			script := treePrelude() + `trap 'rm -rf "$T"' EXIT
G read-tree "$BASE"
G add -A
G ` + strings.Join(treeDiffArgs, " ") + ` "$BASE" --
`
			cmd := exec.Command("/bin/sh", "-c", script)
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "CODE=" + repo, "T=", "BASE=" + base}, treeEnv...)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("the tree script: %v", err)
			}
			parts := bytes.SplitN(out, []byte("\n"), 3)
			patch := parts[2]
			if !bytes.Contains(patch, []byte(tc.inPatch)) {
				t.Errorf("the prediction lacks %q:\n%s", tc.inPatch, patch)
			}
			if err := os.WriteFile(filepath.Join(dir, "p.diff"), patch, 0o644); err != nil {
				t.Fatal(err)
			}
			c := exec.Command("git", "apply", "--verbose", filepath.Join(dir, "p.diff"))
			c.Dir = clone
			if b, err := c.CombinedOutput(); err != nil {
				t.Fatalf("git apply --verbose: %v\n%s\n%s", err, b, patch)
			}
			if got, want := fingerprint(t, clone), fingerprint(t, repo); got != want {
				t.Errorf("after git apply the tree is\n%s\nthe agent's is\n%s\nprediction:\n%s", got, want, patch)
			}
		})
	}
}

func orTrue(s string) string {
	if s == "" {
		return "true"
	}
	return s
}

// sh runs a shell command in dir with no global or system git config.
func sh(t *testing.T, dir, command string) string {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
	return string(out)
}

// fingerprint lists every file and link under dir but .git: exec bit and
// content hash, or link target.
func fingerprint(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			lines = append(lines, fmt.Sprintf("L %q -> %q", rel, target))
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		lines = append(lines, fmt.Sprintf("F %o %x %q", info.Mode().Perm()&0o100, sha256.Sum256(b), rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

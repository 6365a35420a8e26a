package swebench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// The prediction is computed by benchgate, not read from a file the agent
// wrote: after the loop, git in the instance container adds the final
// working tree to a temporary index seeded with the base commit, and the
// prediction is that index's diff against the base. Agents commit, branch,
// stash, reset and rename with plain mv; the tree they leave is what they
// did, whatever their HEAD, index or patch file say.
//
// Every git command of the prediction runs with a temporary index and a
// temporary object folder (the repository's objects are an alternate, read
// only), so nothing of the agent's repository changes: not its index, not
// HEAD, not its object store. Neither system nor global config is read,
// and the settings that change bytes or names in a diff are fixed on the
// command line, over the repository's own config (treeGitConfig).

// treeGitConfig fixes, over the repository's config, what would make the
// diff differ from the tree's bytes or from what `git apply` and GNU patch
// read: no end-of-line conversion, modes and links as they are, a/ and b/
// prefixes, three lines of context (git apply misplaces or refuses hunks
// without context, and diff.context may say 0), no external diff,
// C-quoted names (a patch of non-UTF-8 names stays UTF-8 text), no
// fsmonitor or untracked cache (their data is the agent's), and no
// automatic maintenance. Filter drivers are switched off by neutralFilters.
var treeGitConfig = []string{
	"safe.directory=*",
	"core.autocrlf=false", "core.safecrlf=false", "core.eol=lf",
	"core.fileMode=true", "core.symlinks=true", "core.ignoreCase=false", "core.precomposeUnicode=false",
	"core.quotePath=true", "core.fsmonitor=false", "core.untrackedCache=false", "core.splitIndex=false",
	"core.sparseCheckout=false", "index.sparse=false", "core.hooksPath=/dev/null",
	"diff.noprefix=false", "diff.mnemonicPrefix=false", "diff.relative=false", "diff.suppressBlankEmpty=false",
	"diff.context=3", "diff.interHunkContext=0",
	"diff.external=", "gc.auto=0", "maintenance.auto=false",
}

// treeDiffArgs are the arguments of the prediction's diff: the index
// against the base commit, every byte of binary files (git apply takes
// them), full blob names, no colour, no renames (each path on its own, as
// GNU patch reads it too), fixed prefixes, no external diff or textconv.
var treeDiffArgs = []string{"diff", "--cached", "--binary", "--full-index", "--no-color", "--no-ext-diff", "--no-textconv",
	"--no-renames", "--src-prefix=a/", "--dst-prefix=b/", "--ignore-submodules=none"}

// gitlinkMode is the index mode of a nested repository (a submodule).
const gitlinkMode = "160000"

// maxListBytes bounds one listing of paths (ls-files) read back from a
// container.
const maxListBytes = 64 << 20

// treeGit is the temporary index and object folder of one container's
// code folder. Each exec costs a round trip to the engine (a few hundred
// milliseconds on a busy runner), so the common steps run as one shell
// script each (treeScript); run is for the rare ones (nested
// repositories, untracked files of the image).
type treeGit struct {
	o       *Options
	cid     string
	tmp     string // temporary folder in the container
	objects string // the repository's object folder, an alternate
	// last is the index as the script that made the folder read it, or
	// as it is after nested repositories were flattened into it.
	last treeEntries
	// nested are the folders flattened (see flatten).
	nested []string
}

// treePrelude starts every tree script: it makes the temporary folder
// (or takes $T), finds the repository's object folder (for a worktree,
// the common one) before pointing git at the temporary one, defines G
// (git with treeGitConfig) and out (a section of the output: its length
// in bytes, a newline, the bytes), and prints the two folders.
func treePrelude() string {
	var g strings.Builder
	g.WriteString("git")
	for _, c := range treeGitConfig {
		g.WriteString(" -c '" + c + "'")
	}
	return `set -e
cd "$CODE"
if [ -z "$T" ]; then T=$(mktemp -d /tmp/benchgate-tree.XXXXXX); mkdir "$T/objects"; fi
O=$(git -c safe.directory='*' rev-parse --git-path objects)
O=$(cd "$O" && pwd -P)
export GIT_INDEX_FILE="$T/index" GIT_OBJECT_DIRECTORY="$T/objects" GIT_ALTERNATE_OBJECT_DIRECTORIES="$O" HOME="$T" XDG_CONFIG_HOME="$T"
` + neutralFilters + `
G() { ` + g.String() + ` "$@"; }
out() { printf '%s\n' $(wc -c < "$1"); cat "$1"; }
printf '%s\n%s\n' "$T" "$O"
`
}

// neutralFilters is shell that switches off every filter driver the
// repository's config defines (filter.<driver>.clean, smudge, process):
// with a filter attribute in .gitattributes, git add would store what
// the driver's command prints, not the file's bytes, and would run that
// command, which the agent may have set. It exports the overrides as
// command-line config (GIT_CONFIG_COUNT), an empty command being no
// filter, so that every git the script runs has them.
const neutralFilters = `i=0
for k in $(git -c safe.directory='*' -C "$CODE" config --name-only --get-regexp '^filter\..*\.(clean|smudge|process|required)$' 2>/dev/null); do
  v=; case $k in *.required) v=false;; esac
  export GIT_CONFIG_KEY_$i="$k" GIT_CONFIG_VALUE_$i="$v"; i=$((i+1))
done
export GIT_CONFIG_COUNT=$i`

// treeEnv is git's fixed environment: no system or global config, no
// prompts or optional locks, the C locale.
var treeEnv = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C"}

// treeScript runs treePrelude and body as root in the code folder of
// container cid, with vars (K=V) in its environment; tmp, when set, is
// the temporary folder of an earlier script. It returns the treeGit of
// the folder and the sections body printed with out.
func (o *Options) treeScript(ctx context.Context, cid, tmp, body string, vars ...string) (*treeGit, [][]byte, error) {
	env := append(append([]string{"CODE=" + o.CodeDir, "T=" + tmp}, treeEnv...), vars...)
	stdout := &capWriter{max: 2*maxListBytes + MaxPredBytes + 1}
	errb := &capWriter{max: 64 << 10}
	res, err := o.Docker.Exec(ctx, cid, container.ExecSpec{Cmd: []string{"/bin/sh", "-c", treePrelude() + body}, Env: env, User: "root",
		Stdout: stdout, Stderr: errb, Timeout: 10 * time.Minute})
	switch {
	case err != nil:
		return nil, nil, err
	case res.TimedOut:
		return nil, nil, fmt.Errorf("git in %s did not end within 10m", o.CodeDir)
	case res.ExitCode != 0:
		return nil, nil, gitProblem(o.CodeDir, "git", res.ExitCode, errb.buf.String())
	case stdout.over:
		return nil, nil, fmt.Errorf("git in %s wrote more than %d bytes", o.CodeDir, stdout.max)
	}
	b := stdout.buf.Bytes()
	var head []string
	for len(head) < 2 {
		line, rest, ok := bytes.Cut(b, []byte("\n"))
		if !ok {
			return nil, nil, fmt.Errorf("git in %s: unexpected output %q", o.CodeDir, textfmt.Truncate(stdout.buf.String(), 200))
		}
		head, b = append(head, string(line)), rest
	}
	g := &treeGit{o: o, cid: cid, tmp: head[0], objects: head[1]}
	var sections [][]byte
	for len(b) > 0 {
		line, rest, ok := bytes.Cut(b, []byte("\n"))
		n, err := strconv.Atoi(strings.TrimSpace(string(line)))
		if !ok || err != nil || n < 0 || n > len(rest) {
			return g, nil, fmt.Errorf("git in %s: unexpected output section %q", o.CodeDir, textfmt.Truncate(string(line), 100))
		}
		sections, b = append(sections, rest[:n]), rest[n:]
	}
	return g, sections, nil
}

// gitProblem says why a git command in the container failed: git missing
// (exit 126/127) or the command's own error.
func gitProblem(codeDir, what string, code int, stderr string) error {
	if code == 126 || code == 127 {
		return fmt.Errorf("git is not available in the image (exit %d: %s)", code, textfmt.Truncate(strings.TrimSpace(stderr), 300))
	}
	return fmt.Errorf("%s in %s exited %d: %s", what, codeDir, code, textfmt.Truncate(strings.TrimSpace(stderr), 300))
}

// close removes the temporary folder; it runs with its own context, so
// that a cancelled run still cleans up a container it keeps.
func (g *treeGit) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _ = g.o.Docker.Exec(ctx, g.cid, container.ExecSpec{Cmd: []string{"rm", "-rf", g.tmp}, User: "root", Timeout: time.Minute})
}

// run runs git with args in the code folder (treeGitConfig, treeEnv, the
// temporary index and object folder) and returns its stdout, at most max
// bytes (more is an error). stdin, when not nil, is copied into the
// temporary folder and read by git as its standard input.
func (g *treeGit) run(ctx context.Context, max int, stdin []byte, args ...string) ([]byte, error) {
	cmd := []string{"git"}
	for _, c := range treeGitConfig {
		cmd = append(cmd, "-c", c)
	}
	cmd = append(append(cmd, "-C", g.o.CodeDir), args...)
	in := ""
	if stdin != nil {
		in = g.tmp + "/stdin"
		if err := g.o.Docker.CopyIn(ctx, g.cid, []container.File{{Path: in, Mode: 0o644, Data: stdin}}); err != nil {
			return nil, err
		}
	}
	cmd = append([]string{"/bin/sh", "-c", neutralFilters + "\n" + `f=$1; shift; if [ -n "$f" ]; then exec "$@" < "$f"; fi; exec "$@"`, "sh", in}, cmd...)
	env := append([]string{"CODE=" + g.o.CodeDir, "HOME=" + g.tmp, "XDG_CONFIG_HOME=" + g.tmp, "GIT_INDEX_FILE=" + g.tmp + "/index",
		"GIT_OBJECT_DIRECTORY=" + g.tmp + "/objects", "GIT_ALTERNATE_OBJECT_DIRECTORIES=" + g.objects}, treeEnv...)
	out := &capWriter{max: max}
	errb := &capWriter{max: 64 << 10}
	res, err := g.o.Docker.Exec(ctx, g.cid, container.ExecSpec{Cmd: cmd, Env: env, User: "root", Stdout: out, Stderr: errb, Timeout: 10 * time.Minute})
	what := "git " + args[0]
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", what, err)
	case res.TimedOut:
		return nil, fmt.Errorf("%s in %s did not end within 10m", what, g.o.CodeDir)
	case res.ExitCode != 0:
		return out.buf.Bytes(), gitProblem(g.o.CodeDir, what, res.ExitCode, errb.buf.String())
	case out.over:
		return nil, fmt.Errorf("%s in %s wrote more than %d bytes", what, g.o.CodeDir, max)
	}
	return out.buf.Bytes(), nil
}

// capWriter keeps the first max bytes written and notes whether there
// were more; it never fails a write (the stream is drained).
type capWriter struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); len(p) > room {
		w.over = true
		if room > 0 {
			w.buf.Write(p[:room])
		}
		return len(p), nil
	}
	w.buf.Write(p)
	return len(p), nil
}

// treeEntries is an index as `git ls-files -s`: path to "mode blob".
type treeEntries map[string]string

// snapshotBase records, before the first phase, what the harness's
// working tree holds besides the base commit: the untracked files of the
// image that .gitignore lets through (with their blobs, so that the same
// files left unchanged stay out of the prediction: they are in the
// harness's working tree already) and the ignored files (so that only the
// ignored files the agent created are named). One exec.
func (o *Options) snapshotBase(ctx context.Context, cid string, base *baseState) error {
	_, sec, err := o.treeScript(ctx, cid, "", `trap 'rm -rf "$T"' EXIT
G read-tree "$BASE"
G ls-files -z --others --exclude-standard > "$T/u"
G ls-files -z --others --ignored --exclude-standard > "$T/i"
: > "$T/e"
if [ -s "$T/u" ]; then G add -A 2>/dev/null; G ls-files -s -z > "$T/e"; fi
out "$T/u"; out "$T/i"; out "$T/e"
`, "BASE="+base.sha)
	if err != nil {
		return err
	}
	if len(sec) != 3 {
		return fmt.Errorf("git in %s: %d output sections, expected 3", o.CodeDir, len(sec))
	}
	base.ignored = map[string]bool{}
	for _, p := range splitZ(sec[1]) {
		base.ignored[p] = true
	}
	all, err := parseLsFiles(sec[2])
	if err != nil {
		return err
	}
	base.untracked = treeEntries{}
	for _, p := range splitZ(sec[0]) {
		p = strings.TrimSuffix(p, "/") // a nested repository
		if e, ok := all[p]; ok {
			base.untracked[p] = e
		}
	}
	return nil
}

// finalTree is the agent's final tree as the prediction carries it.
type finalTree struct {
	// entries is the tree the prediction must reproduce when applied in
	// the harness's working tree: every file .gitignore lets through,
	// nested repositories as ordinary files.
	entries treeEntries
	// patch is the prediction: the change of entries against the base
	// commit, less the image's untracked files left as they were.
	patch []byte
	// ignored are the files the agent created that .gitignore keeps out
	// of the prediction, sorted.
	ignored []string
	// nested are the folders with their own .git whose files went into
	// the prediction as ordinary files.
	nested []string
}

// computeTree computes the prediction from the final working tree of
// container cid against the base commit. The agent's processes are
// stopped first, so that nothing changes the tree while it is read. Two
// execs, more only for nested repositories and untracked files of the
// image.
func (o *Options) computeTree(ctx context.Context, cid string, base baseState) (finalTree, error) {
	var ft finalTree
	if base.sha == "" {
		return ft, errors.New(base.problem)
	}
	// kill -9 -1 stops every process but the container's entry point and
	// the script's own: a server or watcher the agent left running.
	g, err := o.addAll(ctx, cid, base.sha, "kill -9 -1 2>/dev/null || true\n", false)
	if err != nil {
		return ft, err
	}
	closed := false
	defer func() {
		if !closed {
			g.close()
		}
	}()
	ft.entries, ft.nested = g.last, g.nested
	// The image's untracked files the agent left as they were are in the
	// harness's working tree already: a patch creating them again would
	// not apply there.
	var same []string
	for p, e := range base.untracked {
		if ft.entries[p] == e {
			same = append(same, p)
		}
	}
	if len(same) > 0 {
		sort.Strings(same)
		if _, err := g.run(ctx, 1<<20, joinZ(same), "update-index", "--force-remove", "-z", "--stdin"); err != nil {
			return ft, err
		}
	}
	_, sec, err := o.treeScript(ctx, cid, g.tmp, `trap 'rm -rf "$T"' EXIT
G ls-files -z --others --ignored --exclude-standard > "$T/i"
G `+strings.Join(treeDiffArgs, " ")+` "$BASE" -- > "$T/p"
out "$T/i"; out "$T/p"
`, "BASE="+base.sha)
	closed = true
	if err != nil {
		return ft, err
	}
	if len(sec) != 2 {
		return ft, fmt.Errorf("git in %s: %d output sections, expected 2", o.CodeDir, len(sec))
	}
	for _, p := range splitZ(sec[0]) {
		if !base.ignored[p] {
			ft.ignored = append(ft.ignored, p)
		}
	}
	sort.Strings(ft.ignored)
	ft.patch = sec[1]
	return ft, nil
}

// addAll runs first (shell commands, may be empty), then seeds a
// temporary index with commit and adds the working tree to it as `git add
// -A` does (.gitignore followed), and turns every nested repository that
// commit does not have as a submodule into its files (flatten). The
// returned treeGit holds the index (last) and the nested folders. With
// drop, the script removes the temporary folder itself when there is no
// gitlink (no exec left to close it); g.tmp is then "".
func (o *Options) addAll(ctx context.Context, cid, commit, first string, drop bool) (*treeGit, error) {
	dropIt := ""
	if drop {
		dropIt = `if ! grep -q '^160000 ' "$T/s"; then rm -rf "$T"; printf '0\n'; else printf '1\n1'; fi
`
	}
	g, sec, err := o.treeScript(ctx, cid, "", first+`G read-tree "$BASE"
G add -A 2>"$T/add.log" || { cat "$T/add.log" >&2; exit 1; }
G ls-files -s -z > "$T/e"
G ls-files -s > "$T/s"
out "$T/e"
`+dropIt, "BASE="+commit)
	if err != nil {
		return nil, err
	}
	want := 1
	if drop {
		want = 2
	}
	if len(sec) != want {
		g.close()
		return nil, fmt.Errorf("git in %s: %d output sections, expected %d", o.CodeDir, len(sec), want)
	}
	if drop && len(sec[1]) == 0 {
		g.tmp = ""
	}
	if g.last, err = parseLsFiles(sec[0]); err != nil {
		if g.tmp != "" {
			g.close()
		}
		return nil, err
	}
	var links []string
	for p, e := range g.last {
		if strings.HasPrefix(e, gitlinkMode+" ") {
			links = append(links, p)
		}
	}
	if len(links) == 0 {
		return g, nil
	}
	g.nested, err = g.newGitlinks(ctx, commit, links)
	if err == nil && len(g.nested) > 0 {
		if err = g.flatten(ctx, g.nested); err == nil {
			var out []byte
			if out, err = g.run(ctx, maxListBytes, nil, "ls-files", "-s", "-z"); err == nil {
				g.last, err = parseLsFiles(out)
			}
		}
	}
	if err != nil {
		g.close()
		return nil, err
	}
	return g, nil
}

// parseLsFiles reads `git ls-files -s -z` ("mode blob stage\tpath\0").
func parseLsFiles(out []byte) (treeEntries, error) {
	e := treeEntries{}
	for _, rec := range splitZ(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("git ls-files -s: unexpected record %q", textfmt.Truncate(rec, 200))
		}
		e[path] = f[0] + " " + f[1]
	}
	return e, nil
}

// splitZ splits NUL-terminated records.
func splitZ(b []byte) []string {
	var out []string
	for _, r := range bytes.Split(b, []byte{0}) {
		if len(r) > 0 {
			out = append(out, string(r))
		}
	}
	return out
}

// joinZ is records, each NUL-terminated.
func joinZ(recs []string) []byte {
	var b bytes.Buffer
	for _, r := range recs {
		b.WriteString(r)
		b.WriteByte(0)
	}
	return b.Bytes()
}

// newGitlinks are the gitlinks of links that commit does not have: nested
// repositories the agent (or the image) put there, not submodules of the
// project.
func (g *treeGit) newGitlinks(ctx context.Context, commit string, links []string) ([]string, error) {
	out, err := g.run(ctx, maxListBytes, nil, "ls-tree", "-r", "-z", commit)
	if err != nil {
		return nil, err
	}
	sub := map[string]bool{}
	for _, rec := range splitZ(out) {
		if meta, path, ok := strings.Cut(rec, "\t"); ok && strings.HasPrefix(meta, gitlinkMode+" ") {
			sub[path] = true
		}
	}
	var nested []string
	for _, l := range links {
		if !sub[l] {
			nested = append(nested, l)
		}
	}
	sort.Strings(nested)
	return nested, nil
}

// flatten replaces the gitlinks of the nested folders in the temporary
// index with the files under them (their .git left out, and what
// .gitignore keeps out, theirs included), as ordinary files: a gitlink
// would reach the harness as an empty folder.
func (g *treeGit) flatten(ctx context.Context, nested []string) error {
	if _, err := g.run(ctx, 1<<20, joinZ(nested), "update-index", "--force-remove", "-z", "--stdin"); err != nil {
		return err
	}
	// find lists files and links, never following one, without any .git.
	args := append([]string{"/bin/sh", "-c", `cd "$1" && shift && find "$@" -name .git -prune -o ! -type d -print0`, "sh", g.o.CodeDir}, nested...)
	out := &capWriter{max: maxListBytes}
	errb := &capWriter{max: 64 << 10}
	res, err := g.o.Docker.Exec(ctx, g.cid, container.ExecSpec{Cmd: args, Stdout: out, Stderr: errb, Timeout: 10 * time.Minute})
	if err != nil {
		return fmt.Errorf("list the files of nested repositories: %w", err)
	}
	if res.ExitCode != 0 || out.over {
		return fmt.Errorf("list the files of nested repositories %s: find exited %d: %s", strings.Join(nested, ", "), res.ExitCode, textfmt.Truncate(errb.buf.String(), 300))
	}
	files := splitZ(out.buf.Bytes())
	if len(files) == 0 {
		return nil
	}
	// check-ignore exits 1 when no path is ignored.
	ig, err := g.run(ctx, maxListBytes, joinZ(files), "check-ignore", "--no-index", "-z", "--stdin")
	if err != nil && !strings.Contains(err.Error(), "exited 1:") {
		return err
	}
	skip := map[string]bool{}
	for _, p := range splitZ(ig) {
		skip[p] = true
	}
	var keep []string
	for _, f := range files {
		if !skip[f] {
			keep = append(keep, f)
		}
	}
	if len(keep) == 0 {
		return nil
	}
	_, err = g.run(ctx, 1<<20, joinZ(keep), "update-index", "--add", "-z", "--stdin")
	return err
}

// treeAfterApply is the tree of the code folder in the check container
// after the harness applied the prediction, read as computeTree reads the
// agent's.
func (o *Options) treeAfterApply(ctx context.Context, cid, commit string) (treeEntries, error) {
	g, err := o.addAll(ctx, cid, commit, "", true)
	if err != nil {
		return nil, err
	}
	if g.tmp != "" {
		g.close()
	}
	return g.last, nil
}

// treeDifferences names up to max paths where got differs from want, each
// with what each side has ("absent", or "mode blob").
func treeDifferences(want, got treeEntries, max int) (n int, named []string) {
	var paths []string
	for p, w := range want {
		if got[p] != w {
			paths = append(paths, p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	side := func(e treeEntries, p string) string {
		v, ok := e[p]
		if !ok {
			return "absent"
		}
		mode, blob, _ := strings.Cut(v, " ")
		return mode + " " + blob[:min(len(blob), 12)]
	}
	for i, p := range paths {
		if i == max {
			break
		}
		named = append(named, fmt.Sprintf("%s (agent's tree: %s; after applying: %s)", p, side(want, p), side(got, p)))
	}
	return len(paths), named
}

package swebench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/proc"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// Patch check results, in status.json's patch_check (with PatchNotUTF8
// and PatchTooLarge).
const (
	PatchApplies = "applies"
	// PatchDoesNotApply: none of the harness's commands applies the
	// patch to the code at its base commit.
	PatchDoesNotApply = "does_not_apply"
	// PatchHarnessFails: the patch applies to the base commit, but not
	// as the harness applies it: to the working tree of a fresh container
	// of the image, whose untracked files (build output) are there too.
	PatchHarnessFails = "harness_does_not_apply"
	PatchNotChecked   = "not_checked"
	// PatchNotReproduced: the harness applies the patch, but the tree it
	// leaves is not the agent's final tree (contents, exec bits, link
	// targets; .git and ignored files aside).
	PatchNotReproduced = "does_not_reproduce"
)

// HarnessApplyCommands are the commands the SWE-bench harness tries, in
// order, to apply model_patch in the instance's code folder; the first
// that exits 0 applied it (run_evaluation.py's GIT_APPLY_CMDS, with the
// patch at HarnessPatchPath).
var HarnessApplyCommands = [][]string{
	{"git", "apply", "--verbose"},
	{"git", "apply", "--verbose", "--reject"},
	{"patch", "--batch", "--fuzz=5", "-p1", "-i"},
}

// HarnessPatchPath is where the harness copies model_patch.
const HarnessPatchPath = "/tmp/patch.diff"

// baseState is the commit the instance's code is checked out at before
// the agent runs, or why there is none.
type baseState struct {
	sha, problem string
	// untracked are the untracked files of the image that .gitignore
	// lets through, as they were before the first phase; ignored are the
	// ignored ones (see snapshotBase).
	untracked treeEntries
	ignored   map[string]bool
}

// baseCommit reads the code's commit before the agent runs: the patch is
// checked against it, whatever the agent leaves in the working tree or
// commits. problem says why there is none (no git in the image, no
// repository), for the patch check's detail.
func (o *Options) baseCommit(ctx context.Context, cid string) baseState {
	out, code, err := o.git(ctx, cid, "rev-parse", "--verify", "HEAD^{commit}")
	switch {
	case err != nil:
		return baseState{problem: err.Error()}
	case code == 126 || code == 127:
		return baseState{problem: fmt.Sprintf("git is not available in the image (exit %d: %s)", code, textfmt.Truncate(out, 300))}
	case code != 0:
		return baseState{problem: fmt.Sprintf("%s is not a git repository with a commit (git rev-parse HEAD exited %d: %s)", o.CodeDir, code, textfmt.Truncate(out, 300))}
	}
	return baseState{sha: out}
}

// git runs git in the code folder inside the container and returns its
// output and exit code. safe.directory: the code folder may belong to
// another user than the one the exec runs as.
func (o *Options) git(ctx context.Context, cid string, args ...string) (string, int, error) {
	return o.exec(ctx, cid, "", append([]string{"git", "-c", "safe.directory=*", "-C", o.CodeDir}, args...)...)
}

// exec runs cmd in the container (in dir, when set) and returns its
// output and exit code.
func (o *Options) exec(ctx context.Context, cid, dir string, cmd ...string) (string, int, error) {
	var buf strings.Builder
	res, err := o.Docker.Exec(ctx, cid, container.ExecSpec{Cmd: cmd, WorkingDir: dir, Stdout: &buf, Stderr: &buf, Timeout: 5 * time.Minute})
	return strings.TrimSpace(buf.String()), res.ExitCode, err
}

// checkPrediction applies modelPatch, the bytes the prediction holds, as
// the harness will, in a fresh container of image: no process of the
// agent is left and the working tree is the image's, untracked build
// output included. It runs the harness's commands (HarnessApplyCommands)
// on that working tree, then resets the code to the base commit (tracked
// files at the commit, untracked ones removed) and runs them again. Both
// must apply the patch, and the first must leave the agent's final tree
// (want; computed as computeTree computes it). The result (Patch*) and,
// unless it applies, the detail name the step that failed and why.
func (o *Options) checkPrediction(ctx context.Context, image string, base baseState, modelPatch []byte, want treeEntries, logf func(string, ...any)) (string, string) {
	notChecked := func(why string) (string, string) { return PatchNotChecked, "the patch could not be checked: " + why }
	if base.sha == "" {
		return notChecked(base.problem)
	}
	// As the harness, the commands run as root, whatever user the image
	// names.
	cid, err := o.Docker.Create(ctx, container.LeastPrivilege(container.Spec{
		Name:        ContainerName(o.InstanceID, newInvocation()) + "-check",
		Image:       image,
		User:        "root",
		Entrypoint:  sleeper,
		Labels:      map[string]string{LabelRunner: "1", LabelInstance: o.InstanceID, LabelOwner: proc.SelfOwner(), LabelHost: hostname()},
		NetworkMode: "none",
	}, container.AgentCapabilities...))
	if err != nil {
		return notChecked(err.Error())
	}
	defer func() {
		if err := o.Docker.RemoveDetached(cid, 30*time.Second); err != nil {
			logf("warning: %v", err)
		}
	}()
	if err := o.Docker.Start(ctx, cid); err != nil {
		return notChecked(err.Error())
	}
	if err := o.Docker.CopyIn(ctx, cid, []container.File{{Path: HarnessPatchPath, Mode: 0o644, Data: modelPatch}}); err != nil {
		return notChecked(err.Error())
	}
	inImage, imageLog, err := o.applyAsHarness(ctx, cid)
	if err != nil {
		return notChecked(err.Error())
	}
	var differ int
	var named []string
	if inImage {
		got, err := o.treeAfterApply(ctx, cid, base.sha)
		if err != nil {
			return notChecked("read the tree after applying: " + err.Error())
		}
		differ, named = treeDifferences(want, got, 5)
	}
	if out, code, err := o.git(ctx, cid, "reset", "-q", "--hard", base.sha); err != nil || code != 0 {
		return notChecked(fmt.Sprintf("git reset --hard %s exited %d: %v %s", base.sha, code, err, textfmt.Truncate(out, 300)))
	}
	if out, code, err := o.git(ctx, cid, "clean", "-fdq"); err != nil || code != 0 {
		return notChecked(fmt.Sprintf("git clean -fd exited %d: %v %s", code, err, textfmt.Truncate(out, 300)))
	}
	atBase, baseLog, err := o.applyAsHarness(ctx, cid)
	if err != nil {
		return notChecked(err.Error())
	}
	switch {
	case !atBase:
		detail := fmt.Sprintf("the patch does not apply to %s at commit %s with any of the harness's commands: %s", o.CodeDir, base.sha, baseLog)
		if inImage {
			detail += "; it applies to the working tree of image " + image
		}
		return PatchDoesNotApply, detail
	case !inImage:
		return PatchHarnessFails, fmt.Sprintf("the patch applies to %s at commit %s but not as the harness applies it, to the working tree of a fresh container of image %s "+
			"(untracked files of the image are there, e.g. build output a `git add -N .` put in the patch): %s", o.CodeDir, base.sha, image, imageLog)
	case differ > 0:
		return PatchNotReproduced, fmt.Sprintf("the patch applies as the harness applies it, but the tree it leaves in a fresh container of image %s differs from the agent's final tree in %d path(s): %s",
			image, differ, strings.Join(named, "; "))
	}
	return PatchApplies, ""
}

// applyAsHarness runs the harness's commands in the code folder until
// one exits 0, as the harness does, except that GNU patch applying the
// patch only in reverse (reversed) does not count. ok says whether one did; log says what each that failed
// said. An error is an exec that could not run (the engine).
func (o *Options) applyAsHarness(ctx context.Context, cid string) (ok bool, log string, err error) {
	var said []string
	for _, cmd := range HarnessApplyCommands {
		out, code, err := o.exec(ctx, cid, o.CodeDir, append(append([]string{}, cmd...), HarnessPatchPath)...)
		if err != nil {
			return false, "", err
		}
		if code == 0 && !reversed(out) {
			return true, "", nil
		}
		if code == 0 {
			said = append(said, fmt.Sprintf("%s exited 0 but applied the patch only by reversing part of it, which is not the change written: %s", strings.Join(cmd, " "), applyError(out)))
			break
		}
		said = append(said, fmt.Sprintf("%s exited %d: %s", strings.Join(cmd, " "), code, applyError(out)))
	}
	return false, strings.Join(said, "; "), nil
}

// reversed reports whether GNU patch --batch took a hunk for an applied
// one and reversed it ("Assuming -R"): it does that, and exits 0, for a
// file the patch creates that the working tree already has (untracked
// build output an agent's `git add -N .` put in the patch), deleting it.
func reversed(out string) bool {
	return strings.Contains(out, "Assuming -R")
}

// applyError picks the lines of an apply command's output that say what
// went wrong (git's "error:" lines, patch's FAILED hunks and questions),
// or its start when none does.
func applyError(out string) string {
	var picked []string
	for _, l := range strings.Split(out, "\n") {
		low := strings.ToLower(l)
		if strings.HasPrefix(low, "error") || strings.Contains(low, "fail") || strings.Contains(low, "exists") || strings.Contains(low, "malformed") ||
			strings.Contains(low, "only garbage") || strings.Contains(low, "reversed") || strings.Contains(low, "can't find") {
			picked = append(picked, strings.TrimSpace(l))
		}
	}
	if len(picked) == 0 {
		return textfmt.Truncate(out, 300)
	}
	return textfmt.Truncate(strings.Join(picked, " / "), 400)
}

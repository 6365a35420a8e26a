package action

import (
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/jobsummary"
)

// SummaryFile is the copy of the job summary kept in the run folder, and
// so in the run artifact.
const SummaryFile = "job-summary.md"

// keepSummary writes the job summary, whole, into the run folder before
// it is uploaded: GitHub cuts a step summary at 1 MiB (Render shortens
// it to fit) and deletes it with the run's logs, while the artifact keeps
// every row for its retention period. The artifacts section is not in
// the copy; it is the list of uploads the copy travels in. A run folder
// that does not exist (a mode that wrote nothing) gets none.
func (r *reporter) keepSummary(dir string, doc *jobsummary.Doc) {
	if dir == "" {
		return
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return
	}
	path := filepath.Join(dir, SummaryFile)
	if err := fsutil.WriteFileAtomic(path, []byte(doc.Render(math.MaxInt)), 0o644); err != nil {
		r.a.Warningf("the job summary was not kept in %s: %v", r.rel(path), err)
	}
}

// VerdictFile is the run's verdict as data (package verdict's JSON form),
// kept in the run folder and so in the run artifact, for whatever reads
// the run later: a second workflow, a dashboard.
const VerdictFile = "verdict.json"

// keepVerdict writes the verdict into the run folder, when there is one.
func (r *reporter) keepVerdict(dir string, v any) {
	if dir == "" {
		return
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return
	}
	path := filepath.Join(dir, VerdictFile)
	if err := fsutil.WriteJSONAtomic(path, v); err != nil {
		r.a.Warningf("the verdict was not kept in %s: %v", r.rel(path), err)
	}
}

// reporter writes what the step reports (outputs, summary, annotations,
// artifacts) for one run; it knows the workspace so that every path it
// shows is relative to it.
type reporter struct {
	cfg       Config
	a         *githubactions.Action
	workspace string
	files     *fileCommands
}

// fileCommandFailure reports a step output or summary that could not be
// written, once, as an error annotation naming the file, and turns a
// passing step into a failing one: later steps would read no status.
func (r *reporter) fileCommandFailure(code int) int {
	if r.files.err == nil {
		return code
	}
	r.a.WithFieldsMap(map[string]string{"title": "benchgate: step outputs"}).Errorf("cannot write the step's file commands: %v; outputs and job summary are incomplete", r.files.err)
	if code == exitOK {
		return exitFailed
	}
	return code
}

// rel shows path relative to the workspace (what later steps and the
// annotation UI understand); paths outside it stay absolute.
func (r *reporter) rel(path string) string {
	if path == "" {
		return ""
	}
	if rel, err := filepath.Rel(r.workspace, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}

// scrub removes the runner's folders from text a reader sees: paths in
// the workspace become relative, and the runner's temporary folder is
// named $RUNNER_TEMP.
func (r *reporter) scrub(s string) string {
	if r.workspace != "" {
		s = strings.ReplaceAll(s, strings.TrimRight(r.workspace, "/")+"/", "")
	}
	if r.cfg.Getenv == nil {
		return s
	}
	if tmp := strings.TrimRight(r.cfg.Getenv("RUNNER_TEMP"), "/"); tmp != "" {
		s = strings.ReplaceAll(s, tmp, "$RUNNER_TEMP")
	}
	// The engine's socket is the runner's too.
	if dh := r.cfg.Getenv("DOCKER_HOST"); dh != "" {
		s = strings.ReplaceAll(s, dh, "$DOCKER_HOST")
		if path, ok := strings.CutPrefix(dh, "unix://"); ok && path != "" {
			s = strings.ReplaceAll(s, path, "$DOCKER_HOST")
		}
	}
	return s
}

// output sets a step output; without GITHUB_OUTPUT (a run outside
// Actions) it does nothing, because the library would panic.
func (r *reporter) output(k, v string) {
	r.files.setOutput(k, v)
}

func (r *reporter) summary(doc *jobsummary.Doc) {
	// writeSummary adds a newline; keep the whole step under the limit.
	r.files.writeSummary(doc.Render(jobsummary.MaxBytes - 1))
}

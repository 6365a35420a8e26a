package action

import (
	"path/filepath"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/benchgate/benchgate/internal/jobsummary"
)

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

// output sets a step output; without GITHUB_OUTPUT (a run outside
// Actions) it does nothing, because the library would panic.
func (r *reporter) output(k, v string) {
	r.files.setOutput(k, v)
}

func (r *reporter) summary(doc *jobsummary.Doc) {
	// writeSummary adds a newline; keep the whole step under the limit.
	r.files.writeSummary(doc.Render(jobsummary.MaxBytes - 1))
}

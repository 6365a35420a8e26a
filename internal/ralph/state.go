package ralph

import (
	"path/filepath"

	"github.com/benchgate/benchgate/internal/fsutil"
)

// The plan documents whose location is the loop's state.
const (
	SpecFile = "SPECIFICATION.md"
	PlanFile = "EXECUTION_PLAN.md"
)

// State is where the plan documents are.
type State int

const (
	// StateRoot: still in the plans folder, work goes on.
	StateRoot State = iota
	// StateArchived: both documents were moved to archive/ (done).
	StateArchived
	// StateBlocked: a document was moved to blocked/ (given up).
	StateBlocked
)

func (s State) String() string {
	return [...]string{"root", "archived", "blocked"}[s]
}

// PlanState classifies the plans folder. Blocked wins over archived: an
// agent that gave up must never count as done.
// The plans folder's parent is the output folder the agent writes.
func PlanState(plansDir string) State {
	root := filepath.Dir(plansDir)
	if exists(root, filepath.Join(plansDir, "blocked", SpecFile)) || exists(root, filepath.Join(plansDir, "blocked", PlanFile)) {
		return StateBlocked
	}
	if exists(root, filepath.Join(plansDir, "archive", SpecFile)) && exists(root, filepath.Join(plansDir, "archive", PlanFile)) {
		return StateArchived
	}
	return StateRoot
}

// exists reports whether p, below root, is a regular file. The plans
// folder lies in the agent's output folder (root): the agent can turn it
// (or archive/, blocked/) into a link to a host folder, and os.Stat
// through that link would tell the state machine, and through it the
// agent, which host files exist. So p is looked up below root and never
// through a link that leaves it; a link is not a plan document.
func exists(root, p string) bool {
	info, err := fsutil.LstatIn(root, p)
	return err == nil && info.Mode().IsRegular()
}

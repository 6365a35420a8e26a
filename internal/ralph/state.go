package ralph

import (
	"os"
	"path/filepath"
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
func PlanState(plansDir string) State {
	if exists(filepath.Join(plansDir, "blocked", SpecFile)) || exists(filepath.Join(plansDir, "blocked", PlanFile)) {
		return StateBlocked
	}
	if exists(filepath.Join(plansDir, "archive", SpecFile)) && exists(filepath.Join(plansDir, "archive", PlanFile)) {
		return StateArchived
	}
	return StateRoot
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

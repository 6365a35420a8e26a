// Package ralph runs the SWE-bench form of the Ralph loop: one plan phase,
// then execute passes, each followed by a handoff that resumes the execute
// session, until the plan documents are archived (done) or blocked
// (given up), or the pass budget runs out. State lives only in the plans
// folder, so the loop can classify a run from files, never from what the
// agent says.
package ralph

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed prompts/*.md
var embedded embed.FS

// Phase names one step of the loop.
type Phase string

// The three runtime phases. Design and blocked prompts do not exist here:
// the specification is seeded from the task and blocked is terminal.
const (
	PhasePlan    Phase = "plan"
	PhaseExecute Phase = "execute"
	PhaseHandoff Phase = "handoff"
)

// Phases lists the phases in the order the loop first runs them.
var Phases = []Phase{PhasePlan, PhaseExecute, PhaseHandoff}

// Prompts holds the prompt template of each phase.
type Prompts map[Phase]string

// LoadPrompts returns the embedded prompts, or when dir is not empty the
// files plan.md, execute.md and handoff.md from dir. Every one of them
// must exist there: a partial override folder is an error, so a typo in a
// file name cannot silently run the wrong prompt.
func LoadPrompts(dir string) (Prompts, error) {
	p := Prompts{}
	var missing []string
	for _, ph := range Phases {
		name := string(ph) + ".md"
		var b []byte
		var err error
		if dir == "" {
			b, err = embedded.ReadFile("prompts/" + name)
		} else {
			b, err = os.ReadFile(filepath.Join(dir, name))
		}
		if err != nil {
			missing = append(missing, filepath.Join(dir, name))
			continue
		}
		if strings.TrimSpace(string(b)) == "" {
			return nil, fmt.Errorf("prompt file %s is empty", filepath.Join(dir, name))
		}
		p[ph] = string(b)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("prompt folder %s: missing required prompt file(s) %s (expected plan.md, execute.md and handoff.md)", dir, strings.Join(missing, ", "))
	}
	return p, nil
}

// Render replaces {{NAME}} placeholders in the prompt of phase with vars.
// Unknown placeholders stay as they are.
func (p Prompts) Render(ph Phase, vars map[string]string) string {
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var pairs []string
	for _, k := range keys {
		pairs = append(pairs, "{{"+k+"}}", vars[k])
	}
	return strings.NewReplacer(pairs...).Replace(p[ph])
}

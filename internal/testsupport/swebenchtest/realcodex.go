package swebenchtest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/ralph"
	"github.com/benchgate/benchgate/internal/testsupport/fakeresponses"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// RealCodexModel is the model the scripted Responses server serves to the
// real Codex CLI.
const RealCodexModel = "qwen3-coder-next-FP8"

// RealCodex is what a test of the runner with the real Codex CLI starts
// from: the pinned binary the runner mounts into instance containers, the
// engine and the built-in prompts, whose execute prompt names the command
// that writes the patch.
type RealCodex struct {
	Binary  string
	Docker  *container.Client
	Prompts ralph.Prompts
}

// NewRealCodex finds the real Codex CLI and the engine, and loads the
// built-in prompts.
func NewRealCodex(t testing.TB) RealCodex {
	t.Helper()
	rc := RealCodex{Binary: testenv.Codex(t), Docker: Docker(t)}
	var err error
	if rc.Prompts, err = ralph.LoadPrompts(""); err != nil {
		t.Fatal(err)
	}
	return rc
}

// ExecuteCommand is the shell command a scripted execute pass runs: edit,
// then the execute prompt's own git diff command writing the patch to
// patch, then after, then the plan documents in plans archived; it ends
// by printing EXECUTED.
func (rc RealCodex) ExecuteCommand(t testing.TB, plans, patch, edit, after string) string {
	t.Helper()
	diff := PromptCommand(t, rc.Prompts.Render(ralph.PhaseExecute, map[string]string{"PLANS_DIR": plans, "PATCH_PATH": patch, "CODE_DIR": "/testbed"}), "git diff")
	archive := filepath.Join(plans, "archive")
	return edit + " && " + diff + after + " && mkdir -p " + archive +
		" && mv " + filepath.Join(plans, ralph.SpecFile) + " " + filepath.Join(plans, ralph.PlanFile) + " " + archive + "/ && echo EXECUTED"
}

// Script is one instance's turns when the model answers at once: the plan
// phase writes plan (printf's format) to the plan file in plans and says
// so, then the execute pass runs execute and says it is done.
func Script(plans, plan, execute string) []fakeresponses.Turn {
	return []fakeresponses.Turn{
		{Items: []fakeresponses.Item{fakeresponses.Shell("printf '" + plan + "' > " + filepath.Join(plans, ralph.PlanFile))}},
		{Items: []fakeresponses.Item{fakeresponses.Message("Plan written.")}},
		{Items: []fakeresponses.Item{fakeresponses.Shell(execute)}},
		{Items: []fakeresponses.Item{fakeresponses.Message("Done.")}},
	}
}

// PromptCommand returns the first command prompt quotes in backticks that
// contains marker.
func PromptCommand(t testing.TB, prompt, marker string) string {
	t.Helper()
	parts := strings.Split(prompt, "`")
	for i := 1; i < len(parts); i += 2 {
		if strings.Contains(parts[i], marker) {
			return parts[i]
		}
	}
	t.Fatalf("the prompt quotes no command with %q:\n%s", marker, prompt)
	return ""
}

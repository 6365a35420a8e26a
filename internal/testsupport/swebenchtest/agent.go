package swebenchtest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/benchgate/benchgate/internal/testsupport/fakeresponses"
)

var (
	plansDirRe  = regexp.MustCompile("`([^`]+)/SPECIFICATION\\.md`")
	patchPathRe = regexp.MustCompile("HEAD > ([^`\\s]+)`")
	codeDirRe   = regexp.MustCompile("`cd (\\S+) && git diff")
)

// Agent answers every Responses request as a model would, from what the
// request says rather than from a fixed order, so that runs at once (the
// shards of a batch, two runs on one machine) can share one endpoint, and
// it follows the built-in prompts literally: given the plan prompt it
// writes the plan where the prompt says; given the execute prompt it
// edits the code and writes the patch with the prompt's own
// `git diff ... HEAD > <patch>` command, then moves the plan documents as
// the outcome wants. What each instance ends as is chosen by its ID
// (Outcome: "success", "blocked", anything else archives an empty patch,
// which is incomplete). After a tool result it reports done.
type Agent struct {
	Outcome map[string]string
	// Hold, while set, is the instance whose requests wait until Release
	// is closed (Arrived is signalled once one is waiting) and are then
	// answered as usual: a test stops that run meanwhile, as a runner does
	// when a step's time runs out, or runs another beside it.
	Hold    atomic.Pointer[string]
	Arrived chan struct{}
	Release chan struct{}
}

// Script is n turns answered by the agent, each with the same usage.
func (a *Agent) Script(n int) []fakeresponses.Turn {
	turns := make([]fakeresponses.Turn, n)
	for i := range turns {
		turns[i] = fakeresponses.Turn{ItemsFrom: a.Answer, Usage: fakeresponses.Usage{InputTokens: 1000, OutputTokens: 20}}
	}
	return turns
}

// Answer is the agent's answer to one request.
func (a *Agent) Answer(r fakeresponses.Request) []fakeresponses.Item {
	if n := len(r.Input); n > 0 && r.Input[n-1]["type"] == "function_call_output" {
		return []fakeresponses.Item{fakeresponses.Message("Done.")}
	}
	text := r.InputText()
	plans := plansDirRe.FindAllStringSubmatch(text, -1)
	if len(plans) == 0 {
		return []fakeresponses.Item{fakeresponses.Message("I cannot tell where the task is.")}
	}
	dir := plans[len(plans)-1][1]
	id := filepath.Base(filepath.Dir(dir))
	if h := a.Hold.Load(); h != nil && *h == id {
		a.Arrived <- struct{}{}
		<-a.Release
	}
	patch := patchPathRe.FindAllStringSubmatch(text, -1)
	code := codeDirRe.FindAllStringSubmatch(text, -1)
	if len(patch) == 0 || len(code) == 0 || strings.LastIndex(text, "# Execute") < strings.LastIndex(text, "# Plan") {
		return []fakeresponses.Item{fakeresponses.Shell(fmt.Sprintf("printf '# Plan\\n1. fix README\\n' > %s/EXECUTION_PLAN.md && echo PLAN_WRITTEN", dir))}
	}
	diff := fmt.Sprintf("cd %s && git diff --binary --full-index --no-color HEAD > %s", code[len(code)-1][1], patch[len(patch)-1][1])
	move := func(to string) string {
		return fmt.Sprintf("mkdir -p %[1]s/%[2]s && mv %[1]s/SPECIFICATION.md %[1]s/EXECUTION_PLAN.md %[1]s/%[2]s/", dir, to)
	}
	var cmd string
	switch a.Outcome[id] {
	case "success":
		cmd = fmt.Sprintf("cd %s && printf 'fixed code\\n' > README && %s && %s", code[len(code)-1][1], diff, move("archive"))
	case "blocked":
		cmd = fmt.Sprintf("%s && printf 'BLOCKED: the build needs the network\\n' | cat - %s/EXECUTION_PLAN.md > /tmp/plan && mv /tmp/plan %s/EXECUTION_PLAN.md && %s", diff, dir, dir, move("blocked"))
	default: // archived with nothing changed: an empty patch is incomplete
		cmd = fmt.Sprintf("%s && %s", diff, move("archive"))
	}
	return []fakeresponses.Item{fakeresponses.Shell(cmd + " && echo EXECUTED")}
}

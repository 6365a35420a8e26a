package action

import (
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/benchgate/benchgate/internal/textfmt"
)

// withProgressMD gives the modes that run for hours --progress-md with
// the job summary file: they rewrite it with a table of what has
// finished (instances, attempts, sets) while they run, so a job cancelled
// after hours still shows what it did; the full summary replaces the
// table when the step ends normally.
func withProgressMD(mode string, args []string, summary string) []string {
	if summary == "" || len(args) == 0 {
		return args
	}
	switch mode {
	case "swebench-batch":
		return append(args, "--progress-md", summary)
	case "set", "ordered":
		// Right after the mode's name, before flags passed on unchanged.
		return append([]string{args[0], "--progress-md", summary}, args[1:]...)
	}
	return args
}

// openModeLog starts the step log of the mode and returns the function
// that ends it. set and ordered print a few lines of their own and their
// progress lines (the benchmark's output goes to log files): those stay
// in the open log, where a run that takes an hour shows where it is;
// other modes' output goes in a collapsed group.
func openModeLog(a *githubactions.Action, mode string, args []string) func() {
	title := "benchgate " + strings.Join(args, " ")
	if mode == "set" || mode == "ordered" {
		// Before the stop-commands window: an input with a line break
		// (model: "x\n::add-mask::...") must not become a command.
		a.Infof("%s", textfmt.LogLine(title))
		return func() {}
	}
	a.Group(title)
	return a.EndGroup
}

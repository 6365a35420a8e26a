package action

import (
	"strings"
	"testing"
)

func TestWithProgressMD(t *testing.T) {
	for _, c := range []struct {
		mode, summary string
		args          []string
		want          string
	}{
		{"set", "/s/summary", []string{"set", "--set", "pr-exec", "--", "x"}, "set --progress-md /s/summary --set pr-exec -- x"},
		{"ordered", "/s/summary", []string{"ordered", "--provider", "openai"}, "ordered --progress-md /s/summary --provider openai"},
		{"swebench-batch", "/s/summary", []string{"swebench", "batch", "--model", "m"}, "swebench batch --model m --progress-md /s/summary"},
		{"report", "/s/summary", []string{"report", "--gate"}, "report --gate"},
		{"qa-audit", "/s/summary", []string{"qa-audit"}, "qa-audit"},
		{"set", "", []string{"set", "--set", "pr-exec"}, "set --set pr-exec"},
	} {
		if got := strings.Join(withProgressMD(c.mode, c.args, c.summary), " "); got != c.want {
			t.Errorf("%s %q: got %q, want %q", c.mode, c.args, got, c.want)
		}
	}
}

// TestSetRunsWithProgressOutsideGroups: set gets the job summary as its
// --progress-md, and its output is not folded into a group, so its
// progress lines show in the open step log.
func TestSetRunsWithProgressOutsideGroups(t *testing.T) {
	h := newHarness(t, map[string]string{"mode": "set", "set": "pr-exec", "provider": "openai"})
	h.result = &Result{}
	h.run(func(dir string, args []string) int {
		h.modeOut.Write([]byte("progress: set pr-exec, first run, ghx: 1/9 rows, 0 failing, elapsed 1s, ETA 8s\n"))
		return 0
	})
	if got := strings.Join(h.gotArgs, " "); !strings.Contains(got, "--progress-md "+h.env["GITHUB_STEP_SUMMARY"]) {
		t.Errorf("set ran with %q, want --progress-md and the job summary file", got)
	}
	log := h.stdout.String()
	if strings.Contains(log, "::group::") {
		t.Errorf("set's output is in a group:\n%s", log)
	}
	if !strings.Contains(log, "progress: set pr-exec") {
		t.Errorf("progress line missing from the step log:\n%s", log)
	}
}

package action

import (
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/failcode"
	"github.com/benchgate/benchgate/internal/swebench"
)

// Output is one output of action.yml.
type Output struct {
	Name, Description string
}

// Outputs lists every output the adapter sets; action.yml must declare
// exactly these (a test cross-checks both ways).
func Outputs() []Output {
	return append([]Output{
		{"status", "pass, fail, incomplete (a SWE-bench instance ran out of loops) or error (bad input, or a Docker engine or model endpoint that does not answer; nothing was judged). For swebench-batch it says what the instances did, even when fail-on let the step pass (exit-code 0); for report with gate: false, fail when a check would have failed."},
		{"exit-code", "The mode's exit code: 0 pass, 1 fail, 2 bad input or bad setup (nothing judged), 20 incomplete."},
		{"enforced", "false when the step's failures do not decide its exit code (report with gate: false, swebench-batch with fail-on: never, drift with fail-on: none), true otherwise (an error always fails the step). When such a step has failures, its comment, job summary, log line and annotations say \"not enforced\" with what failed, and status keeps saying what was judged (for swebench-batch fail or incomplete beside exit-code 0)."},
		{"out-dir", "Folder the results were written to, relative to the workspace (the run root for swebench-batch)."},
		{"tracking", "Paths of the tracking.json files this step wrote (set, ordered), one per line, in the order the sets ran."},
		{"summary-json", "Path of the summary JSON (report, set) or of the consolidated summary (ordered)."},
		{"summary-md", "Path of the summary Markdown (report, set, qa-audit) or of the consolidated summary (ordered)."},
		{"predictions", "swebench-batch: path of predictions.jsonl."},
		{"run-manifest", "swebench-batch: path of run_manifest.json."},
		{"instances-total", "swebench-batch: number of instances in the batch's scope."},
		{"instances-success", "swebench-batch: instances that ended success."},
		{"instances-failed", "swebench-batch: instances that ended failed (missing image, bootstrap, blocked, runtime error, or never reached)."},
		{"instances-incomplete", "swebench-batch: instances that ended incomplete."},
		{"instances-not-run", "swebench-batch: instances with no finished status (never started or interrupted); they are among instances-failed."},
		{"failure-codes", "swebench-batch: the finished instances that ended with a failure code, counted by code, one per line as code=count (" + string(failcode.Table[0].Code) + "=2)."},
		{"instances-retryable", "swebench-batch: finished instances whose failure is on the runner's side (" + orList(failcode.Retryable()) + " outside the patch check): a resume with --retry-failed for their codes can end them otherwise once that is fixed."},
		{"quality-report", "qa-audit: path of quality_report.json."},
		{"pr-urls", "qa-audit: URLs of the pull requests opened or updated, one per line."},
		{"failing-rows", "Number of suite rows that break a blocking rule (success, output_valid, error)."},
		{"artifacts", "Names of the artifacts uploaded, one per line."},
		{"baseline-verdict", "report, set with a baseline: pass, fail (regressed), inconclusive, underpowered or untested (the baseline held only a summary); empty without a baseline."},
		{"flaky-scenarios", "report, set with a history: the flaky scenarios as <mode>/<scenario ID>, one per line."},
	}, append(append(statsOutputs, driftOutputs...), commentOutputs...)...)
}

// orList names codes as "a, b, or c" (a lone code as itself).
func orList(codes []failcode.Code) string {
	var names []string
	for _, c := range codes {
		names = append(names, string(c))
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + ", or " + names[len(names)-1]
}

// outputs sets the step outputs; status is the verdict's word, exit-code
// the step's own (they differ for a batch whose instances failed under
// fail-on never).
func (r *reporter) outputs(p *Plan, res *results, verdict, code int, enforced bool, arts []artifact) {
	r.output("status", Status(verdict))
	r.output("exit-code", strconv.Itoa(code))
	r.output("enforced", strconv.FormatBool(enforced))
	r.output("out-dir", r.rel(p.OutDir))
	var tracks []string
	for _, s := range res.Sets {
		tracks = append(tracks, r.rel(s.TrackingPath))
	}
	r.output("tracking", strings.Join(tracks, "\n"))
	r.output("summary-json", r.rel(res.SummaryJSON))
	r.output("summary-md", r.rel(res.SummaryMD))
	failing := 0
	for _, s := range res.Sets {
		for _, st := range s.Suites {
			failing += failingRows(st)
		}
	}
	for _, st := range res.Suites {
		failing += failingRows(st)
	}
	r.output("failing-rows", strconv.Itoa(failing))
	var names []string
	for _, a := range arts {
		if a.Err == nil {
			names = append(names, a.Name)
		}
	}
	r.output("artifacts", strings.Join(names, "\n"))
}

// batchCounts sets the batch's instance counts.
func (r *reporter) batchCounts(b *swebench.BatchResult) {
	if b == nil {
		return
	}
	r.output("instances-total", strconv.Itoa(b.Counts.Total))
	r.output("instances-success", strconv.Itoa(b.Counts.Success))
	r.output("instances-failed", strconv.Itoa(b.Counts.Failed))
	r.output("instances-incomplete", strconv.Itoa(b.Counts.Incomplete))
	r.output("instances-not-run", strconv.Itoa(b.Counts.NotRun))
	codes, retryable := b.FailureCodes()
	r.output("failure-codes", strings.Join(codes, "\n"))
	r.output("instances-retryable", strconv.Itoa(retryable))
}

// failingRows counts rows with at least one violation.
func failingRows(st *suiteStats) int {
	n := 0
	last := -1
	for _, v := range st.Violations {
		if v.Line != last {
			n++
			last = v.Line
		}
	}
	return n
}

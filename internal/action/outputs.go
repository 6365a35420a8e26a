package action

// Output is one output of action.yml.
type Output struct {
	Name, Description string
}

// Outputs lists every output the adapter sets; action.yml must declare
// exactly these (a test cross-checks both ways).
func Outputs() []Output {
	return []Output{
		{"status", "pass, fail, incomplete (a SWE-bench instance ran out of loops) or error (bad input; nothing was judged)."},
		{"exit-code", "The mode's exit code: 0 pass, 1 fail, 2 bad input, 20 incomplete."},
		{"out-dir", "Folder the results were written to, relative to the workspace (the run root for swebench-batch)."},
		{"tracking", "Paths of the tracking.json files (set, ordered), one per line, in the order the sets ran."},
		{"summary-json", "Path of the summary JSON (report, set) or of the consolidated summary (ordered)."},
		{"summary-md", "Path of the summary Markdown (report, set, qa-audit) or of the consolidated summary (ordered)."},
		{"predictions", "swebench-batch: path of predictions.jsonl."},
		{"run-manifest", "swebench-batch: path of run_manifest.json."},
		{"quality-report", "qa-audit: path of quality_report.json."},
		{"pr-urls", "qa-audit: URLs of the pull requests opened or updated, one per line."},
		{"failing-rows", "Number of suite rows that break a blocking rule (success, output_valid, error)."},
		{"artifacts", "Names of the artifacts uploaded, one per line."},
	}
}

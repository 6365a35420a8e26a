package testenv

import (
	"encoding/json"
	"fmt"
	"strings"
)

// SuiteJSONL is one mode's suite file of a generated run: n scenarios
// (s-000, s-001, ...) of three repetitions, in the row schema the benchmark
// writes. Active tokens, latency and tool calls grow with the scenario by
// the same factor in every mode, so two modes' runs differ by one ratio
// per metric; ghx takes half the latency and tool calls of other modes.
// day orders runs in time (it sets the timestamps and the run ID); fails
// says which repetitions fail (nil: none).
func SuiteJSONL(mode string, day, n int, tokens float64, fails func(scenario, repetition int) bool) string {
	latency, tools := 20000.0, 10.0
	if mode == "ghx" {
		latency, tools = 10000, 5
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		scale := 1 + float64(i)/10
		for it := 1; it <= 3; it++ {
			ok := fails == nil || !fails(i, it)
			row := map[string]any{
				"timestamp": fmt.Sprintf("2026-03-%02dT10:%02d:%02d.000Z", day, i, it), "run_id": fmt.Sprintf("%s-%d", mode, day), "mode": mode,
				"scenario_id": fmt.Sprintf("s-%03d", i), "scenario_set": "pr-exec", "iteration": it, "session_id": nil,
				"success": ok, "output_valid": ok, "latency_ms_wall": latency * scale, "sdk_latency_ms": nil,
				"tokens": map[string]any{"input": tokens * scale, "output": 0, "reasoning": 0, "cache_read": 0, "cache_write": 0, "total": tokens * scale},
				"cost":   0, "tool_calls": tools, "api_calls": 0, "internal_retry_count": 0, "external_retry_count": 0,
				"model": map[string]any{"provider_id": "openai", "model_id": "m", "mode": nil},
				"git":   map[string]any{"repo": nil, "commit": nil}, "error": nil,
			}
			if !ok {
				row["error"] = map[string]any{"type": "assertion_failed", "message": "checks failed"}
			}
			line, err := json.Marshal(row)
			if err != nil {
				panic(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// ScenarioIDs are 50 real scenario IDs of the ghx benchmark, the four
// of the 2026-02-25 suites first, for tests of what grows with the
// scenarios (charts, tables).
var ScenarioIDs = []string{
	"ci-diagnose-run-wf-001", "issue-triage-comment-wf-001", "pr-fix-mixed-threads-wf-001", "pr-review-comment-wf-001",
	"check-run-annotations-list-001", "issue-assignees-update-001", "issue-blocked-by-add-001", "issue-blocked-by-remove-001",
	"issue-close-001", "issue-comments-create-001", "issue-comments-list-001", "issue-create-001", "issue-delete-001",
	"issue-labels-update-001", "issue-linked-prs-list-001", "issue-list-open-001", "issue-milestone-set-001",
	"issue-parent-remove-001", "issue-parent-set-001", "issue-relations-get-001", "issue-reopen-001", "issue-update-001",
	"issue-view-001", "pr-assignees-update-001", "pr-branch-update-001", "pr-checks-get-failed-001", "pr-checks-rerun-all-001",
	"pr-checks-rerun-failed-001", "pr-comment-reply-001", "pr-comment-resolve-001", "pr-comment-unresolve-001",
	"pr-comments-unresolved-001", "pr-diff-list-files-001", "pr-list-open-001", "pr-merge-execute-001",
	"pr-mergeability-view-001", "pr-ready-for-review-set-001", "pr-review-submit-approve-001", "pr-review-submit-comment-001",
	"pr-review-submit-request-changes-001", "pr-reviewers-request-001", "pr-reviews-list-001", "pr-status-checks-001",
	"pr-view-001", "project-v2-fields-list-001", "project-v2-item-add-issue-001", "project-v2-item-field-update-001",
	"project-v2-items-list-001", "project-v2-org-get-001", "project-v2-user-get-001",
}

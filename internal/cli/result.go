package cli

import (
	"github.com/benchgate/benchgate/internal/lookback"
	"github.com/benchgate/benchgate/internal/prcomment"
	"github.com/benchgate/benchgate/internal/qaaudit/audit"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/swebench"
	"github.com/benchgate/benchgate/internal/verify"
)

// Result is what a mode hands back to its caller (Env.Result): the values
// it wrote its files from, with their paths. The GitHub Action renders
// these and never looks for a mode's files by name or age, so a renamed
// field or file is a compile error there rather than an empty summary.
// The one field of the mode that ran is set; all are nil when the mode
// stopped before it had anything to return (bad flags).
type Result struct {
	Report  *report.Result
	Set     *verify.SetResult
	Ordered *verify.OrderedResult
	Batch   *swebench.BatchResult
	Audit   *audit.Summary
	// Lookback is set by report and set when a baseline, a history or
	// both were compared.
	Lookback *lookback.Result
	// Comment is what pr-comment did.
	Comment *prcomment.Result
	// Drift is what drift found.
	Drift *DriftResult
}

package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/benchgate/benchgate/internal/bench"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/textfmt"
	"github.com/benchgate/benchgate/internal/verify"
)

// progressMD rewrites a Markdown file with a table that grows as a set's
// attempts or an ordered run's sets finish. The Action passes its job
// summary: a job cancelled after hours still shows what it did, and the
// full summary replaces the table when the step ends normally.
type progressMD struct {
	path string
	log  io.Writer
	cmd  string
	rows []string
}

// write replaces the file with head and the rows so far. A failed write
// is said and otherwise ignored: the table is a view, never a result.
func (p *progressMD) write(head, columns string) {
	if p == nil || p.path == "" {
		return
	}
	text := head + "\n\n" + columns + strings.Join(p.rows, "")
	if err := fsutil.WriteFileAtomic(p.path, []byte(text), 0o644); err != nil {
		fmt.Fprintf(p.log, "benchgate %s: progress table: %v\n", p.cmd, err)
	}
}

// rowsCell is "actual/expected" of one mode.
func rowsCell(t *verify.Tracking, mode string) string {
	return fmt.Sprintf("%d/%d", t.RowsActual[mode], t.RowsExpected[mode])
}

func failingCell(ids []string) string {
	if len(ids) == 0 {
		return "-"
	}
	return textfmt.Cell(textfmt.Truncate(strings.Join(ids, ", "), 300))
}

// onAttempt is set's SetOptions.OnAttempt: one row per attempt.
func (p *progressMD) onAttempt(t *verify.Tracking) {
	if p == nil {
		return
	}
	attempt := "first run"
	if n := len(t.Reruns); n > 0 {
		attempt = fmt.Sprintf("rerun %d of %d", n, verify.MaxReruns)
	}
	p.rows = append(p.rows, fmt.Sprintf("| %s | %s | %s | %s |\n", attempt,
		rowsCell(t, bench.Modes[0]), rowsCell(t, bench.Modes[1]), failingCell(t.FailingScenarios)))
	p.write(fmt.Sprintf("## benchgate set `%s`: %d attempt(s) finished", t.Set, len(p.rows)),
		fmt.Sprintf("| attempt | rows %s | rows %s | failing scenarios |\n|---|---:|---:|---|\n", bench.Modes[0], bench.Modes[1]))
}

// onSet is ordered's OrderedOptions.OnSet: one row per finished set.
func (p *progressMD) onSet(sets []*verify.SetResult) {
	if p == nil || len(sets) == 0 {
		return
	}
	t := sets[len(sets)-1].Tracking
	p.rows = append(p.rows, fmt.Sprintf("| %d | `%s` | %s | %s | %s | %d | %s |\n", len(sets), t.Set, t.FinalStatus,
		rowsCell(t, bench.Modes[0]), rowsCell(t, bench.Modes[1]), len(t.Reruns), failingCell(t.FailingScenarios)))
	p.write(fmt.Sprintf("## benchgate ordered: %d of %d sets finished", len(sets), len(bench.OrderedSets)),
		fmt.Sprintf("| # | set | status | rows %s | rows %s | reruns | failing scenarios |\n|---:|---|---|---:|---:|---:|---|\n", bench.Modes[0], bench.Modes[1]))
}

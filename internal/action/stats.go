package action

import (
	"strings"

	"github.com/benchgate/benchgate/internal/jobsummary"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/textbar"
	"github.com/benchgate/benchgate/internal/textfmt"
	"github.com/benchgate/benchgate/internal/verify"
)

// statsInputs are the inputs of the statistical gate (report --stats;
// set and ordered record it in tracking.json).
var statsInputs = []Input{
	{Name: "stats", Kind: Bool, Flag: "--stats", Modes: []string{"report", "set", "ordered"}, Description: "report, set, ordered: add the statistical gate: paired confidence intervals per efficiency check, pass/fail/inconclusive/underpowered (docs/statistics.md). In report it decides the gate; in set and ordered it is recorded (true/false)."},
	{Name: "stats-confidence", Kind: Text, Flag: "--stats-confidence", Modes: []string{"report"}, Check: checkConfidence, Description: "report: family-wise confidence of the statistical gate, 0.5 to 0.999 (default 0.95)."},
	{Name: "stats-scope", Kind: Text, Flag: "--stats-scope", Modes: []string{"report"}, Description: "report: what the statistical gate's verdict is about: suite (default; these scenarios, beyond the noise of their repetitions) or scenarios (scenarios like these; for large suites)."},
	{Name: "stats-benchmark-scenarios", Kind: Text, Flag: "--stats-benchmark-scenarios", Modes: []string{"report"}, Description: "report: how many scenarios the benchmark has in all; the scenario scope's planner asks for no more and says when no feasible size decides (default: unknown)."},
	{Name: "stats-allow-undecided", Kind: Bool, Flag: "--stats-allow-undecided", Modes: []string{"report"}, Description: "report: let inconclusive and underpowered checks pass the statistical gate (true/false)."},
}

// statsOutputs are the outputs the statistical gate sets.
var statsOutputs = []Output{
	{"stats-verdict", "With stats: the statistical gate's verdict, pass, fail, inconclusive or underpowered (set: of the set; ordered: <set> <verdict> per line); empty without stats."},
	{"stats-lines", "With stats: one line per efficiency check (estimate, interval, n, verdict, and a text bar from -100% to +100% reduction: = the interval, o the estimate, | the threshold, Ø the estimate on the threshold); ordered: prefixed with the set."},
	{"stats-json", "With stats: path of latest-stats.json (ordered: one per set, one per line)."},
}

// statsEntry is one statistical gate a mode computed: report's, or one
// set's.
type statsEntry struct {
	Set             string // "" for report
	Verdict, Reason string
	Lines           []string
	// Plans are the planner's sentences for undecided checks.
	Plans []string
	// Scope says what the verdict is about, in words.
	Scope    string
	JSON, MD string
	// Checks are the efficiency checks, when the mode returned them
	// (report); a set's tracking keeps only Lines.
	Checks []report.EfficiencyCheck
}

// statsOf gathers the statistical gates from what the mode returned.
func statsOf(m *Result) []statsEntry {
	var out []statsEntry
	if m == nil {
		return nil
	}
	if r := m.Report; r != nil && r.Stats != nil {
		out = append(out, statsEntry{Verdict: string(r.Stats.Verdict), Reason: r.Stats.Reason, Lines: r.Stats.StatsLines(), Plans: r.Stats.PlanSentences(), Scope: r.Stats.ScopeText, JSON: r.StatsJSON, MD: r.StatsMD, Checks: r.Stats.Efficiency})
	}
	var sets []*verify.SetResult
	if m.Set != nil {
		sets = append(sets, m.Set)
	}
	if m.Ordered != nil {
		sets = append(sets, m.Ordered.Sets...)
	}
	for _, s := range sets {
		if s == nil || s.Tracking == nil {
			continue
		}
		g := s.Tracking.Gate
		if g == nil || g.Stats == nil {
			continue
		}
		st := g.Stats
		out = append(out, statsEntry{Set: s.Tracking.Set, Verdict: st.Verdict, Reason: st.Reason, Lines: st.Lines, JSON: st.JSON, MD: st.MD})
	}
	return out
}

// statsOutputsSet sets the stats-* outputs; without a gate they are not
// set at all (so read as empty), and steps without stats write exactly
// what they wrote before.
func (r *reporter) statsOutputsSet(entries []statsEntry) {
	if len(entries) == 0 {
		return
	}
	var verdicts, lines, files []string
	for _, e := range entries {
		// Several sets (ordered) are told apart by a set prefix.
		prefix := ""
		if len(entries) > 1 {
			prefix = e.Set + " "
		}
		verdicts = append(verdicts, prefix+e.Verdict)
		for _, l := range e.Lines {
			lines = append(lines, prefix+textfmt.OneLine(l))
		}
		files = append(files, r.rel(e.JSON))
	}
	r.output("stats-verdict", strings.Join(verdicts, "\n"))
	r.output("stats-lines", strings.Join(lines, "\n"))
	r.output("stats-json", strings.Join(files, "\n"))
}

// statsSummary adds the statistical gate to the job summary: the verdict
// with its reason, then one line per efficiency check.
func (r *reporter) statsSummary(doc *jobsummary.Doc, entries []statsEntry) {
	if len(entries) == 0 {
		return
	}
	sec := doc.Section("Statistical gate: details and power planner")
	sec.Collapsed = true
	sec.Note = "see " + r.shown(entries[0].MD)
	// Two figures answer "how much less": say which is which.
	sec.Para("The estimates here are paired over scenarios (each scenario's ghx against its agent_direct), with their intervals; gate v2's reductions in the report's own tables are the median of per-scenario reductions of stable rows. They reduce the same rows differently, so they differ; the statistical gate's estimate is the one its verdict uses.")
	for _, e := range entries {
		who := ""
		if e.Set != "" {
			who = "Set " + e.Set + ": "
		}
		sec.Para("%s**%s**: %s", who, strings.ToUpper(e.Verdict), textfmt.Cell(e.Reason))
		if e.Scope != "" {
			sec.Para("What this verdict is about: %s.", textfmt.Cell(e.Scope))
		}
		items := make([]string, len(e.Lines))
		for i, l := range e.Lines {
			items[i] = "`" + textfmt.OneLine(l) + "`"
		}
		sec.List(items)
		if len(e.Plans) > 0 {
			plans := make([]string, len(e.Plans))
			for i, p := range e.Plans {
				plans[i] = textfmt.Cell(p)
			}
			sec.Para("Power planner: %s.", strings.Join(plans, "; "))
		}
	}
	sec.Para("Bar: %s. Method and figures: %s.", textbar.Legend(report.BarAxis), r.shown(entries[0].MD))
}

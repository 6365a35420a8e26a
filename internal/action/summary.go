package action

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/jobsummary"
	"github.com/benchgate/benchgate/internal/textfmt"
	"github.com/benchgate/benchgate/internal/verdict"
	"github.com/benchgate/benchgate/internal/verify"
)

// buildSummary is the job summary of a finished mode, all but the
// artifacts section (artifactsSection), which can only be written after
// the upload that carries the summary's own copy (keepSummary).
func (r *reporter) buildSummary(p *Plan, res *results, code int, annotated, total int, v *verdict.Verdict) *jobsummary.Doc {
	var doc jobsummary.Doc
	// The verdict comes first, stated once: the headline and the table
	// of every check (the same the comment shows).
	doc.Lead = leadOf(v)
	head := doc.Section("benchgate " + p.Mode)
	head.Note = "see the uploaded artifacts or " + r.shown(orDefault(p.OutDir, p.WorkDir))
	doc.Note = head.Note
	head.Para("Command: %s (exit code %d).", textfmt.Code(r.scrub("benchgate "+strings.Join(redactArgs(p.Args, r.workspace), " "))), code)
	// With exit code 2 the headline already quotes the error.
	if code != exitOK && code != exitUsage && res.ModeError != "" {
		head.Para("Last error: %s", textfmt.InertCell(textfmt.Truncate(r.scrub(res.ModeError), 2000)))
	}
	if trig := r.trigger(v.Compared); trig != "" {
		head.Para("%s", trig)
	}
	switch {
	case total > 0 && p.Mode == "report" && code == exitOK:
		head.Para("%d rows break a blocking rule (success, output_valid, error); they are warnings here, since `report` judges the gate, not rows (`set` fails on them). The first %d are annotated on their suite file and line.", total, min(total, MaxErrorAnnotations))
	case total > 0:
		head.Para("%d failing rows; the first %d are annotated on their suite file and line.", total, annotated)
		if total > annotated {
			head.Para("**%d more failing rows are not annotated** (GitHub shows at most %d error annotations per step): they are listed in the failing-rows tables below and in the suite files of each set folder.", total-annotated, MaxErrorAnnotations)
		}
	}
	if code != exitUsage {
		// Nothing was judged: no rows, charts or gates to show.
		adapterFor(p.Mode).views(r, &doc, head, p, res)
	}
	return &doc
}

// artifactsSection lists the uploads and how each went.
func (r *reporter) artifactsSection(doc *jobsummary.Doc, arts []artifact) {
	if len(arts) == 0 {
		return
	}
	sec := doc.Section("Artifacts")
	_, link := runURL(r.cfg.Getenv)
	rows := [][]string{}
	for _, a := range arts {
		state := "uploaded"
		if a.Err != nil {
			state = "failed: " + a.Err.Error()
		}
		name := textfmt.Cell(a.Name)
		if a.Err == nil && a.ID != 0 && link != nil {
			// A link downloads the artifact from the run's page.
			name = "[" + name + "](" + link(a.ID) + ")"
		}
		rows = append(rows, []string{name, textfmt.Cell(r.shown(a.Dir)), textfmt.Cell(state)})
	}
	sec.RawTable([]string{"artifact", "folder", "upload"}, rows)
}

// trigger describes the event that started the run, from GITHUB_EVENT_NAME
// and the event JSON, so a summary read later says what it was about.
func (r *reporter) trigger(c verdict.Compared) string {
	ctx, err := r.a.Context()
	if err != nil {
		r.a.Warningf("the event of this run could not be read: %v", err)
		return ""
	}
	if ctx == nil || ctx.EventName == "" {
		return ""
	}
	out := "Triggered by `" + ctx.EventName + "`"
	if ctx.Repository != "" {
		out += " on `" + ctx.Repository + "`"
	}
	if pr, ok := ctx.Event["pull_request"].(map[string]any); ok {
		if n, ok := pr["number"].(float64); ok {
			out += fmt.Sprintf(", pull request #%d", int(n))
		}
	}
	// The pull request's head, not GITHUB_SHA (the merge commit GitHub
	// builds for the run).
	if c.Head != "" {
		sha := "`" + textfmt.Truncate(c.Head, 12) + "`"
		if c.HeadURL != "" {
			sha = "[" + sha + "](" + c.HeadURL + ")"
		}
		out += " at " + sha
		switch {
		case c.Head == ctx.SHA || ctx.SHA == "":
		case ctx.EventName == "workflow_run":
			// The second stage runs on the base branch's commit; what it
			// posted is about the pull request's head.
			out += " (the commit the posted verdict judged; this run checked out `" + textfmt.Truncate(ctx.SHA, 12) + "` of the base branch)"
		default:
			out += " (the run checked out the merge commit `" + textfmt.Truncate(ctx.SHA, 12) + "`)"
		}
	}
	return out + "."
}

// redactArgs shortens absolute paths under the workspace for display,
// and leaves out --progress-md: it names the step's own summary file,
// not something a person would type.
func redactArgs(args []string, workspace string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--progress-md" && i+1 < len(args) {
			i++
			continue
		}
		if rel, err := filepath.Rel(workspace, a); err == nil && filepath.IsAbs(a) && !strings.HasPrefix(rel, "..") {
			a = rel
		}
		out = append(out, a)
	}
	return out
}

// setsTable is ordered's table of all sets: status, gate, statistical
// gate, failing scenarios, each set linked to its section.
func (r *reporter) setsTable(sets []*setResult, secs []*jobsummary.Section) [][]string {
	var rows [][]string
	for i, s := range sets {
		t := s.Tracking
		gate, stats := "-", "-"
		if g := t.Gate; g != nil && g.Ran {
			gate = passFail(g.Passed)
			if g.Stats != nil {
				stats = strings.ToUpper(g.Stats.Verdict)
			}
		}
		failing := "-"
		if n := len(t.FailingScenarios); n > 0 {
			shown := t.FailingScenarios
			if n > 5 {
				shown = shown[:5]
			}
			var parts []string
			for _, id := range shown {
				parts = append(parts, textfmt.CodeCell(id))
			}
			failing = strings.Join(parts, ", ")
			if n > 5 {
				failing += fmt.Sprintf(" and %d more", n-5)
			}
		}
		rows = append(rows, []string{strconv.Itoa(i + 1), "[" + textfmt.Cell(t.Set) + "](" + secs[i].Anchor() + ")", textfmt.Cell(orDefault(t.FinalStatus, "unknown")), gate, stats, failing, strconv.Itoa(len(t.Reruns))})
	}
	return rows
}

// setSection is one set's details; in ordered they are collapsed under
// the set's heading, and passing sets are left out before failing ones
// when the summary is too large.
func (r *reporter) setSection(doc *jobsummary.Doc, s *setResult, collapsed bool) *jobsummary.Section {
	t := s.Tracking
	sec := doc.Section("Set " + t.Set + ": " + orDefault(t.FinalStatus, "unknown"))
	sec.Note = "see " + r.shown(s.Dir)
	if collapsed {
		sec.Collapsed, sec.Drop = true, 1
		if t.FinalStatus == "pass" {
			sec.Drop = 2
		}
	}
	if t.Provider != "" || t.Model != "" {
		sec.Para("Provider %s, model %s; folder %s.", textfmt.Code(t.Provider), textfmt.Code(t.Model), textfmt.Code(r.shown(s.Dir)))
	}
	if t.Error != "" {
		sec.Para("**Stopped:** %s", textfmt.InertCell(t.Error))
	}
	modes := map[string]bool{}
	for m := range t.RowsExpected {
		modes[m] = true
	}
	for m := range t.RowsActual {
		modes[m] = true
	}
	var names []string
	for m := range modes {
		names = append(names, m)
	}
	sort.Strings(names)
	rows := [][]string{}
	for _, m := range names {
		failing := ""
		if st, ok := s.Suites[m]; ok {
			failing = strconv.Itoa(failingRows(st))
		}
		rows = append(rows, []string{m, strconv.Itoa(t.RowsExpected[m]), strconv.Itoa(t.RowsActual[m]), failing})
	}
	if len(rows) > 0 {
		sec.Table([]string{"mode", "rows expected", "rows actual", "failing rows"}, rows)
	}
	// The three blocking checks, by name as tracking.json spells them.
	rows = [][]string{}
	for _, c := range []struct {
		name string
		n    verify.Counts
	}{{"error_null", t.Checks.ErrorNull}, {"output_valid", t.Checks.OutputValid}, {"success", t.Checks.Success}} {
		rows = append(rows, []string{c.name, strconv.Itoa(c.n.Pass), strconv.Itoa(c.n.Fail)})
	}
	sec.Table([]string{"check", "pass", "fail"}, rows)
	if len(t.Reruns) > 0 {
		rows = [][]string{}
		for _, rr := range t.Reruns {
			ids := strings.Join(rr.ScenarioIDs, ", ")
			if ids == "" {
				ids = "(whole set)"
			}
			rows = append(rows, []string{strconv.Itoa(rr.Attempt), ids, rr.Result})
		}
		sec.Table([]string{"attempt", "scenarios", "result"}, rows)
	}
	if len(t.FailingScenarios) > 0 {
		sec.Para("Failing scenarios: %s", codeList(t.FailingScenarios))
	}
	chartSection(sec, s.Suites)
	failureTable(sec, r, t.Set, s.Suites, s.SuiteOrder)
	includeMarkdown(sec, s.SummaryMD, r)
	return sec
}

// chartSection draws per-scenario medians of active tokens and latency
// (in seconds, as the comment gives them), ghx against agent_direct,
// when both modes have passing rows; beyond jobsummary.MaxChartLabels
// scenarios no chart stays readable, and a table gives the medians.
func chartSection(sec *jobsummary.Section, suites map[string]*suiteStats) {
	base, cand := suites["agent_direct"], suites["ghx"]
	if base == nil || cand == nil {
		return
	}
	for _, metric := range []struct {
		title, unit string
		pick        func(*suiteStats) map[string][]float64
		scale       func(float64) float64
	}{
		{"Median active tokens per scenario", "active tokens", func(s *suiteStats) map[string][]float64 { return s.Active }, math.Round},
		{"Median wall latency per scenario", "seconds", func(s *suiteStats) map[string][]float64 { return s.Latency }, msToSeconds},
	} {
		b, c := metric.pick(base), metric.pick(cand)
		var ids []string
		for id := range b {
			if _, ok := c[id]; ok {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			continue
		}
		sort.Strings(ids)
		var bv, cv []float64
		for _, id := range ids {
			bv = append(bv, metric.scale(median(b[id])))
			cv = append(cv, metric.scale(median(c[id])))
		}
		if len(ids) > jobsummary.MaxChartLabels {
			sec.Para("%s (%s; %d scenarios are too many for a chart):", metric.title, metric.unit, len(ids))
			rows := make([][]string, len(ids))
			for i, id := range ids {
				rows[i] = []string{id, strconv.FormatFloat(bv[i], 'f', -1, 64), strconv.FormatFloat(cv[i], 'f', -1, 64)}
			}
			sec.Table([]string{"scenario", "agent_direct", "ghx"}, rows)
			continue
		}
		sec.Mermaid(jobsummary.ScenarioChart(metric.title, metric.unit, ids, jobsummary.Series{Name: "agent_direct", Values: bv}, jobsummary.Series{Name: "ghx", Values: cv}))
	}
}

// msToSeconds turns milliseconds into seconds with one decimal, two
// below a second.
func msToSeconds(ms float64) float64 {
	if ms < 1000 {
		return math.Round(ms/10) / 100
	}
	return math.Round(ms/100) / 10
}

// failureTable lists the failing rows of a set or report, one line per
// row: where it is, its mode, scenario and repetition, and every rule it
// breaks.
func failureTable(sec *jobsummary.Section, r *reporter, set string, suites map[string]*suiteStats, order []string) {
	rows := [][]string{}
	for _, m := range order {
		vs := suites[m].Violations
		for i := 0; i < len(vs); {
			v := vs[i]
			var rules []string
			for ; i < len(vs) && vs[i].File == v.File && vs[i].Line == v.Line; i++ {
				rules = append(rules, vs[i].Rule())
			}
			iteration := ""
			if v.Iteration > 0 {
				iteration = strconv.Itoa(v.Iteration)
			}
			rows = append(rows, []string{fmt.Sprintf("%s:%d", r.shown(v.File), v.Line), orDefault(v.Mode, m), v.ScenarioID, iteration, strings.Join(rules, "; ")})
		}
	}
	if len(rows) == 0 {
		return
	}
	sec.Para("Failing rows of %s (%d):", set, len(rows))
	sec.Table([]string{"file:line", "mode", "scenario", "repetition", "what failed"}, rows)
}

// includeMarkdown copies a mode's own Markdown summary into the job
// summary, with its headings pushed down a level to nest under ours.
func includeMarkdown(sec *jobsummary.Section, path string, r *reporter) {
	if path == "" {
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		sec.Para("%s could not be read: %v", r.shown(path), err)
		return
	}
	text := dropEmptyTables(r.scrub(string(b)))
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "#") {
			l = "##" + l
		}
		out = append(out, l)
	}
	// The mode's file is kept byte for byte (upstream's layout); here
	// what GitHub would take for raw HTML is escaped.
	sec.Para("From %s:\n\n%s", textfmt.Code(r.shown(path)), textfmt.EscapeTags(strings.TrimSpace(strings.Join(out, "\n"))))
}

// batchStatuses are the fixed per-instance statuses, in chart order.
var batchStatuses = []string{"success", "failed", "incomplete"}

func (r *reporter) batchSection(doc *jobsummary.Doc, b *batchResult) {
	sec := doc.Section("SWE-bench batch")
	sec.Note = "see " + r.shown(b.Root)
	counts := map[string]int{}
	rows := [][]string{}
	for _, in := range b.Instances {
		counts[in.Status]++
		rows = append(rows, []string{in.InstanceID, in.Status, string(in.FailureReasonCode), textfmt.Truncate(r.scrub(in.FailureReasonDetail), 200)})
	}
	labels := append([]string(nil), batchStatuses...)
	for s := range counts {
		if !slices.Contains(labels, s) {
			labels = append(labels, s)
		}
	}
	var cs []int
	var parts []string
	for _, l := range labels {
		cs = append(cs, counts[l])
		parts = append(parts, fmt.Sprintf("%s %d", l, counts[l]))
	}
	sec.Para("Run root `%s`: %d instances (%s). Predictions: `%s`.", r.shown(b.Root), len(b.Instances), strings.Join(parts, ", "), r.shown(b.Predictions))
	if len(b.Instances) > 0 {
		sec.Mermaid(jobsummary.Pie("Instance statuses", labels, cs))
	}
	sec.Table([]string{"instance", "status", "failure reason", "detail"}, rows)
}

func (r *reporter) auditSection(doc *jobsummary.Doc, a *auditResult) {
	sec := doc.Section("QA audit")
	if a.Report == "" {
		sec.Para("No quality_report.json was written.")
		return
	}
	sec.Note = "see " + r.shown(a.Report)
	counts := map[string]int{}
	var labels []string
	rows := [][]string{}
	human := 0
	for _, c := range a.Cases {
		if counts[c.Verdict] == 0 {
			labels = append(labels, c.Verdict)
		}
		counts[c.Verdict]++
		h := ""
		if c.NeedsHuman {
			h = "yes"
			human++
		}
		rows = append(rows, []string{r.shown(c.File), c.ID, c.Verdict, h})
	}
	sort.Strings(labels)
	var cs []int
	for _, l := range labels {
		cs = append(cs, counts[l])
	}
	sec.Para("Quality report `%s`: %d cases, %d need human review.", r.shown(a.Report), len(a.Cases), human)
	if len(a.Cases) > 0 {
		sec.Mermaid(jobsummary.Pie("Verdicts", labels, cs))
		sec.Table([]string{"file", "case", "verdict", "needs human review"}, rows)
	}
	if len(a.PRURLs) > 0 {
		sec.Para("Pull requests:")
		sec.List(a.PRURLs)
	}
	includeMarkdown(sec, a.SummaryMD, r)
}

// codeList shows IDs as code spans separated by commas.
func codeList(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = textfmt.Code(id)
	}
	return strings.Join(out, ", ")
}

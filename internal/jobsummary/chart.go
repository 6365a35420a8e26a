package jobsummary

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Charts as GitHub draws them (mermaid) must stay readable from one
// scenario to fifty: the value axis starts at 0, so bars compare by
// length; labels are shortened to fit; a chart of scenarios lays them
// out top to bottom, one row each, growing in height, so labels never
// overlap; colours mean the same status in every chart.

// MaxChartLabels is the most categories a chart draws; beyond it the
// tables carry the numbers.
const MaxChartLabels = 50

// Series is one named row of values of a chart.
type Series struct {
	Name   string
	Values []float64
}

// Colours of the two series of a comparison: the reference (bars) in
// grey, the mode judged (line) in blue, as the title's legend says.
const (
	barColour  = "#8c959f"
	lineColour = "#0969da"
)

// ScenarioChart compares two series per scenario: bars for the first,
// a line for the second (mermaid draws series over each other, so two
// bar series would hide the shorter bar). The scenarios are rows, top
// to bottom, so any number of labels up to MaxChartLabels fits; labels
// longer than 32 characters lose their middle. unit names the values
// ("seconds"); the axis starts at 0.
func ScenarioChart(title, unit string, labels []string, bars, line Series) string {
	return xyChart(title, unit, ShortLabels(labels, 32), bars, line, true)
}

// TrendChart is ScenarioChart over runs, oldest first, left to right:
// labels name the runs (a short commit, a start time "02-25 14:03" or a
// run number) and are kept to 12 characters.
func TrendChart(title, unit string, runs []string, bars, line Series) string {
	return xyChart(title, unit, ShortLabels(runs, 12), bars, line, false)
}

// chartWidth is as wide as a job summary or comment shows a chart at
// full size; on a narrower page the chart shrinks as a whole, labels
// and gaps alike.
const chartWidth = 900

func xyChart(title, unit string, labels []string, bars, line Series, horizontal bool) string {
	if len(labels) == 1 && len(bars.Values) == 1 && len(line.Values) == 1 {
		// mermaid draws a line of one point as nothing: with one
		// scenario (or run), the two modes are two bars of one series,
		// each named on its axis.
		title = fmt.Sprintf("%s: %s", title, labels[0])
		labels = []string{bars.Name, line.Name}
		bars = Series{Name: bars.Name + " and " + line.Name, Values: []float64{bars.Values[0], line.Values[0]}}
		line = Series{}
	}
	top := 0.0
	for _, v := range append(append([]float64(nil), bars.Values...), line.Values...) {
		top = math.Max(top, v)
	}
	// Five-digit ticks ("10000") run together on the value axis; in
	// thousands they stay apart.
	if top >= 10000 {
		bars, line = thousands(bars), thousands(line)
		top /= 1000
		unit = "thousand " + unit
	}
	var b strings.Builder
	// The height grows with the rows, so each label has its own line.
	height := 400
	if horizontal {
		height = max(260, 120+34*len(labels))
	}
	fmt.Fprintf(&b, "---\nconfig:\n  xyChart:\n    width: %d\n    height: %d\n  themeVariables:\n    xyChart:\n      plotColorPalette: \"%s, %s\"\n---\n", chartWidth, height, barColour, lineColour)
	b.WriteString("xychart-beta")
	if horizontal {
		b.WriteString(" horizontal")
	}
	// mermaid has no legend: the title names the series and their colour.
	if line.Name != "" {
		title = fmt.Sprintf("%s (grey bars: %s, blue line: %s)", title, bars.Name, line.Name)
	}
	fmt.Fprintf(&b, "\n  title %s\n", quote(title))
	qs := make([]string, len(labels))
	for i, l := range labels {
		qs[i] = quote(l)
	}
	fmt.Fprintf(&b, "  x-axis [%s]\n", strings.Join(qs, ", "))
	fmt.Fprintf(&b, "  y-axis %s 0 --> %s\n", quote(unit), number(NiceCeil(top)))
	fmt.Fprintf(&b, "  bar [%s]\n", values(bars.Values))
	if line.Name != "" {
		fmt.Fprintf(&b, "  line [%s]\n", values(line.Values))
	}
	return b.String()
}

// thousands is s in thousands, to one decimal.
func thousands(s Series) Series {
	out := Series{Name: s.Name, Values: make([]float64, len(s.Values))}
	for i, v := range s.Values {
		out.Values[i] = math.Round(v/100) / 10
	}
	return out
}

// NiceCeil is the round number at or above v (1, 1.2, 1.5, 2, 2.5, 3,
// 4, 5, 6 or 8 times a power of ten) where a value axis ends, close
// enough above the highest bar that the bars fill the chart; 1 for
// nothing to show.
func NiceCeil(v float64) float64 {
	if !(v > 0) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		// Rounded, so 4 x 0.1 is 0.4 and not 0.4000000000000001.
		if top, _ := strconv.ParseFloat(strconv.FormatFloat(m*p, 'g', 12, 64), 64); top >= v {
			return top
		}
	}
	return 10 * p
}

// ShortLabels returns the labels cut to at most n characters: the start
// and the end are kept (scenario IDs differ at both: a kind first, a
// number last) around an ellipsis. Labels that would then read the same
// are numbered instead, so no two bars share a name.
func ShortLabels(labels []string, n int) []string {
	out := make([]string, len(labels))
	seen := map[string]bool{}
	clash := false
	for i, l := range labels {
		out[i] = cutMiddle(l, n)
		clash = clash || seen[out[i]]
		seen[out[i]] = true
	}
	if clash {
		for i, l := range out {
			out[i] = cutMiddle(strconv.Itoa(i+1)+". "+l, n)
		}
	}
	return out
}

func cutMiddle(s string, n int) string {
	if utf8.RuneCountInString(s) <= n || n < 5 {
		return s
	}
	r := []rune(s)
	head := (n - 1) / 2
	tail := n - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

func values(v []float64) string {
	vs := make([]string, len(v))
	for i, x := range v {
		vs[i] = number(x)
	}
	return strings.Join(vs, ", ")
}

func number(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// statusColours give a status the same colour in every chart: green for
// what passed, red for what failed, amber for what ended undecided, grey
// for what did not run.
var statusColours = map[string]string{
	"success": "#1a7f37", "pass": "#1a7f37", "passed": "#1a7f37", "valid": "#1a7f37",
	"failed": "#cf222e", "fail": "#cf222e", "incorrect": "#cf222e", "error": "#cf222e",
	"incomplete": "#bf8700", "inconclusive": "#bf8700", "ambiguous": "#bf8700", "underpowered": "#bf8700",
	"skipped": "#8c959f", "not_run": "#8c959f", "not run": "#8c959f",
}

// otherColours are for statuses without a colour of their own, in turn.
var otherColours = []string{"#8250df", "#0969da", "#bc4c00", "#57606a"}

// StatusColour is the colour a status gets in charts.
func StatusColour(status string, other int) string {
	if c, ok := statusColours[strings.ToLower(status)]; ok {
		return c
	}
	return otherColours[other%len(otherColours)]
}

// Pie returns a mermaid pie chart of counts per status, largest first
// (the order mermaid draws and colours slices in), each status in its
// own colour; zero slices are left out because mermaid draws them as
// empty labels.
func Pie(title string, labels []string, counts []int) string {
	type slice struct {
		label string
		count int
	}
	var slices []slice
	for i, l := range labels {
		if counts[i] > 0 {
			slices = append(slices, slice{l, counts[i]})
		}
	}
	sort.SliceStable(slices, func(i, j int) bool { return slices[i].count > slices[j].count })
	var b strings.Builder
	b.WriteString("---\nconfig:\n  themeVariables:\n")
	other := 0
	for i, s := range slices {
		c := StatusColour(s.label, other)
		if _, ok := statusColours[strings.ToLower(s.label)]; !ok {
			other++
		}
		fmt.Fprintf(&b, "    pie%d: \"%s\"\n", i+1, c)
	}
	b.WriteString("---\n")
	fmt.Fprintf(&b, "pie title %s\n", strings.Trim(quote(title), `"`))
	for _, s := range slices {
		fmt.Fprintf(&b, "  %s : %d\n", quote(s.label), s.count)
	}
	return b.String()
}

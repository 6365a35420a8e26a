package action

import "strings"

// dropEmptyTables leaves out of Markdown a table with a header and no
// rows, and the heading of a section left with nothing else: upstream's
// latest-summary.md keeps its empty Profiling Snapshot table (the file is
// written byte for byte as upstream does), but the job summary that shows
// it need not.
func dropEmptyTables(md string) string {
	lines := strings.Split(md, "\n")
	isRow := func(i int) bool { return i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|") }
	isRule := func(i int) bool {
		l := strings.TrimSpace(lines[i])
		return strings.HasPrefix(l, "|") && strings.Trim(l, "|-: ") == ""
	}
	var kept []string
	for i := 0; i < len(lines); i++ {
		if isRow(i) && (i == 0 || !isRow(i-1)) && i+1 < len(lines) && isRule(i+1) && !isRow(i+2) {
			i++ // header and rule of a table without rows
			continue
		}
		kept = append(kept, lines[i])
	}
	// A heading followed only by blank lines up to the next heading of the
	// same or a higher level (or the end) has lost its content.
	var out []string
	for i := 0; i < len(kept); i++ {
		if level := headingLevel(kept[i]); level > 0 {
			j := i + 1
			for j < len(kept) && strings.TrimSpace(kept[j]) == "" {
				j++
			}
			if j == len(kept) || (headingLevel(kept[j]) > 0 && headingLevel(kept[j]) <= level) {
				i = j - 1
				continue
			}
		}
		out = append(out, kept[i])
	}
	return strings.Join(out, "\n")
}

// headingLevel is the level of an ATX heading line, or 0.
func headingLevel(l string) int {
	n := len(l) - len(strings.TrimLeft(l, "#"))
	if n == 0 || n > 6 || len(l) > n && l[n] != ' ' {
		return 0
	}
	return n
}

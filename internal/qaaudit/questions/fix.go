package questions

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/benchgate/benchgate/internal/fsutil"
)

// Fix is a correction of one case. Nil fields are left as they are.
// Options replaces the texts of the named options and adds options whose
// key does not exist yet; options it does not name are kept.
type Fix struct {
	Question      *string           `json:"question,omitempty"`
	Options       map[string]string `json:"options,omitempty"`
	CorrectAnswer *string           `json:"correct_answer,omitempty"`
	Explanation   *string           `json:"explanation,omitempty"`
}

// Empty reports whether the fix changes nothing.
func (x Fix) Empty() bool {
	return x.Question == nil && len(x.Options) == 0 && x.CorrectAnswer == nil && x.Explanation == nil
}

// edit replaces the source lines [from, to) (0-based) with text, keeping
// the first line's bytes before col.
type edit struct {
	from, to int
	col      int // byte offset in line `from` where the replacement starts
	text     string
}

// ApplyFix splices a corrected case into the file. Only the changed values
// are rewritten (in the quoting style a YAML dumper would choose), so every
// other line of the file, including the rest of this case, stays
// byte-identical. The fixed case must still be well formed (its
// correct_answer naming an option); otherwise the file is left unchanged
// and the error says why.
func (f *File) ApplyFix(id string, fix Fix) error {
	var c *Case
	for _, cc := range f.cases {
		if cc.ID != id {
			continue
		}
		if c != nil {
			return fmt.Errorf("%s: case %s is defined twice (lines %d and %d); fix the duplicate first", f.Path, id, c.Line, cc.Line)
		}
		c = cc
	}
	if c == nil {
		return fmt.Errorf("%s: no case with id %q", f.Path, id)
	}
	if c.Node.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d: case %s is not a mapping", f.Path, c.Line, id)
	}
	if fix.Empty() {
		return nil
	}
	lines := splitLines(f.src)
	ends := nodeStarts(f.root)
	var edits []edit
	set := func(m *yaml.Node, key, value string) error {
		k, v := mapGet(m, key)
		if v == nil {
			e, err := insertKey(lines, ends, m, key, value)
			if err != nil {
				return err
			}
			edits = append(edits, e)
			return nil
		}
		if v.Kind != yaml.ScalarNode || m.Style&yaml.FlowStyle != 0 {
			return fmt.Errorf("%s:%d: case %s: %s is not a plain block value; cannot splice it", f.Path, k.Line, id, key)
		}
		if v.Value == value {
			return nil
		}
		e, err := replaceValue(lines, ends, v, value)
		if err != nil {
			return fmt.Errorf("%s:%d: case %s: %s: %w", f.Path, v.Line, id, key, err)
		}
		edits = append(edits, e)
		return nil
	}
	if fix.Question != nil {
		if err := set(c.Node, "question", *fix.Question); err != nil {
			return err
		}
	}
	if len(fix.Options) > 0 {
		_, opts := mapGet(c.Node, "options")
		if opts == nil || opts.Kind != yaml.MappingNode || len(opts.Content) == 0 {
			return fmt.Errorf("%s:%d: case %s has no options mapping to fix", f.Path, c.Line, id)
		}
		for _, key := range slices.Sorted(maps.Keys(fix.Options)) {
			if !validOptionKey(key) {
				return fmt.Errorf("%s: case %s: option key %q: expected a letter or word", f.Path, id, key)
			}
			if err := set(opts, key, fix.Options[key]); err != nil {
				return err
			}
		}
	}
	if fix.CorrectAnswer != nil {
		if err := set(c.Node, "correct_answer", *fix.CorrectAnswer); err != nil {
			return err
		}
	}
	if fix.Explanation != nil {
		if err := set(c.Node, "explanation", *fix.Explanation); err != nil {
			return err
		}
	}
	out, err := applyEdits(lines, edits)
	if err != nil {
		return fmt.Errorf("%s: case %s: %w", f.Path, id, err)
	}
	nf, err := Parse(f.Path, out, f.opts)
	if err != nil {
		return fmt.Errorf("fixed case %s no longer parses: %w", id, err)
	}
	if nc, ok := nf.Case(id); !ok {
		return fmt.Errorf("%s: fixed case %s disappeared", f.Path, id)
	} else if !nc.OK() {
		return fmt.Errorf("fixed case %s is not valid: %s", id, nc.Problems[0])
	}
	*f = *nf
	return nil
}

// WriteAtomic writes the file's current content to path atomically.
func (f *File) WriteAtomic(path string) error {
	return fsutil.WriteFileAtomic(path, f.src, 0o644)
}

func validOptionKey(k string) bool {
	if k == "" || len(k) > 16 {
		return false
	}
	for _, r := range k {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			return false
		}
	}
	return true
}

// splitLines splits src into lines that keep their line endings.
func splitLines(src []byte) []string {
	var lines []string
	for len(src) > 0 {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			lines = append(lines, string(src))
			break
		}
		lines = append(lines, string(src[:i+1]))
		src = src[i+1:]
	}
	return lines
}

// nodeStarts returns the sorted 1-based start lines of every node: a value
// ends before the next line on which any node starts.
func nodeStarts(root *yaml.Node) []int {
	seen := map[int]bool{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil {
			return
		}
		seen[n.Line] = true
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	out := make([]int, 0, len(seen))
	for l := range seen {
		out = append(out, l)
	}
	sort.Ints(out)
	return out
}

// valueEnd returns the 0-based exclusive end line of a value starting on
// 1-based line start: up to the next node, minus trailing blank and
// comment lines, which belong to whatever follows.
func valueEnd(lines []string, starts []int, start int) int {
	end := len(lines)
	if i := sort.SearchInts(starts, start+1); i < len(starts) {
		end = starts[i] - 1
	}
	for end > start {
		t := strings.TrimSpace(lines[end-1])
		if t == "" || strings.HasPrefix(t, "#") || t == "-" {
			end--
			continue
		}
		break
	}
	return end
}

// byteCol converts a 1-based character column to a byte offset in line.
func byteCol(line string, col int) int {
	off := 0
	for i := 1; i < col && off < len(line); i++ {
		_, size := utf8.DecodeRuneInString(line[off:])
		off += size
	}
	return off
}

func replaceValue(lines []string, starts []int, v *yaml.Node, value string) (edit, error) {
	from := v.Line - 1
	if from < 0 || from >= len(lines) {
		return edit{}, fmt.Errorf("value line %d is outside the file", v.Line)
	}
	to := valueEnd(lines, starts, v.Line)
	text := renderScalar(value, v.Style)
	if v.LineComment != "" && to == from+1 {
		text += " " + v.LineComment
	}
	return edit{from: from, to: to, col: byteCol(lines[from], v.Column), text: text + eol(lines[to-1])}, nil
}

// insertKey adds `key: value` after the last entry of block mapping m, at
// the indentation of its first key.
func insertKey(lines []string, starts []int, m *yaml.Node, key, value string) (edit, error) {
	if m.Style&yaml.FlowStyle != 0 || len(m.Content) < 2 {
		return edit{}, fmt.Errorf("cannot add %s to an empty or flow-style mapping", key)
	}
	first := m.Content[0]
	last := m.Content[len(m.Content)-1]
	if last.Kind != yaml.ScalarNode {
		return edit{}, fmt.Errorf("cannot add %s after a nested value", key)
	}
	end := valueEnd(lines, starts, last.Line)
	indent := strings.Repeat(" ", first.Column-1)
	text := indent + renderKey(key) + ": " + renderScalar(value, 0) + eol(lines[end-1])
	return edit{from: end, to: end, col: 0, text: text}, nil
}

func eol(line string) string {
	if strings.HasSuffix(line, "\r\n") {
		return "\r\n"
	}
	return "\n"
}

func applyEdits(lines []string, edits []edit) ([]byte, error) {
	sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	for i := 1; i < len(edits); i++ {
		if edits[i].to > edits[i-1].from || (edits[i].from == edits[i-1].from && edits[i].to > edits[i].from) {
			return nil, fmt.Errorf("overlapping edits at line %d", edits[i].from+1)
		}
	}
	out := append([]string(nil), lines...)
	for _, e := range edits {
		prefix := ""
		if e.to > e.from {
			prefix = out[e.from][:e.col]
		}
		repl := []string{prefix + e.text}
		out = append(out[:e.from], append(repl, out[e.to:]...)...)
	}
	return []byte(strings.Join(out, "")), nil
}

// renderKey writes a mapping key, quoting it only when YAML would misread it.
func renderKey(k string) string { return renderScalar(k, 0) }

// renderScalar writes s the way a YAML dumper does: plain when the text
// reads back as the same string, single-quoted otherwise, double-quoted
// when the original was double-quoted or the text needs escapes.
func renderScalar(s string, orig yaml.Style) string {
	if orig&yaml.DoubleQuotedStyle != 0 || needsEscapes(s) {
		return marshalScalar(s, yaml.DoubleQuotedStyle)
	}
	if plain := marshalScalar(s, 0); plain == s {
		return plain
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func needsEscapes(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if r == '\n' || r == '\r' || r == '\t' || !unicode.IsPrint(r) && r != ' ' {
			return true
		}
	}
	return false
}

func marshalScalar(s string, style yaml.Style) string {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: style}
	out, err := yaml.Marshal(n)
	if err != nil {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return strings.TrimSuffix(string(out), "\n")
}

// RemoveCase deletes a case (a question the maintainers drop rather than
// fix). Its lines go; comments and blank lines before the next case stay
// with that case.
func (f *File) RemoveCase(id string) error {
	idx := -1
	for i, c := range f.cases {
		if c.ID != id {
			continue
		}
		if idx >= 0 {
			return fmt.Errorf("%s: case %s is defined twice (lines %d and %d); remove by hand", f.Path, id, f.cases[idx].Line, c.Line)
		}
		idx = i
	}
	if idx < 0 {
		return fmt.Errorf("%s: no case with id %q", f.Path, id)
	}
	c := f.cases[idx]
	if c.Node.Style&yaml.FlowStyle != 0 {
		return fmt.Errorf("%s:%d: case %s is written in flow style; remove by hand", f.Path, c.Line, id)
	}
	lines := splitLines(f.src)
	from := c.Line - 1
	if !strings.HasPrefix(strings.TrimSpace(lines[from]), "- ") {
		return fmt.Errorf("%s:%d: case %s does not start its own list item; remove by hand", f.Path, c.Line, id)
	}
	to := len(lines)
	if idx+1 < len(f.cases) {
		to = f.cases[idx+1].Line - 1
	}
	// Keep comments and blank lines that lead into the next case.
	to = trimTrailingGap(lines, from+1, to)
	out := append(append([]string(nil), lines[:from]...), lines[to:]...)
	nf, err := Parse(f.Path, []byte(strings.Join(out, "")), f.opts)
	if err != nil {
		return fmt.Errorf("file no longer parses after removing case %s: %w", id, err)
	}
	if len(nf.cases) != len(f.cases)-1 {
		return fmt.Errorf("%s: removing case %s changed %d cases", f.Path, id, len(f.cases)-len(nf.cases))
	}
	*f = *nf
	return nil
}

// trimTrailingGap moves end back over blank and comment lines, not below min.
func trimTrailingGap(lines []string, min, end int) int {
	for end > min {
		t := strings.TrimSpace(lines[end-1])
		if t == "" || strings.HasPrefix(t, "#") {
			end--
			continue
		}
		break
	}
	return end
}

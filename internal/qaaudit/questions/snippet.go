package questions

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// resolveSnippet finds the referenced Python file and cuts out its section.
// Upstream writes the paths relative to the benchmark repository's root
// (benchmarks/benchmark_definitions/...), so without an explicit root the
// question file's folder and each parent are tried in turn.
func resolveSnippet(yamlPath, root string, c *Case) {
	ref := c.SnippetRef
	line := c.fieldLine("code_snippet_ref")
	if filepath.IsAbs(ref.File) || strings.Contains(filepath.ToSlash(ref.File), "../") {
		c.problem(line, "code_snippet_ref.file", fmt.Sprintf("%q must be a relative path inside the benchmark repository", ref.File))
		return
	}
	var candidates []string
	if root != "" {
		candidates = []string{filepath.Join(root, ref.File)}
	} else {
		dir, err := filepath.Abs(filepath.Dir(yamlPath))
		if err != nil {
			dir = filepath.Dir(yamlPath)
		}
		for {
			candidates = append(candidates, filepath.Join(dir, ref.File))
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	for _, p := range candidates {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			ref.Path = p
			break
		}
	}
	if ref.Path == "" {
		c.problem(line, "code_snippet_ref.file", fmt.Sprintf("%q not found (looked in %s)", ref.File, candidates[0]))
		return
	}
	data, err := os.ReadFile(ref.Path)
	if err != nil {
		c.problem(line, "code_snippet_ref.file", err.Error())
		return
	}
	snippet, err := ExtractSection(data, ref.Section)
	var open *UnclosedError
	switch {
	case errors.As(err, &open):
		// Upstream's load_snippet reads an unclosed section to the end of
		// the file; so does the audit, and says so.
		c.Warnings = append(c.Warnings, Problem{CaseID: c.ID, File: c.File, Line: line, Field: "code_snippet_ref.section",
			Message: fmt.Sprintf("%s: %v; the snippet runs to the end of the file", ref.Path, err)})
	case err != nil:
		c.problem(line, "code_snippet_ref.section", fmt.Sprintf("%s: %v", ref.Path, err))
		return
	}
	c.CodeSnippet = snippet
}

// UnclosedError is returned, with the snippet read to the end of the
// file, when a section has no end marker.
type UnclosedError struct {
	Section string
	Line    int
}

func (e *UnclosedError) Error() string {
	return fmt.Sprintf("section %q opened at line %d is never closed with %q", e.Section, e.Line, "# --8<-- [end:"+e.Section+"]")
}

// ExtractSection returns the lines strictly between the markers
// `# --8<-- [start:<section>]` and `# --8<-- [end:<section>]`, dedented by
// their common leading whitespace (the snippet syntax of the benchmark's
// documentation tooling). Marker lines of other sections inside it are
// left out, as upstream's load_snippet does. A section that is never
// closed runs to the end of the file (upstream reads it so too): the
// snippet comes back with an *UnclosedError.
func ExtractSection(src []byte, section string) (string, error) {
	start := "--8<-- [start:" + section + "]"
	end := "--8<-- [end:" + section + "]"
	var lines []string
	in, found, closed := false, false, false
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	n := 0
	startLine := 0
	for sc.Scan() {
		n++
		text := sc.Text()
		marker := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "#"))
		switch {
		case !in && marker == start:
			if found {
				return "", fmt.Errorf("section %q starts twice (line %d)", section, n)
			}
			in, found, startLine = true, true, n
		case in && marker == end:
			in, closed = false, true
		case in && (strings.HasPrefix(marker, "--8<-- [start:") || strings.HasPrefix(marker, "--8<-- [end:")):
			// another section's marker
		case in:
			lines = append(lines, text)
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("section %q: start marker %q %w", section, "# "+start, errNotFound)
	}
	if !closed {
		return dedent(lines), &UnclosedError{Section: section, Line: startLine}
	}
	return dedent(lines), nil
}

func dedent(lines []string) string {
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ws := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ws, false
			continue
		}
		for !strings.HasPrefix(ws, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	var b strings.Builder
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			b.WriteString(strings.TrimPrefix(l, prefix))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

package action

import (
	"path/filepath"
	"strings"
)

// expandGlobs expands each pattern of a path list input (suite-jsonl:
// results/*-suite.jsonl) against dir, the working directory, in sorted
// order; a line without glob characters is kept as it is, for the mode
// to report if it is missing. A pattern that matches nothing is an
// error naming it: the mode would otherwise read no file or fall back to
// its own default.
func expandGlobs(input, dir string, patterns []string) ([]string, error) {
	var out []string
	for _, p := range patterns {
		if !strings.ContainsAny(p, "*?[") {
			out = append(out, p)
			continue
		}
		pattern := p
		if !filepath.IsAbs(pattern) {
			pattern = filepath.Join(dir, pattern)
		}
		matches, err := filepath.Glob(pattern)
		if err != nil {
			return nil, &InputError{Input: input, Value: p, Expected: "a valid glob pattern (" + err.Error() + ")"}
		}
		if len(matches) == 0 {
			return nil, &InputError{Input: input, Value: p, Expected: "a path or a pattern that matches files (no file matches " + pattern + ")"}
		}
		out = append(out, matches...)
	}
	return out, nil
}

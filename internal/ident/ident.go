// Package ident holds the patterns of the identifiers benchgate turns into
// folder, file, branch and container names or into command arguments: set
// names, scenario IDs, SWE-bench instance IDs, question case IDs and Python
// dotted names. Each is defined once, so that a bound is the same wherever
// the identifier is checked, and each says in words what it accepts.
package ident

import (
	"regexp"
	"strings"
)

// Pattern is one kind of identifier.
type Pattern struct {
	re *regexp.Regexp
	// Expected says what the pattern accepts, for messages: "set %q:
	// expected " + Expected.
	Expected string
}

// Match reports whether s is an identifier of this kind.
func (p Pattern) Match(s string) bool { return p.re.MatchString(s) }

var (
	// SetName is a benchmark scenario set, e.g. pr-exec; it names the
	// set's folder.
	SetName = Pattern{regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`),
		"lower-case letters, digits, '.', '_' or '-' (at most 64, starting with a letter or digit)"}
	// ScenarioID is a benchmark scenario, e.g. pr-view-001 (the
	// benchmark's own pattern).
	ScenarioID = Pattern{regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*-[0-9]{3}$`),
		"lower-case words joined by '-' and ending in a three-digit number, such as pr-view-001"}
	// InstanceID is a SWE-bench instance, owner__repo-NUMBER (e.g.
	// mrdoob__three.js-25687). It names folders, files and containers, so
	// callers also refuse ".." and bound its length.
	InstanceID = Pattern{regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*__[A-Za-z0-9][A-Za-z0-9._-]*-[0-9]+$`),
		"owner__repo-NUMBER (letters, digits, '.', '_', '-'; e.g. apache__druid-13704)"}
	// CaseID is a benchmark question's id; it names folders and branches.
	CaseID = Pattern{regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$`),
		"letters, digits and _ . : - only (at most 200), since ids name folders and branches"}
	// FQN is a dotted Python name of at most 31 parts, e.g.
	// google.adk.agents.LlmAgent. Only such names reach generated test
	// files, so no code can be smuggled into them.
	FQN = Pattern{regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*){0,30}$`),
		"a dotted Python name"}
	// PythonName is one Python identifier (a module file or an attribute).
	PythonName = Pattern{regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`), "a Python identifier"}
)

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Sanitize replaces every run of characters other than ASCII letters,
// digits, '.', '_' and '-' in s with repl: what is left is safe in a path
// segment, a branch name and a container name (callers trim the dots that
// could still make "." or "..").
func Sanitize(s, repl string) string { return unsafeChars.ReplaceAllString(s, repl) }

// PathSegment turns any id into a folder name that cannot leave its
// parent: Sanitize with "_", then leading and trailing '.' and '_' go; an
// empty result is "case".
func PathSegment(id string) string {
	safe := strings.Trim(Sanitize(id, "_"), "._")
	if safe == "" {
		safe = "case"
	}
	return safe
}

// Package questions loads benchmark question files (a YAML mapping with a
// `benchmarks:` list of cases) so that an auditor can read every case with
// its file and line, and write a corrected case back without disturbing
// anything else in the file: comments, key order, quoting and every other
// case stay byte-identical, because a fix is spliced into the original text
// instead of re-encoding the whole document.
//
// Three case kinds are typed: multiple_choice, api_understanding and
// fix_error. Keys the loader does not know are kept in the file untouched
// and are reachable through Case.Node.
package questions

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Kind is a case's benchmark_type.
type Kind string

// The case kinds of the benchmark schema.
const (
	MultipleChoice   Kind = "multiple_choice"
	APIUnderstanding Kind = "api_understanding"
	FixError         Kind = "fix_error"
)

// Option is one answer choice of a multiple-choice case.
type Option struct {
	Key  string // "A", "B", ...
	Text string
	Line int // line of the option's value in the file
}

// SnippetRef points at a section of a Python file that the question shows.
type SnippetRef struct {
	File    string // as written in the YAML
	Section string
	Path    string // resolved path on disk; empty when it could not be found
}

// Answer is one expected answer of an api_understanding case.
type Answer struct {
	AnswerTemplate          string
	Answer                  string
	FullyQualifiedClassName []string
}

// Case is one benchmark case. Fields that do not apply to its Kind are
// empty. File and Line locate the case (its first key); FieldLines gives
// the line of each top-level field so that problems and reports can point
// at the exact line.
type Case struct {
	ID   string
	Kind Kind
	File string
	Line int

	// multiple_choice
	Question      string
	Options       []Option
	CorrectAnswer string
	Explanation   string
	SnippetRef    *SnippetRef
	CodeSnippet   string // the resolved snippet text, dedented; empty when none

	// api_understanding
	Category  string
	Rationale string
	Template  string
	Answers   []Answer
	Source    string // the `file` key: the source file the question is about

	// fix_error
	Name         string
	Description  string
	TestFile     string
	UnfixedFile  string
	FixedFile    string
	Requirements []string
	ErrorOutput  string

	// FieldLines maps each top-level key of the case to its line.
	FieldLines map[string]int
	// Problems lists what is wrong with this case; a case with problems is
	// not auditable but never stops the other cases from loading.
	Problems []Problem
	// Warnings are oddities that do not stop the audit (a missing
	// benchmark_type read as multiple_choice).
	Warnings []Problem
	// Node is the case's YAML mapping, with every key including unknown ones.
	Node *yaml.Node
}

// OK reports whether the case loaded without problems and can be audited.
func (c *Case) OK() bool { return len(c.Problems) == 0 }

// Option returns the option with the given key.
func (c *Case) Option(key string) (Option, bool) {
	for _, o := range c.Options {
		if o.Key == key {
			return o, true
		}
	}
	return Option{}, false
}

// OptionKeys returns the option keys in file order.
func (c *Case) OptionKeys() []string {
	keys := make([]string, len(c.Options))
	for i, o := range c.Options {
		keys[i] = o.Key
	}
	return keys
}

// Problem is a defect of one case: where it is and what was expected.
type Problem struct {
	CaseID  string `json:"case_id"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	id := p.CaseID
	if id == "" {
		id = "(no id)"
	}
	return fmt.Sprintf("%s:%d: case %s: %s: %s", p.File, p.Line, id, p.Field, p.Message)
}

// Error is a defect that makes a whole file unreadable (bad YAML, no
// `benchmarks:` list). It names the file, the line and the field.
type Error struct {
	File    string
	Line    int
	Field   string
	Message string
	Err     error
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.Field, e.Message)
	}
	return fmt.Sprintf("%s: %s", loc, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// File is a loaded question file. It keeps the original bytes; Bytes
// returns them with every applied fix spliced in.
type File struct {
	Path string
	// Problems lists the per-case problems of every case, in file order.
	Problems []Problem

	opts  Options
	src   []byte
	root  *yaml.Node
	cases []*Case
}

// Cases returns every case in file order, including cases with problems.
func (f *File) Cases() []*Case { return f.cases }

// Case returns the first case with the given id.
func (f *File) Case(id string) (*Case, bool) {
	for _, c := range f.cases {
		if c.ID == id {
			return c, true
		}
	}
	return nil, false
}

// Bytes returns the file's current content.
func (f *File) Bytes() ([]byte, error) {
	out := make([]byte, len(f.src))
	copy(out, f.src)
	return out, nil
}

// Root returns the document's YAML node (for file-level keys such as
// target_repo_version that the loader does not type).
func (f *File) Root() *yaml.Node { return f.root }

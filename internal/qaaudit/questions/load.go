package questions

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/benchgate/benchgate/internal/ident"
)

// Options tune loading.
type Options struct {
	// SnippetRoot is the folder code_snippet_ref paths are relative to
	// (the benchmark repository's root). Empty means: try the question
	// file's folder and then each of its parents, so that both paths
	// relative to the file and paths relative to the repository root work.
	SnippetRoot string
	// SkipSnippets leaves code_snippet_ref unresolved (no problem is
	// reported for a missing snippet file).
	SkipSnippets bool
}

// LoadFile reads and parses a question file with default options.
func LoadFile(path string) (*File, error) {
	return Load(path, Options{})
}

// Load reads and parses a question file.
func Load(path string, opts Options) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read question file: %w", err)
	}
	return Parse(path, data, opts)
}

var (
	yamlLine = regexp.MustCompile(`line (\d+)`)
)

// Parse parses question-file bytes; path names the file in errors and
// anchors code_snippet_ref resolution.
func Parse(path string, data []byte, opts Options) (*File, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 0
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		return nil, &Error{File: path, Line: line, Message: "invalid YAML: " + trimYAMLPrefix(err.Error()), Err: err}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, &Error{File: path, Line: 1, Field: "benchmarks", Message: "empty file; expected a mapping with a `benchmarks:` list"}
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, &Error{File: path, Line: top.Line, Message: fmt.Sprintf("expected a mapping with a `benchmarks:` list, found %s", kindName(top))}
	}
	_, list := mapGet(top, "benchmarks")
	if list == nil {
		return nil, &Error{File: path, Line: top.Line, Field: "benchmarks", Message: "missing; expected a list of cases"}
	}
	if list.Kind != yaml.SequenceNode {
		if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
			list = &yaml.Node{Kind: yaml.SequenceNode, Line: list.Line}
		} else {
			return nil, &Error{File: path, Line: list.Line, Field: "benchmarks", Message: fmt.Sprintf("expected a list of cases, found %s", kindName(list))}
		}
	}
	f := &File{Path: path, opts: opts, src: data, root: &doc}
	seen := map[string]int{}
	for _, item := range list.Content {
		c := parseCase(path, item)
		if c.ID != "" {
			if first, dup := seen[c.ID]; dup {
				c.problem(c.fieldLine("id"), "id", fmt.Sprintf("duplicated case id; first defined at line %d", first))
			} else {
				seen[c.ID] = c.Line
			}
		}
		if c.SnippetRef != nil && !opts.SkipSnippets {
			resolveSnippet(path, opts.SnippetRoot, c)
		}
		f.cases = append(f.cases, c)
		f.Problems = append(f.Problems, c.Problems...)
	}
	return f, nil
}

func trimYAMLPrefix(s string) string {
	return string(bytes.TrimPrefix([]byte(s), []byte("yaml: ")))
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("the scalar %q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "an unknown node"
}

// mapGet returns the key and value nodes of key in a mapping node.
func mapGet(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

func (c *Case) problem(line int, field, msg string) {
	if line == 0 {
		line = c.Line
	}
	c.Problems = append(c.Problems, Problem{CaseID: c.ID, File: c.File, Line: line, Field: field, Message: msg})
}

func (c *Case) fieldLine(key string) int {
	if l, ok := c.FieldLines[key]; ok {
		return l
	}
	return c.Line
}

// str reads a string field; a missing field is "" and not a problem here,
// a non-scalar is a problem.
func (c *Case) str(key string) string {
	_, v := mapGet(c.Node, key)
	if v == nil {
		return ""
	}
	if v.Kind != yaml.ScalarNode {
		c.problem(v.Line, key, fmt.Sprintf("expected a string, found %s", kindName(v)))
		return ""
	}
	if v.Tag == "!!null" {
		return ""
	}
	return v.Value
}

func (c *Case) require(key, value string) {
	if value == "" {
		if _, v := mapGet(c.Node, key); v != nil && v.Kind != yaml.ScalarNode {
			return // already reported as the wrong type
		}
		c.problem(c.fieldLine(key), key, "missing or empty; a "+string(c.Kind)+" case needs it")
	}
}

func parseCase(path string, item *yaml.Node) *Case {
	c := &Case{File: path, Line: item.Line, Node: item, FieldLines: map[string]int{}}
	if item.Kind != yaml.MappingNode {
		c.problem(item.Line, "benchmarks[]", fmt.Sprintf("expected a case mapping, found %s", kindName(item)))
		return c
	}
	for i := 0; i+1 < len(item.Content); i += 2 {
		k := item.Content[i]
		if _, dup := c.FieldLines[k.Value]; dup {
			c.problem(k.Line, k.Value, "key defined twice in the same case")
			continue
		}
		c.FieldLines[k.Value] = k.Line
	}
	c.ID = c.str("id")
	switch {
	case c.ID == "":
		c.problem(c.fieldLine("id"), "id", "missing or empty; every case needs a unique id")
	case !ident.CaseID.Match(c.ID):
		c.problem(c.fieldLine("id"), "id", fmt.Sprintf("%q: expected %s", c.ID, ident.CaseID.Expected))
	}
	kind := c.str("benchmark_type")
	switch Kind(kind) {
	case "":
		// Upstream's verifier treats an untyped case as multiple choice.
		c.Kind = MultipleChoice
		c.Warnings = append(c.Warnings, Problem{CaseID: c.ID, File: c.File, Line: c.Line, Field: "benchmark_type",
			Message: "missing; read as multiple_choice"})
	case MultipleChoice, APIUnderstanding, FixError:
		c.Kind = Kind(kind)
	default:
		c.problem(c.fieldLine("benchmark_type"), "benchmark_type",
			fmt.Sprintf("unknown type %q; expected multiple_choice, api_understanding or fix_error", kind))
		return c
	}
	c.parseSnippetRef()
	switch c.Kind {
	case MultipleChoice:
		c.parseMultipleChoice()
	case APIUnderstanding:
		c.parseAPIUnderstanding()
	case FixError:
		c.parseFixError()
	}
	return c
}

func (c *Case) parseSnippetRef() {
	_, v := mapGet(c.Node, "code_snippet_ref")
	if v == nil || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
		return
	}
	if v.Kind != yaml.MappingNode {
		c.problem(v.Line, "code_snippet_ref", fmt.Sprintf("expected a mapping with file and section, found %s", kindName(v)))
		return
	}
	ref := &SnippetRef{}
	for _, key := range []string{"file", "section"} {
		_, s := mapGet(v, key)
		switch {
		case s == nil || (s.Kind == yaml.ScalarNode && s.Value == ""):
			c.problem(v.Line, "code_snippet_ref."+key, "missing or empty")
			return
		case s.Kind != yaml.ScalarNode:
			c.problem(s.Line, "code_snippet_ref."+key, fmt.Sprintf("expected a string, found %s", kindName(s)))
			return
		}
		if key == "file" {
			ref.File = s.Value
		} else {
			ref.Section = s.Value
		}
	}
	c.SnippetRef = ref
}

func (c *Case) parseMultipleChoice() {
	c.Question = c.str("question")
	c.CorrectAnswer = c.str("correct_answer")
	c.Explanation = c.str("explanation")
	c.require("question", c.Question)
	_, opts := mapGet(c.Node, "options")
	switch {
	case opts == nil || (opts.Kind == yaml.ScalarNode && opts.Tag == "!!null"):
		c.problem(c.fieldLine("options"), "options", "missing or empty; expected a mapping of option keys (A, B, ...) to texts")
	case opts.Kind != yaml.MappingNode:
		c.problem(opts.Line, "options", fmt.Sprintf("expected a mapping of option keys to texts, found %s", kindName(opts)))
	case len(opts.Content) == 0:
		c.problem(opts.Line, "options", "empty; expected at least two options")
	default:
		seen := map[string]bool{}
		for i := 0; i+1 < len(opts.Content); i += 2 {
			k, v := opts.Content[i], opts.Content[i+1]
			field := "options." + k.Value
			if seen[k.Value] {
				c.problem(k.Line, field, "option key defined twice")
				continue
			}
			seen[k.Value] = true
			if v.Kind != yaml.ScalarNode {
				c.problem(v.Line, field, fmt.Sprintf("expected the option text, found %s", kindName(v)))
				continue
			}
			if v.Value == "" || v.Tag == "!!null" {
				c.problem(v.Line, field, "empty option text")
				continue
			}
			c.Options = append(c.Options, Option{Key: k.Value, Text: v.Value, Line: v.Line})
		}
	}
	switch {
	case c.CorrectAnswer == "":
		c.require("correct_answer", c.CorrectAnswer)
	case len(c.Options) > 0:
		if _, ok := c.Option(c.CorrectAnswer); !ok {
			c.problem(c.fieldLine("correct_answer"), "correct_answer",
				fmt.Sprintf("%q names no option; expected one of %v", c.CorrectAnswer, c.OptionKeys()))
		}
	}
}

func (c *Case) parseAPIUnderstanding() {
	c.Question = c.str("question")
	c.Category = c.str("category")
	c.Rationale = c.str("rationale")
	c.Template = c.str("template")
	c.Source = c.str("file")
	c.require("question", c.Question)
	_, list := mapGet(c.Node, "answers")
	if list == nil || list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		line := c.fieldLine("answers")
		if list != nil {
			line = list.Line
		}
		c.problem(line, "answers", "missing or empty; expected a list of {answer_template, answer, fully_qualified_class_name}")
		return
	}
	for i, a := range list.Content {
		field := fmt.Sprintf("answers[%d]", i)
		if a.Kind != yaml.MappingNode {
			c.problem(a.Line, field, fmt.Sprintf("expected a mapping, found %s", kindName(a)))
			continue
		}
		ans := Answer{}
		if _, v := mapGet(a, "answer_template"); v != nil && v.Kind == yaml.ScalarNode {
			ans.AnswerTemplate = v.Value
		}
		if _, v := mapGet(a, "answer"); v != nil && v.Kind == yaml.ScalarNode && v.Value != "" {
			ans.Answer = v.Value
		} else {
			c.problem(a.Line, field+".answer", "missing or empty")
			continue
		}
		if _, v := mapGet(a, "fully_qualified_class_name"); v != nil {
			switch v.Kind {
			case yaml.ScalarNode: // upstream accepts a single string
				ans.FullyQualifiedClassName = []string{v.Value}
			case yaml.SequenceNode:
				for _, s := range v.Content {
					if s.Kind == yaml.ScalarNode {
						ans.FullyQualifiedClassName = append(ans.FullyQualifiedClassName, s.Value)
					} else {
						c.problem(s.Line, field+".fully_qualified_class_name", "expected a string")
					}
				}
			default:
				c.problem(v.Line, field+".fully_qualified_class_name", "expected a string or a list of strings")
			}
		}
		c.Answers = append(c.Answers, ans)
	}
}

func (c *Case) parseFixError() {
	c.Name = c.str("name")
	c.Description = c.str("description")
	c.TestFile = c.str("test_file")
	c.UnfixedFile = c.str("unfixed_file")
	c.FixedFile = c.str("fixed_file")
	c.ErrorOutput = c.str("error_output")
	c.require("test_file", c.TestFile)
	if _, v := mapGet(c.Node, "requirements"); v != nil {
		if v.Kind != yaml.SequenceNode {
			c.problem(v.Line, "requirements", "expected a list of strings")
			return
		}
		for _, s := range v.Content {
			c.Requirements = append(c.Requirements, s.Value)
		}
	}
}

// errNotFound marks a snippet file or section that does not exist.
var errNotFound = errors.New("not found")

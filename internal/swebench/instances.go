package swebench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Instance is one task of an instances or dataset file.
type Instance struct {
	ID               string
	ProblemStatement string
	// Repo and BaseCommit are informative, copied into SPECIFICATION.md.
	Repo       string
	BaseCommit string
}

type record struct {
	InstanceID       *string `json:"instance_id"`
	ProblemStatement string  `json:"problem_statement"`
	Repo             string  `json:"repo"`
	BaseCommit       string  `json:"base_commit"`
}

// LoadInstances reads an instances file by its extension:
//   - .txt (or any other): one ID per line, '#' starts a comment;
//   - .json: a list of IDs or of records, or {"instances": [...]};
//   - .jsonl: one record per line.
//
// Records carry "instance_id" and may carry "problem_statement", so the
// same file can be a subset list and a dataset file. Every ID is validated;
// errors name the file, the line or index, and the field.
func LoadInstances(path string) ([]Instance, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("instances file: %w", err)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return parseJSON(path, b)
	case ".jsonl":
		return parseJSONL(path, b)
	default:
		return parseTxt(path, b)
	}
}

func parseTxt(path string, b []byte) ([]Instance, error) {
	var out []Instance
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		s := sc.Text()
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if err := ValidateID(s); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, Instance{ID: s})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

func parseJSON(path string, b []byte) ([]Instance, error) {
	var raw json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON: %w", path, err)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		var wrap struct {
			Instances *json.RawMessage `json:"instances"`
		}
		if err := json.Unmarshal(raw, &wrap); err != nil || wrap.Instances == nil {
			return nil, fmt.Errorf("%s: a JSON object must have an \"instances\" list", path)
		}
		raw = *wrap.Instances
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("%s: expected a JSON list of instance IDs or records: %w", path, err)
	}
	var out []Instance
	for i, it := range items {
		inst, err := parseItem(it)
		if err != nil {
			return nil, fmt.Errorf("%s: item %d: %w", path, i, err)
		}
		out = append(out, inst)
	}
	return out, nil
}

func parseJSONL(path string, b []byte) ([]Instance, error) {
	var out []Instance
	for line, l := range bytes.Split(b, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		inst, err := parseItem(l)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line+1, err)
		}
		out = append(out, inst)
	}
	return out, nil
}

func parseItem(it []byte) (Instance, error) {
	var s string
	if json.Unmarshal(it, &s) == nil {
		return Instance{ID: s}, ValidateID(s)
	}
	var r record
	if err := json.Unmarshal(it, &r); err != nil {
		return Instance{}, fmt.Errorf("expected an instance ID string or an object with \"instance_id\": %w", err)
	}
	if r.InstanceID == nil {
		return Instance{}, fmt.Errorf("field \"instance_id\" is missing")
	}
	if err := ValidateID(*r.InstanceID); err != nil {
		return Instance{}, fmt.Errorf("field \"instance_id\": %w", err)
	}
	return Instance{ID: *r.InstanceID, ProblemStatement: r.ProblemStatement, Repo: r.Repo, BaseCommit: r.BaseCommit}, nil
}

// FindInstance returns the record of id in a dataset file.
func FindInstance(path, id string) (Instance, error) {
	all, err := LoadInstances(path)
	if err != nil {
		return Instance{}, err
	}
	for _, in := range all {
		if in.ID == id {
			if strings.TrimSpace(in.ProblemStatement) == "" {
				return Instance{}, fmt.Errorf("%s: instance %s has no \"problem_statement\"", path, id)
			}
			return in, nil
		}
	}
	return Instance{}, fmt.Errorf("%s: no record with instance_id %s", path, id)
}

// SpecMarkdown is the seeded SPECIFICATION.md: the task, verbatim.
func SpecMarkdown(in Instance) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Specification: %s\n\n## Source Instance\n\n- instance_id: `%s`\n", in.ID, in.ID)
	if in.Repo != "" {
		fmt.Fprintf(&b, "- repo: `%s`\n", in.Repo)
	}
	if in.BaseCommit != "" {
		fmt.Fprintf(&b, "- base_commit: `%s`\n", in.BaseCommit)
	}
	fmt.Fprintf(&b, "\n## Problem Statement\n\n%s\n", strings.TrimSpace(in.ProblemStatement))
	return b.String()
}

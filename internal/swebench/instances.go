package swebench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
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
	// Where is the record's place in its file, for messages: "file:line".
	Where string
	// statementKind names the JSON type of a problem_statement that is not
	// a string ("number", "object", ...); empty otherwise.
	statementKind string
}

type record struct {
	InstanceID       *string         `json:"instance_id"`
	ProblemStatement json.RawMessage `json:"problem_statement"`
	Repo             string          `json:"repo"`
	BaseCommit       string          `json:"base_commit"`
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
		out = append(out, Instance{ID: s, Where: fmt.Sprintf("%s:%d", path, line)})
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
	items, err := jsonListItems(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []Instance
	for i, it := range items {
		inst, err := parseItem(it.raw)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: item %d: %w", path, it.line, i, err)
		}
		inst.Where = fmt.Sprintf("%s:%d", path, it.line)
		out = append(out, inst)
	}
	return out, nil
}

// listItem is one element of a JSON list and the line it starts on.
type listItem struct {
	raw  json.RawMessage
	line int
}

// jsonListItems returns the elements of a JSON list, or of the list under
// "instances" in an object, each with its line. b is valid JSON.
func jsonListItems(b []byte) ([]listItem, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, _ := dec.Token()
	if t == json.Delim('{') {
		found := false
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			if k == "instances" {
				found = true
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
		}
		if !found {
			return nil, errors.New(`a JSON object must have an "instances" list`)
		}
		t, _ = dec.Token()
	}
	if t != json.Delim('[') {
		return nil, errors.New(`expected a JSON list of instance IDs or records (or {"instances": [...]})`)
	}
	var items []listItem
	for dec.More() {
		off := int(dec.InputOffset())
		for off < len(b) && strings.IndexByte(" \t\r\n,", b[off]) >= 0 {
			off++
		}
		var it json.RawMessage
		if err := dec.Decode(&it); err != nil {
			return nil, err
		}
		items = append(items, listItem{raw: it, line: 1 + bytes.Count(b[:off], []byte("\n"))})
	}
	return items, nil
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
		inst.Where = fmt.Sprintf("%s:%d", path, line+1)
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
	in := Instance{ID: *r.InstanceID, Repo: r.Repo, BaseCommit: r.BaseCommit}
	if ps := bytes.TrimSpace(r.ProblemStatement); len(ps) > 0 && string(ps) != "null" {
		if json.Unmarshal(ps, &in.ProblemStatement) != nil {
			in.statementKind = jsonKind(ps)
		}
	}
	return in, nil
}

// jsonKind names the JSON type of a value that is not a string.
func jsonKind(v []byte) string {
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// CheckDataset checks, before anything runs, that the dataset file has
// exactly one record for every instance of the scope ids, each with a
// non-empty string problem_statement: an instance without one would fail
// only when its turn came, hours into a batch, and two records of one
// instance make its task ambiguous. from, when it has an ID, says where
// the scope named it ("instances.txt:4"). Errors name the file and line.
func CheckDataset(path string, ids []string, from map[string]string) error {
	_, err := datasetRecords(path, ids, from)
	return err
}

// datasetRecords is CheckDataset that also returns the records of ids.
func datasetRecords(path string, ids []string, from map[string]string) (map[string]Instance, error) {
	all, err := LoadInstances(path)
	if err != nil {
		return nil, err
	}
	// Only the scope is checked: a second record of an instance outside
	// it is not this batch's concern (the first one is kept).
	inScope := map[string]bool{}
	for _, id := range ids {
		inScope[id] = true
	}
	byID := map[string]Instance{}
	for _, in := range all {
		if prev, dup := byID[in.ID]; dup {
			if inScope[in.ID] {
				return nil, fmt.Errorf("%s: a second record of instance %s (the first is at %s); expected one record per instance", in.Where, in.ID, prev.Where)
			}
			continue
		}
		byID[in.ID] = in
	}
	var missing []string
	for _, id := range SortUnique(ids) {
		in, ok := byID[id]
		switch {
		case !ok:
			m := id
			if w := from[id]; w != "" {
				m += " (" + w + ")"
			}
			missing = append(missing, m)
		case in.statementKind != "":
			return nil, fmt.Errorf("%s: instance %s: field \"problem_statement\" is %s; expected a string (the task text)", in.Where, id, in.statementKind)
		case strings.TrimSpace(in.ProblemStatement) == "":
			return nil, fmt.Errorf("%s: instance %s has no \"problem_statement\" (expected the task text as a non-empty string)", in.Where, id)
		}
	}
	if len(missing) > 0 {
		shown := missing
		if len(shown) > 10 {
			shown = append(shown[:10:10], fmt.Sprintf("and %d more", len(missing)-10))
		}
		if len(missing) == 1 {
			return nil, fmt.Errorf("%s: no record with instance_id %s (expected a record with instance_id and problem_statement for every instance in scope)", path, missing[0])
		}
		return nil, fmt.Errorf("%s: no record with instance_id for %d instances in scope: %s (expected a record with instance_id and problem_statement for each)", path, len(missing), strings.Join(shown, ", "))
	}
	return byID, nil
}

// FindInstance returns the record of id in a dataset file, after the
// checks of CheckDataset.
func FindInstance(path, id string) (Instance, error) {
	byID, err := datasetRecords(path, []string{id}, nil)
	if err != nil {
		return Instance{}, err
	}
	return byID[id], nil
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

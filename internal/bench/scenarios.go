package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/benchgate/benchgate/internal/ident"
	"github.com/benchgate/benchgate/internal/suggest"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// OrderedSets is the fixed verification order of the seed.
var OrderedSets = []string{
	"pr-exec",
	"pr-thread-mutations",
	"issues",
	"release-delivery",
	"workflows",
	"projects-v2",
	"pr-review-reads",
	"ci-diagnostics",
	"ci-log-analysis",
}

// SeedPolicy says whether a set gets fixtures seeded for it.
type SeedPolicy string

const (
	WithSeed SeedPolicy = "with_seed"
	ReadOnly SeedPolicy = "read_only"
)

// readOnlySets is the seed's policy table: these sets only read the
// shared fixtures. Every other set is seeded, so a new set defaults to the
// safe side (its own fixtures) rather than mutating shared ones.
var readOnlySets = map[string]bool{"ci-diagnostics": true, "ci-log-analysis": true}

// PolicyFor returns the seed policy of a set.
func PolicyFor(set string) SeedPolicy {
	if readOnlySets[set] {
		return ReadOnly
	}
	return WithSeed
}

// CheckSetName rejects set names that cannot safely become a path segment
// or an argument.
func CheckSetName(set string) error {
	if !ident.SetName.Match(set) {
		// Set names are lower-case; a name typed in capitals (PR-EXEC) is
		// answered with the one meant.
		hint := ""
		if low := asciiLower(set); ident.SetName.Match(low) {
			hint = fmt.Sprintf("; did you mean %s?", low)
		}
		return fmt.Errorf("set %q: expected %s%s", set, ident.SetName.Expected, hint)
	}
	return nil
}

// NormalizeScenarioID is the one rule by which benchgate compares scenario
// IDs, wherever they come from (the set file, --scenario-id, a suite
// row): it trims and lower-cases id and checks it against the benchmark's
// scenario ID pattern (for example pr-view-001). Applying it to the set
// file and the rows alike is what lets an ID written PR-View-001 in one
// place match pr-view-001 in another.
//
// Only ASCII is trimmed and folded, so the rule sees the bytes as
// written: Unicode case folding would turn look-alikes into other IDs
// (the Kelvin sign U+212A lower-cases to ASCII k, so "\u212Aelvin-001"
// would pass as kelvin-001), and non-breaking spaces would vanish. Every
// non-ASCII character is refused, as decomposed (NFD) letters are.
func NormalizeScenarioID(id string) (string, error) {
	n := asciiLower(strings.Trim(id, " \t\r\n"))
	if !ident.ScenarioID.Match(n) {
		// Quoted in ASCII: a look-alike (a Cyrillic е, the Kelvin sign)
		// would otherwise print exactly as the ID it imitates.
		return "", fmt.Errorf("scenario id %+q: expected %s", id, ident.ScenarioID.Expected)
	}
	return n, nil
}

// ScenarioSets is the benchmark's scenario-set manifest: set name to
// ordered scenario IDs.
type ScenarioSets struct {
	Path string
	// Sets holds each set's IDs normalised (NormalizeScenarioID) and
	// de-duplicated, in file order.
	Sets map[string][]string
	// Empty names the sets whose list is empty, sorted: no run of them
	// can pass, and Resolve refuses them.
	Empty []string
	// spelling maps a normalised ID to the ID as the set file writes it
	// (trimmed): what the benchmark's own resolver knows it by.
	spelling map[string]string
}

// LoadScenarioSets reads and validates a scenario-sets.json file.
func LoadScenarioSets(path string) (*ScenarioSets, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario sets: %w", err)
	}
	return ParseScenarioSets(path, data)
}

// ParseScenarioSets validates data as a scenario-set manifest: an object
// whose every value is a list of valid scenario IDs. An empty list is
// recorded in Empty, not refused: only the set being run must have
// scenarios.
func ParseScenarioSets(path string, data []byte) (*ScenarioSets, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("scenario sets %s: expected a JSON object of set name to scenario ID list: %s", path, lineOf(data, err))
	}
	if name, line, ok := duplicateTopLevelKey(data); ok {
		return nil, fmt.Errorf("scenario sets %s: line %d: set %q is defined twice; merge the two lists or rename one", path, line, name)
	}
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	sort.Strings(names)
	s := &ScenarioSets{Path: path, Sets: make(map[string][]string, len(raw)), spelling: map[string]string{}}
	for _, name := range names {
		var ids []string
		if err := json.Unmarshal(raw[name], &ids); err != nil || ids == nil {
			return nil, fmt.Errorf("scenario sets %s: set %q: expected an array of scenario IDs, got %s", path, name, textfmt.Truncate(string(raw[name]), 60))
		}
		if len(ids) == 0 {
			// Only the set being run must have scenarios; an empty one
			// elsewhere in the file is named in a warning.
			s.Empty = append(s.Empty, name)
			s.Sets[name] = []string{}
			continue
		}
		norm := make([]string, 0, len(ids))
		for i, id := range ids {
			n, err := NormalizeScenarioID(id)
			if err != nil {
				return nil, fmt.Errorf("scenario sets %s: set %q item %d: %w", path, name, i+1, err)
			}
			norm = append(norm, n)
			if _, ok := s.spelling[n]; !ok {
				s.spelling[n] = strings.Trim(id, " \t\r\n")
			}
		}
		s.Sets[name] = dedup(norm)
	}
	return s, nil
}

// Names returns the set names, sorted.
func (s *ScenarioSets) Names() []string {
	names := make([]string, 0, len(s.Sets))
	for n := range s.Sets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Resolve returns the scenario IDs a run of set executes: the set's list,
// or, when ids is non-empty, those IDs normalised and de-duplicated in
// first-seen order. Every ID must belong to the set, so a rerun can never
// widen what the set covers. The result is what rows_expected counts.
func (s *ScenarioSets) Resolve(set string, ids []string) ([]string, error) {
	if err := CheckSetName(set); err != nil {
		return nil, err
	}
	members, ok := s.Sets[set]
	if !ok {
		return nil, fmt.Errorf("unknown scenario set %q in %s%s (known sets: %s)", set, s.Path,
			suggest.DidYouMean(set, s.Names(), func(n string) string { return "--set " + n }), strings.Join(s.Names(), ", "))
	}
	if len(members) == 0 {
		return nil, fmt.Errorf("scenario sets %s: set %q: expected a non-empty array of scenario IDs, got []", s.Path, set)
	}
	if len(ids) == 0 {
		return dedup(members), nil
	}
	in := make(map[string]bool, len(members))
	for _, m := range members {
		in[m] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, raw := range ids {
		id, err := NormalizeScenarioID(raw)
		if err != nil {
			return nil, err
		}
		if !in[id] {
			return nil, fmt.Errorf("scenario id %q is not in set %q of %s%s", id, set, s.Path,
				suggest.DidYouMean(id, members, func(m string) string { return "--scenario-id " + s.Spelling(m) }))
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// EmptyWarning names the empty sets other than those being run, for a
// warning; "" when there are none.
func (s *ScenarioSets) EmptyWarning(running ...string) string {
	var others []string
	for _, name := range s.Empty {
		if !slices.Contains(running, name) {
			others = append(others, name)
		}
	}
	if len(others) == 0 {
		return ""
	}
	return fmt.Sprintf("warning: scenario sets %s: %s no scenarios: %s (a run of %s would be refused)", s.Path,
		map[bool]string{true: "this set has", false: "these sets have"}[len(others) == 1], strings.Join(others, ", "),
		map[bool]string{true: "it", false: "them"}[len(others) == 1])
}

// Spelling returns a normalised scenario ID as the set file writes it,
// for the benchmark's --scenario selector; an ID the file does not hold
// is returned as given.
func (s *ScenarioSets) Spelling(id string) string {
	if sp, ok := s.spelling[id]; ok {
		return sp
	}
	return id
}

// duplicateTopLevelKey finds a key the top-level object of data (already
// known to be valid JSON) holds twice, and the line of its second
// occurrence. encoding/json keeps the last value silently, which would drop
// a whole set's scenarios without a word.
func duplicateTopLevelKey(data []byte) (key string, line int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", 0, false
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", 0, false
		}
		k, _ := t.(string)
		if seen[k] {
			off := int(dec.InputOffset())
			return k, 1 + bytes.Count(data[:min(off, len(data))], []byte("\n")), true
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", 0, false
		}
	}
	return "", 0, false
}

func dedup(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func lineOf(data []byte, err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Sprintf("line %d: %v", line, err)
	}
	return err.Error()
}

// asciiLower lower-cases the ASCII letters of s and leaves every other
// byte as it is.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

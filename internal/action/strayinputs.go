package action

import (
	"sort"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/benchgate/benchgate/internal/suggest"
)

// warnStrayInputs warns about INPUT_* environment variables that look
// like one of benchgate's inputs but are not read: INPUT_SUITE_JSONL
// (the runner spells it INPUT_SUITE-JSONL), a near miss such as
// INPUT_SUITE-JSON, and, when the inputs come as one JSON object
// (composite action: BENCHGATE_INPUTS), any INPUT_* at all. Without the
// warning the input silently falls back to its default (report would read
// the newest results/*.jsonl instead).
func warnStrayInputs(a *githubactions.Action, environ []string, fromJSON bool) {
	var names []string
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "INPUT_") && strings.TrimSpace(v) != "" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		if msg := strayInput(k, fromJSON); msg != "" {
			a.WithFieldsMap(map[string]string{"title": "benchgate: " + k + " is not read"}).Warningf("%s", msg)
		}
	}
}

// strayInput says why the variable k is not read and which input was
// meant, or "" when k is read (or is nothing like benchgate's inputs).
func strayInput(k string, fromJSON bool) string {
	raw := strings.TrimPrefix(k, "INPUT_")
	norm := strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(raw, "_", "-"), " ", "-"))
	var best Input
	bestDist := 3 // at most two edits away counts as meant
	for _, in := range Inputs() {
		if d := suggest.Distance(norm, in.Name); d < bestDist {
			best, bestDist = in, d
		}
	}
	if best.Name == "" {
		return ""
	}
	canonical := "INPUT_" + strings.ToUpper(best.Name)
	switch {
	case fromJSON && k == canonical:
		// The runner's own copy of an input given under with: (act
		// sets them for a composite action's steps too).
		return ""
	case fromJSON:
		return k + " is set in the environment, but this action reads its inputs from `with:`; give `" + best.Name + ":` under `with:` instead"
	case k == canonical:
		return ""
	case bestDist == 0:
		return k + " is not read: the input " + best.Name + " is read from " + canonical + " (dashes kept); give it as `with: " + best.Name + ":`"
	}
	return k + " is not an input of benchgate; did you mean " + best.Name + " (" + canonical + ")?"
}

package cli

import (
	"encoding/json"
	"fmt"
	"strings"
)

// inputsVar is where action.yml's composite step passes every input, as
// `${{ toJSON(inputs) }}`. A composite action gets no INPUT_* variables
// of its own, and input names with dashes (out-dir) cannot be set as
// shell variables, so one JSON object carries them all.
const inputsVar = "BENCHGATE_INPUTS"

// inputGetenv returns a getenv that answers INPUT_<NAME> lookups (the
// form go-githubactions asks for: the name upper-cased, spaces as
// underscores) from the JSON object in BENCHGATE_INPUTS when that is set,
// and everything else from getenv. Without BENCHGATE_INPUTS, INPUT_*
// variables are read as a container or JavaScript action gets them.
func inputGetenv(getenv func(string) string) (func(string) string, error) {
	raw := getenv(inputsVar)
	if raw == "" {
		return getenv, nil
	}
	var fields map[string]any
	if err := json.Unmarshal([]byte(raw), &fields); err != nil {
		return nil, fmt.Errorf("%s: expected a JSON object of input names and values (toJSON(inputs)): %v", inputsVar, err)
	}
	inputs := make(map[string]string, len(fields))
	for name, v := range fields {
		var s string
		switch v := v.(type) {
		case nil:
		case string:
			s = v
		case bool, float64:
			s = fmt.Sprint(v)
		default:
			return nil, fmt.Errorf("%s: input %q: expected a string, got %T", inputsVar, name, v)
		}
		inputs["INPUT_"+strings.ReplaceAll(strings.ToUpper(name), " ", "_")] = s
	}
	return func(k string) string {
		if strings.HasPrefix(k, "INPUT_") {
			return inputs[k]
		}
		return getenv(k)
	}, nil
}

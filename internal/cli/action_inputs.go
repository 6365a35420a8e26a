package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// inputsVar is where a step can pass every input as one JSON object,
// `${{ toJSON(inputs) }}`. A composite action gets no INPUT_* variables
// of its own, and input names with dashes (out-dir) cannot be set as
// shell variables, so one JSON object carries them all.
const inputsVar = "BENCHGATE_INPUTS"

// inputsFileVar names a file that holds the same JSON object, followed by
// the runner's artifact token as a RUNNER_VAR=value line. action.yml
// passes the inputs this way: a variable stays readable in the process's
// /proc/<pid>/environ for its whole life (unsetting it does not change
// that block), where any process of the same user, or root, can read the
// secrets among the inputs. The file is read once and removed.
const inputsFileVar = "BENCHGATE_INPUTS_FILE"

// fileVars are the variables the inputs file may carry besides the
// inputs: the token the artifact upload needs.
var fileVars = map[string]bool{"ACTIONS_RUNTIME_TOKEN": true}

// removedInputLine names, once per line of the inputs file, an INPUT_*
// variable the step removed from benchgate's environment (its value is
// never written): benchgate still warns about one that looks like an
// input but is not read.
const removedInputLine = "REMOVED_INPUT"

// stepInputs is where the step's inputs came from.
type stepInputs struct {
	// getenv answers INPUT_* lookups from the inputs and the rest from
	// the environment.
	getenv func(string) string
	// fromJSON says the inputs came as one JSON object (file or
	// variable), so no INPUT_* variable is read.
	fromJSON bool
	// removed lists the INPUT_* variables the step removed, by name.
	removed []string
	// names are the inputs' names as the JSON object gives them.
	names []string
}

// maxInputsFile bounds the inputs file: inputs are a few kilobytes.
const maxInputsFile = 4 << 20

// inputGetenv returns a getenv that answers INPUT_<NAME> lookups (the
// form go-githubactions asks for: the name upper-cased, spaces as
// underscores) from the inputs file or from BENCHGATE_INPUTS when either
// is set, and everything else from getenv. Without them, INPUT_*
// variables are read as a container or JavaScript action gets them.
func inputGetenv(getenv func(string) string) (stepInputs, error) {
	raw, where := []byte(getenv(inputsVar)), inputsVar
	vars := map[string]string{}
	var removed []string
	if path := getenv(inputsFileVar); path != "" {
		var err error
		if raw, vars, removed, err = readInputsFile(path); err != nil {
			return stepInputs{}, err
		}
		where = path
	}
	if len(raw) == 0 {
		// The INPUT_* variables are read now: the mode's run removes
		// them from the process before it starts anything, and the
		// step still reads inputs after it (pr-comment).
		inputs := map[string]string{}
		for _, kv := range os.Environ() {
			if k, _, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "INPUT_") {
				inputs[k] = getenv(k)
			}
		}
		return stepInputs{getenv: func(k string) string {
			if v, ok := inputs[k]; ok {
				return v
			}
			return getenv(k)
		}}, nil
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		return stepInputs{}, fmt.Errorf("%s: expected a JSON object of input names and values (toJSON(inputs)): %v", where, err)
	}
	inputs := make(map[string]string, len(fields))
	var names []string
	for name, v := range fields {
		var s string
		switch v := v.(type) {
		case nil:
		case string:
			s = v
		case bool, float64:
			s = fmt.Sprint(v)
		default:
			return stepInputs{}, fmt.Errorf("%s: input %q: expected a string, got %T", where, name, v)
		}
		inputs["INPUT_"+strings.ReplaceAll(strings.ToUpper(name), " ", "_")] = s
		names = append(names, name)
	}
	return stepInputs{fromJSON: true, removed: removed, names: names, getenv: func(k string) string {
		if strings.HasPrefix(k, "INPUT_") {
			return inputs[k]
		}
		if v, ok := vars[k]; ok {
			return v
		}
		return getenv(k)
	}}, nil
}

// readInputsFile reads and removes the inputs file: the JSON object of
// the inputs, then lines NAME=value of fileVars and REMOVED_INPUT=name. It is opened without
// following a link and must be a regular file, so a planted link or FIFO
// can neither redirect the read nor hang it.
func readInputsFile(path string) (raw []byte, vars map[string]string, removed []string, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s (%s): %w", inputsFileVar, path, err)
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, nil, nil, fmt.Errorf("%s (%s): expected a regular file", inputsFileVar, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxInputsFile+1))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s (%s): %w", inputsFileVar, path, err)
	}
	// Read once: the secrets in it are not left on disk for the rest of
	// the job.
	if err := os.Remove(path); err != nil {
		return nil, nil, nil, fmt.Errorf("%s (%s): cannot remove it after reading: %w", inputsFileVar, path, err)
	}
	if len(data) > maxInputsFile {
		return nil, nil, nil, fmt.Errorf("%s (%s): expected at most %d bytes", inputsFileVar, path, maxInputsFile)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode((*json.RawMessage)(&raw)); err != nil {
		return nil, nil, nil, fmt.Errorf("%s (%s): expected a JSON object of input names and values first: %v", inputsFileVar, path, err)
	}
	vars = map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data[dec.InputOffset():]))
	sc.Buffer(nil, maxInputsFile)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		k, v, ok := strings.Cut(text, "=")
		switch {
		case ok && k == removedInputLine:
			removed = append(removed, v)
		case ok && fileVars[k]:
			vars[k] = v
		default:
			return nil, nil, nil, fmt.Errorf("%s (%s): line %d after the inputs: expected ACTIONS_RUNTIME_TOKEN=value or %s=name, got %q", inputsFileVar, path, line, removedInputLine, k)
		}
	}
	return raw, vars, removed, nil
}

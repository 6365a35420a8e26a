package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// rule is one injected failure. Scenario and Set select what it applies
// to (empty matches all), Mode narrows it to one benchmark mode.
type rule struct {
	Scenario string `json:"scenario"`
	Set      string `json:"set"`
	Mode     string `json:"mode"`
	// Behavior: flaky (fails when run with the whole set, passes when
	// rerun by --scenario), always_fail, malformed, duplicate (a failing
	// row followed by a passing one for the same iteration),
	// extra_iteration (one more iteration than --repetitions asks),
	// wrong_mode (the row names the other mode), upper_case_id (the row
	// spells its scenario ID in upper case); run-level zero_rows, crash,
	// hang, ignore_selector (a --scenario run of Set's scenarios writes
	// every scenario of Set) and unrequested (Scenario names a scenario the
	// run did not ask for; its row is added to every run); and
	// fixtures_fail (the fixtures command Action fails).
	Behavior string `json:"behavior"`
	// Field is what always_fail/flaky break: success (default),
	// output_valid or error.
	Field string `json:"field"`
	// Attempt narrows a rule to whole-set runs ("set") or to runs by
	// --scenario ("rerun"); empty applies it to both.
	Attempt string `json:"attempt"`
	// Action is the fixtures action fixtures_fail breaks: status, seed or
	// cleanup.
	Action string `json:"action"`
}

// runLevel says which behaviours apply to a whole run rather than to one
// scenario's rows.
var runLevel = map[string]bool{"zero_rows": true, "crash": true, "hang": true, "ignore_selector": true, "unrequested": true}

type failures struct {
	Rules []rule `json:"rules"`
}

func loadFailures(root string, getenv func(string) string) (failures, error) {
	path := getenv("BENCHSIM_FAILURES")
	if path == "" {
		path = filepath.Join(root, "failures.json")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return failures{}, nil
		}
	}
	var f failures
	data, err := os.ReadFile(path)
	if err != nil {
		return f, fmt.Errorf("failures file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("failures file %s: %w", path, err)
	}
	for i, r := range f.Rules {
		switch r.Behavior {
		case "flaky", "always_fail", "zero_rows", "crash", "hang", "malformed", "duplicate", "extra_iteration",
			"wrong_mode", "upper_case_id", "ignore_selector", "unrequested", "fixtures_fail":
		default:
			return f, fmt.Errorf("failures file %s: rules[%d].behavior: expected flaky, always_fail, zero_rows, crash, hang, malformed, duplicate, extra_iteration, wrong_mode, upper_case_id, ignore_selector, unrequested or fixtures_fail, got %q", path, i, r.Behavior)
		}
		if r.Attempt != "" && r.Attempt != "set" && r.Attempt != "rerun" {
			return f, fmt.Errorf("failures file %s: rules[%d].attempt: expected set, rerun or nothing, got %q", path, i, r.Attempt)
		}
	}
	return f, nil
}

// match returns the first rule for this mode/set/scenario of a whole-set
// run (wholeSet) or a run by --scenario; scenario "" asks for run-level
// rules.
func (f failures) match(mode string, in func(set string) bool, scenario string, wantRun, wholeSet bool) *rule {
	for _, r := range f.all(mode, in, wholeSet) {
		if runLevel[r.Behavior] != wantRun || r.Behavior == "fixtures_fail" {
			continue
		}
		if !wantRun && r.Scenario != "" && r.Scenario != scenario {
			continue
		}
		return r
	}
	return nil
}

// all returns every rule that applies to this mode and kind of run; in
// says whether the run is one of a set's (a whole-set run of it, or a
// run by --scenario of its scenarios).
func (f failures) all(mode string, in func(set string) bool, wholeSet bool) []*rule {
	var out []*rule
	for i := range f.Rules {
		r := &f.Rules[i]
		if (r.Mode != "" && r.Mode != mode) || (r.Set != "" && !in(r.Set)) ||
			(r.Attempt == "set" && !wholeSet) || (r.Attempt == "rerun" && wholeSet) {
			continue
		}
		out = append(out, r)
	}
	return out
}

type benchArgs struct {
	mode, provider, model, output, set string
	repetitions                        int
	scenarios                          []string
}

func parseBenchArgs(args []string) (benchArgs, error) {
	var a benchArgs
	if len(args) < 2 {
		return a, fmt.Errorf("benchmark: expected <mode> <repetitions>")
	}
	a.mode = args[0]
	if a.mode != "agent_direct" && a.mode != "ghx" && a.mode != "mcp" {
		return a, fmt.Errorf("benchmark: mode %q: expected agent_direct, mcp or ghx", a.mode)
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 1 {
		return a, fmt.Errorf("benchmark: repetitions %q: expected an integer >= 1", args[1])
	}
	a.repetitions = n
	a.provider, a.model = "openai", "gpt-5.3-codex"
	rest := args[2:]
	for i := 0; i < len(rest); i += 2 {
		if i+1 >= len(rest) {
			return a, fmt.Errorf("benchmark: %s: expected a value", rest[i])
		}
		v := rest[i+1]
		switch rest[i] {
		case "--provider":
			a.provider = v
		case "--model":
			a.model = v
		case "--output-jsonl":
			a.output = v
		case "--scenario-set":
			a.set = v
		case "--scenario":
			a.scenarios = append(a.scenarios, v)
		default:
			return a, fmt.Errorf("benchmark: unknown flag %q", rest[i])
		}
	}
	if a.set != "" && len(a.scenarios) > 0 {
		return a, fmt.Errorf("benchmark: --scenario and --scenario-set are mutually exclusive")
	}
	if a.output == "" {
		return a, fmt.Errorf("benchmark: --output-jsonl is required")
	}
	return a, nil
}

func runBenchmark(args []string, root string, stdout, stderr io.Writer, getenv func(string) string) error {
	a, err := parseBenchArgs(args)
	if err != nil {
		return err
	}
	fails, err := loadFailures(root, getenv)
	if err != nil {
		return err
	}
	ids := a.scenarios
	setName := a.set
	wholeSet := len(ids) == 0
	var sets map[string][]string
	data, err := os.ReadFile(filepath.Join(root, "scenario-sets.json"))
	if err != nil {
		return fmt.Errorf("scenario sets: %w", err)
	}
	if err := json.Unmarshal(data, &sets); err != nil {
		return fmt.Errorf("scenario sets: %w", err)
	}
	if wholeSet {
		if setName == "" {
			setName = "default"
		}
		var ok bool
		if ids, ok = sets[setName]; !ok {
			return fmt.Errorf("Unknown scenario set: %s", setName)
		}
	}
	// A rule for a set applies to a run by --scenario when the scenarios
	// belong to that set: the benchmark knows its sets.
	in := func(set string) bool {
		if wholeSet {
			return set == a.set
		}
		return slices.Contains(sets[set], ids[0])
	}
	if m := getenv("BENCH_FIXTURE_MANIFEST"); m != "" {
		if _, err := loadManifest(m); err != nil {
			return err
		}
	}
	if a.mode == "ghx" && getenv("GHX_SKIP_GH_PREFLIGHT") != "1" {
		return fmt.Errorf("gh preflight failed: gh is not authenticated (set GHX_SKIP_GH_PREFLIGHT=1 in benchmark runs)")
	}
	runRule := fails.match(a.mode, in, "", true, wholeSet)
	var extra []string
	for _, r := range fails.all(a.mode, in, wholeSet) {
		switch {
		case r.Behavior == "ignore_selector" && !wholeSet && r.Set != "":
			ids = sets[r.Set]
		case r.Behavior == "unrequested" && r.Scenario != "":
			extra = append(extra, r.Scenario)
		}
	}
	ids = append(append([]string(nil), ids...), extra...)
	if runRule != nil && runRule.Behavior == "zero_rows" {
		fmt.Fprintf(stdout, "benchsim: %s wrote 0 rows\n", a.mode)
		return os.WriteFile(a.output, nil, 0o644)
	}
	if runRule != nil && runRule.Behavior == "hang" {
		fmt.Fprintf(stderr, "benchsim: hanging pid=%d\n", os.Getpid())
		for {
			time.Sleep(time.Hour)
		}
	}
	if err := os.MkdirAll(filepath.Dir(a.output), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(a.output, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	total := len(ids) * a.repetitions
	// BENCHSIM_PACE (a Go duration, e.g. 1s) writes one row per interval,
	// each flushed as it is written, as a real benchmark that takes
	// minutes does: what follows the file sees the rows land one by one.
	var pace time.Duration
	if v := getenv("BENCHSIM_PACE"); v != "" {
		if pace, err = time.ParseDuration(v); err != nil || pace < 0 {
			return fmt.Errorf("BENCHSIM_PACE %q: expected a duration such as 1s", v)
		}
	}
	n := 0
	for _, id := range ids {
		if _, err := os.Stat(filepath.Join(root, "scenarios", id+".json")); err != nil {
			return fmt.Errorf("scenario %s: no scenario file in %s", id, filepath.Join(root, "scenarios"))
		}
		for it := 1; it <= a.repetitions; it++ {
			if runRule != nil && runRule.Behavior == "crash" && n >= total/2 {
				w.WriteString(`{"timestamp":"` + time.Now().UTC().Format(time.RFC3339) + `","mode":`)
				w.Flush()
				fmt.Fprintln(stderr, "benchsim: simulated crash")
				os.Exit(3)
			}
			r := fails.match(a.mode, in, id, false, wholeSet)
			behavior := ""
			if r != nil {
				behavior = r.Behavior
			}
			if behavior == "malformed" {
				w.WriteString("{not json\n")
				n++
				continue
			}
			broken := ""
			if behavior == "always_fail" || behavior == "duplicate" || (behavior == "flaky" && wholeSet) {
				broken = r.Field
				if broken == "" {
					broken = "success"
				}
			}
			first := makeRow(a, id, setName, it, broken)
			switch behavior {
			case "wrong_mode":
				first.Mode = "ghx"
				if a.mode == "ghx" {
					first.Mode = "agent_direct"
				}
			case "upper_case_id":
				first.ScenarioID = strings.ToUpper(id)
			}
			rows := []row{first}
			switch behavior {
			case "duplicate":
				rows = append(rows, makeRow(a, id, setName, it, ""))
			case "extra_iteration":
				if it == a.repetitions {
					rows = append(rows, makeRow(a, id, setName, it+1, ""))
				}
			}
			for _, r := range rows {
				line, err := json.Marshal(r)
				if err != nil {
					return err
				}
				if pace > 0 && n > 0 {
					time.Sleep(pace)
				}
				if hold := getenv("BENCHSIM_HOLD"); hold != "" && n == total-1 {
					// BENCHSIM_HOLD holds the last row back until the named
					// file exists: a test sees the run before its end
					// without guessing how long it takes.
					if err := w.Flush(); err != nil {
						return err
					}
					for {
						if _, err := os.Stat(hold); err == nil {
							break
						}
						time.Sleep(20 * time.Millisecond)
					}
				}
				w.Write(line)
				w.WriteByte('\n')
				n++
				if pace > 0 {
					if err := w.Flush(); err != nil {
						return err
					}
				}
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "benchsim: %s wrote %d row(s) to %s\n", a.mode, n, a.output)
	return nil
}

type rowTokens struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	Reasoning  int `json:"reasoning"`
	CacheRead  int `json:"cache_read"`
	CacheWrite int `json:"cache_write"`
	Total      int `json:"total"`
}

type rowError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

type row struct {
	Timestamp          string         `json:"timestamp"`
	RunID              string         `json:"run_id"`
	Mode               string         `json:"mode"`
	ScenarioID         string         `json:"scenario_id"`
	ScenarioSet        *string        `json:"scenario_set"`
	Iteration          int            `json:"iteration"`
	SessionID          string         `json:"session_id"`
	Success            bool           `json:"success"`
	OutputValid        bool           `json:"output_valid"`
	LatencyMSWall      int            `json:"latency_ms_wall"`
	SDKLatencyMS       int            `json:"sdk_latency_ms"`
	Tokens             rowTokens      `json:"tokens"`
	Cost               float64        `json:"cost"`
	ToolCalls          int            `json:"tool_calls"`
	APICalls           int            `json:"api_calls"`
	InternalRetryCount int            `json:"internal_retry_count"`
	ExternalRetryCount int            `json:"external_retry_count"`
	Model              map[string]any `json:"model"`
	Git                map[string]any `json:"git"`
	Error              *rowError      `json:"error"`
}

// makeRow derives deterministic figures from the scenario ID, with ghx
// cheaper and faster than agent_direct, as the benchmark's thesis expects.
func makeRow(a benchArgs, id, set string, iteration int, broken string) row {
	h := fnv.New32a()
	h.Write([]byte(id))
	seed := int(h.Sum32()%1000) + iteration*7
	scale := 100
	tools := 5
	if a.mode == "ghx" {
		scale, tools = 55, 2
	}
	in, out, reason := (1200+seed)*scale/100, (300+seed/4)*scale/100, (80+seed/10)*scale/100
	cache := 4000
	var setPtr *string
	if len(a.scenarios) == 0 {
		setPtr = &set
	}
	r := row{
		Timestamp: time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		RunID:     fmt.Sprintf("sim-%08x-%d", h.Sum32(), iteration),
		Mode:      a.mode, ScenarioID: id, ScenarioSet: setPtr, Iteration: iteration,
		SessionID: fmt.Sprintf("ses_sim_%s_%d", a.mode, iteration),
		Success:   true, OutputValid: true,
		LatencyMSWall: (20000 + seed*10) * scale / 100,
		SDKLatencyMS:  (3000 + seed) * scale / 100,
		Tokens:        rowTokens{Input: in, Output: out, Reasoning: reason, CacheRead: cache, Total: in + out + reason + cache},
		ToolCalls:     tools,
		Model:         map[string]any{"provider_id": a.provider, "model_id": a.model, "mode": nil},
		Git:           map[string]any{"repo": nil, "commit": nil},
	}
	switch broken {
	case "success":
		r.Success = false
		r.Error = &rowError{Type: "assertion_failed", Message: "Outcome validation failed: expected_outcome=success"}
	case "output_valid":
		r.Success, r.OutputValid = false, false
		r.Error = &rowError{Type: "assertion_failed", Message: "Output validation failed: outputValid=false, expectValidOutput=true"}
	case "error":
		r.Success, r.OutputValid = false, false
		r.Error = &rowError{Type: "runner_error", Message: "simulated runner error"}
	}
	return r
}

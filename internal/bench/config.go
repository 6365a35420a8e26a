// Package bench is benchgate's only view of the external benchmark: the
// command-line contract of its benchmark and fixtures commands (argv
// templates, working directory, environment per mode), its scenario-set
// manifest and the seed policy of each set. Everything else in benchgate
// talks to the benchmark through this package, so that pointing benchgate
// at another benchmark (or at the simulator) is a configuration change.
package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Modes are the paired benchmark modes every set runs, in report order.
var Modes = []string{"agent_direct", "ghx"}

// Config is the benchmark CLI contract. The zero value is not useful;
// start from Default and overlay a file with Load.
type Config struct {
	// BenchDir is the benchmark package directory: commands run there and
	// relative paths below resolve against it.
	BenchDir string `json:"bench_dir"`
	// ScenarioSets is the benchmark's own scenario-set manifest.
	ScenarioSets string `json:"scenario_sets"`
	// FixtureManifest is the shared, pre-seeded fixture manifest that the
	// preflight checks and read-only sets use.
	FixtureManifest string `json:"fixture_manifest"`
	// ExpectationsConfig is handed to the report; empty uses its defaults.
	ExpectationsConfig string `json:"expectations_config"`
	// Benchmark is the argv template of one benchmark run. Placeholders:
	// {mode} {repetitions} {provider} {model} {output_jsonl} inside any
	// argument, and {selector} as a whole argument, which expands to
	// "--scenario-set <set>" or to "--scenario <id>" per scenario.
	Benchmark []string `json:"benchmark"`
	// Fixtures is the argv template of a fixtures command. Placeholders:
	// {action} (status, seed, cleanup) and {out} inside any argument,
	// {seed_id} as a whole argument ("--seed-id <id>" for seed, else none).
	Fixtures []string `json:"fixtures"`
	// Env holds KEY=VALUE pairs added to every child's environment.
	Env []string `json:"env"`
	// PassEnv names the variables of benchgate's environment the
	// benchmark and fixture commands get besides baseEnv (a name ending
	// in '*' is a prefix); nothing else of it reaches them (ChildEnv).
	PassEnv []string `json:"pass_env"`
	// ModeEnv holds KEY=VALUE pairs added for one benchmark mode only.
	ModeEnv map[string][]string `json:"mode_env"`
	// ManifestEnv names the variable that tells the benchmark which fixture
	// manifest to bind scenarios from.
	ManifestEnv string `json:"manifest_env"`
	// BenchmarkTimeout bounds one benchmark run; FixturesTimeout one
	// fixtures command; Grace is the SIGTERM→SIGKILL delay.
	BenchmarkTimeout Duration `json:"benchmark_timeout"`
	FixturesTimeout  Duration `json:"fixtures_timeout"`
	Grace            Duration `json:"grace"`
	// Confirm lists the canonical confirmation commands run (or printed)
	// after every ordered set passed.
	Confirm []Command `json:"confirm"`
}

// Command is a named argv with its own environment additions.
type Command struct {
	Name string   `json:"name"`
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
}

// Duration reads "90s", "30m" from JSON.
type Duration time.Duration

// UnmarshalJSON accepts a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("expected a duration string such as \"30m\", got %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return fmt.Errorf("expected a positive duration such as \"30m\", got %q", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

const pnpmFilter = "@ghx-dev/benchmark"

// Default returns the seed's contract: pnpm scripts of @ghx-dev/benchmark
// run from dir.
func Default(dir string) Config {
	return Config{
		BenchDir:        dir,
		ScenarioSets:    "scenario-sets.json",
		FixtureManifest: filepath.Join("fixtures", "latest.json"),
		Benchmark: []string{"pnpm", "--filter", pnpmFilter, "run", "benchmark", "--",
			"{mode}", "{repetitions}", "--provider", "{provider}", "--model", "{model}",
			"--output-jsonl", "{output_jsonl}", "{selector}"},
		Fixtures:         []string{"pnpm", "--filter", pnpmFilter, "run", "fixtures", "--", "{action}", "{seed_id}", "--out", "{out}"},
		ModeEnv:          map[string][]string{"ghx": {"GHX_SKIP_GH_PREFLIGHT=1"}},
		ManifestEnv:      "BENCH_FIXTURE_MANIFEST",
		BenchmarkTimeout: Duration(60 * time.Minute),
		FixturesTimeout:  Duration(10 * time.Minute),
		Grace:            Duration(5 * time.Second),
		Confirm: []Command{
			{Name: "verify_pr", Argv: []string{"pnpm", "--filter", pnpmFilter, "run", "benchmark:verify:pr"},
				Env: []string{"BENCH_PROVIDER_ID=openai", "BENCH_MODEL_ID=gpt-5.3-codex"}},
			{Name: "verify_release", Argv: []string{"pnpm", "--filter", pnpmFilter, "run", "benchmark:verify:release"},
				Env: []string{"BENCH_PROVIDER_ID=openai", "BENCH_MODEL_ID=gpt-5.3-codex"}},
		},
	}
}

// Load overlays the JSON file at path on base. Keys absent from the file
// keep base's values; unknown keys are rejected so that a typo does not
// silently fall back to a default. A relative bench_dir resolves against
// the file's directory.
func Load(path string, base Config) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return base, fmt.Errorf("bench config: %w", err)
	}
	cfg, err := decodeConfig(data, base)
	if err != nil {
		return base, fmt.Errorf("bench config %s: %w", path, err)
	}
	var fileDir struct {
		BenchDir *string `json:"bench_dir"`
	}
	_ = json.Unmarshal(data, &fileDir)
	if fileDir.BenchDir != nil && !filepath.IsAbs(cfg.BenchDir) {
		cfg.BenchDir = filepath.Join(filepath.Dir(path), cfg.BenchDir)
	}
	if err := cfg.Validate(); err != nil {
		return base, fmt.Errorf("bench config %s: %w", path, err)
	}
	return cfg, nil
}

// decodeConfig overlays data on base one top-level key at a time, so that
// every error names the line and the key it comes from (a bad duration or
// an unknown key would otherwise be reported without either).
func decodeConfig(data []byte, base Config) (Config, error) {
	cfg := base
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil {
		return base, jsonErrorAt(data, err)
	} else if tok != json.Delim('{') {
		return base, fmt.Errorf("line %d: expected a JSON object, got %v", lineAt(data, dec.InputOffset()), tok)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return base, jsonErrorAt(data, err)
		}
		key, _ := tok.(string)
		line := lineAt(data, dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return base, jsonErrorAt(data, err)
		}
		one, _ := json.Marshal(map[string]json.RawMessage{key: raw})
		kd := json.NewDecoder(bytes.NewReader(one))
		kd.DisallowUnknownFields()
		if err := kd.Decode(&cfg); err != nil {
			if strings.HasPrefix(err.Error(), "json: unknown field") {
				return base, fmt.Errorf("line %d: %s: %v", line, key, err)
			}
			return base, fmt.Errorf("line %d: %s: %v", line, key, strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	if _, err := dec.Token(); err != nil {
		return base, jsonErrorAt(data, err)
	}
	switch tok, err := dec.Token(); {
	case err == nil:
		return base, fmt.Errorf("line %d: expected the end of the file after the object, got %v", lineAt(data, dec.InputOffset()), tok)
	case err != io.EOF:
		return base, jsonErrorAt(data, err)
	}
	return cfg, nil
}

// jsonErrorAt adds the line to a decoder error: the error's offset for a
// syntax error, the last line for a file cut short.
func jsonErrorAt(data []byte, err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		// A streaming decoder's offsets are partly relative to the value
		// it was reading; a whole-file check gives the absolute one.
		var v any
		if whole := json.Unmarshal(data, &v); errors.As(whole, &syn) {
			err = whole
		}
		return fmt.Errorf("line %d: %w", lineAt(data, syn.Offset), err)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fmt.Errorf("line %d: expected more JSON, got the end of the file (truncated file)", lineAt(data, int64(len(data))))
	}
	return err
}

// lineAt is the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	return 1 + bytes.Count(data[:min(int(max(off, 0)), len(data))], []byte("\n"))
}

// Validate checks the templates carry what benchgate must pass.
func (c Config) Validate() error {
	if len(c.Benchmark) == 0 {
		return fmt.Errorf("benchmark: expected a non-empty argv template")
	}
	if len(c.Fixtures) == 0 {
		return fmt.Errorf("fixtures: expected a non-empty argv template")
	}
	joined := strings.Join(c.Benchmark, " ")
	for _, p := range []string{"{mode}", "{output_jsonl}", "{selector}"} {
		if !strings.Contains(joined, p) {
			return fmt.Errorf("benchmark: expected the placeholder %s in the argv template", p)
		}
	}
	if !strings.Contains(strings.Join(c.Fixtures, " "), "{action}") {
		return fmt.Errorf("fixtures: expected the placeholder {action} in the argv template")
	}
	if err := checkPlaceholders("benchmark", c.Benchmark, benchmarkPlaceholders, "{selector}"); err != nil {
		return err
	}
	if err := checkPlaceholders("fixtures", c.Fixtures, fixturesPlaceholders, "{seed_id}"); err != nil {
		return err
	}
	for _, kv := range c.Env {
		if !strings.Contains(kv, "=") {
			return fmt.Errorf("env: expected KEY=VALUE, got %q", kv)
		}
	}
	if err := CheckPassEnv("pass_env", c.PassEnv); err != nil {
		return err
	}
	for mode, kvs := range c.ModeEnv {
		for _, kv := range kvs {
			if !strings.Contains(kv, "=") {
				return fmt.Errorf("mode_env.%s: expected KEY=VALUE, got %q", mode, kv)
			}
		}
	}
	for i, cmd := range c.Confirm {
		if len(cmd.Argv) == 0 {
			return fmt.Errorf("confirm[%d]: expected a non-empty argv", i)
		}
	}
	return nil
}

// The placeholders each template expands; anything else in braces is a
// typo that would reach the benchmark literally.
var (
	benchmarkPlaceholders = []string{"{mode}", "{repetitions}", "{provider}", "{model}", "{output_jsonl}", "{selector}"}
	fixturesPlaceholders  = []string{"{action}", "{out}", "{seed_id}"}
	placeholderPattern    = regexp.MustCompile(`\{[A-Za-z0-9_.-]*\}`)
)

// checkPlaceholders refuses a placeholder the template does not expand,
// and whole, a placeholder that expands to several arguments (or none)
// used inside a longer argument.
func checkPlaceholders(key string, argv, known []string, whole string) error {
	for i, arg := range argv {
		for _, p := range placeholderPattern.FindAllString(arg, -1) {
			if !slices.Contains(known, p) {
				return fmt.Errorf("%s[%d] %q: unknown placeholder %s (expected one of %s)", key, i, arg, p, strings.Join(known, " "))
			}
			if p == whole && arg != whole {
				return fmt.Errorf("%s[%d] %q: %s must be an argument of its own (it expands to several arguments or none)", key, i, arg, whole)
			}
		}
	}
	return nil
}

// Path resolves p against the benchmark directory.
func (c Config) Path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.BenchDir, p)
}

// RunSpec is one benchmark invocation.
type RunSpec struct {
	Mode        string
	Repetitions int
	Provider    string
	Model       string
	OutputJSONL string
	Set         string   // used when ScenarioIDs is empty
	ScenarioIDs []string // selects scenarios one by one (reruns)
	Manifest    string   // fixture manifest the scenarios bind from
}

// BenchmarkArgv expands the benchmark template for s.
func (c Config) BenchmarkArgv(s RunSpec) []string {
	vars := map[string]string{
		"{mode}":         s.Mode,
		"{repetitions}":  strconv.Itoa(s.Repetitions),
		"{provider}":     s.Provider,
		"{model}":        s.Model,
		"{output_jsonl}": s.OutputJSONL,
	}
	var selector []string
	if len(s.ScenarioIDs) > 0 {
		for _, id := range s.ScenarioIDs {
			selector = append(selector, "--scenario", id)
		}
	} else {
		selector = []string{"--scenario-set", s.Set}
	}
	return expand(c.Benchmark, vars, map[string][]string{"{selector}": selector})
}

// BenchmarkEnv returns the environment additions of one benchmark run.
func (c Config) BenchmarkEnv(s RunSpec) []string {
	env := append([]string(nil), c.Env...)
	env = append(env, c.ModeEnv[s.Mode]...)
	if c.ManifestEnv != "" && s.Manifest != "" {
		env = append(env, c.ManifestEnv+"="+s.Manifest)
	}
	return env
}

// FixturesArgv expands the fixtures template. seedID is used only by seed.
func (c Config) FixturesArgv(action, out, seedID string) []string {
	var seed []string
	if action == "seed" && seedID != "" {
		seed = []string{"--seed-id", seedID}
	}
	return expand(c.Fixtures, map[string]string{"{action}": action, "{out}": out},
		map[string][]string{"{seed_id}": seed})
}

func expand(tmpl []string, vars map[string]string, lists map[string][]string) []string {
	out := make([]string, 0, len(tmpl)+4)
	for _, a := range tmpl {
		if l, ok := lists[a]; ok {
			out = append(out, l...)
			continue
		}
		for k, v := range vars {
			a = strings.ReplaceAll(a, k, v)
		}
		out = append(out, a)
	}
	return out
}

// String renders the duration as Go does ("1m30s").
func (d Duration) String() string { return time.Duration(d).String() }

// CheckPrograms finds the program of every command the contract starts
// (the benchmark, the fixtures command, the confirmations) as the run
// would start it: a name without a slash on PATH, a path against the
// benchmark directory. A program that is not there means the run could
// not start, which is said before anything is run or written, not after
// a set folder records a failure no row caused.
func (c Config) CheckPrograms(origin string) error {
	type use struct{ what, program string }
	var uses []use
	if len(c.Benchmark) > 0 {
		uses = append(uses, use{"benchmark", c.Benchmark[0]})
	}
	if len(c.Fixtures) > 0 {
		uses = append(uses, use{"fixtures", c.Fixtures[0]})
	}
	for _, cmd := range c.Confirm {
		if len(cmd.Argv) > 0 {
			uses = append(uses, use{"confirm " + cmd.Name, cmd.Argv[0]})
		}
	}
	checked := map[string]bool{}
	for _, u := range uses {
		if checked[u.program] {
			continue
		}
		checked[u.program] = true
		var err error
		if strings.Contains(u.program, "/") {
			_, err = exec.LookPath(c.Path(u.program))
		} else {
			_, err = exec.LookPath(u.program)
		}
		if err != nil {
			return fmt.Errorf("%s: the %s command cannot start: %w", origin, u.what, err)
		}
	}
	return nil
}

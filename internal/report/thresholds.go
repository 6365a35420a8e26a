package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"reflect"
	"strings"

	"github.com/benchgate/benchgate/internal/suggest"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// Gate profiles. ProfilePRFast is the name the first design used for
// verify_pr (same thresholds); it is accepted as an alias.
const (
	ProfileVerifyPR      = "verify_pr"
	ProfileVerifyRelease = "verify_release"
	ProfilePRFast        = "pr_fast"
)

// ParseProfile returns the canonical profile for name; "" means verify_pr.
func ParseProfile(name string) (string, error) {
	switch name {
	case "", ProfileVerifyPR, ProfilePRFast:
		return ProfileVerifyPR, nil
	case ProfileVerifyRelease:
		return ProfileVerifyRelease, nil
	}
	return "", fmt.Errorf("unknown gate profile %q: expected verify_pr or verify_release (pr_fast is an alias of verify_pr)%s", name,
		suggest.DidYouMean(name, []string{ProfileVerifyPR, ProfileVerifyRelease, ProfilePRFast}, nil))
}

// Thresholds are the numbers one gate profile judges by; each field's
// JSON tag is its key in an expectations file. Percentages
// are 0-100; reliability limits apply to the ghx mode's raw rows,
// efficiency limits to the scenario-stratified stable sample.
type Thresholds struct {
	MinTokensActiveReductionPct  float64 `json:"minTokensActiveReductionPct"`
	MinLatencyReductionPct       float64 `json:"minLatencyReductionPct"`
	MinToolCallReductionPct      float64 `json:"minToolCallReductionPct"`
	MinEfficiencyCoveragePct     float64 `json:"minEfficiencyCoveragePct"`
	MaxSuccessRateDropPct        float64 `json:"maxSuccessRateDropPct"`
	MinOutputValidityRatePct     float64 `json:"minOutputValidityRatePct"`
	MaxRunnerFailureRatePct      float64 `json:"maxRunnerFailureRatePct"`
	MaxTimeoutStallRatePct       float64 `json:"maxTimeoutStallRatePct"`
	MaxRetryRatePct              float64 `json:"maxRetryRatePct"`
	MinSamplesPerScenarioPerMode int     `json:"minSamplesPerScenarioPerMode"`
}

// DefaultThresholds are the built-in thresholds, used when no
// expectations file exists. They equal the gpt-5.3-codex entry of the
// benchmark's expectations.json.
func DefaultThresholds(profile string) Thresholds {
	if profile == ProfileVerifyRelease {
		return Thresholds{
			MinTokensActiveReductionPct: 22, MinLatencyReductionPct: 20, MinToolCallReductionPct: 30,
			MinEfficiencyCoveragePct: 95, MaxSuccessRateDropPct: 1, MinOutputValidityRatePct: 99,
			MaxRunnerFailureRatePct: 2, MaxTimeoutStallRatePct: 1, MaxRetryRatePct: 8,
			MinSamplesPerScenarioPerMode: 2,
		}
	}
	return Thresholds{
		MinTokensActiveReductionPct: 15, MinLatencyReductionPct: 15, MinToolCallReductionPct: 20,
		MinEfficiencyCoveragePct: 80, MaxSuccessRateDropPct: 3, MinOutputValidityRatePct: 97,
		MaxRunnerFailureRatePct: 5, MaxTimeoutStallRatePct: 2, MaxRetryRatePct: 15,
		MinSamplesPerScenarioPerMode: 1,
	}
}

// Expectations is a model-aware thresholds file (config/expectations.json).
type Expectations struct {
	DefaultModel string
	// Models maps "provider/model" to its thresholds per canonical profile.
	Models map[string]map[string]Thresholds
}

// thresholdFields are the fields of Thresholds, whose JSON tags are the
// keys of an expectations file: the struct is the one list of threshold
// keys, which the decoder and the checks' ThresholdKey refer to.
func thresholdFields() []reflect.StructField {
	return reflect.VisibleFields(reflect.TypeFor[Thresholds]())
}

// thresholdKey is a field's key in an expectations file.
func thresholdKey(f reflect.StructField) string {
	k, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return k
}

// LoadExpectations reads and validates an expectations file. Every model
// needs both profiles, every profile all ten keys as numbers, and
// minSamplesPerScenarioPerMode must be an integer of at least 1.
func LoadExpectations(path string) (*Expectations, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseExpectations(data, path)
}

// ParseExpectations is LoadExpectations over data read from path (path
// only names the file in errors).
func ParseExpectations(data []byte, path string) (*Expectations, error) {
	var raw struct {
		DefaultModel *string                                          `json:"default_model"`
		Expectations map[string]map[string]map[string]json.RawMessage `json:"expectations"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %s", path, describeJSONError(data, err))
	}
	if raw.DefaultModel == nil || *raw.DefaultModel == "" {
		return nil, fmt.Errorf("%s: default_model: expected a non-empty string, got %s", path, missingOr(raw.DefaultModel == nil, `""`))
	}
	if raw.Expectations == nil {
		return nil, fmt.Errorf("%s: expectations: expected an object of models, got missing key", path)
	}
	exp := &Expectations{DefaultModel: *raw.DefaultModel, Models: map[string]map[string]Thresholds{}}
	for _, model := range sortedKeys(raw.Expectations) {
		profiles := raw.Expectations[model]
		exp.Models[model] = map[string]Thresholds{}
		for _, profile := range []string{ProfileVerifyPR, ProfileVerifyRelease} {
			keys, ok := profiles[profile]
			where := fmt.Sprintf("%s: expectations.%s.%s", path, model, profile)
			if !ok || keys == nil {
				return nil, fmt.Errorf("%s: expected an object of %d thresholds, got missing key", where, len(thresholdFields()))
			}
			var th Thresholds
			fields := reflect.ValueOf(&th).Elem()
			for _, f := range thresholdFields() {
				k := thresholdKey(f)
				v, ok := keys[k]
				if !ok {
					return nil, fmt.Errorf("%s.%s: expected number, got missing key", where, k)
				}
				var x float64
				if err := json.Unmarshal(v, &x); err != nil {
					return nil, fmt.Errorf("%s.%s: expected number, got %s", where, k, v)
				}
				field := fields.FieldByIndex(f.Index)
				if field.Kind() == reflect.Int {
					// Only minSamplesPerScenarioPerMode is a count.
					if x < 1 || x != math.Trunc(x) || x > 1e6 {
						return nil, fmt.Errorf("%s.%s: expected an integer >= 1, got %v", where, k, x)
					}
					field.SetInt(int64(x))
					continue
				}
				field.SetFloat(x)
			}
			exp.Models[model][profile] = th
		}
	}
	return exp, nil
}

// KnownModels lists the configured models, sorted.
func (e *Expectations) KnownModels() []string { return sortedKeys(e.Models) }

// For returns the thresholds of model under profile.
func (e *Expectations) For(model, profile string) (Thresholds, error) {
	m, ok := e.Models[model]
	if !ok {
		return Thresholds{}, fmt.Errorf("No expectations configured for model '%s'. Known models: %s", model, strings.Join(e.KnownModels(), ", "))
	}
	return m[profile], nil
}

// resolveThresholds picks the thresholds the gate uses, as the
// benchmark's report does: the expectations file (given, or
// config/expectations.json under the working directory) with the model
// named by --expectations-model, else the single model of the rows, else
// the file's default; without a file, the built-in defaults, unless a file
// or a model was asked for explicitly.
func resolveThresholds(opts Options, profile string, rowModels []string) (Thresholds, string, error) {
	path := opts.ExpectationsConfig
	explicit := path != "" || opts.ExpectationsModel != ""
	if path == "" {
		path = "config/expectations.json"
	}
	path = resolvePath(opts.Dir, path)
	exp, err := LoadExpectations(path)
	if errors.Is(err, fs.ErrNotExist) {
		if explicit {
			return Thresholds{}, "", fmt.Errorf("Expectations config not found at %s", path)
		}
		return DefaultThresholds(profile), "", nil
	}
	if err != nil {
		return Thresholds{}, "", fmt.Errorf("expectations config: %w", err)
	}
	model := opts.ExpectationsModel
	if model == "" {
		switch len(rowModels) {
		case 0:
			model = exp.DefaultModel
		case 1:
			model = rowModels[0]
		default:
			return Thresholds{}, "", fmt.Errorf("Unable to infer single model signature from rows: %s", strings.Join(rowModels, ", "))
		}
	}
	th, err := exp.For(model, profile)
	if err != nil {
		// Upstream's message first, as scripts match it; then the file
		// to edit.
		return Thresholds{}, "", fmt.Errorf("%w (expectations file %s)", err, path)
	}
	return th, model, nil
}

func missingOr(missing bool, got string) string {
	if missing {
		return "missing key"
	}
	return got
}

// describeJSONError turns an encoding/json error into "line N: ..." so a
// broken expectations file can be found and fixed.
func describeJSONError(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("line %d: invalid JSON: %v", lineOf(data, se.Offset), se)
	case errors.As(err, &te):
		return fmt.Sprintf("line %d: %s: expected %s, got %s", lineOf(data, te.Offset), te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	case errors.Is(err, io.EOF):
		return "expected a JSON object, got an empty file"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "invalid JSON: the file ends in the middle of a value"
	}
	return err.Error()
}

func jsonKind(k string) string {
	switch k {
	case "map", "struct":
		return "object"
	case "float64":
		return "number"
	case "ptr":
		return "string"
	}
	return k
}

func lineOf(data []byte, offset int64) int {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	return bytes.Count(data[:offset], []byte("\n")) + 1
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	textfmt.SortUTF16(keys)
	return keys
}

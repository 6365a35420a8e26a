package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/agentfake"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// closedWorldBank is a bank of questions written the way benchmark
// authors write them (negative wording, decorators and factories, value
// answers, exceptions, two answers, case folders with their own conftest
// and ini files) apart from the rules that audit them.
const closedWorldBank = "../../testdata/qabank-closedworld"

// closedWorldWant is each case's truth, checked by hand with Debian's
// python3 3.11, python3-pydantic 1.10 and python3-pytest, and the verdict
// the audit must reach without a model and with the scripted one. The
// reason fragment is looked for in the no-model reason.
var closedWorldWant = map[string]struct {
	valid            bool // the question is right as written
	noModel, byModel string
	reason           string
}{
	"closedworld_api:neg_frozenset_add":          {true, "Valid", "Valid", "add is not an attribute or method of builtins.frozenset"},
	"closedworld_api:neg_tuple_append":           {true, "Valid", "Valid", "append is not"},
	"closedworld_api:neg_str_encode":             {false, "Inconclusive", "Incorrect", "a negation is no proof (no model is configured to prove it)"},
	"closedworld_api:neg_loads_encoding":         {true, "Valid", "Valid", "encoding is not a keyword parameter of json.loads"},
	"closedworld_api:neg_sleep_loop":             {true, "Valid", "Valid", "loop is not a keyword parameter of asyncio.sleep"},
	"closedworld_api:neg_run_timeout":            {false, "Inconclusive", "Incorrect", "timeout is a keyword of subprocess.run, though the question says it is not"},
	"closedworld_api:neg_pydantic_model_dump":    {true, "Valid", "Valid", "model_dump is not"},
	"closedworld_api:neg_fqn_names_the_absent":   {true, "Valid", "Valid", "builtins.frozenset.discard does not exist"},
	"closedworld_api:dec_lru_cache_info":         {true, "Inconclusive", "Valid", "lru_cache is a function"},
	"closedworld_api:dec_cache_clear":            {true, "Inconclusive", "Valid", "cache is a function"},
	"closedworld_api:dec_contextmanager_enter":   {true, "Inconclusive", "Valid", "contextmanager is a function"},
	"closedworld_api:dec_wraps_wrapped":          {true, "Inconclusive", "Valid", "wraps is a function"},
	"closedworld_api:dec_dataclass_fields":       {true, "Inconclusive", "Valid", "dataclass is a function"},
	"closedworld_api:dec_namedtuple_asdict":      {true, "Inconclusive", "Valid", "namedtuple is a function"},
	"closedworld_api:dec_lru_resize":             {false, "Inconclusive", "Incorrect", "what it returns or decorates"},
	"closedworld_api:dec_lru_cache_info_fqn":     {true, "Inconclusive", "Valid", "functools.lru_cache is a function, not a class or module"},
	"closedworld_api:cls_partial_keywords":       {true, "Valid", "Valid", "keywords is the name or a member"},
	"closedworld_api:cls_property_setter":        {true, "Valid", "Valid", "setter"},
	"closedworld_api:val_lru_maxsize":            {true, "Valid", "Valid", "is 128"},
	"closedworld_api:val_lru_maxsize_wrong":      {false, "Incorrect", "Incorrect", "the default of maxsize in functools.lru_cache is 128, not 256"},
	"closedworld_api:val_dumps_indent_none":      {true, "Valid", "Valid", "is None"},
	"closedworld_api:val_sorted_reverse":         {true, "Valid", "Valid", "is False"},
	"closedworld_api:val_wrap_width":             {true, "Valid", "Valid", "is 70"},
	"closedworld_api:val_print_sep":              {true, "Valid", "Valid", "is ' '"},
	"closedworld_api:val_http_not_found":         {true, "Valid", "Valid", "holds the value 404"},
	"closedworld_api:val_errno_enoent_wrong":     {false, "Incorrect", "Incorrect", "errno.ENOENT is 2, not 3"},
	"closedworld_api:val_math_tau":               {true, "Valid", "Valid", "6.283"},
	"closedworld_api:val_maxunicode":             {true, "Valid", "Valid", "1114111"},
	"closedworld_api:val_divmod_arity":           {true, "Inconclusive", "Valid", "builtins.divmod is a function, not a value"},
	"closedworld_api:val_field_default_sentinel": {true, "Inconclusive", "Valid", "not a plain value"},
	"closedworld_api:exc_int_abc":                {true, "Valid", "Valid", "int('abc') raises ValueError"},
	"closedworld_api:exc_loads_brace":            {true, "Valid", "Valid", "raises json.JSONDecodeError"},
	"closedworld_api:exc_loads_base_class":       {true, "Valid", "Valid", "raises ValueError"},
	"closedworld_api:exc_pop_missing_wrong":      {false, "Incorrect", "Incorrect", "raises builtins.KeyError"},
	"closedworld_api:exc_sqrt_negative":          {true, "Valid", "Valid", "raises ValueError"},
	"closedworld_api:exc_int_spaces_wrong":       {false, "Incorrect", "Incorrect", "returned 42 and raised nothing"},
	"closedworld_api:exc_no_call":                {true, "Inconclusive", "Valid", "the question names no call to run"},
	"closedworld_api:two_list_append_extend":     {true, "Valid", "Valid", "extend"},
	"closedworld_api:two_list_push_wrong":        {false, "Incorrect", "Incorrect", "'push' is neither the name nor an attribute of builtins.list"},
	// strip removes leading whitespace too: a second right answer, which
	// names alone cannot tell. Code checks that lstrip is a method of
	// str, never what it does; the reason says what was checked.
	"closedworld_api:two_str_lstrip":                    {false, "Valid", "Valid", "checked: "},
	"closedworld_api:pyd_json":                          {true, "Valid", "Valid", "json"},
	"closedworld_api:pyd_field_alias":                   {true, "Valid", "Valid", "alias"},
	"closedworld_api:pyd_construct":                     {true, "Valid", "Valid", "construct"},
	"closedworld_api:pyd_validate_arguments":            {true, "Valid", "Valid", "validate_arguments"},
	"closedworld_api:pyd_config_extra":                  {true, "Valid", "Valid", "is ignore"},
	"closedworld_fix:01_conftest_fixture":               {true, "Valid", "Valid", "checked: the test fails against the unfixed code; the test passes against the fixed code"},
	"closedworld_fix:02_pytest_ini_pythonpath":          {true, "Valid", "Valid", "checked: "},
	"closedworld_fix:03_pyproject_pythonpath":           {true, "Valid", "Valid", "checked: "},
	"closedworld_fix:04_setup_cfg_functions":            {true, "Valid", "Valid", "checked: "},
	"closedworld_fix:05_conftest_fix_does_not_fix":      {false, "Incorrect", "Incorrect", "test_first_alphabetically: AssertionError: assert 'c' == 'a'"},
	"closedworld_fix:06_conftest_unfixed_passes":        {false, "Incorrect", "Incorrect", "every test passed against the unfixed code"},
	"closedworld_fix:07_conftest_hooks_missing_package": {true, "Valid", "Valid", "checked: "},
	"closedworld_fix:08_conftest_pytest_plugins":        {true, "Valid", "Valid", "checked: "},
	"closedworld_fix:09_parametrized_ids":               {false, "Incorrect", "Incorrect", "test_slug[Crème brûlée-creme-brulee]"},
	"closedworld_fix:10_tox_ini_functions":              {true, "Valid", "Valid", "checked: "},
}

// closedWorldProofs are the scripted model's tests for the claims the
// rules leave undecided, by claim, each asserting its claim as stated.
var closedWorldProofs = map[string]string{
	"encode is not an attribute or method of builtins.str, as the question says":                                                                                                      "def test_claim():\n    assert not hasattr(str, 'encode')\n",
	"timeout is not a keyword parameter of subprocess.run, as the question says":                                                                                                      "import inspect\nimport subprocess\n\n\ndef test_claim():\n    assert 'timeout' not in inspect.signature(subprocess.run).parameters\n",
	"cache_info is an attribute or method of functools.lru_cache, or of what it returns or decorates, as the question asks":                                                           "import functools\n\n\ndef test_claim():\n    assert callable(functools.lru_cache(lambda x: x).cache_info)\n",
	"cache_clear is an attribute or method of functools.cache, or of what it returns or decorates, as the question asks":                                                              "import functools\n\n\ndef test_claim():\n    assert callable(functools.cache(lambda x: x).cache_clear)\n",
	"__enter__ is an attribute or method of contextlib.contextmanager, or of what it returns or decorates, as the question asks":                                                      "import contextlib\n\n\n@contextlib.contextmanager\ndef cm():\n    yield\n\n\ndef test_claim():\n    assert callable(cm().__enter__)\n",
	"__wrapped__ is an attribute or method of functools.wraps, or of what it returns or decorates, as the question asks":                                                              "import functools\n\n\ndef f():\n    pass\n\n\ndef test_claim():\n    @functools.wraps(f)\n    def g():\n        pass\n    assert g.__wrapped__ is f\n",
	"__dataclass_fields__ is an attribute or method of dataclasses.dataclass, or of what it returns or decorates, as the question asks":                                               "import dataclasses\n\n\ndef test_claim():\n    @dataclasses.dataclass\n    class D:\n        a: int = 1\n    assert 'a' in D.__dataclass_fields__\n",
	"_asdict is an attribute or method of collections.namedtuple, or of what it returns or decorates, as the question asks":                                                           "import collections\n\n\ndef test_claim():\n    P = collections.namedtuple('P', 'a b')\n    assert P(1, 2)._asdict() == {'a': 1, 'b': 2}\n",
	"cache_resize is an attribute or method of functools.lru_cache, or of what it returns or decorates, as the question asks":                                                         "import functools\n\n\ndef test_claim():\n    assert hasattr(functools.lru_cache(lambda x: x), 'cache_resize')\n",
	"functools.lru_cache.cache_info names something in the installed library: cache_info is an attribute of functools.lru_cache, or of what functools.lru_cache returns or decorates": "import functools\n\n\ndef test_claim():\n    assert hasattr(functools.lru_cache(lambda x: x), 'cache_info')\n",
	"the value 2 answers the question about builtins.divmod":                                                                                                                          "import inspect\n\n\ndef test_claim():\n    params = inspect.signature(divmod).parameters.values()\n    assert len([p for p in params if p.kind == p.POSITIONAL_ONLY]) == 2\n",
	"the default of the parameter the question names, in dataclasses.field, is MISSING":                                                                                               "import dataclasses\nimport inspect\n\n\ndef test_claim():\n    assert inspect.signature(dataclasses.field).parameters['default'].default is dataclasses.MISSING\n",
	"the call the question means raises JSONDecodeError":                                                                                                                              "import json\n\nimport pytest\n\n\ndef test_claim():\n    with pytest.raises(json.JSONDecodeError):\n        json.loads('{')\n",
}

type closedWorldCase struct {
	ID, Verdict, Reason string
	Attempts            []struct {
		Options []struct {
			Key, Claim, Undecided string
			ProvedBy              string `json:"proved_by"`
		} `json:"options"`
	} `json:"attempts"`
}

func readClosedWorldReport(t *testing.T, path string) []closedWorldCase {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct{ Cases []closedWorldCase }
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	return rep.Cases
}

// TestQAAuditClosedWorldBank runs the binary, as a user types it, on the
// bank with no model: no valid question is called Incorrect, a question
// is Valid only when its answer was checked, and what the rules cannot
// decide is Inconclusive with what was not decided. Then with the scripted
// model: exactly the undecided claims reach the prover, and every case
// gets its right verdict (but two_str_lstrip, whose second right answer
// names cannot tell).
func TestQAAuditClosedWorldBank(t *testing.T) {
	py := testenv.Python(t)
	bin := testenv.Benchgate(t)
	root := filepath.Join(t.TempDir(), "bank")
	if err := os.CopyFS(root, os.DirFS(closedWorldBank)); err != nil {
		t.Fatal(err)
	}
	defs := filepath.Join("benchmarks", "benchmark_definitions")

	code, log, _ := runBinary(t, root, noModelEnv(), bin, "qa-audit", "--python", py, "--test-timeout", "60s", "--out-dir", "no-model", defs)
	if code != ExitFailed {
		t.Fatalf("exit %d, want 1:\n%s", code, log)
	}
	cases := readClosedWorldReport(t, filepath.Join(root, "no-model", "quality_report.json"))
	if len(cases) < 40 || len(cases) != len(closedWorldWant) {
		t.Fatalf("%d cases in the report, %d in the table", len(cases), len(closedWorldWant))
	}
	validIncorrect := 0
	for _, c := range cases {
		want, ok := closedWorldWant[c.ID]
		if !ok {
			t.Errorf("no row for %s", c.ID)
			continue
		}
		if want.valid && c.Verdict == "Incorrect" {
			validIncorrect++
		}
		if c.Verdict != want.noModel || !strings.Contains(c.Reason, want.reason) {
			t.Errorf("no model: %s: %s (%s), want %s with %q", c.ID, c.Verdict, c.Reason, want.noModel, want.reason)
		}
	}
	if validIncorrect > 0 {
		t.Errorf("%d valid questions called Incorrect without a model", validIncorrect)
	}

	model := agentfake.New(closedWorldProofs, nil)
	defer model.Close()
	env := append(noModelEnv(), "OPENAI_API_KEY=sk-local-123456")
	code, log, _ = runBinary(t, root, env, bin, "qa-audit", "--model-backend", "openai", "--model", "m", "--model-url", model.URL+"/v1",
		"--python", py, "--test-timeout", "60s", "--out-dir", "with-model", defs)
	if code != ExitFailed {
		t.Fatalf("exit %d, want 1:\n%s", code, log)
	}
	proven := map[string]bool{}
	for _, c := range readClosedWorldReport(t, filepath.Join(root, "with-model", "quality_report.json")) {
		want := closedWorldWant[c.ID]
		if c.Verdict != want.byModel {
			t.Errorf("with the model: %s: %s (%s), want %s", c.ID, c.Verdict, c.Reason, want.byModel)
		}
		for _, at := range c.Attempts {
			for _, o := range at.Options {
				if o.Undecided == "" {
					continue
				}
				if o.ProvedBy != "prover" {
					t.Errorf("with the model: %s %s: undecided (%s) but not proven by the prover", c.ID, o.Key, o.Undecided)
				}
				proven[o.Claim] = true
			}
		}
	}
	var missing []string
	for claim := range closedWorldProofs {
		if !proven[claim] {
			missing = append(missing, claim)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("claims never sent to the prover: %q", missing)
	}
	// The prover saw claims, never a case's rationale.
	for _, body := range model.Bodies("claim_analyst") {
		if strings.Contains(body, "checked by hand") {
			t.Errorf("an analyst request holds the case's rationale")
		}
	}
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/agentfake"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// signaturesBank holds questions whose answers are parameters of every
// kind (positional-only, keyword-only, from a C function's docstring),
// relations (base classes, subclasses, what a call returns), negations in
// sentences with dotted names, exceptions and messages of calls on
// literals, multiple-choice options that are exceptions and messages, and
// fix_error cases (one needs a locale this machine lacks).
const signaturesBank = "../../testdata/qabank-signatures"

// signaturesWant is each case's truth, checked by hand with Debian's
// python3 3.11 (the evidence is in the comment of each row), and the
// verdict the audit must reach without a model ("" for the multiple-choice
// cases, which need one) and with the scripted one. The reason fragment
// is looked for in the no-model reason, else in the model's.
var signaturesWant = map[string]struct {
	valid            bool // the question is right as written
	noModel, byModel string
	reason           string
}{
	// inspect.signature(sorted) == (iterable, /, *, key=None, reverse=False)
	"signatures_api:sig_sorted_iterable": {true, "Valid", "Valid", "iterable is a positional-only parameter of builtins.sorted"},
	// functools.reduce.__doc__ opens with "reduce(function, iterable[, initial]) -> value"
	"signatures_api:sig_reduce_initial": {true, "Valid", "Valid", "initial is the name or a keyword parameter of functools.reduce"},
	// inspect.signature(itertools.accumulate) == (iterable, func=None, *, initial=None)
	"signatures_api:sig_accumulate_initial": {true, "Valid", "Valid", "initial is a keyword-only parameter"},
	// key is keyword-only in sorted's signature
	"signatures_api:sig_sorted_key_posonly_wrong": {false, "Incorrect", "Incorrect", "key is a keyword-only parameter of sorted (its signature), not a positional-only one"},
	// inspect.signature(str.split) == (self, /, sep=None, maxsplit=-1)
	"signatures_api:sig_split_sep": {true, "Valid", "Valid", "checked: "},
	// inspect.signature(dict.get) == (self, key, default=None, /)
	"signatures_api:sig_dict_get_default": {true, "Valid", "Valid", "checked: "},
	// inspect.signature(pow) == (base, exp, mod=None)
	"signatures_api:sig_pow_mod": {true, "Valid", "Valid", "checked: "},
	// reduce's docstring names function, iterable, initial; reduce(start=1) is refused
	"signatures_api:sig_reduce_start_wrong": {false, "Incorrect", "Incorrect", "'start' is neither the name nor a keyword of functools.reduce"},
	// getattr.__doc__ opens with "getattr(object, name[, default]) -> value"
	"signatures_api:sig_getattr_default": {true, "Valid", "Valid", "checked: "},
	// next.__doc__ opens with "next(iterator[, default])"
	"signatures_api:sig_next_default": {true, "Valid", "Valid", "checked: "},
	// inspect.signature(dataclasses.field) has no hide and no **kwargs
	"signatures_api:sig_field_hide_wrong": {false, "Incorrect", "Incorrect", "'hide' is neither the name nor a keyword of dataclasses.field"},
	// hasattr(types.MappingProxyType, 'setdefault') is False
	"signatures_api:neg_proxy_setdefault": {true, "Valid", "Valid", "setdefault is not an attribute or method of types.MappingProxyType"},
	// hasattr(types.MappingProxyType, 'get') is True
	"signatures_api:neg_proxy_get_wrong": {false, "Inconclusive", "Incorrect", "a negation is no proof (no model is configured to prove it)"},
	// the negation "cannot" is not read by the rules; the claim keeps it
	"signatures_api:neg_proxy_cannot": {true, "Inconclusive", "Valid", "with its negation (cannot)"},
	// collections.Counter.__bases__ == (dict,)
	"signatures_api:rel_counter_base":       {true, "Valid", "Valid", "dict is a direct base class of collections.Counter"},
	"signatures_api:rel_counter_base_wrong": {false, "Incorrect", "Incorrect", "the direct base classes of collections.Counter are (dict), not defaultdict"},
	// bool.__mro__ == (bool, int, object)
	"signatures_api:rel_bool_int": {true, "Valid", "Valid", "int is a base class (in the MRO) of bool"},
	// collections.OrderedDict.__mro__ == (OrderedDict, dict, object)
	"signatures_api:rel_ordereddict_dict": {true, "Valid", "Valid", "OrderedDict is a subclass of dict"},
	// KeyError.__bases__ == (LookupError,)
	"signatures_api:rel_keyerror_base": {true, "Valid", "Valid", "LookupError is a direct base class of KeyError"},
	// type(open('/dev/null')) is io.TextIOWrapper; a return type is not run by the rules
	"signatures_api:rel_open_returns": {true, "Inconclusive", "Valid", "returns an instance of"},
	// [].pop() raises IndexError: pop from empty list
	"signatures_api:exc_list_pop": {true, "Valid", "Valid", "[].pop() raises IndexError"},
	// 'é'.encode('ascii') raises UnicodeEncodeError
	"signatures_api:exc_encode_ascii_wrong": {false, "Incorrect", "Incorrect", "raises builtins.UnicodeEncodeError"},
	// str() of what divmod(1, 0) raises is 'integer division or modulo by zero'
	"signatures_api:exc_divmod_message": {true, "Valid", "Valid", "divmod(1, 0) raises 'integer division or modulo by zero'"},
	// float('x') raises ValueError: could not convert string to float: 'x'
	"signatures_api:exc_float_message_wrong": {false, "Incorrect", "Incorrect", "not 'invalid literal for float(): x'"},
	// next(iter([])) raises StopIteration
	"signatures_api:exc_next_empty": {true, "Valid", "Valid", "raises StopIteration"},
	// generator.close() throws GeneratorExit into the generator
	"signatures_api:gen_close": {true, "Valid", "Valid", "close is the name or an attribute or method of types.GeneratorType"},
	// the fix passes with LOCPATH holding a de_DE.UTF-8 made by localedef; this machine has no such locale
	"signatures_fix:01_locale_grouping":          {true, "Inconclusive", "Inconclusive", "depends on the environment"},
	"signatures_fix:02_generator_close":          {true, "Valid", "Valid", "checked: the test fails against the unfixed code; the test passes against the fixed code"},
	"signatures_fix:03_message_fix_does_not_fix": {false, "Incorrect", "Incorrect", "Regex pattern did not match"},
	// 1 / 0 raises ZeroDivisionError: division by zero
	"signatures_mc:zero_division_message": {true, "", "Valid", ""},
	// next(iter([])) raises StopIteration
	"signatures_mc:next_empty_iterator": {true, "", "Valid", ""},
	// [].pop() raises IndexError: pop from empty list
	"signatures_mc:pop_empty_message": {true, "", "Valid", ""},
}

// signaturesProofs are the scripted model's tests: for the claims the
// rules leave undecided, and for the multiple-choice options, each
// asserting its claim or option as stated (an option that is a message
// expects the error and compares its message).
var signaturesProofs = map[string]string{
	"get is not an attribute or method of types.MappingProxyType, as the question says":                                  "import types\n\n\ndef test_claim():\n    assert not hasattr(types.MappingProxyType, 'get')\n",
	"setdefault is the answer to the question as it is worded, with its negation (cannot), about types.MappingProxyType": "import types\n\n\ndef test_claim():\n    assert hasattr(dict, 'setdefault') and not hasattr(types.MappingProxyType, 'setdefault')\n",
	"TextIOWrapper stands in the relation the question asks (returns an instance of) to open":                            "import io\n\n\ndef test_claim():\n    with open(__file__) as f:\n        assert isinstance(f, io.TextIOWrapper)\n",
	"'division by zero'":                   mcMessage("1 / 0", "ZeroDivisionError", "division by zero"),
	"'integer division or modulo by zero'": mcMessage("1 / 0", "ZeroDivisionError", "integer division or modulo by zero"),
	"'float division by zero'":             mcMessage("1 / 0", "ZeroDivisionError", "float division by zero"),
	"StopIteration":                        mcRaises("next(iter([]))", "StopIteration"),
	"IndexError":                           mcRaises("next(iter([]))", "IndexError"),
	"GeneratorExit":                        mcRaises("next(iter([]))", "GeneratorExit"),
	"'pop from empty list'":                mcMessage("[].pop()", "IndexError", "pop from empty list"),
	"'list index out of range'":            mcMessage("[].pop()", "IndexError", "list index out of range"),
	"'pop index out of range'":             mcMessage("[].pop()", "IndexError", "pop index out of range"),
}

func mcMessage(call, exc, msg string) string {
	return "import re\n\nimport pytest\n\n\ndef test_option():\n    with pytest.raises(" + exc + ", match='^' + re.escape(" + pyQuote(msg) + ") + '$'):\n        " + call + "\n"
}

func mcRaises(call, exc string) string {
	return "import pytest\n\n\ndef test_option():\n    with pytest.raises(" + exc + "):\n        " + call + "\n"
}

func pyQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "\\'") + "'" }

// TestQAAuditSignaturesBank runs the binary, as a user types it, on the
// bank: without a model (the api_understanding and fix_error cases) no
// right question is Incorrect, every Valid rests on a check of the answer,
// and each reason names what was proven; with the scripted model every
// case but the one whose locale this machine lacks gets its right verdict.
func TestQAAuditSignaturesBank(t *testing.T) {
	py := testenv.Python(t)
	bin := testenv.Benchgate(t)
	root := filepath.Join(t.TempDir(), "bank")
	if err := os.CopyFS(root, os.DirFS(signaturesBank)); err != nil {
		t.Fatal(err)
	}
	defs := filepath.Join("benchmarks", "benchmark_definitions")

	code, log, _ := runBinary(t, root, noModelEnv(), bin, "qa-audit", "--python", py, "--test-timeout", "60s",
		"--kinds", "api_understanding,fix_error", "--out-dir", "no-model", defs)
	if code != ExitFailed {
		t.Fatalf("exit %d, want 1:\n%s", code, log)
	}
	seen := 0
	for _, c := range readClosedWorldReport(t, filepath.Join(root, "no-model", "quality_report.json")) {
		want, ok := signaturesWant[c.ID]
		if !ok || want.noModel == "" {
			t.Errorf("no row for %s", c.ID)
			continue
		}
		seen++
		if want.valid && c.Verdict == "Incorrect" {
			t.Errorf("no model: %s is right but called Incorrect: %s", c.ID, c.Reason)
		}
		if c.Verdict != want.noModel || !strings.Contains(c.Reason, want.reason) {
			t.Errorf("no model: %s: %s (%s), want %s with %q", c.ID, c.Verdict, c.Reason, want.noModel, want.reason)
		}
		if c.Verdict == "Valid" && !strings.Contains(c.Reason, "checked: ") {
			t.Errorf("no model: %s is Valid without saying what was checked: %s", c.ID, c.Reason)
		}
	}
	if seen != len(signaturesWant)-3 {
		t.Errorf("%d cases without a model, want %d", seen, len(signaturesWant)-3)
	}

	model := agentfake.New(signaturesProofs, nil)
	defer model.Close()
	env := append(noModelEnv(), "OPENAI_API_KEY=sk-local-123456")
	code, log, _ = runBinary(t, root, env, bin, "qa-audit", "--model-backend", "openai", "--model", "m", "--model-url", model.URL+"/v1",
		"--python", py, "--test-timeout", "60s", "--max-remediations", "0", "--out-dir", "with-model", defs)
	if code != ExitFailed {
		t.Fatalf("exit %d, want 1:\n%s", code, log)
	}
	cases := readClosedWorldReport(t, filepath.Join(root, "with-model", "quality_report.json"))
	if len(cases) != len(signaturesWant) {
		t.Errorf("%d cases with the model, want %d", len(cases), len(signaturesWant))
	}
	for _, c := range cases {
		want := signaturesWant[c.ID]
		if c.Verdict != want.byModel {
			t.Errorf("with the model: %s: %s (%s), want %s", c.ID, c.Verdict, c.Reason, want.byModel)
		}
		if want.valid && c.Verdict == "Incorrect" {
			t.Errorf("with the model: %s is right but called Incorrect: %s", c.ID, c.Reason)
		}
	}
}

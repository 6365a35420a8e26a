package execproof

import (
	"testing"

	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestParametersAreReadFromTheSignature: a parameter is judged from the
// signature, positional-only ones included, or from the call line of a C
// function's docstring; a keyword check never disproves a name the
// signature holds. Truths checked by hand with Debian's python3 3.11
// (inspect.signature(sorted) is (iterable, /, *, key=None,
// reverse=False); functools.reduce's docstring opens with
// "reduce(function, iterable[, initial]) -> value").
func TestParametersAreReadFromTheSignature(t *testing.T) {
	python := testenv.Python(t)
	auditTable(t, python, []apiRow{
		{"t:range_step", "Which parameter of `range` sets the increment?", "builtins.range", "step", verdict.Valid, "checked: "},
		{"t:range_increment_wrong", "Which parameter of `range` sets the increment?", "builtins.range", "increment", verdict.Incorrect, "neither the name nor a keyword"},
		{"t:sorted_iterable", "What is the name of the positional-only parameter of the built-in sorted that receives the items to sort?", "builtins.sorted", "iterable", verdict.Valid, "positional-only parameter of builtins.sorted"},
		{"t:reduce_initial", "Which optional parameter of `functools.reduce` gives the value to start from?", "functools.reduce", "initial", verdict.Valid, "checked: "},
		{"t:reduce_start_wrong", "Which optional parameter of `functools.reduce` gives the value to start from?", "functools.reduce", "start", verdict.Incorrect, "neither the name nor a keyword"},
		{"t:sorted_reverse_kwonly", "Which keyword-only parameter of `sorted` reverses the order?", "builtins.sorted", "reverse", verdict.Valid, "keyword-only parameter"},
		{"t:sorted_iterable_not_kwonly", "Which keyword-only parameter of `sorted` receives the items?", "builtins.sorted", "iterable", verdict.Incorrect, "iterable is a positional-only parameter of sorted (its signature), not a keyword-only one"},
		{"t:divmod_y", "Which parameter of `divmod` is the divisor?", "builtins.divmod", "y", verdict.Valid, "checked: "},
		{"t:isinstance_class_or_tuple", "Which argument of `isinstance` takes the class or tuple of classes?", "builtins.isinstance", "class_or_tuple", verdict.Valid, "checked: "},
		{"t:dict_get_default", "Which parameter of `dict.get` is returned when the key is missing?", "builtins.dict.get", "default", verdict.Valid, "checked: "},
		{"t:max_default", "Which parameter of `max` gives the result for an empty iterable?", "builtins.max", "default", verdict.Valid, "checked: "},
		{"t:deque_capacity_wrong", "Which parameter of `collections.deque` bounds its length?", "collections.deque", "capacity", verdict.Incorrect, "neither the name nor a keyword"},
		// "takes the function" is no attribute claim when the question
		// names the kind of parameter.
		{"t:sorted_key_not_posonly", "Which positional-only parameter of `sorted` takes the function that extracts a comparison key?", "builtins.sorted", "key", verdict.Incorrect, "key is a keyword-only parameter of sorted (its signature), not a positional-only one"},
		// The negation is the condition's ("when the attribute does not
		// exist"), not the claim's.
		{"t:getattr_default", "Which parameter of `getattr` is returned when the attribute does not exist?", "builtins.getattr", "default", verdict.Valid, "checked: "},
		// "keyword parameter" asks a keyword, though "field" is there.
		{"t:field_hide_wrong", "Which keyword parameter of `dataclasses.field` hides a field from the generated `__repr__`?", "dataclasses.field", "hide", verdict.Incorrect, "'hide' is neither the name nor a keyword of dataclasses.field"},
		// dict.get takes no keyword argument: its default is positional-only.
		{"t:dict_get_default_keyword_wrong", "Which keyword argument of `dict.get` supplies the fallback value?", "builtins.dict.get", "default", verdict.Incorrect, "default is a positional-only parameter of dict.get"},
		// With a negation the rules do not read ("missing"), never Valid.
		{"t:dict_get_default_keyword_missing", "Which keyword argument of `dict.get` gives the value returned when the key is missing?", "builtins.dict.get", "default", verdict.Inconclusive, "default is not a keyword of builtins.dict.get"},
		{"t:sorted_key_keyword", "Which keyword argument of `sorted` takes the function that extracts a comparison key?", "builtins.sorted", "key", verdict.Valid, "checked: "},
		{"t:list_insert_index", "Which positional-only parameter of `list.insert` says where?", "builtins.list.insert", "index", verdict.Valid, "checked: "},
	})
}

// TestRelationsAreCheckedAsRelations: a question that asks a relation
// (a direct base class, a base class, a subclass) is answered by that
// relation, never by the answer's existence; a relation the rules do not
// run is undecided. Truths checked by hand with Debian's python3 3.11
// (collections.Counter.__bases__ is (dict,)).
func TestRelationsAreCheckedAsRelations(t *testing.T) {
	python := testenv.Python(t)
	auditTable(t, python, []apiRow{
		{"t:counter_base", "What is the direct base class of collections.Counter?", "collections.Counter", "dict", verdict.Valid, "dict is a direct base class of collections.Counter"},
		{"t:counter_base_defaultdict", "What is the direct base class of collections.Counter?", "collections.defaultdict", "defaultdict", verdict.Incorrect, "the direct base classes of collections.Counter are (dict), not defaultdict"},
		{"t:bool_subclass_of", "Which class is `bool` a subclass of?", "builtins.bool", "int", verdict.Valid, "int is a base class (in the MRO) of"},
		{"t:bool_subclass_of_wrong", "Which class is `bool` a subclass of?", "builtins.bool", "float", verdict.Incorrect, "float is not in it"},
		{"t:ordereddict_subclass", "Which class of `collections` is a subclass of `dict` that remembers the order of insertion?", "collections.OrderedDict", "OrderedDict", verdict.Valid, "OrderedDict is a subclass of dict"},
		{"t:deque_subclass_wrong", "Which class of `collections` is a subclass of `dict` that remembers the order of insertion?", "collections.deque", "deque", verdict.Incorrect, "collections.deque is not a subclass of dict"},
		{"t:keyerror_mro", "Which class in the MRO of `KeyError` sits between it and `Exception`?", "builtins.KeyError", "LookupError", verdict.Valid, "checked: "},
		{"t:open_returns", "What does `open(path)` in text mode return an instance of?", "io.TextIOWrapper", "TextIOWrapper", verdict.Inconclusive, "return an instance of"},
	})
}

// TestNegationReachesTheRules: "which one does X NOT provide" with a
// dotted X is a negative question; the right answer (absent) makes it
// Valid, a present answer is no proof. Truths checked by hand with
// Debian's python3 3.11 (types.MappingProxyType has get, not
// setdefault).
func TestNegationReachesTheRules(t *testing.T) {
	python := testenv.Python(t)
	auditTable(t, python, []apiRow{
		{"t:proxy_setdefault", "Which method of dict does types.MappingProxyType NOT provide?", "types.MappingProxyType", "setdefault", verdict.Valid, "setdefault is not an attribute or method of types.MappingProxyType"},
		{"t:proxy_get_wrong", "Which method of dict does types.MappingProxyType NOT provide?", "types.MappingProxyType", "get", verdict.Inconclusive, "a negation is no proof"},
	})
}

// TestExceptionsOfWrittenCalls: backquoted calls on a literal receiver
// run like any other, an answer in quotes is the message, and a question
// whose answer is a method is not an exception question because it says
// "throws". Truths checked by hand with Debian's python3 3.11.
func TestExceptionsOfWrittenCalls(t *testing.T) {
	python := testenv.Python(t)
	auditTable(t, python, []apiRow{
		{"t:list_pop_empty", "Which exception does `[].pop()` raise?", "builtins.list", "IndexError", verdict.Valid, "[].pop() raises IndexError"},
		{"t:list_pop_empty_wrong", "Which exception does `[].pop()` raise?", "builtins.list", "KeyError", verdict.Incorrect, "raises builtins.IndexError"},
		{"t:encode_ascii", "Which exception does `'é'.encode('ascii')` raise?", "builtins.str", "UnicodeEncodeError", verdict.Valid, "raises UnicodeEncodeError"},
		{"t:encode_ascii_wrong", "Which exception does `'é'.encode('ascii')` raise?", "builtins.str", "UnicodeDecodeError", verdict.Incorrect, "raises builtins.UnicodeEncodeError"},
		{"t:divmod_message", "What is the message of the exception `divmod(1, 0)` raises?", "builtins.divmod", "'integer division or modulo by zero'", verdict.Valid, "checked: "},
		{"t:divmod_message_wrong", "What is the message of the exception `divmod(1, 0)` raises?", "builtins.divmod", "'division by zero'", verdict.Incorrect, "with the message 'integer division or modulo by zero', not 'division by zero'"},
		{"t:keyerror_message_quoted", "What is the message of the exception raised by `{}.popitem()`?", "builtins.dict", "'popitem(): dictionary is empty'", verdict.Valid, "checked: "},
		{"t:not_raised_by_pop", "Which of these is NOT raised by `[].pop()`?", "builtins.list", "KeyError", verdict.Inconclusive, "not decided by the rules"},
		{"t:pop_missing_in_call", "Which exception does `dict().pop('missing')` raise?", "builtins.dict", "KeyError", verdict.Valid, "raises KeyError"},
		{"t:out_of_memory", "Which exception does `([1]*10**10).index(2)` raise?", "builtins.list", "ValueError", verdict.Inconclusive, "ran out of memory in the sandbox"},
		{"t:read_only_sandbox", "Which exception does `open('/etc/passwd', 'w')` raise for an ordinary user?", "builtins.open", "PermissionError", verdict.Inconclusive, "read-only or small"},
		{"t:generator_close", "Which method of a generator throws GeneratorExit into it?", "types.GeneratorType", "close", verdict.Valid, "close is the name or an attribute or method of types.GeneratorType"},
		{"t:generator_throw_wrong", "Which method of a generator throws GeneratorExit into it?", "types.GeneratorType", "aclose", verdict.Incorrect, "'aclose' is neither the name nor an attribute"},
	})
}

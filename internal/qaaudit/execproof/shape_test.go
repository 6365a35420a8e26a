package execproof

import "testing"

// TestReadShape: the wording a question's shape is read from, including
// negations the rules must not read as positive.
func TestReadShape(t *testing.T) {
	for _, tt := range []struct {
		question, answer string
		polarity         Polarity
		value, call      string
	}{
		{"Which method does `frozenset` NOT provide, although `set` does?", "add", Negative, "", ""},
		{"Which of these methods is not available on `tuple`?", "append", Negative, "", ""},
		{"Which keyword argument of `json.loads` was removed in Python 3.9?", "encoding", Negative, "", ""},
		{"Which parameter is no longer accepted by `asyncio.sleep`?", "loop", Negative, "", ""},
		{"Which attribute doesn't exist on a frozen dataclass?", "x", Negative, "", ""},
		{"Which Signals member cannot be caught or ignored?", "SIGKILL", Unclear, "", ""},
		{"Which keyword of `json.loads` is gone since 3.9?", "encoding", Negative, "", ""},
		{"Which method is missing on `frozenset`?", "add", Unclear, "", ""},
		{"Which deprecated alias of `unittest.TestCase` still exists?", "assertEquals", Unclear, "", ""},
		{"Which function replaced the removed `asyncio.async`?", "ensure_future", Unclear, "", ""},
		{"Which method of OrderedDict moves a key to the end?", "move_to_end", Positive, "", ""},
		{"What is the default `maxsize` of `functools.lru_cache`?", "128", Positive, ValueDefault, ""},
		{"What is the default value of `indent` in `json.dumps`?", "None", Positive, ValueDefault, ""},
		{"What is the default value of `extra` in a model's `Config`?", "ignore", Positive, ValueDefault, ""},
		{"What value does `errno.ENOENT` hold on Linux?", "2", Positive, ValueConstant, ""},
		{"Which exception does `int('abc')` raise?", "ValueError", Positive, ValueException, "int('abc')"},
		{"Which exception does `json.loads` raise for malformed input?", "JSONDecodeError", Positive, ValueException, ""},
		{"Which flag is True by default?", "True", Positive, ValueDefault, ""},
		{"Which method returns the errors of a validation?", "errors", Positive, "", ""},
		{"Which class holds the error details?", "ErrorDetails", Positive, "", ""},
		{"Which exception class signals a timeout?", "TimeoutError", Positive, ValueException, ""},
		{"Which separator does os use?", "'/'", Positive, ValueOther, ""},
	} {
		s := ReadShape(tt.question, tt.answer)
		if s.Polarity != tt.polarity || s.Value != tt.value || s.Call != tt.call {
			t.Errorf("ReadShape(%q, %q) = %+v, want polarity %s value %q call %q", tt.question, tt.answer, s, tt.polarity, tt.value, tt.call)
		}
	}
}

package pipeline

import (
	"strings"
	"testing"
)

func TestDirectionProblem(t *testing.T) {
	raises := "import pytest\n\ndef test_option():\n    with pytest.raises(ValueError):\n        int('x')\n"
	plain := "def test_option():\n    assert int('3') == 3\n"
	tests := []struct {
		name, option, code, want string
	}{
		{"plain claim, plain test", "int('3') returns 3", plain, ""},
		{"error claim, raises test", "It raises ValueError", raises, ""},
		{"error class named, raises test", "A ValidationError indicating the name is reserved.", raises, ""},
		{"error claim, test catches", "It raises ValueError", "def test_option():\n    try:\n        int('x')\n    except ValueError:\n        return\n    assert False\n", ""},
		{"no-error claim, plain test", "It runs without an error", plain, ""},
		{"no-error claim, raises test", "It runs without an error", raises, "expects one"},
		{"no error is raised", "No error is raised.", raises, "expects one"},
		{"error claim, plain test", "It raises ValueError", plain, "neither expects"},
		{"negated name", "int('3') returns 3", "import pytest\n\ndef test_option_B_invalidity():\n    assert True\n", "its name"},
		{"distractor comment", "int('3') returns 3", "def test_option():\n    # Distractor claims this works; we must prove it DOES NOT work.\n    assert True\n", "a comment"},
		{"passes if false", "int('3') returns 3", "def test_option():\n    \"\"\"Passes if the option is false.\"\"\"\n    assert True\n", "a comment"},
		{"error word in lower case is no claim of an error", "It logs an error message", "def test_option(caplog):\n    assert True\n", ""},
		// A claim that something exists or works, tested by expecting the
		// error its absence raises: the test passes for the opposite claim.
		{"existence claim, raises AttributeError", "json.parse parses a string", "import json\nimport pytest\n\ndef test_option():\n    with pytest.raises(AttributeError):\n        json.parse('1')\n", "expects AttributeError"},
		{"keyword claim, raises TypeError", "Pass capacity=3 to deque to bound it", "import collections, pytest\n\ndef test_option():\n    with pytest.raises(TypeError):\n        collections.deque(capacity=3)\n", "expects TypeError"},
		{"unittest style", "OrderedDict has a move_to_front method", "import unittest\n\nclass T(unittest.TestCase):\n    def test_option(self):\n        with self.assertRaises(AttributeError):\n            pass\n", "expects AttributeError"},
		{"absence claim, raises AttributeError", "json has no parse function", "import json\nimport pytest\n\ndef test_option():\n    with pytest.raises(AttributeError):\n        json.parse\n", ""},
		{"rejection claim, raises", "Passing name='a b' is rejected at construction", raises, ""},
		{"failure claim, raises", "The call fails because the key is unknown", raises, ""},
		// A restriction is a claim that something is refused: a test may
		// expect the error.
		{"restriction claim, raises", "An agent can only have one parent agent", raises, ""},
		{"uniqueness claim, raises", "Sub-agent names must be unique", raises, ""},
		{"existence claim, plain test", "json.loads parses a string", plain, ""},
		{"word raises in the test is not a catch", "It raises KeyError", "def test_option():\n    d = {}\n    assert 'raises' not in d\n", "neither expects"},
		// An option that is an exception's message: the honest test
		// expects the error and compares the message.
		{"message option, raises with match", "'division by zero'", "import re\nimport pytest\n\ndef test_option():\n    with pytest.raises(ZeroDivisionError, match=re.escape('division by zero')):\n        1 / 0\n", ""},
		{"message option, message compared", "'integer division or modulo by zero'", "import pytest\n\ndef test_option():\n    with pytest.raises(ZeroDivisionError) as excinfo:\n        divmod(1, 0)\n    assert str(excinfo.value) == 'integer division or modulo by zero'\n", ""},
		{"message option, try and compare", "\"pop from empty list\"", "def test_option():\n    try:\n        [].pop()\n    except IndexError as e:\n        assert str(e) == 'pop from empty list'\n        return\n    assert False\n", ""},
		{"message option, type only", "'division by zero'", "import pytest\n\ndef test_option():\n    with pytest.raises(ZeroDivisionError):\n        1 / 0\n", "without comparing its message"},
		// Exception classes whose names end in neither Error nor
		// Exception are still errors.
		{"KeyboardInterrupt option, raises", "KeyboardInterrupt", "import pytest\n\ndef test_option():\n    with pytest.raises(KeyboardInterrupt):\n        raise KeyboardInterrupt\n", ""},
		{"StopIteration option, raises", "StopIteration", "import pytest\n\ndef test_option():\n    with pytest.raises(StopIteration):\n        next(iter([]))\n", ""},
		{"GeneratorExit option, plain test", "GeneratorExit", plain, "neither expects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := directionProblem(tt.option, tt.code)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("directionProblem(%q) = %q, want %q", tt.option, got, tt.want)
			}
		})
	}
}

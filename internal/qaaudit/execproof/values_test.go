package execproof

import (
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestValueAnswersAreComparedAsValues: a value answer is Incorrect only
// when it and the value are plain values of one kind that differ; an
// answer in words, a number against a flag or "1,000" against 128 are
// not understood, so they are Inconclusive. Truths checked by hand with
// Debian's python3 3.11.
func TestValueAnswersAreComparedAsValues(t *testing.T) {
	python := testenv.Python(t)
	tests := []apiRow{
		{"t:thousands", "What is the default `maxsize` of `functools.lru_cache`?", "functools.lru_cache", "1,000", verdict.Inconclusive, "not a plain value"},
		{"t:flag_as_number", "What is the default `typed` of `functools.lru_cache`?", "functools.lru_cache", "0", verdict.Inconclusive, "not a plain value"},
		{"t:open_encoding", "What is the default `encoding` of `open`?", "builtins.open", "None", verdict.Valid, "is None"},
		{"t:open_mode_wrong", "What is the default `mode` of `open`?", "builtins.open", "'rb'", verdict.Incorrect, "the default of mode in builtins.open is 'r', not 'rb'"},
		{"t:open_mode_words", "What is the default `mode` of `open`?", "builtins.open", "read", verdict.Inconclusive, "not a plain value"},
		{"t:sep_windows", "What value does `os.sep` hold on Windows?", "os.sep", "'\\\\'", verdict.Inconclusive, "the question asks about Windows"},
		{"t:sep_linux_wrong", "What value does `os.sep` hold on Linux?", "os.sep", "'\\\\'", verdict.Incorrect, "os.sep is '/'"},
		{"t:pi", "What value does `math.pi` hold to two decimals?", "math.pi", "3.14", verdict.Valid, "3.14"},
		{"t:sep_unquoted", "What is the value of `os.sep`?", "os.sep", "/", verdict.Valid, "holds the value /"},
		{"t:digits", "What is the value of `string.digits`?", "string.digits", "'0123456789'", verdict.Valid, "0123456789"},
		{"t:loads_wrong", "Which exception does `json.loads('[1,')` raise?", "json.loads", "KeyError", verdict.Incorrect, "raises json.decoder.JSONDecodeError"},
		{"t:open_missing", "Which exception does `open('/nonexistent/x')` raise?", "builtins.open", "FileNotFoundError", verdict.Valid, "raises FileNotFoundError"},
		{"t:path_name_from_fqn", "Which exception does `Path('/nonexistent/q').read_text()` raise?", "pathlib.Path", "FileNotFoundError", verdict.Valid, "raises FileNotFoundError"},
		{"t:unknown_name_in_call", "Which exception does `frobnicate(1)` raise?", "builtins.int", "TypeError", verdict.Inconclusive, "neither one of the case's names nor an importable module"},
		{"t:open_missing_base", "Which exception does `open('/nonexistent/x')` raise?", "builtins.open", "OSError", verdict.Valid, "raises OSError"},
	}
	auditTable(t, python, tests)
}

// TestRemovedMembersSaySince: a member the class lacks in this Python
// but had before says since when, from typeshed's version branches
// inside the class body. Truths checked by hand with Debian's python3
// 3.11 (asyncio.Task.current_task went in 3.9).
func TestRemovedMembersSaySince(t *testing.T) {
	python := testenv.Python(t)
	auditTable(t, python, []apiRow{
		{"t:task_current_task", "Which classmethod of `asyncio.Task` returns the running task?", "asyncio.Task", "current_task", verdict.Incorrect, "(removed in Python 3.9)"},
		{"t:task_all_tasks_fqn", "Which function lists every task?", "asyncio.Task.all_tasks", "all_tasks", verdict.Incorrect, "(removed in Python 3.9)"},
		{"t:task_uncancel", "Which method of `asyncio.Task` decrements the count of cancellation requests?", "asyncio.Task", "uncancel", verdict.Valid, "uncancel"},
	})
}

// apiRow is one api_understanding case of a table and its verdict.
type apiRow struct {
	id, question, fqn, answer string
	want                      verdict.Verdict
	reason                    string
}

// auditTable audits each row as a case of its own with the real pytest
// and checks its verdict and a fragment of its reason.
func auditTable(t *testing.T, python string, tests []apiRow) {
	t.Helper()
	var cases []bankCase
	for _, tc := range tests {
		cases = append(cases, bankCase{id: tc.id, question: strconv.Quote(tc.question), answer: strconv.Quote(tc.answer), fqn: tc.fqn})
	}
	audit := apiBank(t, python, "values", cases)
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			r, reason := audit(t, tc.id)
			if r.Verdict != tc.want || !strings.Contains(reason, tc.reason) {
				t.Errorf("verdict %s (%s), want %s with %q", r.Verdict, reason, tc.want, tc.reason)
			}
		})
	}
}

package execproof

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// adversarialRoot is a question bank in the layout of the benchmark's own
// tree, written apart from the audit's code: other standard-library
// modules, C types, descriptors, platform guards, names of later Python
// versions, pydantic 1.10, and fix_error cases with data files, helper
// modules, subprocesses, loopback and interpreter exits.
const adversarialRoot = "../../../testdata/qabank-adversarial"

// adversarialWant is each case's verdict, checked by hand against
// Debian's python3 (3.11) and python3-pydantic (1.10), with a fragment of
// the reason (or of a check's message) where it matters.
var adversarialWant = map[string]struct {
	verdict verdict.Verdict
	reason  string
}{
	"adversarial_api:itertools_batched":                {verdict.Incorrect, "not in Python 3.11 (added in Python 3.12)"},
	"adversarial_api:sys_monitoring":                   {verdict.Incorrect, "not in Python 3.11"},
	"adversarial_api:os_startfile":                     {verdict.Inconclusive, "exists only on other platforms (win32"},
	"adversarial_api:subprocess_startupinfo":           {verdict.Inconclusive, "win32"},
	"adversarial_api:signal_sigbreak":                  {verdict.Inconclusive, "win32"},
	"adversarial_api:os_o_binary":                      {verdict.Inconclusive, "typeshed stubs"},
	"adversarial_api:signals_sigkill":                  {verdict.Valid, ""},
	"adversarial_api:httpstatus_teapot":                {verdict.Valid, ""},
	"adversarial_api:httpstatus_calm":                  {verdict.Incorrect, "ENHANCE_YOUR_CALM"},
	"adversarial_api:httpstatus_phrase":                {verdict.Valid, ""},
	"adversarial_api:ordereddict_move_to_front":        {verdict.Incorrect, "move_to_front"},
	"adversarial_api:ordereddict_move_to_end":          {verdict.Valid, ""},
	"adversarial_api:deque_capacity":                   {verdict.Incorrect, "capacity"},
	"adversarial_api:deque_maxlen":                     {verdict.Valid, ""},
	"adversarial_api:dumps_sortkeys":                   {verdict.Incorrect, "sortkeys"},
	"adversarial_api:dumps_sort_keys":                  {verdict.Valid, ""},
	"adversarial_api:loads_pairs_hook":                 {verdict.Valid, ""},
	"adversarial_api:timedelta_days":                   {verdict.Valid, ""},
	"adversarial_api:timedelta_hours":                  {verdict.Incorrect, "hours"},
	"adversarial_api:path_stem":                        {verdict.Valid, ""},
	"adversarial_api:path_extension":                   {verdict.Incorrect, "extension"},
	"adversarial_api:pydantic_v1_model_dump":           {verdict.Incorrect, "model_dump"},
	"adversarial_api:pydantic_v1_dict":                 {verdict.Valid, ""},
	"adversarial_api:pydantic_v1_model_config":         {verdict.Incorrect, "model_config"},
	"adversarial_api:namespace_attribute":              {verdict.Inconclusive, "computed names"},
	"adversarial_api:simplenamespace_as_dict":          {verdict.Incorrect, "as_dict"},
	"adversarial_api:partial_func":                     {verdict.Valid, ""},
	"adversarial_api:pattern_findall":                  {verdict.Valid, ""},
	"adversarial_api:thread_daemon":                    {verdict.Valid, ""},
	"adversarial_api:thread_priority":                  {verdict.Incorrect, "priority"},
	"adversarial_api:socket_settimeout":                {verdict.Valid, ""},
	"adversarial_api:sqlite_connect_timeout":           {verdict.Valid, ""},
	"adversarial_api:sqlite_connect_busy":              {verdict.Incorrect, "busy_timeout"},
	"adversarial_api:math_cbrt":                        {verdict.Valid, ""},
	"adversarial_api:math_sumprod":                     {verdict.Incorrect, "not in Python 3.11"},
	"adversarial_api:tomllib_loads":                    {verdict.Valid, ""},
	"adversarial_api:typing_override":                  {verdict.Incorrect, "not in Python 3.11"},
	"adversarial_api:dataclass_slots":                  {verdict.Valid, ""},
	"adversarial_api:dataclass_sealed":                 {verdict.Incorrect, "sealed"},
	"adversarial_api:str_removeprefix":                 {verdict.Valid, ""},
	"adversarial_api:dict_move_to_end":                 {verdict.Incorrect, "move_to_end"},
	"adversarial_api:zipfile_path_stem":                {verdict.Valid, ""},
	"adversarial_api:logrecord_asctime":                {verdict.Inconclusive, "stores .asctime"},
	"adversarial_api:taskgroup":                        {verdict.Valid, ""},
	"adversarial_fix:01_data_file":                     {verdict.Valid, ""},
	"adversarial_fix:02_data_subfolder":                {verdict.Valid, ""},
	"adversarial_fix:03_helper_module":                 {verdict.Valid, ""},
	"adversarial_fix:04_unfixed_needs_simplejson":      {verdict.Valid, "simplejson"},
	"adversarial_fix:05_unfixed_raises_at_import":      {verdict.Valid, ""},
	"adversarial_fix:06_unfixed_exits_at_import":       {verdict.Valid, ""},
	"adversarial_fix:07_unfixed_sys_exit_module_level": {verdict.Valid, ""},
	"adversarial_fix:08_subprocess":                    {verdict.Valid, ""},
	"adversarial_fix:09_loopback":                      {verdict.Valid, ""},
	"adversarial_fix:13_unfixed_memory_runaway":        {verdict.Valid, "stopped by the memory limit (512 MiB)"},
	"adversarial_fix:10_fix_does_not_fix_data":         {verdict.Incorrect, "the test passes against the fixed code (fixed): proven false"},
	"adversarial_fix:11_unfixed_already_works":         {verdict.Incorrect, "every test passed against the unfixed code"},
	"adversarial_fix:12_fixed_needs_missing_package":   {verdict.Inconclusive, "yaml_not_installed_here is not installed"},
	"adversarial_fix:14_unfixed_aborts":                {verdict.Valid, ""},
	"adversarial_fix:15_unfixed_forgets_await":         {verdict.Valid, ""},
	"adversarial_fix:16_unfixed_no_network":            {verdict.Valid, ""},
}

// TestAdversarialBank audits every case of the bank with the real pytest
// and checks each verdict and reason against the hand-checked table; a
// case in the bank without a row, or a row without a case, fails too.
func TestAdversarialBank(t *testing.T) {
	python := testenv.Python(t)
	root := adversarialRoot
	defs := filepath.Join(root, "benchmarks", "benchmark_definitions")
	var cases []*questions.Case
	for _, kind := range []string{"api_understanding", "fix_errors"} {
		f, err := questions.Load(filepath.Join(defs, kind, "benchmark.yaml"), questions.Options{SkipSnippets: true})
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, f.Cases()...)
	}
	if len(cases) < 40 || len(cases) != len(adversarialWant) {
		t.Fatalf("the bank holds %d cases, the table %d", len(cases), len(adversarialWant))
	}
	only := os.Getenv("QA_ADVERSARIAL_ONLY")
	// 512 MiB rather than the default 2 GiB: the runaway case fills what
	// it is given, on a machine others share.
	a := &Auditor{Runner: sandbox.Runner{Python: python, Limits: sandbox.Limits{MemoryBytes: 512 << 20}}, WorkDir: t.TempDir(), RepoRoot: root}
	for _, c := range cases {
		c := c
		want, ok := adversarialWant[c.ID]
		if !ok {
			t.Errorf("no expected verdict for %s", c.ID)
			continue
		}
		if only != "" && !strings.Contains(c.ID, only) {
			continue
		}
		t.Run(c.ID, func(t *testing.T) {
			t.Parallel()
			r := a.AuditCase(context.Background(), c)
			reason, text := "", ""
			if len(r.Attempts) == 1 && r.Attempts[0].Decision != nil {
				reason = r.Attempts[0].Decision.Reason
				text = reason
				for _, o := range r.Attempts[0].Options {
					text += "\n" + o.Message
				}
			}
			// The fragment is in the reason, or (a Valid case says only
			// "every check proven true") in what a check's run showed.
			if r.Verdict != want.verdict || !strings.Contains(text, want.reason) {
				t.Errorf("verdict %s (%s), want %s with reason containing %q", r.Verdict, reason, want.verdict, want.reason)
				for _, o := range r.Attempts[0].Options {
					t.Logf("  %s: %s %s: %s", o.Option, o.Outcome, o.Truth, o.Message)
				}
			}
		})
	}
}

package sandbox

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseJUnit(t *testing.T) {
	tests := []struct {
		name string
		xml  string
		want JUnit
		err  string
	}{
		{"xunit2 pass", `<testsuites><testsuite tests="1"><testcase name="t"/></testsuite></testsuites>`, JUnit{Tests: 1}, ""},
		{"bare testsuite", `<testsuite><testcase name="t"><failure message="boom"/></testcase></testsuite>`, JUnit{Tests: 1, Failures: 1, Message: "t: boom"}, ""},
		{"collection error", `<testsuites><testsuite><testcase classname="" name="test_option_A"><error message="collection failure">SyntaxError</error></testcase></testsuite></testsuites>`,
			JUnit{Tests: 1, Errors: 1, Message: "test_option_A: collection failure"}, ""},
		{"failure and teardown error count as error", `<testsuite><testcase name="t"><failure message="f"/><error message="teardown"/></testcase></testsuite>`, JUnit{Tests: 1, Errors: 1, Message: "t: teardown"}, ""},
		{"skips", `<testsuite><testcase name="a"><skipped/></testcase><testcase name="b"/></testsuite>`, JUnit{Tests: 2, Skipped: 1, SkipReason: "skipped without a reason"}, ""},
		{"skip reason", `<testsuite><testcase name="a"><skipped type="pytest.skip" message="needs a GPU">t.py:3: needs a GPU</skipped></testcase></testsuite>`, JUnit{Tests: 1, Skipped: 1, SkipReason: "needs a GPU"}, ""},
		{"xfail reason", `<testsuite><testcase name="a"><skipped type="pytest.xfail" message="known bug"/></testcase></testsuite>`, JUnit{Tests: 1, Skipped: 1, SkipReason: "xfail: known bug"}, ""},
		{"collection skip", `<testsuite><testcase classname="" name="test_x"><skipped message="collection skipped">('/tmp/test_x.py', 0, "Skipped: google.adk is not installed in this Python: No module named 'google.adk'")</skipped></testcase></testsuite>`,
			JUnit{Tests: 1, Skipped: 1, SkipReason: "google.adk is not installed in this Python: No module named 'google.adk'"}, ""},
		{"message from text", `<testsuite><testcase name="t"><failure>assert 1 == 2</failure></testcase></testsuite>`, JUnit{Tests: 1, Failures: 1, Message: "t: assert 1 == 2"}, ""},
		{"wrong root", `<html/>`, JUnit{}, "expected <testsuites>"},
		{"not xml", `{`, JUnit{}, "parse JUnit XML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJUnit([]byte(tt.xml))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			got.Cases = nil // checked by TestParseJUnitCases
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestParseJUnitCases(t *testing.T) {
	xml := `<testsuites><testsuite>
<testcase name="test_fqn_0_0"/>
<testcase name="test_fqn_0_1"><failure message="Missing: no such name">trace</failure></testcase>
<testcase name="test_answer_0"><skipped message="package not installed"/></testcase>
<testcase name="test_setup"><error message="failed on setup"/></testcase>
</testsuite></testsuites>`
	got, err := ParseJUnit([]byte(xml))
	if err != nil {
		t.Fatal(err)
	}
	want := []TestCase{
		{Name: "test_fqn_0_0", Status: StatusPassed},
		{Name: "test_fqn_0_1", Status: StatusFailed, Message: "Missing: no such name"},
		{Name: "test_answer_0", Status: StatusSkipped, Message: "package not installed"},
		{Name: "test_setup", Status: StatusError, Message: "failed on setup"},
	}
	if len(got.Cases) != len(want) {
		t.Fatalf("cases %+v, want %+v", got.Cases, want)
	}
	for i := range want {
		if got.Cases[i] != want[i] {
			t.Errorf("case %d: %+v, want %+v", i, got.Cases[i], want[i])
		}
	}
}

func TestClassify(t *testing.T) {
	pass := []byte(`<testsuite><testcase name="t"/></testsuite>`)
	fail := []byte(`<testsuite><testcase name="t"><failure message="no"/></testcase></testsuite>`)
	setup := []byte(`<testsuite><testcase name="t"><error message="failed on setup"/></testcase></testsuite>`)
	empty := []byte(`<testsuite/>`)
	tests := []struct {
		name string
		raw  rawResult
		want Status
	}{
		{"pass", rawResult{exitCode: 0, junit: pass}, StatusPassed},
		{"exit 0 without report", rawResult{exitCode: 0}, StatusError},
		{"exit 0 with failure in report", rawResult{exitCode: 0, junit: fail}, StatusError},
		{"exit 0 empty report", rawResult{exitCode: 0, junit: empty}, StatusNoTests},
		{"fail", rawResult{exitCode: 1, junit: fail}, StatusFailed},
		{"exit 1 setup error", rawResult{exitCode: 1, junit: setup}, StatusError},
		{"exit 1 without report", rawResult{exitCode: 1}, StatusError},
		{"exit 1 report without failures", rawResult{exitCode: 1, junit: pass}, StatusError},
		{"exit 1 broken report", rawResult{exitCode: 1, junit: []byte("<")}, StatusError},
		{"exit 2", rawResult{exitCode: 2, junit: setup}, StatusCollectionError},
		{"exit 3", rawResult{exitCode: 3}, StatusError},
		{"exit 4", rawResult{exitCode: 4}, StatusError},
		{"exit 5", rawResult{exitCode: 5, junit: empty}, StatusNoTests},
		{"exit 5 after a skip at collection", rawResult{exitCode: 5, junit: []byte(`<testsuite><testcase name="m"><skipped message="collection skipped">('m.py', 0, 'Skipped: no')</skipped></testcase></testsuite>`)}, StatusSkipped},
		{"killed by a signal", rawResult{exitCode: -1}, StatusError},
		{"timeout even with a passing report", rawResult{exitCode: 0, timedOut: true, junit: pass}, StatusTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := classify(tt.raw)
			if o.Status != tt.want {
				t.Fatalf("status = %s (%s), want %s", o.Status, o.Message, tt.want)
			}
			if o.Evidence != (tt.want == StatusPassed || tt.want == StatusFailed) {
				t.Errorf("evidence = %v for %s", o.Evidence, o.Status)
			}
			if o.Status != StatusPassed && o.Status != StatusFailed && o.Message == "" && o.Status != StatusError {
				t.Errorf("no message for %s", o.Status)
			}
		})
	}
}

// FuzzParseJUnit checks that no report crashes the parser and that only
// a consistent report with exit 0 or 1 can ever become evidence.
func FuzzParseJUnit(f *testing.F) {
	f.Add([]byte(`<testsuites><testsuite tests="1"><testcase name="t"/></testsuite></testsuites>`), 0)
	f.Add([]byte(`<testsuite><testcase name="t"><failure message="boom">x</failure></testcase></testsuite>`), 1)
	f.Add([]byte(`<testsuites><testsuite><testcase name="c"><error message="collection failure"/></testcase></testsuite></testsuites>`), 2)
	f.Add([]byte(`<testsuite><testcase name="a"><skipped/></testcase></testsuite>`), 0)
	f.Fuzz(func(t *testing.T, data []byte, exit int) {
		j, err := ParseJUnit(data)
		if err == nil && j.Failures+j.Errors+j.Skipped > j.Tests {
			t.Fatalf("counts exceed tests: %+v", j)
		}
		o := classify(rawResult{exitCode: exit, junit: data})
		if o.Evidence {
			if err != nil || (exit != 0 && exit != 1) || j.Errors > 0 || j.Tests == 0 {
				t.Fatalf("evidence from exit %d, report %+v (err %v)", exit, j, err)
			}
			if exit == 0 && (o.Status != StatusPassed || j.Failures > 0) || exit == 1 && (o.Status != StatusFailed || j.Failures == 0) {
				t.Fatalf("inconsistent evidence: exit %d status %s report %+v", exit, o.Status, j)
			}
		}
	})
}

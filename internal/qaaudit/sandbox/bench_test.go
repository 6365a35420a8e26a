package sandbox

import (
	"context"
	"testing"

	"github.com/benchgate/benchgate/internal/testenv"
)

// BenchmarkRunTestPassing is the cost of one option test end to end with
// the real interpreter: folder, files, pytest start-up, JUnit parsing.
func BenchmarkRunTestPassing(b *testing.B) {
	r := &Runner{Python: testenv.Python(b), WorkDir: b.TempDir()}
	spec := TestSpec{CaseID: "s:c", Option: "A", Source: []byte(passing)}
	for b.Loop() {
		out, err := r.RunTest(context.Background(), spec)
		if err != nil || out.Status != StatusPassed {
			b.Fatal(out.Status, err)
		}
	}
}

// BenchmarkRunTestOverhead runs a "python" that exits at once after
// writing nothing, to isolate the sandbox's own cost per test.
func BenchmarkRunTestOverhead(b *testing.B) {
	r := &Runner{Python: "/bin/true", WorkDir: b.TempDir()}
	spec := TestSpec{CaseID: "s:c", Option: "A", Source: []byte(passing)}
	for b.Loop() {
		out, err := r.RunTest(context.Background(), spec)
		if err != nil || out.Status != StatusError {
			b.Fatal(out.Status, err)
		}
	}
}

func BenchmarkParseJUnit(b *testing.B) {
	data := []byte(`<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="1" skipped="0" tests="2" time="0.03"><testcase classname="test_option_A" name="test_a" time="0.001"/><testcase classname="test_option_A" name="test_b" time="0.001"><failure message="AssertionError: no">trace</failure></testcase></testsuite></testsuites>`)
	b.ReportAllocs()
	for b.Loop() {
		if j, err := ParseJUnit(data); err != nil || j.Failures != 1 {
			b.Fatal(j, err)
		}
	}
}

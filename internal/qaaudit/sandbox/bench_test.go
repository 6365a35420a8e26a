package sandbox

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
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

// BenchmarkRunTestOverhead is the sandbox's own cost per test: the
// bootstrap with the real interpreter builds the namespaces, the hidden
// file system, the test's tmpfs folder and the limits, then runs
// "python -c pass" instead of pytest.
func BenchmarkRunTestOverhead(b *testing.B) {
	r := &Runner{Python: testenv.Python(b), WorkDir: b.TempDir()}
	for b.Loop() {
		dir, err := os.MkdirTemp(r.WorkDir, "qa_bench_")
		if err != nil {
			b.Fatal(err)
		}
		var out limitedBuffer
		out.limit = 1 << 16
		res, st, err := r.runBootstrap(context.Background(), dir, r.environment(dir), []string{"-c", "pass"}, &out, time.Minute)
		if err != nil || res.ExitCode != 0 || !st.ready {
			b.Fatal(res.ExitCode, st, err, string(out.Bytes()))
		}
		os.RemoveAll(dir)
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

package pipeline_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/qaaudit/pipeline"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
)

// instantProver proves option A true and every other option false without
// running anything, so the benchmark measures the agent graph alone.
type instantProver struct{}

func (instantProver) Prove(_ context.Context, dir, option, _ string) (pipeline.ProofResult, error) {
	return pipeline.ProofResult{Outcome: "passed", Evidence: true, Passed: option == "A", TestPath: filepath.Join(dir, "test_option_"+option+".py"), Duration: time.Millisecond}, nil
}

// BenchmarkAuditCaseOverhead is the pipeline's own cost for one Valid
// four-option case: three agents, one proof loop turn, three tool calls,
// the verdict, with a model and a prover that answer at once.
func BenchmarkAuditCaseOverhead(b *testing.B) {
	f := loadCases(b)
	c := f[0] // stdlib:valid_json_dumps
	a, err := pipeline.New(pipeline.Config{Model: newScripted(stdlibTests, nil), Prover: instantProver{}, WorkDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if r := a.AuditCase(context.Background(), c); r.Verdict != verdict.Valid {
			b.Fatalf("verdict %s: %+v", r.Verdict, r.Attempts)
		}
	}
}

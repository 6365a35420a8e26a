package execproof

import (
	"context"
	"testing"

	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// BenchmarkAuditCase is the cost of proving one case of each kind end to
// end with the real interpreter: one pytest run for api_understanding
// (however many names), two for fix_error.
func BenchmarkAuditCase(b *testing.B) {
	py := testenv.Python(b)
	f := loadCasesB(b)
	for _, id := range []string{"stdlib:json_decoder", "fix:valid"} {
		c, _ := f.Case(id)
		b.Run(id, func(b *testing.B) {
			a := &Auditor{Runner: sandbox.Runner{Python: py}, WorkDir: b.TempDir(), RepoRoot: repo}
			for b.Loop() {
				if r := a.AuditCase(context.Background(), c); r.Verdict != verdict.Valid {
					b.Fatal(r.Verdict, r.Attempts)
				}
			}
		})
	}
}

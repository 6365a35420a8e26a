package qreport

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkWriteJSON1000 writes a report of 1000 cases (about eight times
// the real benchmark's multiple-choice suites) with five options and two
// attempts each.
func BenchmarkWriteJSON1000(b *testing.B) {
	base := sampleReport()
	r := &Report{StartedAt: base.StartedAt, FinishedAt: base.FinishedAt}
	for i := 0; i < 1000; i++ {
		c := base.Cases[i%4]
		c.ID = fmt.Sprintf("suite:case_%04d", 999-i)
		c.Line = 1000 - i
		r.Cases = append(r.Cases, c)
	}
	path := filepath.Join(b.TempDir(), FileName)
	b.ReportAllocs()
	for b.Loop() {
		if err := r.WriteJSON(path); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarkdown1000(b *testing.B) {
	base := sampleReport()
	r := &Report{}
	for i := 0; i < 1000; i++ {
		c := base.Cases[i%len(base.Cases)]
		c.ID = fmt.Sprintf("suite:case_%04d", i)
		r.Cases = append(r.Cases, c)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Markdown()
	}
}

package audit

import (
	"context"
	"sync"

	"github.com/benchgate/benchgate/internal/qaaudit/pipeline"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
)

// parallelAudit audits the selected cases of a run with up to Jobs cases
// at once and hands their results back in report order. Cases are
// independent (each has its own work folder; the model check, the
// breaker and the call budget are shared and safe to share), so the wall
// time of a run of execution-proven cases falls with the cores, while the
// report, the fixed files and the progress lines stay in file order.
//
// Once ctx ends, no case starts: each one not yet started comes back "not
// audited" at once, so a stopped run writes its report without waiting
// for the rest.
type parallelAudit struct {
	results []chan pipeline.CaseResult
	next    int
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

func auditInParallel(ctx context.Context, files []*questions.File, opts Options) *parallelAudit {
	var cases []*questions.Case
	for _, f := range files {
		for _, c := range f.Cases() {
			if opts.selected(c) {
				cases = append(cases, c)
			}
		}
	}
	jobs := max(opts.Jobs, 1)
	work, cancel := context.WithCancel(ctx)
	p := &parallelAudit{results: make([]chan pipeline.CaseResult, len(cases)), cancel: cancel}
	for i := range p.results {
		p.results[i] = make(chan pipeline.CaseResult, 1)
	}
	todo := make(chan int)
	go func() {
		defer close(todo)
		for i := range cases {
			todo <- i
		}
	}()
	p.wg.Add(jobs)
	for range jobs {
		go func() {
			defer p.wg.Done()
			for i := range todo {
				c := cases[i]
				if ctx.Err() != nil || work.Err() != nil {
					err := ctx.Err()
					if err == nil {
						err = work.Err()
					}
					p.results[i] <- pipeline.CaseResult{ID: c.ID, File: c.File, Line: c.Line, Error: "not audited: " + err.Error()}
					continue
				}
				p.results[i] <- opts.Auditor.AuditCase(work, c)
			}
		}()
	}
	return p
}

// result waits for the next case's result in report order.
func (p *parallelAudit) result() pipeline.CaseResult {
	r := <-p.results[p.next]
	p.next++
	return r
}

// stop cancels the cases still running (the run is over, normally or on
// an error) and waits for every worker, so that nothing writes to the
// work folder after Run returns.
func (p *parallelAudit) stop() {
	p.cancel()
	p.wg.Wait()
}

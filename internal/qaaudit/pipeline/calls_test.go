package pipeline_test

import (
	"context"
	"errors"
	"iter"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/adk/model"

	"github.com/benchgate/benchgate/internal/llm"
	"github.com/benchgate/benchgate/internal/qaaudit/pipeline"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// receiving counts the requests that reach the model: what the endpoint
// received.
type receiving struct {
	model.LLM
	n atomic.Int64
}

func (r *receiving) GenerateContent(ctx context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	r.n.Add(1)
	return r.LLM.GenerateContent(ctx, req, stream)
}

// TestModelCallsCountWhatWasSent audits cases at the same time (as
// --jobs does) and checks that the model calls the cases report add up to
// the requests the model received, each case counting only its own.
func TestModelCallsCountWhatWasSent(t *testing.T) {
	m := &receiving{LLM: newScripted(stdlibTests, stdlibFixes)}
	a, err := pipeline.New(pipeline.Config{
		Model:              m,
		Prover:             pipeline.SandboxProver{Runner: sandbox.Runner{Python: testenv.Python(t), Timeout: 30 * time.Second}},
		WorkDir:            t.TempDir(),
		MaxProofIterations: 4,
		TriesPerOption:     1,
		CaseTimeout:        3 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var sum int64
	perCase := map[string]int64{}
	for _, c := range loadCases(t) {
		if c.ID != "stdlib:valid_json_dumps" && c.ID != "stdlib:none_of_the_above_key" && c.ID != "stdlib:ambiguous_four" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := a.AuditCase(context.Background(), c)
			var attempts int64
			for _, at := range r.Attempts {
				attempts += at.ModelCalls
			}
			mu.Lock()
			defer mu.Unlock()
			sum += r.ModelCalls
			perCase[c.ID] = r.ModelCalls
			if attempts > r.ModelCalls || r.ModelCalls == 0 {
				t.Errorf("%s: %d model calls, its attempts %d", c.ID, r.ModelCalls, attempts)
			}
		}()
	}
	wg.Wait()
	if got := m.n.Load(); sum != got || len(perCase) != 3 {
		t.Fatalf("the cases report %d model calls (%v), the model received %d", sum, perCase, got)
	}
}

// failing is an endpoint that is down.
type failing struct{ n atomic.Int64 }

func (f *failing) Name() string { return "down" }
func (f *failing) GenerateContent(context.Context, *model.LLMRequest, bool) iter.Seq2[*model.LLMResponse, error] {
	f.n.Add(1)
	return func(yield func(*model.LLMResponse, error) bool) { yield(nil, errors.New("connection refused")) }
}

// TestCallsTheBreakerRefusedAreNotCounted: once the breaker stops calling
// a dead endpoint, the calls it refuses were never sent and count for
// nothing.
func TestCallsTheBreakerRefusedAreNotCounted(t *testing.T) {
	down := &failing{}
	a, err := pipeline.New(pipeline.Config{
		Model:              &llm.Breaker{LLM: down, Threshold: 1},
		Prover:             pipeline.SandboxProver{Runner: sandbox.Runner{Python: testenv.Python(t)}},
		WorkDir:            t.TempDir(),
		MaxProofIterations: 2,
		TriesPerOption:     1,
		CaseTimeout:        time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, c := range loadCases(t)[:3] {
		sum += a.AuditCase(context.Background(), c).ModelCalls
	}
	if sum != down.n.Load() || sum != 1 {
		t.Fatalf("the cases report %d model calls, the endpoint received %d (want 1: the breaker opened after it)", sum, down.n.Load())
	}
}

package pipeline

import (
	"context"
	"errors"
	"iter"
	"sync/atomic"

	"google.golang.org/adk/model"

	"github.com/benchgate/benchgate/internal/llm"
)

// sentKey carries the counter of one case's model calls in its context.
// Cases run in parallel (--jobs), so a case cannot count its calls as the
// difference of a run-wide counter: that would count the calls of every
// case running beside it too.
type sentKey struct{}

// withSentCounter returns ctx carrying a fresh counter of the calls sent
// to the model on its behalf.
func withSentCounter(ctx context.Context) (context.Context, *atomic.Int64) {
	n := new(atomic.Int64)
	return context.WithValue(ctx, sentKey{}, n), n
}

// sentCounter is the counter ctx carries, or a fresh one (counting for
// nobody) when it carries none.
func sentCounter(ctx context.Context) *atomic.Int64 {
	if n, ok := ctx.Value(sentKey{}).(*atomic.Int64); ok {
		return n
	}
	return new(atomic.Int64)
}

// sentModel counts, in the calling case's counter, every call it passes
// on to the model, except those the breaker refused without sending them
// (llm.ErrEndpointUnavailable): the report's model_calls are the requests
// the endpoint received.
type sentModel struct{ model.LLM }

// GenerateContent implements model.LLM.
func (m sentModel) GenerateContent(ctx context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		refused := false
		for resp, err := range m.LLM.GenerateContent(ctx, req, stream) {
			if err != nil && errors.Is(err, llm.ErrEndpointUnavailable) {
				refused = true
			}
			if !yield(resp, err) {
				break
			}
		}
		if !refused {
			sentCounter(ctx).Add(1)
		}
	}
}

package llm

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"

	"google.golang.org/adk/model"
)

// ErrEndpointUnavailable is wrapped by every call a Breaker refuses.
var ErrEndpointUnavailable = errors.New("model endpoint unavailable")

// DefaultBreakerThreshold is how many calls in a row must fail before a
// Breaker stops calling the endpoint.
const DefaultBreakerThreshold = 3

// Breaker wraps a model and stops calling it after Threshold consecutive
// failed calls: a dead or silent endpoint would otherwise cost the model
// timeout on every case (hours over a question bank) and repeat the same
// error in every case of the report. Once open, every call fails at once
// with ErrEndpointUnavailable and the first error, so the remaining cases
// end Inconclusive quickly and say why. A successful call resets the count.
type Breaker struct {
	model.LLM
	// Threshold is the number of consecutive failures that opens the
	// breaker; zero means DefaultBreakerThreshold.
	Threshold int

	mu       sync.Mutex
	failures int
	first    error // the first failure of the current run of failures
	open     bool
}

// Open reports whether the breaker has stopped calling the endpoint, and
// the error that made it stop.
func (b *Breaker) Open() (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.open, b.first
}

func (b *Breaker) threshold() int {
	if b.Threshold > 0 {
		return b.Threshold
	}
	return DefaultBreakerThreshold
}

// GenerateContent implements model.LLM.
func (b *Breaker) GenerateContent(ctx context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		if open, first := b.Open(); open {
			yield(nil, fmt.Errorf("%w (stopped calling it after %d failed calls in a row): %v", ErrEndpointUnavailable, b.threshold(), first))
			return
		}
		var failed error
		for resp, err := range b.LLM.GenerateContent(ctx, req, stream) {
			if err != nil && failed == nil {
				failed = err
			}
			if !yield(resp, err) {
				break
			}
		}
		if ctx.Err() != nil {
			return // a cancelled run says nothing about the endpoint
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		if failed == nil {
			b.failures, b.first = 0, nil
			return
		}
		if b.failures == 0 {
			b.first = failed
		}
		b.failures++
		if b.failures >= b.threshold() {
			b.open = true
		}
	}
}

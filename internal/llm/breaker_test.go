package llm

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"

	"google.golang.org/adk/model"
)

// scripted answers each call with the next error of its script (nil is a
// success) and counts the calls that reached it.
type scripted struct {
	script []error
	calls  int
}

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) GenerateContent(ctx context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		err := s.script[s.calls%len(s.script)]
		s.calls++
		if err != nil {
			yield(nil, err)
			return
		}
		yield(&model.LLMResponse{}, nil)
	}
}

func call(m model.LLM) error {
	for _, err := range m.GenerateContent(context.Background(), &model.LLMRequest{}, false) {
		if err != nil {
			return err
		}
	}
	return nil
}

func TestBreaker(t *testing.T) {
	dns := errors.New("dial tcp: lookup llm.invalid: no such host")
	t.Run("opens after consecutive failures and stops calling", func(t *testing.T) {
		s := &scripted{script: []error{dns}}
		b := &Breaker{LLM: s, Threshold: 3}
		for i := 0; i < 3; i++ {
			if err := call(b); !errors.Is(err, dns) {
				t.Fatalf("call %d: %v", i, err)
			}
		}
		for i := 0; i < 5; i++ {
			err := call(b)
			if !errors.Is(err, ErrEndpointUnavailable) || !strings.Contains(err.Error(), "no such host") {
				t.Fatalf("refused call: %v", err)
			}
		}
		if s.calls != 3 {
			t.Errorf("the endpoint was called %d times, want 3", s.calls)
		}
		if open, first := b.Open(); !open || first != dns {
			t.Errorf("Open() = %v, %v", open, first)
		}
	})
	t.Run("a success resets the count", func(t *testing.T) {
		s := &scripted{script: []error{dns, dns, nil}}
		b := &Breaker{LLM: s, Threshold: 3}
		for i := 0; i < 9; i++ {
			call(b)
		}
		if open, _ := b.Open(); open || s.calls != 9 {
			t.Errorf("open %v after %d calls; two failures then a success must never open it", open, s.calls)
		}
	})
}

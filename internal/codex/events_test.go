package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseEvents(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Events
		wantErr string
	}{
		{
			name: "tool run recorded from codex 0.169",
			in:   readTestdata(t, "tool_run.jsonl"),
			want: Events{
				ThreadID:    "01a20039-da53-7d90-a9e0-362ff39069f6",
				Usage:       Usage{InputTokens: 20, OutputTokens: 4},
				Turns:       1,
				Commands:    1,
				Warnings:    []string{"Model metadata for `qwen3-coder-next-FP8` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."},
				LastMessage: "FAKE_OK",
			},
		},
		{
			name: "usage is the last turn's thread total and non-JSON lines are skipped",
			in: "Reading additional input from stdin...\n\n" +
				`{"type":"thread.started","thread_id":"t1"}` + "\n" +
				`{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":3,"output_tokens":2,"reasoning_output_tokens":1}}` + "\n" +
				"  [not json]\n" +
				`{"type":"turn.completed","usage":{"input_tokens":5,"cached_input_tokens":1,"output_tokens":1,"reasoning_output_tokens":0,"cache_write_input_tokens":7}}` + "\r\n",
			want: Events{ThreadID: "t1", Turns: 2, Usage: Usage{InputTokens: 5, CachedInputTokens: 1, OutputTokens: 1}},
		},
		{
			name: "turn failed after an HTTP 400",
			in: `{"type":"thread.started","thread_id":"t2"}` + "\n" +
				`{"type":"turn.started"}` + "\n" +
				`{"type":"error","message":"unexpected status 400 Bad Request: unknown model"}` + "\n" +
				`{"type":"turn.failed","error":{"message":"unexpected status 400 Bad Request: unknown model"}}`,
			want: Events{ThreadID: "t2", Failed: true, Errors: []string{"unexpected status 400 Bad Request: unknown model"}},
		},
		{
			name: "reconnect errors fold",
			in: `{"type":"error","message":"Reconnecting... 1/5"}` + "\n" +
				`{"type":"error","message":"Reconnecting... 1/5"}` + "\n" +
				`{"type":"error","message":"Reconnecting... 2/5"}` + "\n" +
				`{"type":"turn.failed","error":null}`,
			want: Events{Failed: true, Errors: []string{"Reconnecting... 1/5", "Reconnecting... 2/5", "turn failed"}},
		},
		{
			name: "unknown types are ignored",
			in:   `{"type":"item.plan.delta","delta":"x"}` + "\n" + `{"type":"future.event","x":[1,2]}`,
			want: Events{},
		},
		{name: "empty stream", in: "", want: Events{}},
		{
			name:    "malformed JSON names the line",
			in:      `{"type":"thread.started","thread_id":"t"}` + "\n" + "text\n" + `{"type":"turn.completed","usage":{"input_tokens":"many"}}`,
			wantErr: "codex --json line 3: malformed JSON event",
		},
		{
			name:    "truncated object",
			in:      `{"type":"turn.sta`,
			wantErr: "line 1: malformed JSON event",
		},
		{
			name:    "object without type",
			in:      `{"thread_id":"t"}`,
			wantErr: `line 1: JSON event has no string field "type"`,
		},
		{
			name:    "thread.started without id",
			in:      "\n" + `{"type":"thread.started"}`,
			wantErr: `line 2: thread.started event has no "thread_id"`,
		},
		{
			name:    "item.completed without item",
			in:      `{"type":"item.completed"}`,
			wantErr: `line 1: item.completed event has no "item"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseEvents(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestUsageArithmetic(t *testing.T) {
	before := Usage{InputTokens: 250, CachedInputTokens: 140, OutputTokens: 10, ReasoningOutputTokens: 2}
	share := Usage{InputTokens: 200, OutputTokens: 5, ReasoningOutputTokens: 1}
	after := before.Add(share)
	if want := (Usage{450, 140, 15, 3}); after != want {
		t.Fatalf("Add = %+v, want %+v", after, want)
	}
	if got := after.Sub(before); got != share {
		t.Fatalf("Sub = %+v, want %+v", got, share)
	}
}

func TestParseEventsLongLine(t *testing.T) {
	out := strings.Repeat("x", 1<<20)
	in := `{"type":"item.completed","item":{"type":"agent_message","text":"` + out + `"}}` + "\n"
	got, err := ParseEvents(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if got.LastMessage != out {
		t.Fatalf("last message has %d bytes, want %d", len(got.LastMessage), len(out))
	}
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzParseEvents checks that the parser never panics, and that whatever
// it accepts it accepts again with the same result: parsing is a pure
// function of the bytes.
func FuzzParseEvents(f *testing.F) {
	f.Add([]byte(`{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"turn.completed","usage":{"input_tokens":1}}`))
	f.Add([]byte("noise\n{\"type\":\"turn.failed\",\"error\":{\"message\":\"m\"}}\n"))
	f.Add([]byte(`{"type":"item.completed","item":{"type":"error","message":"w"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, errA := ParseEvents(bytes.NewReader(b))
		c, errC := ParseEvents(bytes.NewReader(b))
		if (errA == nil) != (errC == nil) || !reflect.DeepEqual(a, c) {
			t.Fatalf("parse is not deterministic: %v / %v", errA, errC)
		}
		if !bytes.Contains(b, []byte("{")) && (errA != nil || !reflect.DeepEqual(a, Events{})) {
			t.Fatalf("input without a JSON object gave %+v, %v; want nothing", a, errA)
		}
		if errA == nil && a.Usage.InputTokens < 0 && !bytes.Contains(b, []byte("-")) {
			t.Fatalf("negative usage without a minus sign in the input")
		}
	})
}

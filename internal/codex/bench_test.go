package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// longSession is a --json stream of a long execute phase: 500 commands
// with 4 KiB of output each, the shape that dominates real event logs.
func longSession() []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"thread.started","thread_id":"01a20039-da53-7d90-a9e0-362ff39069f6"}` + "\n")
	b.WriteString(`{"type":"turn.started"}` + "\n")
	out, _ := json.Marshal(strings.Repeat("ok line of test output\n", 4096/23))
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&b, `{"type":"item.started","item":{"id":"item_%d","type":"command_execution","command":"/bin/bash -lc 'go test ./...'","aggregated_output":"","exit_code":null,"status":"in_progress"}}`+"\n", i)
		fmt.Fprintf(&b, `{"type":"item.completed","item":{"id":"item_%d","type":"command_execution","command":"/bin/bash -lc 'go test ./...'","aggregated_output":%s,"exit_code":0,"status":"completed"}}`+"\n", i, out)
		fmt.Fprintf(&b, `{"type":"item.completed","item":{"id":"msg_%d","type":"agent_message","text":"Step %d done."}}`+"\n", i, i)
	}
	b.WriteString(`{"type":"turn.completed","usage":{"input_tokens":123456,"cached_input_tokens":100000,"output_tokens":4567,"reasoning_output_tokens":890}}` + "\n")
	return b.Bytes()
}

func BenchmarkParseEvents(b *testing.B) {
	in := longSession()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		ev, err := ParseEvents(bytes.NewReader(in))
		if err != nil || ev.Commands != 500 || ev.Usage.InputTokens != 123456 {
			b.Fatalf("parse: %v %+v", err, ev.Usage)
		}
	}
}

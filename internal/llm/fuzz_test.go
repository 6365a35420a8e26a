package llm

import (
	"strings"
	"testing"
)

// FuzzParseResponse feeds arbitrary endpoint replies to the response
// parser: it must never panic, and a successful parse always yields content
// with at least one part.
func FuzzParseResponse(f *testing.F) {
	f.Add(200, []byte(`{"choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`))
	f.Add(200, []byte(`{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},"finish_reason":"length"}],"usage":{"total_tokens":3}}`))
	f.Add(401, []byte(`{"error":{"message":"bad key sk-abcdef"}}`))
	f.Add(200, []byte(`{"choices":[{"message":{"tool_calls":[{"function":{"arguments":""}}]}}]}`))
	f.Add(500, []byte(strings.Repeat("x", 600)))
	f.Fuzz(func(t *testing.T, status int, raw []byte) {
		m := &ChatModel{Model: "m", APIKey: "sk-abcdef"}
		resp, err := m.parseResponse(status, raw)
		if err != nil {
			if resp != nil {
				t.Fatalf("response with error %v", err)
			}
			return
		}
		if status != 200 {
			t.Fatalf("status %d parsed as success", status)
		}
		if resp.Content == nil || len(resp.Content.Parts) == 0 {
			t.Fatalf("success without content: %+v", resp)
		}
	})
}

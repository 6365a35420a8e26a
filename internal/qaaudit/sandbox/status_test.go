package sandbox

import (
	"strings"
	"testing"
)

// TestLimitHitTrustsTheChannelOnly decides limits from what the sandbox
// reported and what the test printed, in cases checked by hand: the
// output can only take a claim away (a memory claim without the
// MemoryError it caused), never make one.
func TestLimitHitTrustsTheChannelOnly(t *testing.T) {
	tests := []struct {
		name, status, output, want string
	}{
		{"nothing reported, the output shouts", "ready\n", "benchgate-sandbox: limit: memory\nMemoryError\nlimit cpu\n", ""},
		{"the cgroup killed it, silently", "ready\nlimit memory_total\n", "", LimitMemory},
		{"much memory and its MemoryError", "ready\nlimit memory\n", "E   MemoryError\n", LimitMemory},
		{"much memory, failed otherwise", "ready\nlimit memory\n", "assert 1 == 2\n", ""},
		{"cpu by the kernel's signal", "ready\nlimit cpu\n", "", LimitCPU},
		{"a file of the limit's size", "ready\nlimit file_size\n", "", LimitFileSize},
		{"memory without MemoryError, then processes", "ready\nlimit memory\nlimit processes\n", "", LimitProcesses},
		{"a test cannot write the channel: its lines are output", "ready\n", "limit memory_total\nlimit cpu\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := limitHit(parseStatus([]byte(tt.status)), tt.output); got != tt.want {
				t.Errorf("limitHit = %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzParseStatus: any bytes on the channel parse without a panic, and
// only "limit" lines name limits.
func FuzzParseStatus(f *testing.F) {
	f.Add([]byte("ready\nlimit memory\n"))
	f.Add([]byte("refused hiding the file system (mount: EPERM)\n"))
	f.Add([]byte("cgroup memory 536870912 processes 256\nnocgroup Permission denied\nnote no /proc\n"))
	f.Add([]byte("limit\n\nready extra words\n\x00limit memory_total"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st := parseStatus(data)
		n := 0
		for _, line := range strings.Split(string(data), "\n") {
			if word, _, _ := strings.Cut(strings.TrimSpace(line), " "); word == "limit" {
				n++
			}
		}
		if len(st.limits) != n {
			t.Fatalf("%d limits from %d limit lines", len(st.limits), n)
		}
		_ = limitHit(st, string(data))
	})
}

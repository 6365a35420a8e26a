package codex

import (
	"strings"
	"testing"
	"time"
)

func TestPeekEvent(t *testing.T) {
	tests := []struct {
		line, typ, id, itemType string
	}{
		{`{"type":"thread.started","thread_id":"t"}`, "thread.started", "", ""},
		{`{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","status":"in_progress"}}`, "item.started", "item_1", "command_execution"},
		// Fields in another order, nested values before the ones read.
		{`{"item":{"meta":{"type":"x","id":"no"},"list":[{"type":"y"},"s"],"type":"command_execution","id":"item_2"},"type":"item.completed"}`, "item.completed", "item_2", "command_execution"},
		// Cut short inside a long command output: what came first is read.
		{`{"type":"item.completed","item":{"id":"item_3","type":"command_execution","aggregated_output":"aaaa`, "item.completed", "item_3", "command_execution"},
		{`{"type":"error","message":"Reconnecting... 1/5"}`, "error", "", ""},
		{`{"message":"no type","item":"flat"}`, "", "", ""},
		{`not json`, "", "", ""},
		{``, "", "", ""},
		{`{}`, "", "", ""},
		{`["type","x"]`, "", "", ""},
		{`{"type":5}`, "", "", ""},
	}
	for _, tc := range tests {
		typ, id, itemType := peekEvent([]byte(tc.line))
		if typ != tc.typ || id != tc.id || itemType != tc.itemType {
			t.Errorf("peekEvent(%s) = %q %q %q, want %q %q %q", tc.line, typ, id, itemType, tc.typ, tc.id, tc.itemType)
		}
	}
}

func FuzzPeekEvent(f *testing.F) {
	f.Add([]byte(`{"type":"item.started","item":{"id":"item_1","type":"command_execution"}}`))
	f.Add([]byte(`{"a":[1,{"b":[]}],"type":"x"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		_, _, _ = peekEvent(line)
		w := NewWatch(nil)
		_, _ = w.Write(line)
		_ = w.Idle()
	})
}

// TestWatchIdle feeds event streams written in arbitrary pieces and reads
// the idle time on a hand-driven clock.
func TestWatchIdle(t *testing.T) {
	const (
		started   = `{"type":"thread.started","thread_id":"t"}` + "\n"
		turn      = `{"type":"turn.started"}` + "\n"
		retry     = `{"type":"error","message":"Reconnecting... waiting for network (Connection failed: error sending request)"}` + "\n"
		cmdStart  = `{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"make test","status":"in_progress"}}` + "\n"
		cmdDone   = `{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"make test","exit_code":0}}` + "\n"
		reasoning = `{"type":"item.started","item":{"id":"item_2","type":"reasoning","text":""}}` + "\n"
		failed    = `{"type":"turn.failed","error":{"message":"stream disconnected"}}` + "\n"
	)
	type step struct {
		write   string
		advance time.Duration
	}
	tests := []struct {
		name  string
		steps []step
		want  time.Duration
	}{
		{"nothing written", []step{{"", 5 * time.Second}}, 5 * time.Second},
		{"progress resets the clock", []step{{started, 3 * time.Second}, {turn, 2 * time.Second}}, 2 * time.Second},
		{"retry notices are no progress", []step{{started + turn, time.Second}, {retry, time.Minute}, {retry, time.Minute}}, 2*time.Minute + time.Second},
		{"a running command stops the clock", []step{{started + turn + cmdStart, time.Hour}}, 0},
		{"the clock runs again once the command ends", []step{{started + turn + cmdStart, time.Hour}, {cmdDone, 7 * time.Second}}, 7 * time.Second},
		{"a model item in flight does not stop the clock", []step{{turn + reasoning, 9 * time.Second}}, 9 * time.Second},
		{"a failed turn forgets its commands", []step{{cmdStart, time.Second}, {failed, 4 * time.Second}}, 4 * time.Second},
		{"stray lines are no progress", []step{{"warning: something\n\n", 3 * time.Second}}, 3 * time.Second},
		{"an event split across writes", []step{{`{"type":"turn.st`, 10 * time.Second}, {"arted\"}\n", time.Second}}, time.Second},
		{"a command output longer than the peek limit", []step{{cmdStart, time.Second}, {`{"type":"item.completed","item":{"id":"item_1","type":"command_execution","aggregated_output":"` + strings.Repeat("x", 2*peekLimit) + `"}}` + "\n", 2 * time.Second}}, 2 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			w := NewWatch(func() time.Time { return now })
			for _, s := range tc.steps {
				if n, err := w.Write([]byte(s.write)); n != len(s.write) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
				now = now.Add(s.advance)
			}
			if got := w.Idle(); got != tc.want {
				t.Errorf("Idle = %s, want %s", got, tc.want)
			}
		})
	}
}

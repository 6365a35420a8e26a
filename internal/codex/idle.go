package codex

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"
)

// DefaultIdleTimeout is how long a phase may go without progress from the
// model before it is stopped. A dead endpoint makes Codex wait or retry
// for good (a refused connection gives "Reconnecting..." events about
// once a minute, a server that accepts and never answers gives nothing),
// and the phase's wall-clock timeout is far longer than a batch should
// spend learning that: with three instances in a row needed to stop a
// batch, 3 x 4 min plus the endpoint checks stays under 15 minutes.
const DefaultIdleTimeout = 4 * time.Minute

// toolItems are the item types whose work is not the model's: while one
// runs (a test suite for half an hour), silence is no sign of a dead
// endpoint, and the phase's wall-clock timeout bounds it instead.
var toolItems = map[string]bool{"command_execution": true, "mcp_tool_call": true, "web_search": true, "file_change": true}

// peekLimit bounds what Watch keeps of one line: the fields it reads come
// first, and a command's output can make a line megabytes long.
const peekLimit = 64 << 10

// Watch reads a `codex exec --json` stream as it is written and tells how
// long Codex has gone without progress: every event but a top-level
// "error" (the "Reconnecting..." notices of a dead endpoint) is progress,
// and while a tool item (a command) is running the clock stands still.
// It is safe for one writer and any number of Idle callers.
type Watch struct {
	now func() time.Time

	mu      sync.Mutex
	last    time.Time
	running map[string]bool
	line    []byte
	long    bool // the current line outgrew peekLimit
}

// NewWatch starts the clock at now(); nil now means time.Now.
func NewWatch(now func() time.Time) *Watch {
	if now == nil {
		now = time.Now
	}
	return &Watch{now: now, last: now(), running: map[string]bool{}}
}

// Write takes the next bytes of the stream; it never fails.
func (w *Watch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := peekLimit - len(w.line); room > 0 {
			w.line = append(w.line, chunk[:min(room, len(chunk))]...)
		}
		if len(chunk) > 0 && len(w.line) >= peekLimit {
			w.long = true
		}
		if i < 0 {
			break
		}
		w.event(w.line, w.long)
		w.line, w.long = w.line[:0], false
		p = p[i+1:]
	}
	return n, nil
}

// event applies one line (its first peekLimit bytes).
func (w *Watch) event(line []byte, truncated bool) {
	typ, id, itemType := peekEvent(line)
	switch {
	case typ == "" && !truncated:
		return // not an event (a blank or stray line)
	case typ == "error":
		return // a retry notice: Codex is waiting, not progressing
	}
	w.last = w.now()
	if toolItems[itemType] && id != "" {
		switch typ {
		case "item.started":
			w.running[id] = true
		case "item.completed":
			delete(w.running, id)
		}
	}
	if typ == "turn.completed" || typ == "turn.failed" {
		clear(w.running)
	}
}

// Idle is how long Codex has gone without progress; zero while a tool
// item runs.
func (w *Watch) Idle() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.running) > 0 {
		return 0
	}
	return w.now().Sub(w.last)
}

// peekEvent reads the top-level "type" and the item's "id" and "type"
// from an event line that may be cut short, walking its tokens rather than
// decoding it whole. What it cannot read stays empty.
func peekEvent(line []byte) (typ, itemID, itemType string) {
	type frame struct {
		object, wantKey bool
		key             string
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", "", ""
	}
	stack := []frame{{object: true, wantKey: true}}
	for len(stack) > 0 {
		t, err := dec.Token()
		if err != nil {
			break
		}
		top := &stack[len(stack)-1]
		if top.object && top.wantKey {
			k, ok := t.(string)
			if !ok { // the closing brace
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].wantKey = true
				}
				continue
			}
			top.key, top.wantKey = k, false
			continue
		}
		switch t {
		case json.Delim('{'):
			stack = append(stack, frame{object: true, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, frame{})
			continue
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].wantKey = true
			}
			continue
		}
		if v, ok := t.(string); ok && top.object {
			switch {
			case len(stack) == 1 && top.key == "type":
				typ = v
			case len(stack) == 2 && stack[0].key == "item" && top.key == "id":
				itemID = v
			case len(stack) == 2 && stack[0].key == "item" && top.key == "type":
				itemType = v
			}
		}
		if top.object {
			top.wantKey = true
		}
	}
	return typ, itemID, itemType
}

package sandbox

import "sync"

// limitedBuffer keeps the first limit/4 bytes and the last 3*limit/4
// bytes written to it, so a test that prints without end cannot exhaust
// memory while the failure summary at the end is kept.
type limitedBuffer struct {
	mu      sync.Mutex
	limit   int
	head    []byte
	tail    []byte
	dropped int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	headCap := b.limit / 4
	if room := headCap - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	b.tail = append(b.tail, p...)
	tailCap := b.limit - headCap
	if over := len(b.tail) - tailCap; over > 0 {
		b.dropped += over
		b.tail = append(b.tail[:0], b.tail[over:]...)
	}
	return n, nil
}

// Bytes returns what was kept, with a marker where bytes were dropped.
func (b *limitedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := append([]byte(nil), b.head...)
	if b.dropped > 0 {
		out = append(out, []byte("\n… output truncated …\n")...)
	}
	return append(out, b.tail...)
}

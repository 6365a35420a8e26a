package codex

// Ledger turns the running token totals Codex reports per thread into the
// usage of each invocation. `codex exec resume` reports the whole thread's
// total, so without it a handoff phase would count its execute phase's
// tokens again. The zero value is ready to use; a Ledger is not safe for
// concurrent use.
type Ledger struct {
	totals map[string]Usage
}

// Share returns the tokens ev's invocation used on its own and records
// ev's thread total for the next invocation of that thread. An invocation
// that reported no thread (it failed before starting one) counts in full.
func (l *Ledger) Share(ev Events) Usage {
	if ev.ThreadID == "" {
		return ev.Usage
	}
	if l.totals == nil {
		l.totals = map[string]Usage{}
	}
	prev, seen := l.totals[ev.ThreadID]
	if ev.Turns == 0 {
		// No turn completed: nothing new was reported.
		return Usage{}
	}
	l.totals[ev.ThreadID] = ev.Usage
	if !seen {
		return ev.Usage
	}
	return ev.Usage.Sub(prev)
}

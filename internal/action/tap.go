package action

import (
	"bytes"
	"io"
	"strings"
)

// urlTap passes the mode's output through to the log and keeps the pull
// request URLs it prints (qa-audit reports the pull requests it opened
// or updated on standard output only).
type urlTap struct {
	w    io.Writer
	line []byte
	urls []string
	errs lastMessage
}

// StderrRecorder is offered by the stdout writer Config.Run receives:
// what the mode writes to stderr should also go to StderrWriter, so that
// a mode that stops with an error ("benchgate set: ...") before writing
// any result file still has its reason in the job summary and annotation.
type StderrRecorder interface {
	StderrWriter() io.Writer
}

// StderrWriter records the mode's stderr; it forwards nothing.
func (t *urlTap) StderrWriter() io.Writer { return &t.errs }

// lastMessage keeps the last complete line starting with "benchgate ",
// the prefix of every mode's own error message.
type lastMessage struct {
	line []byte
	last string
}

func (m *lastMessage) Write(p []byte) (int, error) {
	m.line = append(m.line, p...)
	for {
		i := bytes.IndexByte(m.line, '\n')
		if i < 0 {
			break
		}
		if l := string(m.line[:i]); strings.HasPrefix(l, "benchgate ") {
			m.last = strings.TrimSpace(l)
		}
		m.line = m.line[i+1:]
	}
	if len(m.line) > 64*1024 {
		m.line = m.line[:0]
	}
	return len(p), nil
}

func (t *urlTap) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.line = append(t.line, p...)
	for {
		i := bytes.IndexByte(t.line, '\n')
		if i < 0 {
			break
		}
		t.scan(t.line[:i])
		t.line = t.line[i+1:]
	}
	if len(t.line) > 64*1024 { // a line this long holds no URL worth keeping
		t.line = t.line[:0]
	}
	return n, err
}

func (t *urlTap) scan(l []byte) {
	if bytes.Contains(l, []byte("pull request")) {
		t.urls = mergeURLs(t.urls, prURL.FindAllString(string(l), -1))
	}
}

func (t *urlTap) flush() {
	t.scan(t.line)
	t.line = nil
}

// mergeURLs appends the URLs of b not yet in a, keeping first-seen order.
func mergeURLs(a, b []string) []string {
	seen := map[string]bool{}
	for _, u := range a {
		seen[u] = true
	}
	for _, u := range b {
		if !seen[u] {
			seen[u] = true
			a = append(a, u)
		}
	}
	return a
}

package action

import (
	"bytes"
	"io"
	"strings"
)

// modeOutput passes the mode's output through to the step log and keeps
// the mode's last own error line from its stderr.
type modeOutput struct {
	w    io.Writer
	errs lastMessage
}

func (o *modeOutput) Write(p []byte) (int, error) { return o.w.Write(p) }

// StderrRecorder is offered by the stdout writer Config.Run receives:
// what the mode writes to stderr should also go to StderrWriter, so that
// a mode that stops with an error ("benchgate set: ...") before it had a
// result still has its reason in the job summary and annotation.
type StderrRecorder interface {
	StderrWriter() io.Writer
}

// StderrWriter records the mode's stderr; it forwards nothing.
func (o *modeOutput) StderrWriter() io.Writer { return &o.errs }

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

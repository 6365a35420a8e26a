package action

import (
	"bytes"
	"io"
	"strings"
)

// modeOutput passes the mode's output through to the step log and keeps
// the mode's last own error line from its stderr. With scrub, each line
// is written as scrub makes it (no runner path: the workspace, the
// runner's temporary folder, the Docker engine's socket), so a line is
// held until it ends; Flush writes an unfinished last line.
type modeOutput struct {
	w     io.Writer
	scrub func(string) string
	line  []byte
	errs  lastMessage
}

func (o *modeOutput) Write(p []byte) (int, error) {
	if o.scrub == nil {
		return o.w.Write(p)
	}
	o.line = append(o.line, p...)
	i := bytes.LastIndexByte(o.line, '\n')
	if i < 0 {
		if len(o.line) > 64*1024 {
			// A line this long is written as it is; none is held forever.
			return len(p), o.Flush()
		}
		return len(p), nil
	}
	if _, err := io.WriteString(o.w, o.scrub(string(o.line[:i+1]))); err != nil {
		return 0, err
	}
	o.line = append(o.line[:0], o.line[i+1:]...)
	return len(p), nil
}

// Flush writes what is held of an unfinished line.
func (o *modeOutput) Flush() error {
	if len(o.line) == 0 {
		return nil
	}
	_, err := io.WriteString(o.w, o.scrub(string(o.line)))
	o.line = o.line[:0]
	return err
}

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

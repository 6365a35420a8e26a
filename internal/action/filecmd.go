package action

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
)

// fileCommands writes the step's file commands (GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY) itself rather than through go-githubactions
// v1.4.0, for two reasons:
//
//   - the library ends every multi-line value with one fixed, public
//     delimiter, so a value holding that delimiter on a line of its own
//     (an out-dir input with newlines, a path an agent chose) ends the
//     value early and the lines after it set other outputs: a failing
//     gate could report status=pass. Here each value gets a fresh random
//     delimiter, as the Actions toolkit does, and a value containing it is
//     refused;
//   - the library panics when the file cannot be opened or written (a
//     runner that gives a path the step cannot reach); here the first
//     error is kept and reported once, naming the file.
type fileCommands struct {
	getenv func(string) string
	// err is the first write error; later writes are skipped.
	err error
}

// setOutput appends name=value to GITHUB_OUTPUT. Without GITHUB_OUTPUT (a
// run outside Actions) it does nothing.
func (f *fileCommands) setOutput(name, value string) {
	path := f.getenv("GITHUB_OUTPUT")
	if path == "" || f.err != nil {
		return
	}
	delim, err := newDelimiter()
	if err != nil {
		f.err = fmt.Errorf("step output %s: %w", name, err)
		return
	}
	if strings.Contains(name, "\n") || strings.Contains(name, "<<") || strings.Contains(value, delim) {
		f.err = fmt.Errorf("step output %s: the name or value holds a line break or the delimiter; refused", name)
		return
	}
	f.append("GITHUB_OUTPUT", path, name+"<<"+delim+"\n"+value+"\n"+delim+"\n")
}

// writeSummary writes the step's job summary. The file is this step's
// own (the runner gives each step a new one), so it is replaced, not
// appended to: a progress table the mode kept there while it ran (the
// SWE-bench batch) gives way to the full summary.
func (f *fileCommands) writeSummary(markdown string) {
	path := f.getenv("GITHUB_STEP_SUMMARY")
	if path == "" || f.err != nil {
		return
	}
	if err := os.WriteFile(path, []byte(markdown+"\n"), 0o644); err != nil {
		f.err = fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
}

func (f *fileCommands) append(variable, path, text string) {
	file, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		f.err = fmt.Errorf("%s: %w", variable, err)
		return
	}
	if _, err := file.WriteString(text); err != nil {
		file.Close()
		f.err = fmt.Errorf("%s: %w", variable, err)
		return
	}
	if err := file.Close(); err != nil {
		f.err = fmt.Errorf("%s: %w", variable, err)
	}
}

// newDelimiter returns a delimiter no value can guess in advance.
func newDelimiter() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "ghadelimiter_" + hex.EncodeToString(b), nil
}

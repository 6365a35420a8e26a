package testenv

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"
)

// ReadGitHubOutput parses a GITHUB_OUTPUT file as go-githubactions writes
// it (name<<DELIMITER, value lines, DELIMITER) into a map of step outputs.
// A line of any other form fails the test: the runner would reject it too.
func ReadGitHubOutput(t testing.TB, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read step outputs: %v", err)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, delim, ok := strings.Cut(sc.Text(), "<<")
		if !ok {
			t.Fatalf("%s: bad output line %q", path, sc.Text())
		}
		var val []string
		for sc.Scan() && sc.Text() != delim {
			val = append(val, sc.Text())
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

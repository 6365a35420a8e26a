package progress

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// realRows returns the first n rows of an upstream suite file.
func realRows(t *testing.T, n int) [][]byte {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "suites", "2026-02-25-agent_direct-suite.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && len(rows) < n {
		rows = append(rows, append([]byte(nil), sc.Bytes()...))
	}
	if len(rows) < n {
		t.Fatalf("want %d rows, the file has %d", n, len(rows))
	}
	return rows
}

func appendFile(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// clock is a settable clock for poll-by-poll tests.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func lines(b *bytes.Buffer) []string {
	s := strings.TrimSpace(b.String())
	b.Reset()
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func TestPollCountsRowsFailuresAndPace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ghx-suite.jsonl")
	rows := realRows(t, 4)
	// A failing row: success false and an error, as upstream writes them.
	failing := bytes.Replace(rows[2], []byte(`"success":true`), []byte(`"success":false`), 1)
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var out bytes.Buffer
	f := newFollower(Options{Label: "set pr-exec (set 3 of 9) attempt-0", Files: []File{{Mode: "ghx", Path: path, Expected: 4}},
		Out: &out, Now: clk.now})

	// No file yet: nothing to say before a heartbeat.
	clk.advance(5 * time.Second)
	f.poll()
	if got := lines(&out); got != nil {
		t.Fatalf("before the first row: %q", got)
	}

	// One row after 10 s: 3 left at 10 s a row.
	clk.advance(5 * time.Second)
	appendFile(t, path, append(rows[0], '\n'))
	f.poll()
	want := "progress: set pr-exec (set 3 of 9) attempt-0, ghx: 1/4 rows, 0 failing, elapsed 10s, ETA 30s"
	if got := lines(&out); len(got) != 1 || got[0] != want {
		t.Fatalf("after one row:\n got %q\nwant %q", got, want)
	}

	// A row half written is not a row yet.
	clk.advance(10 * time.Second)
	half := len(rows[1]) / 2
	appendFile(t, path, rows[1][:half])
	f.poll()
	if got := lines(&out); got != nil {
		t.Fatalf("half a row printed %q", got)
	}
	// Its rest and a failing row land together: one line for the batch.
	appendFile(t, path, append(append(append([]byte(nil), rows[1][half:]...), '\n'), append(failing, '\n')...))
	f.poll()
	want = "progress: set pr-exec (set 3 of 9) attempt-0, ghx: 3/4 rows, 1 failing, elapsed 20s, ETA 7s"
	if got := lines(&out); len(got) != 1 || got[0] != want {
		t.Fatalf("after a batch:\n got %q\nwant %q", got, want)
	}

	// Nothing new for less than a heartbeat: silence; at 30 s: a line.
	clk.advance(29 * time.Second)
	f.poll()
	if got := lines(&out); got != nil {
		t.Fatalf("no new rows, before the heartbeat: %q", got)
	}
	clk.advance(time.Second)
	f.poll()
	want = "progress: set pr-exec (set 3 of 9) attempt-0, ghx: 3/4 rows, 1 failing, elapsed 50s, ETA 17s"
	if got := lines(&out); len(got) != 1 || got[0] != want {
		t.Fatalf("heartbeat:\n got %q\nwant %q", got, want)
	}

	// The set starts the file again for a rerun: counting starts over.
	if err := os.WriteFile(path, append(rows[3], '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	f.poll()
	if got := lines(&out); len(got) != 1 || !strings.Contains(got[0], "ghx: 1/4 rows, 0 failing") {
		t.Fatalf("after the file was started again: %q", got)
	}
}

func TestPollMalformedLineIsAFailingRow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent_direct-suite.jsonl")
	appendFile(t, path, []byte("{not json\n\n"))
	var out bytes.Buffer
	f := newFollower(Options{Label: "set x attempt-0", Files: []File{{Mode: "agent_direct", Path: path}}, Out: &out})
	f.poll()
	want := "progress: set x attempt-0, agent_direct: 1 rows, 1 failing"
	if got := lines(&out); len(got) != 1 || !strings.HasPrefix(got[0], want) || !strings.HasSuffix(got[0], "ETA unknown") {
		t.Fatalf("got %q, want a line starting %q and ending with ETA unknown", got, want)
	}
}

func TestETA(t *testing.T) {
	for _, c := range []struct {
		elapsed        time.Duration
		rows, expected int
		want           string
	}{
		{10 * time.Second, 0, 4, "unknown"},
		{10 * time.Second, 2, 0, "unknown"},
		{10 * time.Second, 4, 4, "0s"},
		{10 * time.Second, 5, 4, "0s"},
		{10 * time.Second, 1, 4, "30s"},
		{time.Hour, 1, 3, "2h0m0s"},
		{90 * time.Second, 3, 5, "1m0s"},
		{1500 * time.Millisecond, 2, 3, "<1s"},
	} {
		if got := eta(c.elapsed, c.rows, c.expected); got != c.want {
			t.Errorf("eta(%v, %d, %d) = %q, want %q", c.elapsed, c.rows, c.expected, got, c.want)
		}
	}
}

// syncBuffer takes writes from the follower's goroutine while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStartFollowsWhileRowsLand appends rows one at a time and waits for
// each to be reported before writing the next: the lines arrive while the
// file is still being written, not at Stop.
func TestStartFollowsWhileRowsLand(t *testing.T) {
	dir := t.TempDir()
	a, g := filepath.Join(dir, "agent_direct-suite.jsonl"), filepath.Join(dir, "ghx-suite.jsonl")
	rows := realRows(t, 3)
	var out syncBuffer
	f := Start(Options{Label: "set pr-exec attempt-0", Files: []File{{Mode: "agent_direct", Path: a, Expected: 3}, {Mode: "ghx", Path: g, Expected: 3}},
		Out: &out, Poll: 10 * time.Millisecond})
	defer f.Stop()
	for i, r := range rows {
		appendFile(t, a, append(r, '\n'))
		want := "agent_direct: " + string(rune('1'+i)) + "/3 rows"
		deadline := time.Now().Add(time.Minute)
		for !strings.Contains(out.String(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q line while the file is written; output:\n%s", want, out.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if strings.Contains(out.String(), "ghx:") {
		t.Errorf("ghx wrote nothing and was not due a heartbeat, yet got a line:\n%s", out.String())
	}
	appendFile(t, g, append(rows[0], '\n'))
	f.Stop()
	f.Stop()
	if !strings.Contains(out.String(), "ghx: 1/3 rows") {
		t.Errorf("Stop did not report the rows written since the last poll:\n%s", out.String())
	}
}

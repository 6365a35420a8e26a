package verify_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	// A zombie is dead for this purpose.
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || !bytes.HasPrefix(bytes.TrimSpace(b[i+1:]), []byte("Z"))
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	// What the test waits for takes what it takes on a busy machine: the
	// wait ends with the test binary's own deadline, not a fixed time.
	deadline := time.Now().Add(30 * time.Minute)
	if d, ok := t.Deadline(); ok {
		deadline = d.Add(-30 * time.Second)
	}
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSetSIGKILLLeavesNoWriters kills benchgate with SIGKILL while its
// benchmark runs. The benchmark command (a shell) dies with it, through
// the parent-death signal; the process the shell started, which no
// signal reaches, is stopped by the next benchgate run before that run
// touches the folder.
func TestSetSIGKILLLeavesNoWriters(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild.pid")
	f := newFixture(t, "none.json", map[string]any{
		// Both modes' commands: a shell that starts a long sleep and waits.
		"benchmark": []string{"sh", "-c", `sleep 300 & echo "$$ $!" >> "$0"; wait`, pidFile,
			"benchmark", "{mode}", "{repetitions}", "--provider", "{provider}", "--model", "{model}", "--output-jsonl", "{output_jsonl}", "{selector}"},
		"benchmark_timeout": "10m",
	})
	cmd := f.command(f.setArgs("pr-exec")...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var shells, grandchildren []int
	waitFor(t, "both benchmark commands to start", func() bool {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 2 {
			return false
		}
		shells, grandchildren = nil, nil
		for _, l := range lines {
			fields := strings.Fields(l)
			if len(fields) != 2 {
				return false
			}
			s, _ := strconv.Atoi(fields[0])
			g, _ := strconv.Atoi(fields[1])
			shells, grandchildren = append(shells, s), append(grandchildren, g)
		}
		return true
	})
	t.Cleanup(func() {
		for _, g := range grandchildren {
			syscall.Kill(g, syscall.SIGKILL)
		}
	})
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	for _, sh := range shells {
		waitFor(t, "the benchmark shells to die with benchgate", func() bool { return !alive(sh) })
	}
	for _, g := range grandchildren {
		if !alive(g) {
			t.Fatal("a grandchild died too; the test needs ones that outlive benchgate")
		}
	}

	// The next run in the same folder stops them first.
	next := newFixture(t, "none.json", nil)
	next.dir = f.dir
	code, _, stderr := next.run(next.setArgs("pr-exec")...)
	for _, g := range grandchildren {
		if alive(g) {
			t.Errorf("process %d left by the killed benchgate is still running\n%s", g, stderr)
		}
		if !strings.Contains(stderr, "stopped process "+strconv.Itoa(g)+" (sleep), started by benchgate pid "+strconv.Itoa(cmd.Process.Pid)+", which is no longer running: it would go on writing into the folders this run uses") {
			t.Errorf("stderr does not name the stopped process %d:\n%s", g, stderr)
		}
	}
	if code != 0 {
		t.Errorf("next run exit %d\n%s", code, stderr)
	}
}

// TestSetOutDirLock starts a second set run on a folder a first run is
// writing to: it is refused with exit 2 and the first run's tracking.json
// is left as it was.
func TestSetOutDirLock(t *testing.T) {
	f := newFixture(t, "hang.json", map[string]any{"benchmark_timeout": "10m", "grace": "1s"})
	first := f.command(f.setArgs("pr-exec")...)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		first.Process.Signal(syscall.SIGTERM)
		first.Wait()
	}()
	out := filepath.Join(f.dir, "out", "pr-exec")
	tracking := filepath.Join(out, "tracking.json")
	waitFor(t, "the first run to write tracking.json", func() bool {
		_, err := os.Stat(tracking)
		return err == nil
	})
	before, _ := os.ReadFile(tracking)
	code, _, stderr := f.run(f.setArgs("pr-exec")...)
	want := fmt.Sprintf("%s is in use by benchgate set of set pr-exec (pid %d, started ", out, first.Process.Pid)
	if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "run beside it with --out-dir") {
		t.Errorf("second run: exit %d, stderr %q; want 2, %q and --out-dir", code, stderr, want)
	}
	after, _ := os.ReadFile(tracking)
	if !bytes.Equal(before, after) {
		t.Error("the refused run changed the first run's tracking.json")
	}
}

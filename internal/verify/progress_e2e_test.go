package verify_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/verify"
)

var progressLine = regexp.MustCompile(`^progress: set (\S+)( \(set \d+ of 9\))?, (first run|rerun \d of 2), (agent_direct|ghx): (\d+)/(\d+) rows, (\d+) failing, elapsed \S+, ETA \S+$`)

// TestSetProgressWhileTheBenchmarkRuns runs the built benchgate on a
// benchmark that writes one row per second and holds its last row back
// until the test lets it go: progress lines for both modes must be on
// stderr while the set is still running (tracking.json says running and
// the set has printed no verdict), each later line counting more rows.
func TestSetProgressWhileTheBenchmarkRuns(t *testing.T) {
	f := newFixture(t, "none.json", nil)
	release := filepath.Join(f.dir, "release")
	out := filepath.Join(f.dir, "out", "ci-diagnostics")
	cmd := f.command(f.setArgs("ci-diagnostics")...)
	cmd.Env = append(cmd.Env, "BENCHSIM_PACE=1s", "BENCHSIM_HOLD="+release)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	// ci-diagnostics has 4 scenarios: each mode holds its 4th row back.
	seen := map[string]int{}
	var log []string
	sc := bufio.NewScanner(stderr)
	for len(seen) < 2 || seen["agent_direct"] < 3 || seen["ghx"] < 3 {
		if !sc.Scan() {
			t.Fatalf("stderr ended before both modes reported 3 of 4 rows:\n%s", strings.Join(log, "\n"))
		}
		line := sc.Text()
		log = append(log, line)
		if strings.HasPrefix(line, "set ci-diagnostics: pass") || strings.HasPrefix(line, "set ci-diagnostics: fail") {
			t.Fatalf("the set ended before its progress was shown:\n%s", strings.Join(log, "\n"))
		}
		m := progressLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rows, _ := strconv.Atoi(m[5])
		if m[1] != "ci-diagnostics" || m[3] != "first run" || m[6] != "4" || m[7] != "0" {
			t.Errorf("progress line %q: want set ci-diagnostics, first run, of 4 rows, 0 failing", line)
		}
		if rows <= seen[m[4]] {
			t.Errorf("progress line %q: rows did not grow from %d", line, seen[m[4]])
		}
		seen[m[4]] = rows
	}
	// The benchmark is waiting for its last row: the set has not ended.
	tr := readTracking(t, filepath.Join(out, "tracking.json"))
	if tr.State != "running" {
		t.Fatalf("tracking.json state %q while the benchmark still runs, want running", tr.State)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		log = append(log, sc.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("set: %v\n%s", err, strings.Join(log, "\n"))
	}
	all := strings.Join(log, "\n")
	for _, mode := range []string{"agent_direct", "ghx"} {
		if !strings.Contains(all, mode+": 4/4 rows, 0 failing") {
			t.Errorf("no final progress line of %s with 4/4 rows:\n%s", mode, all)
		}
	}
	if tr := readTracking(t, filepath.Join(out, "tracking.json")); tr.FinalStatus != verify.StatusPass {
		t.Errorf("final status %q, want pass", tr.FinalStatus)
	}
}

// TestSetQuietAndRerunProgress: a rerun gets its own progress lines
// ("rerun 1 of 2", counting only the rerun's rows), and --quiet turns
// every progress line off.
func TestSetQuietAndRerunProgress(t *testing.T) {
	f := newFixture(t, "flaky.json", nil)
	table := filepath.Join(f.dir, "progress.md")
	code, _, stderr := f.run(f.setArgs("pr-exec", "--progress-md", table)...)
	if code != 0 {
		t.Fatalf("exit %d, want 0 (the flaky scenario passes on rerun)\n%s", code, stderr)
	}
	// The table has a row per attempt: the first run with its failing
	// scenario, then the rerun that passed.
	md, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## benchgate set `pr-exec`: 2 attempt(s) finished", "| first run | 9/9 | 9/9 | pr-branch-update-001 |", "| rerun 1 of 2 | 9/9 | 9/9 | - |"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("progress table lacks %q:\n%s", w, md)
		}
	}
	if !regexp.MustCompile(`(?m)^progress: set pr-exec, first run, ghx: 9/9 rows, 1 failing`).MatchString(stderr) {
		t.Errorf("no first-run line with 9/9 rows and the flaky failure:\n%s", stderr)
	}
	if !regexp.MustCompile(`(?m)^progress: set pr-exec, rerun 1 of 2, ghx: 1/1 rows, 0 failing`).MatchString(stderr) {
		t.Errorf("no rerun line counting the one rerun row:\n%s", stderr)
	}
	f2 := newFixture(t, "flaky.json", nil)
	code, _, stderr = f2.run(f2.setArgs("pr-exec", "--quiet")...)
	if code != 0 || strings.Contains(stderr, "progress:") {
		t.Errorf("--quiet: exit %d, stderr with progress lines:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "set pr-exec: pass") {
		t.Errorf("--quiet removed the set's own lines too:\n%s", stderr)
	}
}

// TestOrderedProgressNamesThePosition: every set of an ordered run says
// where it is in the run, and --progress-md grows a table as sets finish.
func TestOrderedProgressNamesThePosition(t *testing.T) {
	f := newFixture(t, "none.json", nil)
	table := filepath.Join(f.dir, "summary.md")
	code, stdout, stderr := f.run("ordered", "--config", f.config, "--provider", "openai", "--fixture-manifest", f.manifest,
		"--out-dir", filepath.Join(f.dir, "out"), "--progress-md", table)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// The handoff says the confirmation is the canonical one and why its
	// model is not the run's; no line is printed twice.
	if !strings.Contains(stdout, "All sets passed. Canonical confirmation on openai/gpt-5.3-codex, not this run's gpt-5.1-codex-mini: seed 000 confirms every run") {
		t.Errorf("handoff does not explain its model:\n%s", stdout)
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if seen[l] {
			t.Errorf("line printed twice: %q\n%s", l, stdout)
		}
		seen[l] = true
	}
	cmd, err := os.ReadFile(filepath.Join(f.dir, "out", "consolidated-summary.md"))
	if err != nil || !strings.Contains(string(cmd), "Canonical confirmation on openai/gpt-5.3-codex, not this run's gpt-5.1-codex-mini") {
		t.Errorf("consolidated-summary.md does not explain the confirmation model (%v):\n%s", err, cmd)
	}
	for set, pos := range map[string]string{"pr-exec": "1", "ci-log-analysis": "9"} {
		if !regexp.MustCompile(`(?m)^progress: set ` + set + ` \(set ` + pos + ` of 9\), first run, ghx: \d+/\d+ rows`).MatchString(stderr) {
			t.Errorf("no progress line of %s with its position:\n%s", set, stderr)
		}
	}
	md, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## benchgate ordered: 9 of 9 sets finished") || strings.Count(string(md), " | pass | ") != 9 {
		t.Errorf("progress table after the run:\n%s", md)
	}
}

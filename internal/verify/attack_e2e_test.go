package verify_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/benchgate/benchgate/internal/verify"
)

// TestSetJudgedEvidenceOtherRoutes: a benchmark whose rerun reaches
// attempt 0's judged ghx file by a route other than its path: a hard
// link made while attempt 0 ran, the attempt folder renamed away and
// replaced, a symbolic link put in the folder's place, benchgate's
// private copy changed along with the file. Each change is found before
// the verdict: exit 1, final_status fail, the file named with what
// changed, and the file holds the judged bytes again wherever the
// private copy still holds them. A benchmark that moves the judged bytes
// without changing them (the folder renamed, a copy of it put back)
// leaves the set passing.
func TestSetJudgedEvidenceOtherRoutes(t *testing.T) {
	const fail = `sed 's/"success":true/"success":false/'`
	cases := []struct {
		name, script string
		ordinary     bool
		change       string // prefix of evidence.changed; "" for a pass
		restored     bool
	}{
		{name: "hard link", ordinary: true, change: "appended ", restored: true, script: `
if [ "$whole" = yes ] && [ "$mode" = ghx ]; then ln "$out" "$dir/hardlink"; fi
if [ "$whole" = no ] && [ "$mode" = ghx ]; then
	chmod u+w "$dir/hardlink" && head -n 1 "$dir/hardlink" | ` + fail + ` >> "$dir/hardlink" && echo yes > "$dir/tampered"
fi`},
		{name: "folder renamed and replaced", ordinary: true, change: "rewritten (", restored: true, script: `
if [ "$whole" = no ] && [ "$mode" = ghx ]; then
	a0=$(dirname "$out")/../attempt-0
	mv "$a0" "$a0.old" && mkdir "$a0" && cp "$a0.old/agent_direct-suite.jsonl" "$a0/" &&
		` + fail + ` "$a0.old/ghx-suite.jsonl" > "$a0/ghx-suite.jsonl" && echo yes > "$dir/tampered"
fi`},
		{name: "folder renamed, same bytes put back", ordinary: true, script: `
if [ "$whole" = no ] && [ "$mode" = ghx ]; then
	a0=$(dirname "$out")/../attempt-0
	mv "$a0" "$a0.old" && mkdir "$a0" && cp "$a0.old"/*-suite.jsonl "$a0/" && echo yes > "$dir/tampered"
fi`},
		// The folder a link points to is never written or chmodded:
		// both modes' files are put back into a folder made again.
		{name: "folder replaced by a link", ordinary: true, change: "its folder replaced by a symbolic link", restored: true, script: `
if [ "$whole" = no ] && [ "$mode" = ghx ]; then
	a0=$(dirname "$out")/../attempt-0
	mkdir "$dir/elsewhere" && cp "$a0/agent_direct-suite.jsonl" "$dir/elsewhere/" &&
		` + fail + ` "$a0/ghx-suite.jsonl" > "$dir/elsewhere/ghx-suite.jsonl" && chmod 0700 "$dir/elsewhere" &&
		mv "$a0" "$a0.old" && ln -s "$dir/elsewhere" "$a0" && echo yes > "$dir/tampered"
fi`},
		{name: "private copy changed too", change: "appended ", script: `
if [ "$whole" = no ] && [ "$mode" = ghx ]; then
	a0=$(dirname "$out")/../attempt-0
	for c in "${TMPDIR:-/tmp}"/benchgate-judged-*/attempt-0-ghx-suite.jsonl; do
		head -n 1 "$c" | ` + fail + ` >> "$c" && head -n 1 "$c" | ` + fail + ` >> "$a0/ghx-suite.jsonl" && echo yes > "$dir/tampered"
	done
fi`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := newMisbehaving(t, "attack", nil)
			if err := os.WriteFile(filepath.Join(m.work, "attack.sh"), []byte(c.script), 0o644); err != nil {
				t.Fatal(err)
			}
			m.chaos(rule{"scenario": "workflow-runs-list-001", "behavior": "flaky"})
			args := m.setArgs("ci-diagnostics")
			cmd := m.command(args...)
			if c.ordinary && os.Getuid() == 0 {
				cmd = m.asOrdinaryUser(t)(args...)
			}
			var stderr lockedBuffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(filepath.Join(m.work, "tampered")); strings.TrimSpace(string(data)) != "yes" {
				t.Fatalf("the benchmark's change did not go through\n%s", stderr.String())
			}
			tr := readTracking(t, filepath.Join(m.dir, "out", "ci-diagnostics", "tracking.json"))
			if len(tr.Attempts) != 2 {
				t.Fatalf("%d attempts, want 2\n%s", len(tr.Attempts), stderr.String())
			}
			file := tr.Attempts[0].SuiteFiles["ghx"]
			ev := tr.Attempts[0].Evidence["ghx"]
			if c.change == "" {
				if code != 0 || tr.FinalStatus != verify.StatusPass || ev.Changed != "" {
					t.Fatalf("exit %d status %s evidence %+v: want a pass\n%s", code, tr.FinalStatus, ev, stderr.String())
				}
			} else {
				if code != 1 || tr.FinalStatus != verify.StatusFail || !strings.HasPrefix(ev.Changed, c.change) ||
					!strings.Contains(tr.Error, file+" (attempt 0, ghx): judged ") {
					t.Fatalf("exit %d status %s evidence %+v error %q: want 1, fail, changed %q\n%s", code, tr.FinalStatus, ev, tr.Error, c.change, stderr.String())
				}
				if ev.Restored != c.restored {
					t.Errorf("restored %v, want %v: %+v\n%s", ev.Restored, c.restored, ev, tr.Error)
				}
			}
			if c.change == "" || c.restored {
				if sum, n := sha256File(t, file); sum != ev.SHA256 || n != ev.Bytes {
					t.Errorf("%s holds %d bytes sha256 %s; tracking.json says %d bytes sha256 %s were judged", file, n, sum, ev.Bytes, ev.SHA256)
				}
			}
			if c.name == "folder replaced by a link" {
				if info, err := os.Lstat(filepath.Dir(file)); err != nil || !info.IsDir() {
					t.Errorf("attempt 0's folder is not a folder again (%v)", err)
				}
				if info, err := os.Stat(filepath.Join(m.work, "elsewhere")); err != nil || info.Mode().Perm() != 0o700 {
					t.Errorf("the folder the link pointed to: %v %v, want its mode 0700 untouched", info.Mode(), err)
				}
				if ev.ChangedFile != filepath.Dir(file)+".changed/ghx-suite.jsonl" {
					t.Errorf("changed_file %q, want the link moved aside", ev.ChangedFile)
				}
				other := tr.Attempts[0].Evidence["agent_direct"]
				if other.Changed != c.change || !other.Restored {
					t.Errorf("agent_direct evidence %+v: want its folder named replaced and its bytes put back", other)
				}
			}
		})
	}
}

// TestSetSIGTERMDuringRecheck: SIGTERM arrives as the rerun ends, and the
// judged files are hashed again within the stop budget; attempt 0's
// file is large (a line of 2 GiB), so that hash cannot finish in time.
// The file never changed: the stop budget running out must not be
// recorded as a change of the evidence.
func TestSetSIGTERMDuringRecheck(t *testing.T) {
	m := newMisbehaving(t, "attack", nil)
	script := `
if [ "$whole" = yes ] && [ "$mode" = ghx ]; then truncate -s +2G "$out"; fi
if [ "$whole" = no ] && [ "$mode" = ghx ]; then kill -TERM $PPID; fi`
	if err := os.WriteFile(filepath.Join(m.work, "attack.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	m.chaos(rule{"scenario": "workflow-runs-list-001", "behavior": "flaky"})
	// No private copy (TMPDIR cannot be written): the file is only
	// hashed, never copied, so the test writes nothing large.
	cmd := m.command(m.setArgs("ci-diagnostics")...)
	cmd.Env = append(cmd.Env, "TMPDIR="+filepath.Join(m.work, "absent"))
	var errb lockedBuffer
	cmd.Stderr = &errb
	code := 0
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	stderr := errb.String()
	tr := readTracking(t, filepath.Join(m.dir, "out", "ci-diagnostics", "tracking.json"))
	if code != 1 || tr.FinalStatus != verify.StatusFail || tr.State != "done" {
		t.Errorf("exit %d status %s state %s: want 1, fail, done", code, tr.FinalStatus, tr.State)
	}
	for i, a := range tr.Attempts {
		for mode, ev := range a.Evidence {
			if ev.Changed != "" {
				t.Errorf("attempt %d %s: changed %q, but nothing changed the file", i, mode, ev.Changed)
			}
		}
	}
	if strings.Contains(stderr, "changed after") {
		t.Errorf("stderr says a judged file changed:\n%s", stderr)
	}
	want := "the judged suite files were not all hashed again before the verdict (stopped at "
	switch {
	case strings.Contains(tr.Error, want) != strings.Contains(stderr, want):
		t.Errorf("tracking.json's error and stderr disagree on whether the check finished (%q)\n%s\n%s", want, tr.Error, stderr)
	case !strings.Contains(tr.Error, want):
		// A machine fast enough hashes 2 GiB within the budget.
		t.Logf("the check finished within the stop budget:\n%s", stderr)
	}
}

// TestSetKilledRunFolderCanBeDeleted: benchgate, as an ordinary user, is
// killed with SIGKILL during a rerun, so attempt 0's folder stays
// read-only. The commands docs/verify.md gives delete the set folder, as
// that user: `chmod -R u+w` the set folder, then `rm -rf` it; without the
// chmod, rm is refused. The private copies left in TMPDIR go with rm -rf.
func TestSetKilledRunFolderCanBeDeleted(t *testing.T) {
	m := newMisbehaving(t, "attack", nil)
	script := `
if [ "$whole" = no ] && [ "$mode" = ghx ]; then echo yes > "$dir/rerun"; sleep 100000; fi`
	if err := os.WriteFile(filepath.Join(m.work, "attack.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	m.chaos(rule{"scenario": "workflow-runs-list-001", "behavior": "flaky"})
	cmd := m.asOrdinaryUser(t)(m.setArgs("ci-diagnostics")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the rerun to start", func() bool {
		_, err := os.Stat(filepath.Join(m.work, "rerun"))
		return err == nil
	})
	cmd.Process.Kill()
	cmd.Wait()
	set := filepath.Join(m.dir, "out", "ci-diagnostics")
	a0, _ := filepath.Glob(filepath.Join(set, "_run", "*", "attempt-0"))
	if len(a0) != 1 {
		t.Fatalf("attempt 0 folders %q", a0)
	}
	if info, err := os.Stat(a0[0]); err != nil || info.Mode().Perm()&0o200 != 0 {
		t.Fatalf("attempt 0's folder is not read-only after the kill (%v)", err)
	}
	asUser := func(argv ...string) error {
		c := exec.Command("setpriv", append([]string{"--reuid=4321", "--regid=4321", "--clear-groups", "--"}, argv...)...)
		out, err := c.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	// Its private copies stay too, where docs/verify.md says.
	copies, _ := filepath.Glob(filepath.Join(m.work, "tmp", "benchgate-judged-*"))
	if len(copies) != 1 {
		t.Fatalf("private copies %q, want the killed run's folder", copies)
	}
	if err := asUser("rm", "-rf", copies[0]); err != nil {
		t.Fatal(err)
	}
	if err := asUser("rm", "-rf", set); err == nil {
		t.Fatal("rm -rf deleted the killed run's folder without the chmod docs/verify.md gives")
	}
	if err := asUser("chmod", "-R", "u+w", set); err != nil {
		t.Fatal(err)
	}
	if err := asUser("rm", "-rf", set); err != nil {
		t.Fatalf("after chmod -R u+w: %v", err)
	}
}

// TestSetNeverChmodsThroughALink: a benchmark leaves a link where its
// suite file belongs, pointing at a file of someone else's (as a link to
// /dev/zero once did). The set refuses the link, and the file it points
// to keeps its mode: benchgate makes judged files read-only through a
// descriptor of the regular file itself, never through a path that
// follows links.
func TestSetNeverChmodsThroughALink(t *testing.T) {
	m := newMisbehaving(t, "attack", nil)
	victim := filepath.Join(m.work, "victim")
	if err := os.WriteFile(victim, []byte("not a suite file\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	script := `if [ "$whole" = yes ] && [ "$mode" = ghx ]; then rm -f "$out" && ln -s "$dir/victim" "$out"; fi`
	if err := os.WriteFile(filepath.Join(m.work, "attack.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := m.run(m.setArgs("ci-diagnostics")...)
	if code != 1 || !strings.Contains(stderr, "ghx-suite.jsonl is a symbolic link") {
		t.Errorf("exit %d, want 1 and the link refused\n%s", code, stderr)
	}
	if info, err := os.Stat(victim); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("the file the link points to: %v %v, want its mode 0640 untouched", info.Mode(), err)
	}
}

// TestOrderedEarlierSetFolderFiles: in an ordered run, the second set's
// benchmark appends a failing row to the first set's derived ghx suite
// file, replaces its latest-summary.md and edits its tracking.json. The
// attempt files are untouched, but these are the files reports and
// baselines read: each is named, the run's pass and the first set's are
// refused, and the suite file is derived again from the judged rows, the
// summary put back and tracking.json written again.
func TestOrderedEarlierSetFolderFiles(t *testing.T) {
	m := newMisbehaving(t, "attack", nil)
	script := `
if [ "$set" = pr-thread-mutations ] && [ "$mode" = ghx ]; then
	s="$(dirname "$out")/../../../../pr-exec"
	head -n 1 "$s/ghx-suite.jsonl" | sed 's/"success":true/"success":false/' >> "$s/ghx-suite.jsonl" &&
		echo 'all good' > "$s/latest-summary.md" &&
		sed -i 's/"rows_actual"/"rows_actual_edited"/' "$s/tracking.json" && echo yes > "$dir/tampered"
fi`
	if err := os.WriteFile(filepath.Join(m.work, "attack.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(m.dir, "run")
	code, _, stderr := m.run("ordered", "--config", m.config, "--provider", "openai", "--fixture-manifest", m.manifest, "--out-dir", base)
	if data, _ := os.ReadFile(filepath.Join(m.work, "tampered")); strings.TrimSpace(string(data)) != "yes" {
		t.Fatalf("the second set's benchmark did not change the first set's files\n%s", stderr)
	}
	set := filepath.Join(base, "pr-exec")
	first := readTracking(t, filepath.Join(set, "tracking.json"))
	c := readConsolidated(t, filepath.Join(base, "consolidated-summary.json"))
	if code != 1 || c.Status != verify.StatusFail || first.FinalStatus != verify.StatusFail || !strings.Contains(first.Error, "after the set ended: ") {
		t.Errorf("exit %d consolidated %s pr-exec %s error %q: want 1, fail, fail\n%s", code, c.Status, first.FinalStatus, first.Error, stderr)
	}
	for _, name := range []string{"ghx-suite.jsonl", "latest-summary.md", "tracking.json"} {
		if !strings.Contains(c.Error, filepath.Join(set, name)+": written with sha256 ") {
			t.Errorf("the consolidated error does not name %s:\n%s", name, c.Error)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(set, "ghx-suite.jsonl")); strings.Contains(string(data), `"success":false`) {
		t.Errorf("pr-exec's ghx suite file still holds the appended row")
	}
	if data, _ := os.ReadFile(filepath.Join(set, "latest-summary.md")); string(data) == "all good\n" {
		t.Errorf("pr-exec's latest-summary.md was not put back")
	}
	if data, _ := os.ReadFile(filepath.Join(set, "tracking.json")); strings.Contains(string(data), "rows_actual_edited") {
		t.Errorf("pr-exec's tracking.json was not written again")
	}
}

// TestSetFolderMadeReadOnly: a rerun's benchmark, running as the set
// folder's owner, makes the set folder read-only. The set's suite files
// cannot be derived into it, so the set fails, but tracking.json still
// gets its final status (it was left at state running), and stderr
// says what was undone.
func TestSetFolderMadeReadOnly(t *testing.T) {
	m := newMisbehaving(t, "attack", nil)
	script := `if [ "$whole" = no ] && [ "$mode" = ghx ]; then chmod 0500 "$(dirname "$out")/../../.."; fi`
	if err := os.WriteFile(filepath.Join(m.work, "attack.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	m.chaos(rule{"scenario": "workflow-runs-list-001", "behavior": "flaky"})
	cmd := m.asOrdinaryUser(t)(m.setArgs("ci-diagnostics")...)
	var errb lockedBuffer
	cmd.Stderr = &errb
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("%v, want exit 1\n%s", err, errb.String())
	}
	tr := readTracking(t, filepath.Join(m.dir, "out", "ci-diagnostics", "tracking.json"))
	if tr.State != "done" || tr.FinalStatus != verify.StatusFail || !strings.Contains(tr.Error, "permission denied") {
		t.Errorf("state %s status %s error %q: want done, fail and why\n%s", tr.State, tr.FinalStatus, tr.Error, errb.String())
	}
	if !strings.Contains(errb.String(), "was made read-only (0500) during the run; made writable again") {
		t.Errorf("stderr does not say the folder was made writable again:\n%s", errb.String())
	}
}

// TestSetTwoSignalsOfEitherKind: the benchmark writes its rows and
// stays, deaf to SIGTERM. Two signals of any kinds, the second while
// benchgate waits for the grace: tracking.json gets its final status,
// the rows written count, and the exit code is the second signal's
// (128+2 or 128+15), by benchgate itself, not by the hard exit.
func TestSetTwoSignalsOfEitherKind(t *testing.T) {
	for _, c := range []struct {
		first, second syscall.Signal
		code          int
	}{
		{syscall.SIGTERM, syscall.SIGTERM, 143},
		{syscall.SIGINT, syscall.SIGTERM, 143},
		{syscall.SIGTERM, syscall.SIGINT, 130},
	} {
		t.Run(c.first.String()+" then "+c.second.String(), func(t *testing.T) {
			t.Parallel()
			m := newMisbehaving(t, "linger", nil)
			out := filepath.Join(m.dir, "out", "pr-exec")
			cmd, errb, wait := m.startLingering(t, out, m.setArgs("pr-exec")...)
			signalTwice(t, cmd, errb, c.first, c.second, "benchgate: received SIG")
			code := wait()
			stderr := errb.String()
			if code != c.code || strings.Contains(stderr, "still running") {
				t.Errorf("exit %d, want %d without the hard exit\n%s", code, c.code, stderr)
			}
			tr := readTracking(t, filepath.Join(out, "tracking.json"))
			if tr.State != "done" || tr.FinalStatus != verify.StatusFail || tr.RowsActual["ghx"] != 9 {
				t.Errorf("tracking: state %s final_status %q rows %v", tr.State, tr.FinalStatus, tr.RowsActual)
			}
			for i, a := range tr.Attempts {
				for mode, ev := range a.Evidence {
					if ev.Changed != "" {
						t.Errorf("attempt %d %s: changed %q, but nothing changed the file", i, mode, ev.Changed)
					}
				}
			}
			m.assertNothingLeft(t)
		})
	}
}

// TestOrderedManifestTouchedOnly: the first set's benchmark touches the
// shared manifest and replaces it with a copy of the same bytes (a new
// file, another modification time). Its identity is its content and
// repository, so nothing changed: the run passes.
func TestOrderedManifestTouchedOnly(t *testing.T) {
	m := newMisbehaving(t, "attack", nil)
	script := `if [ "$set" = pr-exec ] && [ "$mode" = ghx ]; then
	cp "$SHARED_MANIFEST" "$SHARED_MANIFEST.new" && mv "$SHARED_MANIFEST.new" "$SHARED_MANIFEST" &&
		touch -d 2001-01-01 "$SHARED_MANIFEST" && echo yes > "$dir/tampered"
fi`
	if err := os.WriteFile(filepath.Join(m.work, "attack.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{}
	data, err := os.ReadFile(m.config)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["env"] = []string{"SHARED_MANIFEST=" + m.manifest}
	writeJSON(t, m.config, cfg)
	base := filepath.Join(m.dir, "run")
	code, _, stderr := m.run("ordered", "--config", m.config, "--provider", "openai", "--fixture-manifest", m.manifest, "--out-dir", base)
	if data, _ := os.ReadFile(filepath.Join(m.work, "tampered")); strings.TrimSpace(string(data)) != "yes" {
		t.Fatalf("the benchmark did not touch the manifest\n%s", stderr)
	}
	c := readConsolidated(t, filepath.Join(base, "consolidated-summary.json"))
	if code != 0 || c.Status != verify.StatusPass {
		t.Errorf("exit %d status %s error %q: want a pass\n%s", code, c.Status, c.Error, stderr)
	}
}

// TestSetWriterOutsideBenchgateHoldsTheFile: a process benchgate did not
// start (an earlier step's daemon, as the same ordinary user) opens
// attempt 0's ghx file for appending while the benchmark writes it, and
// appends a failing row through that descriptor once the rerun runs.
// The read-only file and folder do not stop a descriptor opened before
// them, and benchgate cannot end a process it did not start; the second
// hash finds the row, refuses the pass and puts the judged bytes back.
func TestSetWriterOutsideBenchgateHoldsTheFile(t *testing.T) {
	m := newMisbehaving(t, "attack", nil)
	// The benchmark of attempt 0 waits until the daemon holds its file.
	// The rerun's benchmark ends only after the daemon has written, so
	// the write always comes before benchgate's second hash.
	script := `if [ "$whole" = yes ] && [ "$mode" = ghx ]; then
	echo "$out" > "$dir/target"
	while [ ! -e "$dir/opened" ]; do sleep 0.05; done
elif [ "$mode" = ghx ]; then
	touch "$dir/rerun"
	while [ ! -e "$dir/tampered" ]; do sleep 0.05; done
fi`
	if err := os.WriteFile(filepath.Join(m.work, "attack.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	m.chaos(rule{"scenario": "workflow-runs-list-001", "behavior": "flaky"})
	run := m.asOrdinaryUser(t)
	daemon := exec.Command("setpriv", "--reuid=4321", "--regid=4321", "--clear-groups", "--", "sh", "-c", `
		while [ ! -s "$1/target" ]; do sleep 0.05; done
		target=$(cat "$1/target")
		exec 3>>"$target"
		touch "$1/opened"
		while [ ! -e "$1/rerun" ]; do sleep 0.05; done
		head -n 1 "$target" | sed 's/"success":true/"success":false/' >&3 && echo yes > "$1/tampered"`, "sh", m.work)
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { daemon.Process.Kill(); daemon.Wait() })
	cmd := run(m.setArgs("ci-diagnostics")...)
	var errb lockedBuffer
	cmd.Stderr = &errb
	err := cmd.Run()
	daemon.Wait()
	if data, _ := os.ReadFile(filepath.Join(m.work, "tampered")); strings.TrimSpace(string(data)) != "yes" {
		t.Fatalf("the daemon did not write\n%s", errb.String())
	}
	ee, ok := err.(*exec.ExitError)
	tr := readTracking(t, filepath.Join(m.dir, "out", "ci-diagnostics", "tracking.json"))
	ev := tr.Attempts[0].Evidence["ghx"]
	if !ok || ee.ExitCode() != 1 || tr.FinalStatus != verify.StatusFail || !strings.HasPrefix(ev.Changed, "appended ") || !ev.Restored {
		t.Errorf("%v status %s evidence %+v: want exit 1, fail, appended and put back\n%s", err, tr.FinalStatus, ev, errb.String())
	}
	if sum, n := sha256File(t, tr.Attempts[0].SuiteFiles["ghx"]); sum != ev.SHA256 || n != ev.Bytes {
		t.Errorf("the file holds %d bytes %s, evidence %+v", n, sum, ev)
	}
}

// TestOrderedCleanupChangesAnEarlierSet: the fixture cleanup, which runs
// after the last set, appends a failing row to the first set's judged
// ghx file and edits its tracking.json, which the consolidated summary
// reads. The judged files are checked again after the cleanup and the
// confirmations, right before the summary: the run's pass is refused and
// the file named.
func TestOrderedCleanupChangesAnEarlierSet(t *testing.T) {
	m := newMisbehaving(t, "attack", nil)
	base := filepath.Join(m.dir, "run")
	script := `if [ "$action" = cleanup ]; then
	for f in "` + base + `"/pr-exec/_run/*/attempt-0/ghx-suite.jsonl; do
		chmod u+w "$(dirname "$f")" "$f"
		head -n 1 "$f" | sed 's/"success":true/"success":false/' >> "$f" && echo yes > "$dir/tampered"
	done
	sed -i 's/"rows_actual"/"rows_actual_edited"/' "` + base + `/pr-exec/tracking.json"
fi`
	for name, text := range map[string]string{"attack.sh": "", "fixtures-attack.sh": script} {
		if err := os.WriteFile(filepath.Join(m.work, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr := m.run("ordered", "--config", m.config, "--provider", "openai", "--fixture-manifest", m.manifest, "--out-dir", base)
	if data, _ := os.ReadFile(filepath.Join(m.work, "tampered")); strings.TrimSpace(string(data)) != "yes" {
		t.Fatalf("the cleanup did not change the first set's file\n%s", stderr)
	}
	first := readTracking(t, filepath.Join(base, "pr-exec", "tracking.json"))
	c := readConsolidated(t, filepath.Join(base, "consolidated-summary.json"))
	want := first.Attempts[0].SuiteFiles["ghx"] + " (attempt 0, ghx): judged "
	if code != 1 || c.Status != verify.StatusFail || !strings.Contains(c.Error, want) || c.Sets[0].Status != verify.StatusFail {
		t.Errorf("exit %d status %s (pr-exec %s) error %q: want 1, fail and the file named\n%s", code, c.Status, c.Sets[0].Status, c.Error, stderr)
	}
	if c.Totals["rows_ghx"] == 0 {
		t.Errorf("totals %v: the summary read the edited tracking.json", c.Totals)
	}
}

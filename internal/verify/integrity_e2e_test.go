package verify_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/benchgate/benchgate/internal/verify"
)

// ordinaryUID is the user the tests run benchgate as when they run as
// root, to see what the file system's permissions hold off.
const ordinaryUID = 4321

// asOrdinaryUser makes m's world usable by ordinaryUID and returns a
// command that runs benchgate as that user: copies of both binaries in
// the world (the test binaries' folder is root's), the world's folders
// and files owned by the user, and a TMPDIR of the user's. It needs
// root, and setpriv.
func (m *misbehaving) asOrdinaryUser(t *testing.T) func(args ...string) *exec.Cmd {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("runs benchgate as another user: needs root")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv not installed")
	}
	bin := filepath.Join(m.work, "bin")
	tmp := filepath.Join(m.work, "tmp")
	for _, d := range []string{bin, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"benchgate", "benchsim"} {
		data, err := os.ReadFile(bins[name])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, name), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(m.work, "benchsim")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(bin, "benchsim"), link); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{m.dir, m.work} {
		// t.TempDir's parent is root's alone.
		if err := os.Chmod(filepath.Dir(root), 0o755); err != nil {
			t.Fatal(err)
		}
		err := filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, ordinaryUID, ordinaryUID)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return func(args ...string) *exec.Cmd {
		cmd := exec.Command(setpriv, append([]string{"--reuid=4321", "--regid=4321", "--clear-groups", "--",
			filepath.Join(bin, "benchgate")}, args...)...)
		cmd.Dir = m.dir
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			"BENCHSIM_FAILURES="+m.failures, "TMPDIR="+tmp, "HOME="+m.work)
		return cmd
	}
}

func sha256File(t *testing.T, path string) (string, int64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), int64(len(data))
}

// TestSetJudgedEvidenceCannotChange: a benchmark whose rerun changes the
// file attempt 0 was judged from, in each of four ways (appends a failing
// row, deletes it, truncates it, replaces it with every row failing). The
// rows of attempt 0 were judged and the rerun's rows pass, so the old
// set passed, with tracking.json naming a SHA-256 the file no longer
// held. Now:
//   - as root, or as an ordinary user whose benchmark first makes the
//     file and its folder writable again ("force"), the change goes
//     through; benchgate hashes every judged file again before the
//     verdict, refuses the pass (exit 1, fail), names the file and what
//     changed, records it in the attempt's evidence, puts the judged
//     bytes back from its private copy and keeps what it found beside
//     them (<file>.changed);
//   - as an ordinary user whose benchmark just writes, the read-only
//     folder refuses the delete and the replacement (and the read-only
//     file the append and the truncation): the set passes and the file
//     holds what was judged.
func TestSetJudgedEvidenceCannotChange(t *testing.T) {
	root := os.Getuid() == 0
	type tc struct {
		how      string // tamper-<how>
		force    bool
		ordinary bool
	}
	var cases []tc
	for _, how := range []string{"append", "delete", "truncate", "rewrite"} {
		cases = append(cases, tc{how: how})
		if root {
			cases = append(cases, tc{how: how, ordinary: true}, tc{how: how, ordinary: true, force: true})
		} else {
			cases = append(cases, tc{how: how, force: true})
		}
	}
	wantChange := map[string]string{"append": "appended ", "delete": "deleted", "truncate": "truncated from ", "rewrite": "rewritten ("}
	for _, c := range cases {
		name := c.how
		if c.ordinary {
			name += "/ordinary user"
		}
		if c.force {
			name += "/force"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			how := "tamper-" + c.how
			if c.force {
				how += ",force"
			}
			m := newMisbehaving(t, how, nil)
			m.chaos(rule{"scenario": "workflow-runs-list-001", "behavior": "flaky"})
			args := m.setArgs("ci-diagnostics")
			cmd := m.command(args...)
			uid := os.Getuid()
			if c.ordinary {
				cmd = m.asOrdinaryUser(t)(args...)
				uid = ordinaryUID
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
			out := filepath.Join(m.dir, "out", "ci-diagnostics")
			tr := readTracking(t, filepath.Join(out, "tracking.json"))
			if len(tr.Attempts) != 2 || len(tr.Reruns) != 1 || tr.Reruns[0].Result != verify.StatusPass {
				t.Fatalf("attempts %d reruns %+v, want one passing rerun\n%s", len(tr.Attempts), tr.Reruns, stderr.String())
			}
			tampered, _ := os.ReadFile(filepath.Join(m.work, "tampered"))
			file := tr.Attempts[0].SuiteFiles["ghx"]
			ev := tr.Attempts[0].Evidence["ghx"]
			// The file holds what was judged in every case: untouched, or
			// put back.
			if sum, n := sha256File(t, file); sum != ev.SHA256 || n != ev.Bytes {
				t.Errorf("%s holds %d bytes sha256 %s; tracking.json says %d bytes sha256 %s were judged", file, n, sum, ev.Bytes, ev.SHA256)
			}
			if info, err := os.Stat(filepath.Dir(file)); err != nil || info.Mode().Perm()&0o200 == 0 {
				t.Errorf("attempt 0's folder is left read-only after the set (%v): people could not delete the run folder", err)
			}
			if !(uid == 0 || c.force) {
				// The file system refused the change.
				if strings.TrimSpace(string(tampered)) != "no" || code != 0 || tr.FinalStatus != verify.StatusPass || ev.Changed != "" {
					t.Errorf("tampered %q exit %d status %s evidence %+v: want the change refused and the set passed\n%s",
						tampered, code, tr.FinalStatus, ev, stderr.String())
				}
				return
			}
			if strings.TrimSpace(string(tampered)) != "yes" {
				t.Fatalf("the benchmark's change did not go through (%q)", tampered)
			}
			want := wantChange[c.how]
			if code != 1 || tr.FinalStatus != verify.StatusFail || !strings.Contains(tr.Error, file+" (attempt 0, ghx): judged ") ||
				!strings.Contains(tr.Error, "then "+want) {
				t.Errorf("exit %d status %s error %q: want 1, fail, and the file named as %q", code, tr.FinalStatus, tr.Error, want)
			}
			if !strings.Contains(stderr.String(), file+" (attempt 0, ghx): judged ") || !strings.Contains(stderr.String(), "changed after it was judged") {
				t.Errorf("stderr does not name the changed file:\n%s", stderr.String())
			}
			if !strings.HasPrefix(ev.Changed, want) || ev.Found == nil || !ev.Restored {
				t.Errorf("evidence %+v: want changed %q, what was found, and restored", ev, want)
			}
			switch c.how {
			case "delete":
				if !ev.Found.Missing || ev.ChangedFile != "" {
					t.Errorf("found %+v changed_file %q, want missing and nothing kept", ev.Found, ev.ChangedFile)
				}
			default:
				if ev.ChangedFile != file+".changed" {
					t.Fatalf("changed_file %q, want %s.changed", ev.ChangedFile, file)
				}
				if sum, n := sha256File(t, ev.ChangedFile); sum != ev.Found.SHA256 || n != ev.Found.Bytes {
					t.Errorf("%s holds %d bytes %s, evidence found %+v", ev.ChangedFile, n, sum, ev.Found)
				}
			}
			// The other judged files held: only the one named changed.
			for i, a := range tr.Attempts {
				for mode, e := range a.Evidence {
					if (i != 0 || mode != "ghx") && e.Changed != "" {
						t.Errorf("attempt %d %s: changed %q, but the benchmark changed only attempt 0's ghx file", i, mode, e.Changed)
					}
				}
			}
		})
	}
}

// TestSetMissingSuiteFileIsRecordedMissing: a benchmark that never
// creates its file is recorded as missing, not as a file of 0 bytes with
// a hash, and the zero-row message says the file was never created.
func TestSetMissingSuiteFileIsRecordedMissing(t *testing.T) {
	f := newFixture(t, "none.json", map[string]any{
		"benchmark": []string{"sh", "-c", `[ "$1" = ghx ] && exit 0; exec benchsim benchmark "$@"`, "sh",
			"{mode}", "{repetitions}", "--provider", "{provider}", "--model", "{model}", "--output-jsonl", "{output_jsonl}", "{selector}"},
	})
	code, _, stderr := f.run(f.setArgs("ci-log-analysis")...)
	tr := readTracking(t, filepath.Join(f.dir, "out", "ci-log-analysis", "tracking.json"))
	file := tr.Attempts[0].SuiteFiles["ghx"]
	want := "ghx wrote zero rows in attempt 0 (it never created its suite file " + file + ")"
	if code != 1 || tr.FinalStatus != verify.StatusTerminalFail || !strings.Contains(stderr, want) {
		t.Errorf("exit %d status %s, want 1, terminal_fail and %q\n%s", code, tr.FinalStatus, want, stderr)
	}
	if ev := tr.Attempts[0].Evidence["ghx"]; !ev.Missing || ev.Bytes != 0 || ev.SHA256 != "" {
		t.Errorf("ghx evidence %+v, want missing without a hash", ev)
	}
	if ev := tr.Attempts[0].Evidence["agent_direct"]; ev.Missing || ev.SHA256 == "" {
		t.Errorf("agent_direct evidence %+v, want its hash", ev)
	}
}

// TestSetOutDirDanglingLink: --out-dir is a symbolic link to a folder
// that does not exist. The error names the link and its target instead
// of "mkdir ...: file exists".
func TestSetOutDirDanglingLink(t *testing.T) {
	f := newFixture(t, "none.json", nil)
	out := filepath.Join(f.dir, "out", "pr-exec")
	gone := filepath.Join(f.dir, "gone")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(gone, out); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := f.run(f.setArgs("pr-exec")...)
	want := out + " is a symbolic link to " + gone + ", which does not exist"
	if code != 2 || !strings.Contains(stderr, want) || strings.Contains(stderr, "file exists") {
		t.Errorf("exit %d, want 2 and %q\n%s", code, want, stderr)
	}
	// ordered, with the run folder a dangling link.
	base := filepath.Join(f.dir, "run")
	if err := os.Symlink(gone, base); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = f.run("ordered", "--config", f.config, "--provider", "openai", "--fixture-manifest", f.manifest, "--out-dir", base)
	want = base + " is a symbolic link to " + gone + ", which does not exist"
	if code != 2 || !strings.Contains(stderr, want) || strings.Contains(stderr, "file exists") {
		t.Errorf("ordered: exit %d, want 2 and %q\n%s", code, want, stderr)
	}
}

// TestSetLookAlikeScenarioIDs: the Kelvin sign (U+212A) lower-cases to
// an ASCII k, so "\u212Aelvin-001" once passed as kelvin-001 while a
// decomposed café-001 was refused. Both are refused now, in the set file
// and on the command line, with exit 2 and the ID as written, quoted in
// ASCII so that a look-alike does not print as the ID it imitates.
func TestSetLookAlikeScenarioIDs(t *testing.T) {
	for _, id := range []string{"\u212Aelvin-001", "cafe\u0301-001", "pr-vi\u0435w-001"} {
		t.Run(id, func(t *testing.T) {
			f := newFixture(t, "none.json", nil)
			sets := filepath.Join(f.dir, "scenario-sets.json")
			writeJSON(t, sets, map[string]any{"pr-exec": []string{"pr-view-001", id}})
			f2 := newFixture(t, "none.json", map[string]any{"scenario_sets": sets})
			code, _, stderr := f2.run(f2.setArgs("pr-exec")...)
			quoted := strconv.QuoteToASCII(id)
			want := `set "pr-exec" item 2: scenario id ` + quoted + `: expected lower-case words`
			if code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("set file: exit %d, want 2 and %q\n%s", code, want, stderr)
			}
			code, _, stderr = f.run(f.setArgs("pr-exec", "--scenario-id", id)...)
			want = `scenario id ` + quoted + `: expected lower-case words`
			if code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("--scenario-id: exit %d, want 2 and %q\n%s", code, want, stderr)
			}
		})
	}
}

// TestSetSecondSIGINT: the benchmark writes its rows and stays, deaf to
// SIGTERM, with the default grace of 5 s. Ctrl-C, then Ctrl-C again
// while benchgate waits for that grace: every command gets SIGKILL at
// once, the rows written so far are counted, tracking.json is written
// with its final status (not left at state running, as the old hard
// exit left it), and benchgate exits 130 by itself (not the hard exit).
func TestSetSecondSIGINT(t *testing.T) {
	m := newMisbehaving(t, "linger", nil)
	out := filepath.Join(m.dir, "out", "pr-exec")
	cmd, errb, wait := m.startLingering(t, out, m.setArgs("pr-exec")...)
	signalTwice(t, cmd, errb, syscall.SIGINT, syscall.SIGINT, "benchgate: received SIGINT; stopping the run")
	code := wait()
	stderr := errb.String()
	if code != 130 || strings.Contains(stderr, "still running") || !strings.Contains(stderr, "a second SIGINT; stopping every command now, then exiting with 130") {
		t.Errorf("exit %d, want 130 without the hard exit\n%s", code, stderr)
	}
	tr := readTracking(t, filepath.Join(out, "tracking.json"))
	if tr.State != "done" || tr.FinalStatus != verify.StatusFail || !strings.Contains(tr.Error, "stopped during attempt 0: benchgate received SIGINT") {
		t.Errorf("tracking: state %s final_status %q error %q", tr.State, tr.FinalStatus, tr.Error)
	}
	if tr.RowsActual["agent_direct"] != 9 || tr.RowsActual["ghx"] != 9 {
		t.Errorf("rows_actual %v: the rows written before the signal must count", tr.RowsActual)
	}
	for _, c := range tr.Commands {
		if strings.HasPrefix(c.Step, "attempt-0") && (!c.Cancelled || c.Signal != "SIGKILL" || c.StopCause != "benchgate received SIGINT") {
			t.Errorf("command %s: cancelled %v signal %q stop_cause %q, want killed with SIGKILL after SIGINT", c.Step, c.Cancelled, c.Signal, c.StopCause)
		}
	}
	for mode, ev := range tr.Attempts[0].Evidence {
		if sum, n := sha256File(t, tr.Attempts[0].SuiteFiles[mode]); sum != ev.SHA256 || n != ev.Bytes {
			t.Errorf("%s: evidence %+v, file %d bytes %s", mode, ev, n, sum)
		}
	}
	m.assertNothingLeft(t)
}

// TestOrderedSecondSIGINT: the same two Ctrl-Cs during ordered's first
// set: the set's tracking.json and the consolidated summary are both
// written with their final status, and ordered exits 130.
func TestOrderedSecondSIGINT(t *testing.T) {
	m := newMisbehaving(t, "linger", nil)
	base := filepath.Join(m.dir, "run")
	out := filepath.Join(base, "pr-exec")
	cmd, errb, wait := m.startLingering(t, out, "ordered", "--config", m.config, "--provider", "openai", "--fixture-manifest", m.manifest, "--out-dir", base)
	signalTwice(t, cmd, errb, syscall.SIGINT, syscall.SIGINT, "benchgate: received SIGINT; stopping the run")
	code := wait()
	stderr := errb.String()
	if code != 130 || strings.Contains(stderr, "still running") {
		t.Errorf("exit %d, want 130 without the hard exit\n%s", code, stderr)
	}
	tr := readTracking(t, filepath.Join(out, "tracking.json"))
	if tr.State != "done" || tr.FinalStatus != verify.StatusFail {
		t.Errorf("tracking: state %s final_status %q error %q", tr.State, tr.FinalStatus, tr.Error)
	}
	c := readConsolidated(t, filepath.Join(base, "consolidated-summary.json"))
	if c.Status != verify.StatusFail || c.StoppedAt != "pr-exec" || c.Sets[0].Status != verify.StatusFail {
		t.Errorf("consolidated: status %s stopped at %q first set %+v", c.Status, c.StoppedAt, c.Sets[0])
	}
	m.assertNothingLeft(t)
}

// TestOrderedSharedManifestChangesBetweenSets: during the first set the
// benchmark deletes the shared fixture manifest, or rewrites it to name
// another repository. ordered records the manifest's identity at the
// preflight (path, SHA-256, repository); the next set checks it before
// it runs and stops the run naming the manifest and what happened to
// it. (A deleted manifest used to surface only sets later as "wrote
// zero rows"; a switched one passed unnoticed.)
func TestOrderedSharedManifestChangesBetweenSets(t *testing.T) {
	for _, tc := range []struct{ how, want string }{
		{"manifest-delete", "was deleted since the preflight of this run (it named repository benchsim/fixtures)"},
		{"manifest-switch", "was switched to another repository since the preflight of this run: it names other-org/other-repo, not benchsim/fixtures"},
	} {
		t.Run(tc.how, func(t *testing.T) {
			t.Parallel()
			m := newMisbehaving(t, tc.how, nil)
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
			before, _ := sha256File(t, m.manifest)
			base := filepath.Join(m.dir, "run")
			code, _, stderr := m.run("ordered", "--config", m.config, "--provider", "openai", "--fixture-manifest", m.manifest, "--out-dir", base)
			want := "fixture manifest " + m.manifest + " " + tc.want
			c := readConsolidated(t, filepath.Join(base, "consolidated-summary.json"))
			if code != 1 || c.StoppedAt != "pr-thread-mutations" || !strings.Contains(c.Error, want) || !strings.Contains(stderr, want) {
				t.Errorf("exit %d stopped at %q error %q, want 1, pr-thread-mutations and %q\n%s", code, c.StoppedAt, c.Error, want, stderr)
			}
			if id := c.FixtureManifest; id == nil || id.Path != m.manifest || id.SHA256 != before || id.Repo != "benchsim/fixtures" {
				t.Errorf("consolidated fixture_manifest %+v, want %s, sha256 %s, benchsim/fixtures", id, m.manifest, before)
			}
			first := readTracking(t, filepath.Join(base, "pr-exec", "tracking.json"))
			if first.FinalStatus != verify.StatusPass || first.FixtureRepo != "benchsim/fixtures" || len(first.FixtureManifestSHA256) != 64 {
				t.Errorf("pr-exec: status %s fixture_repo %q sha256 %q", first.FinalStatus, first.FixtureRepo, first.FixtureManifestSHA256)
			}
			second := readTracking(t, filepath.Join(base, "pr-thread-mutations", "tracking.json"))
			if second.FinalStatus != verify.StatusFail || !strings.Contains(second.Error, want) || len(second.Commands) != 0 {
				t.Errorf("pr-thread-mutations: status %s error %q commands %d, want fail before anything ran", second.FinalStatus, second.Error, len(second.Commands))
			}
		})
	}
}

// TestSetMissingManifestIsNamed: a read-only set whose manifest does not
// exist (no preflight to say so) stops naming the manifest, instead of
// running the benchmark into "wrote zero rows".
func TestSetMissingManifestIsNamed(t *testing.T) {
	f := newFixture(t, "none.json", nil)
	gone := filepath.Join(f.dir, "shared", "gone.json")
	args := []string{"set", "--config", f.config, "--set", "ci-diagnostics", "--provider", "openai", "--skip-preflight",
		"--fixture-manifest", gone, "--out-dir", filepath.Join(f.dir, "out", "ci-diagnostics")}
	code, _, stderr := f.run(args...)
	want := "set ci-diagnostics: fixture manifest " + gone + " does not exist: the benchmark binds the set's scenarios from it"
	tr := readTracking(t, filepath.Join(f.dir, "out", "ci-diagnostics", "tracking.json"))
	if code != 1 || tr.FinalStatus != verify.StatusFail || !strings.Contains(tr.Error, want) || strings.Contains(stderr, "zero rows") {
		t.Errorf("exit %d status %s error %q, want 1, fail and %q\n%s", code, tr.FinalStatus, tr.Error, want, stderr)
	}
}

// TestOrderedEvidenceOfAnEarlierSet: in an ordered run the benchmark of
// the second set appends a failing row to the file the first set judged
// (as root, or after making it writable again). ordered hashes every
// set's judged files again after its last set: the first set's pass is
// refused in its tracking.json, the run fails naming the file, and the
// judged bytes are put back.
func TestOrderedEvidenceOfAnEarlierSet(t *testing.T) {
	m := newMisbehaving(t, "tamper-earlier-set,force", nil)
	base := filepath.Join(m.dir, "run")
	code, _, stderr := m.run("ordered", "--config", m.config, "--provider", "openai", "--fixture-manifest", m.manifest, "--out-dir", base)
	if tampered, _ := os.ReadFile(filepath.Join(m.work, "tampered")); strings.TrimSpace(string(tampered)) != "yes" {
		t.Fatalf("the second set's benchmark did not change the first set's file (%q)\n%s", tampered, stderr)
	}
	first := readTracking(t, filepath.Join(base, "pr-exec", "tracking.json"))
	file := first.Attempts[0].SuiteFiles["ghx"]
	want := file + " (attempt 0, ghx): judged "
	c := readConsolidated(t, filepath.Join(base, "consolidated-summary.json"))
	if code != 1 || c.Status != verify.StatusFail || !strings.Contains(c.Error, want) || !strings.Contains(c.Error, "then appended ") {
		t.Errorf("exit %d status %s error %q, want 1, fail and the file named\n%s", code, c.Status, c.Error, stderr)
	}
	if first.FinalStatus != verify.StatusFail || !strings.Contains(first.Error, "after the set ended: ") || !strings.Contains(first.Error, want) {
		t.Errorf("pr-exec: status %s error %q, want its pass refused", first.FinalStatus, first.Error)
	}
	if c.Sets[0].Status != verify.StatusFail {
		t.Errorf("consolidated pr-exec status %s, want fail", c.Sets[0].Status)
	}
	ev := first.Attempts[0].Evidence["ghx"]
	if sum, n := sha256File(t, file); !ev.Restored || sum != ev.SHA256 || n != ev.Bytes {
		t.Errorf("evidence %+v, file %d bytes %s: want the judged bytes back", ev, n, sum)
	}
}

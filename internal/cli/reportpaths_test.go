package cli

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestReportNeverOverwritesItsInputs runs the built binary with an
// output path that is one of report's inputs, named in every way a
// workflow could name it: the same path, another spelling of it, a
// symbolic link, a hard link, a file of the baseline or history folder.
// Each exits 2 naming both flags, and no file changes: the input keeps
// its bytes and no summary is written.
func TestReportNeverOverwritesItsInputs(t *testing.T) {
	bin := testenv.Benchgate(t)
	ad, err := os.ReadFile(suiteFile(t, "2026-02-25-agent_direct-suite.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ghx, err := os.ReadFile(suiteFile(t, "2026-02-25-ghx-suite.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	exp, err := os.ReadFile(suiteFile(t, "expectations.json"))
	if err != nil {
		t.Fatal(err)
	}
	suites := []string{"--suite-jsonl", "ad-suite.jsonl", "--suite-jsonl", "ghx-suite.jsonl"}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		args  []string
		want  string // "" means accepted
	}{
		{name: "summary JSON is a suite file", args: []string{"--summary-json", "ad-suite.jsonl"},
			want: "--summary-json " + "DIR/ad-suite.jsonl is the input --suite-jsonl DIR/ad-suite.jsonl"},
		{name: "summary Markdown is a suite file spelled otherwise", args: []string{"--summary-md", "./sub/../ghx-suite.jsonl"},
			setup: func(t *testing.T, dir string) { mkdirForTest(t, filepath.Join(dir, "sub")) },
			want:  "--summary-md DIR/ghx-suite.jsonl is the input --suite-jsonl DIR/ghx-suite.jsonl"},
		{name: "run record is a link to a suite file", args: []string{"--run-record", "record.json"},
			setup: func(t *testing.T, dir string) {
				symlinkForTest(t, filepath.Join(dir, "ad-suite.jsonl"), filepath.Join(dir, "record.json"))
			},
			want: "--run-record DIR/record.json is the input --suite-jsonl DIR/ad-suite.jsonl"},
		{name: "summary JSON in a linked folder", args: []string{"--summary-json", "out/ghx-suite.jsonl"},
			setup: func(t *testing.T, dir string) { symlinkForTest(t, dir, filepath.Join(dir, "out")) },
			want:  "--summary-json DIR/out/ghx-suite.jsonl is the input --suite-jsonl DIR/ghx-suite.jsonl"},
		{name: "summary JSON is a hard link to a suite file", args: []string{"--summary-json", "hard.json"},
			setup: func(t *testing.T, dir string) {
				if err := os.Link(filepath.Join(dir, "ghx-suite.jsonl"), filepath.Join(dir, "hard.json")); err != nil {
					t.Fatal(err)
				}
			},
			want: "--summary-json DIR/hard.json is the input --suite-jsonl DIR/ghx-suite.jsonl"},
		{name: "stats JSON is the expectations file", args: []string{"--expectations-config", "expectations.json", "--stats", "--stats-json", "expectations.json"},
			want: "--stats-json DIR/expectations.json is the input --expectations-config DIR/expectations.json"},
		{name: "summary Markdown is the default expectations file", args: []string{"--summary-md", "config/expectations.json"},
			setup: func(t *testing.T, dir string) {
				mkdirForTest(t, filepath.Join(dir, "config"))
				writeForTest(t, filepath.Join(dir, "config", "expectations.json"), exp)
			},
			want: "--summary-md DIR/config/expectations.json is the input --expectations-config DIR/config/expectations.json"},
		{name: "run record is the baseline's suite", args: []string{"--baseline", "base", "--run-record", "base/prev/ad-suite.jsonl"},
			setup: func(t *testing.T, dir string) {
				mkdirForTest(t, filepath.Join(dir, "base", "prev"))
				writeForTest(t, filepath.Join(dir, "base", "prev", "ad-suite.jsonl"), ad)
			},
			want: "--run-record DIR/base/prev/ad-suite.jsonl is the input --baseline DIR/base/prev/ad-suite.jsonl"},
		{name: "summary JSON is a history file", args: []string{"--history", "hist", "--summary-json", "hist/run1/ghx-suite.jsonl"},
			setup: func(t *testing.T, dir string) {
				mkdirForTest(t, filepath.Join(dir, "hist", "run1"))
				writeForTest(t, filepath.Join(dir, "hist", "run1", "ghx-suite.jsonl"), ghx)
			},
			want: "--summary-json DIR/hist/run1/ghx-suite.jsonl is the input --history DIR/hist/run1/ghx-suite.jsonl"},
		{name: "outputs beside the inputs are written", args: []string{"--summary-json", "ad-summary.json", "--run-record", "record.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeForTest(t, filepath.Join(dir, "ad-suite.jsonl"), ad)
			writeForTest(t, filepath.Join(dir, "ghx-suite.jsonl"), ghx)
			writeForTest(t, filepath.Join(dir, "expectations.json"), exp)
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			before := snapshot(t, dir)
			cmd := exec.Command(bin, append(append([]string{"report"}, suites...), tc.args...)...)
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("report: %v\n%s", err, stderr.String())
				}
				if _, err := os.Stat(filepath.Join(dir, "ad-summary.json")); err != nil {
					t.Fatal(err)
				}
				return
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != ExitUsage {
				t.Fatalf("err = %v, want exit %d\nstderr: %s", err, ExitUsage, stderr.String())
			}
			if want := strings.ReplaceAll(tc.want, "DIR", dir); !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), want)
			}
			if after := snapshot(t, dir); after != before {
				t.Errorf("files changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

func mkdirForTest(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeForTest(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlinkForTest(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// snapshot lists every file below dir with its size and content hash,
// links as links, so that any write shows as a difference.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b.WriteString(p + " " + info.Mode().String())
		if info.Mode().IsRegular() {
			c, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %d %x", len(c), sha256.Sum256(c))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

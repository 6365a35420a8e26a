package action

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
)

const benchWorkflow = ".github/workflows/bench.yml"

func hostileZip(t testing.TB) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, mode os.FileMode, body string) {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	add("../escape.txt", 0o644, "x")
	add("/abs.txt", 0o644, "x")
	add("a/../../up.txt", 0o644, "x")
	add("link", os.ModeSymlink|0o777, "/etc/passwd")
	add("ok/latest-summary.json", 0o644, "{}")
	zw.Close()
	return buf.Bytes()
}

func listFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func TestDownloadArtifacts(t *testing.T) {
	type setup func(s *ghfake.Server) (current int64)
	name := "benchgate-bench-run"
	match := func(n string) bool { return n == name }
	tests := []struct {
		name      string
		setup     setup
		token     string
		workflow  string
		events    []string
		budget    int64
		want      int
		wantRuns  int
		wantFiles []string
		wantNotes []string
		wantErr   string
	}{
		{name: "newest completed run on the branch, not the current one", want: 1, wantRuns: 1,
			setup: func(s *ghfake.Server) int64 {
				old := s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: "push"})
				s.AddArtifact(old, name, map[string]string{"old.txt": "old"}, false)
				newer := s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: "push"})
				s.AddArtifact(newer, name, map[string]string{"latest-summary.json": "{}", "results/ghx-suite.jsonl": "x"}, false)
				s.AddArtifact(newer, "other", map[string]string{"no.txt": "no"}, false)
				other := s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "feature", Event: "push"})
				s.AddArtifact(other, name, map[string]string{"feature.txt": "f"}, false)
				running := s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Status: "in_progress"})
				s.AddArtifact(running, name, map[string]string{"running.txt": "r"}, false)
				cur := s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: "push"})
				s.AddArtifact(cur, name, map[string]string{"current.txt": "c"}, false)
				return cur
			},
			wantFiles: []string{"latest-summary.json", "results/ghx-suite.jsonl"}},
		{name: "expired newest falls back to an older run", want: 1, wantRuns: 1,
			setup: func(s *ghfake.Server) int64 {
				old := s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: "push"})
				s.AddArtifact(old, name, map[string]string{"old.txt": "old"}, false)
				newer := s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: "push"})
				s.AddArtifact(newer, name, map[string]string{"new.txt": "new"}, true)
				s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: "push"})
				return 0
			},
			wantFiles: []string{"old.txt"}, wantNotes: []string{"no matching artifact", "artifact benchgate-bench-run has expired"}},
		{name: "several runs across pages", want: 3, wantRuns: 3,
			setup: func(s *ghfake.Server) int64 {
				for i := 0; i < 40; i++ {
					id := s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: "push"})
					if i < 3 {
						s.AddArtifact(id, name, map[string]string{"f.txt": "x"}, false)
					}
				}
				return 0
			},
			wantFiles: []string{"f.txt"}},
		{name: "hostile archive: only regular files inside the folder", want: 1, wantRuns: 1,
			setup: func(s *ghfake.Server) int64 {
				id := s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: "push"})
				s.AddArtifactZip(id, name, hostileZip(t), false)
				return 0
			},
			wantFiles: []string{"ok/latest-summary.json"}},
		// A fork's pull request from its branch main is a run "on main":
		// whatever its event, a run whose head commit came from another
		// repository is passed over, and so is a run of an event not asked
		// for, even when the API's filter let it through.
		{name: "a fork's runs on a branch called main are passed over", want: 1, wantRuns: 1, events: []string{"push", "pull_request"},
			setup: func(s *ghfake.Server) int64 {
				own := s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: "push"})
				s.AddArtifact(own, name, map[string]string{"own.txt": "own"}, false)
				for _, ev := range []string{"pull_request", "push", "pull_request_target", "workflow_run"} {
					fork := s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: ev, HeadRepository: "mallory/bench"})
					s.AddArtifact(fork, name, map[string]string{"planted.txt": "x"}, false)
				}
				sched := s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: "schedule"})
				s.AddArtifact(sched, name, map[string]string{"sched.txt": "x"}, false)
				return 0
			},
			wantFiles: []string{"own.txt"}, wantNotes: []string{
				"run 1005 (#6) skipped: started by schedule, not push or pull_request",
				"run 1004 (#5) skipped: started by workflow_run, not push or pull_request",
				"run 1003 (#4) skipped: started by pull_request_target, not push or pull_request",
				"run 1002 (#3) skipped: its head commit came from mallory/bench, not octo/bench",
				"run 1001 (#2) skipped: its head commit came from mallory/bench, not octo/bench",
			}},
		{name: "a repository whose name differs only in case is the same one", want: 1, wantRuns: 1,
			setup: func(s *ghfake.Server) int64 {
				own := s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: "push", HeadRepository: "Octo/Bench"})
				s.AddArtifact(own, name, map[string]string{"own.txt": "own"}, false)
				return 0
			},
			wantFiles: []string{"own.txt"}},
		{name: "the downloads of all runs share one size budget", want: 3, wantRuns: 1, budget: 1000,
			setup: func(s *ghfake.Server) int64 {
				for i := 0; i < 3; i++ {
					id := s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: "push"})
					s.AddArtifact(id, name, map[string]string{"f.txt": strings.Repeat("x", 600)}, false)
				}
				return 0
			},
			wantFiles: []string{"f.txt"}, wantNotes: []string{"archive", "no further run is read"}},
		{name: "no run has the artifact", want: 1, wantRuns: 0,
			setup: func(s *ghfake.Server) int64 {
				s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: "push"})
				return 0
			},
			wantNotes: []string{"no matching artifact"}},
		{name: "bad token", want: 1, token: "wrong", wantErr: "401 Unauthorized: Bad credentials",
			setup: func(s *ghfake.Server) int64 {
				s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: "push"})
				return 0
			}},
		{name: "unknown workflow", want: 1, workflow: "nope.yml", wantErr: "list runs of workflow nope.yml on branch main: 404 Not Found: Not Found (GitHub knows no workflow nope.yml in octo/bench: its file is not on the default branch yet, or the token lacks actions: read)",
			setup: func(s *ghfake.Server) int64 {
				s.AddRun(ghfake.WorkflowRun{Workflow: benchWorkflow, HeadBranch: "main", Event: "push"})
				return 0
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ghfake.New("octo", "bench", "main", "tok", nil)
			defer s.Close()
			cur := tt.setup(s)
			dest := t.TempDir()
			src := artifactSource{API: s.URL + "/api-v3", Token: orDefault(tt.token, "tok"), Owner: "octo", Repo: "bench",
				Workflow: orDefault(tt.workflow, "bench.yml"), Branch: "main", Events: tt.events, Budget: tt.budget, SkipRunID: cur, Match: match, Want: tt.want, Dest: dest}
			got, notes, err := downloadArtifacts(context.Background(), src)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.wantRuns {
				t.Fatalf("downloaded %d runs (%+v), want %d", len(got), got, tt.wantRuns)
			}
			for i, g := range got {
				if i > 0 && g.RunID >= got[i-1].RunID {
					t.Errorf("runs not newest first: %+v", got)
				}
				if g.Artifact != name || g.Dir != filepath.Join(dest, "run-"+itoa64(g.RunID)) {
					t.Errorf("downloaded %+v", g)
				}
				if files := listFiles(t, g.Dir); strings.Join(files, " ") != strings.Join(tt.wantFiles, " ") {
					t.Errorf("files of run %d = %v, want %v", g.RunID, files, tt.wantFiles)
				}
			}
			if tt.budget == 0 && len(s.ArchiveDownloads()) != tt.wantRuns {
				t.Errorf("archives served %v, want %d", s.ArchiveDownloads(), tt.wantRuns)
			}
			for _, w := range tt.wantNotes {
				if !strings.Contains(strings.Join(notes, "\n"), w) {
					t.Errorf("notes %q lack %q", notes, w)
				}
			}
			if files := listFiles(t, filepath.Dir(dest)); len(files) > 0 {
				for _, f := range files {
					if strings.Contains(f, "escape") || strings.Contains(f, "up.txt") || strings.Contains(f, ".archive-") {
						t.Errorf("file left outside or behind: %s", f)
					}
				}
			}
		})
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

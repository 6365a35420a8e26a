package action_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/prcomment"
	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
)

// ownCommands are the workflow commands benchgate issues itself.
var ownCommands = map[string]bool{"add-mask": true, "group": true, "endgroup": true, "stop-commands": true,
	"error": true, "warning": true, "notice": true, "debug": true}

// forgedCommands returns the lines of a step log the runner would read as
// workflow commands that benchgate did not issue: outside the
// stop-commands window, a line that (after leading space, as the runner
// trims it) starts with "::" and is not one of ownCommands, or whose
// name and properties hold the marker text planted in hostile input (its
// message may quote hostile text, escaped, on its one line); and any
// other line holding "##[" (the runner's older command form).
func forgedCommands(log, marker string) []string {
	var bad []string
	resume := ""
	for _, l := range strings.Split(log, "\n") {
		t := strings.TrimLeft(l, " \t")
		if resume != "" {
			if t == resume {
				resume = ""
			}
			continue
		}
		if !strings.HasPrefix(t, "::") {
			if strings.Contains(l, "##[") {
				bad = append(bad, l)
			}
			continue
		}
		head, _, _ := strings.Cut(strings.TrimPrefix(t, "::"), "::")
		name, _, _ := strings.Cut(head, " ")
		if name == "stop-commands" {
			resume = "::" + strings.TrimPrefix(t, "::stop-commands::") + "::"
		}
		if !ownCommands[name] || strings.Contains(head, marker) {
			bad = append(bad, l)
		}
	}
	return bad
}

// zipWithBadEntry is an archive whose one entry has a hostile name and a
// wrong checksum, so that unpacking it fails and the failure quotes it.
func zipWithBadEntry(t *testing.T, name string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	body := []byte("{}")
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Store, CRC32: crc32.ChecksumIEEE(body) + 1,
		CompressedSize64: uint64(len(body)), UncompressedSize64: uint64(len(body))})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(body)
	zw.Close()
	return buf.Bytes()
}

// TestHostileTextIsNoWorkflowCommand: text benchgate did not write (an
// input, a zip entry's name, a scenario ID in a downloaded run record)
// never reaches the step log as a workflow command, before, in or after
// the mode's run, and the flaky-scenarios output holds no line break from
// an artifact.
func TestHostileTextIsNoWorkflowCommand(t *testing.T) {
	const marker = "forged"
	inject := "\n::error title=" + marker + "::PASS\n::add-mask::tok\n::stop-commands::" + marker + "\n##[set-output name=status;]" + marker + "\n"
	record := func(id string, passed int) string {
		b, _ := json.Marshal(map[string]any{"schema": "benchgate.run-record/v1", "modes": []any{map[string]any{
			"mode": "ghx", "source": "", "run_ids": []string{}, "run_id_count": 0, "started_at": "", "model_signatures": []string{},
			"scenarios": []any{map[string]any{"id": id, "rows": 3, "passed": passed, "stable": 0, "median_active_tokens": nil, "median_latency_ms": nil, "median_tool_calls": nil}},
		}}})
		return string(b)
	}
	tests := []struct {
		name   string
		inputs map[string]string
		setup  func(s *ghfake.Server)
	}{
		{name: "set: an input with line breaks, printed before the mode runs",
			inputs: map[string]string{"mode": "set", "set": "pr-exec", "provider": "openai", "model": "gpt" + inject}},
		{name: "report: a zip entry name with line breaks in a failed download",
			inputs: map[string]string{"mode": "report", "suite-jsonl": "cur/ghx-suite.jsonl", "baseline": "base-branch"},
			setup: func(s *ghfake.Server) {
				id := s.AddRun(ghfake.WorkflowRun{Workflow: ".github/workflows/bench.yml", HeadBranch: "main", Event: "push"})
				s.AddArtifactZip(id, "benchgate-bench-run", zipWithBadEntry(t, "x"+inject+"latest-summary.json"), false)
			}},
		{name: "report: a scenario ID with line breaks in a downloaded run record",
			inputs: map[string]string{"mode": "report", "suite-jsonl": "cur/ghx-suite.jsonl", "history": "base-branch", "history-runs": "3"},
			setup: func(s *ghfake.Server) {
				// The scenario passed in one run and failed in the other:
				// flaky, if its ID were read.
				for _, passed := range []int{3, 0} {
					id := s.AddRun(ghfake.WorkflowRun{Workflow: ".github/workflows/bench.yml", HeadBranch: "main", Event: "push"})
					s.AddArtifact(id, "benchgate-bench-run", map[string]string{"run-record.json": record("s-001"+inject+"x-001", passed)}, false)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gh := ghfake.New("octo", "bench", "main", "tok", nil)
			defer gh.Close()
			if tt.setup != nil {
				tt.setup(gh)
			}
			inputs := map[string]string{"github-token": "tok", "upload-artifacts": "false"}
			for k, v := range tt.inputs {
				inputs[k] = v
			}
			s := newStep(t, inputs)
			for k, v := range map[string]string{
				"GITHUB_API_URL": gh.URL + "/api-v3", "GITHUB_REPOSITORY": "octo/bench", "GITHUB_BASE_REF": "main",
				"GITHUB_WORKFLOW_REF": "octo/bench/.github/workflows/bench.yml@refs/pull/12/merge", "RUNNER_TEMP": t.TempDir(),
			} {
				s.env[k] = v
			}
			p := filepath.Join(s.ws, "cur", "ghx-suite.jsonl")
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(suiteText("ghx", 4, 3, 500)), 0o644); err != nil {
				t.Fatal(err)
			}
			s.run(t)
			if bad := forgedCommands(s.stdout, marker); len(bad) > 0 {
				t.Errorf("the step log has commands benchgate did not issue:\n%s\n--- log:\n%s", strings.Join(bad, "\n"), s.stdout)
			}
			out := s.outputs(t)
			if f := out["flaky-scenarios"]; strings.Contains(f, marker) {
				t.Errorf("flaky-scenarios = %q", f)
			}
			for k, v := range out {
				if strings.Contains(v, "::"+marker) || strings.Contains(v, "\n::") {
					t.Errorf("output %s = %q holds a workflow command", k, v)
				}
			}
		})
	}
}

// TestCommentNeverEditsSomeoneElses: a user posts the step's marker (it
// is predictable from the workflow file) with a PASS before the first
// run. The step writes its own comment with the verdict, leaves the
// user's alone and warns about it; a second run edits its own.
func TestCommentNeverEditsSomeoneElses(t *testing.T) {
	const sha = "2222222222222222222222222222222222222222"
	gh := ghfake.New("o", "r", "main", "tok", nil)
	defer gh.Close()
	gh.AddUser("ghp_mallory", "mallory")
	var pr int
	for pr != 12 {
		pr = gh.AddPull(ghfake.Pull{Title: "change", Head: "feature", Base: "main", HeadSHA: sha})
	}
	marker := prcomment.Marker("bench", "bench", "report")
	planted := gh.AddCommentBy(pr, "mallory", marker+"\n### benchgate report: pass")
	s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "cur/ghx-suite.jsonl", "gate": "true",
		"pr-comment": "always", "github-token": "tok", "upload-artifacts": "false"})
	s.env["GITHUB_API_URL"] = gh.URL + "/api-v3"
	// As the runner sets them: the context is read only when all parse.
	for k, v := range map[string]string{"GITHUB_WORKFLOW": "bench", "GITHUB_RUN_NUMBER": "3", "GITHUB_REF_PROTECTED": "false", "GITHUB_RETENTION_DAYS": "90"} {
		s.env[k] = v
	}
	os.WriteFile(s.env["GITHUB_EVENT_PATH"], []byte(fmt.Sprintf(`{"pull_request":{"number":%d,"head":{"ref":"feature","sha":%q}},"repository":{"full_name":"o/r"}}`, pr, sha)), 0o644)
	p := filepath.Join(s.ws, "cur", "ghx-suite.jsonl")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(suiteText("ghx", 1, 3, 500, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= 2; run++ {
		s.env["GITHUB_OUTPUT"] = filepath.Join(s.files, fmt.Sprintf("out_%d", run))
		s.run(t)
		want := fmt.Sprintf("left alone (not benchgate's verdict): https://github.com/o/r/pull/%d#issuecomment-%d by mallory", pr, planted)
		if !strings.Contains(s.stdout, "::warning title=benchgate pr-comment::") || !strings.Contains(s.stdout, want) {
			t.Errorf("run %d: no warning naming mallory's comment (%q):\n%s", run, want, s.stdout)
		}
	}
	cs := gh.Comments(pr)
	if len(cs) != 2 {
		t.Fatalf("comments %+v, want mallory's and the step's", cs)
	}
	if cs[0].ID != planted || cs[0].Edits != 0 || !strings.HasSuffix(cs[0].Body, "pass") {
		t.Errorf("mallory's comment was changed: %+v", cs[0])
	}
	if cs[1].Author != ghfake.ActionsBot || !strings.HasPrefix(cs[1].Body, marker+"\n") || !strings.Contains(cs[1].Body, "**benchgate report: fail**") || cs[1].Edits != 0 {
		t.Errorf("the step's comment: %+v", cs[1])
	}
}

// TestBenchmarkGetsAllowListedEnvironment: in a set step the benchmark
// (here a shell that writes its environment, then runs the simulator)
// gets the model key, what the contract's pass_env and the pass-env input
// name, and PATH; never the github-token (which may write comments), the
// runner's file-command paths, or other variables of the step.
func TestBenchmarkGetsAllowListedEnvironment(t *testing.T) {
	s := benchStep(t, map[string]string{"mode": "set", "set": "pr-exec", "provider": "openai", "model": "gpt-5.1-codex-mini",
		"github-token": "ghs_commenttoken", "openai-api-key": "sk-modelkey", "pass-env": "BENCH_GH_TOKEN"})
	dump := filepath.Join(s.files, "env.txt")
	cfgPath := filepath.Join(s.ws, "bench", "bench.json")
	var cfg map[string]any
	b, err := os.ReadFile(cfgPath)
	if err != nil || json.Unmarshal(b, &cfg) != nil {
		t.Fatalf("bench.json: %v", err)
	}
	bm := cfg["benchmark"].([]any)
	cfg["benchmark"] = append([]any{"sh", "-c", `env >> "$DUMP"; exec "$@"`, "sh"}, bm...)
	cfg["env"] = []string{"DUMP=" + dump}
	b, _ = json.Marshal(cfg)
	if err := os.WriteFile(cfgPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"GITHUB_ENV": filepath.Join(s.files, "env_file"), "GITHUB_PATH": filepath.Join(s.files, "path_file"), "GITHUB_STATE": filepath.Join(s.files, "state_file"),
		"BENCH_GH_TOKEN": "ghp_onpurpose", "GITHUB_TOKEN": "ghs_fromstepenv", "SOME_OTHER_SECRET": "hunter2", "BENCHSIM_PACE": "0s",
	} {
		s.env[k] = v
	}
	s.runWant(t, 0)
	got, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	env := string(got)
	for _, want := range []string{"OPENAI_API_KEY=sk-modelkey", "BENCH_GH_TOKEN=ghp_onpurpose", "BENCHSIM_PACE=0s", "\nPATH=", "DUMP="} {
		if !strings.Contains("\n"+env, want) {
			t.Errorf("the benchmark lacks %q", want)
		}
	}
	for _, never := range []string{"ghs_commenttoken", "ghs_fromstepenv", "hunter2", "GITHUB_TOKEN=", "GITHUB_ENV=", "GITHUB_PATH=", "GITHUB_OUTPUT=", "GITHUB_STEP_SUMMARY=", "GITHUB_STATE=", "INPUT_", "ACTIONS_"} {
		if strings.Contains(env, never) {
			t.Errorf("the benchmark got %q:\n%s", never, env)
		}
	}
}

package imagetest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestImage builds the image from the Dockerfile with the classic builder
// and with BuildKit, then runs `report` in each as the GitHub runner
// starts a container action (actions/runner ContainerActionHandler and
// DockerCommandManager.DockerRun: --workdir /github/workspace, --rm, the
// step's variables passed by name with -e, the runner's folders mounted
// at /github/..., the engine's socket at /var/run/docker.sock) on the
// real 2026-02-25 suites: the step's outputs and summary are written
// into the mounted file-command files, and its exit code is the one
// `benchgate report` gives by hand.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the image twice")
	}
	dc := swebenchtest.Docker(t)
	Bases(t, dc)
	root := testenv.RepoRoot(t)
	cli, env := Docker(t)
	host := strings.TrimPrefix(testenv.DockerHost(t), "unix://")

	for _, b := range []struct {
		name     string
		buildkit bool
	}{{"classic builder", false}, {"BuildKit", true}} {
		t.Run(b.name, func(t *testing.T) {
			tag := "benchgate-test:" + map[bool]string{false: "classic", true: "buildkit"}[b.buildkit]
			start := time.Now()
			log, err := Build(t, tag, b.buildkit)
			if err != nil {
				t.Fatalf("%v\n%s", err, log)
			}
			t.Logf("%s: built in %s", b.name, time.Since(start).Round(time.Second))
			// The tag stays: the engine keeps the build cache with it, so the
			// next build (the SWE-bench example's merge image) is quick.
			img, err := dc.ImageInspect(context.Background(), tag)
			if err != nil {
				t.Fatal(err)
			}
			if img.Config.WorkingDir != "" || img.Config.User != "" {
				t.Errorf("image WorkingDir %q User %q: want none (root, the runner sets --workdir)", img.Config.WorkingDir, img.Config.User)
			}

			// The runner's folders for one step.
			temp := t.TempDir()
			ws := filepath.Join(temp, "workspace")
			dirs := map[string]string{
				temp:                                         "/github/runner_temp",
				filepath.Join(temp, "_github_home"):          "/github/home",
				filepath.Join(temp, "_github_workflow"):      "/github/workflow",
				filepath.Join(temp, "_runner_file_commands"): "/github/file_commands",
				ws: "/github/workspace",
			}
			for d := range dirs {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, s := range []string{"agent_direct", "ghx"} {
				b, err := os.ReadFile(filepath.Join(root, "testdata", "suites", "2026-02-25-"+s+"-suite.jsonl"))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(ws, s+"-suite.jsonl"), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			fc := filepath.Join(temp, "_runner_file_commands")
			for _, f := range []string{"set_output_1", "step_summary_1"} {
				if err := os.WriteFile(filepath.Join(fc, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			vars := map[string]string{
				"INPUT_MODE":          "report",
				"INPUT_SUITE-JSONL":   "agent_direct-suite.jsonl\nghx-suite.jsonl",
				"INPUT_GATE":          "true",
				"INPUT_GATE-PROFILE":  "verify_pr",
				"GITHUB_WORKSPACE":    "/github/workspace",
				"GITHUB_OUTPUT":       "/github/file_commands/set_output_1",
				"GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary_1",
				"GITHUB_RUN_ID":       "7",
				"GITHUB_RUN_ATTEMPT":  "1",
				"GITHUB_JOB":          "report",
				"HOME":                "/github/home",
				"RUNNER_TEMP":         "/github/runner_temp",
			}
			args := []string{"run", "--name", "benchgate-image-test-" + strings.ReplaceAll(b.name, " ", "-"), "--label", "benchgate-image-test",
				"--workdir", "/github/workspace", "--rm"}
			runEnv := append([]string{}, env...)
			for k, v := range vars {
				args = append(args, "-e", k)
				runEnv = append(runEnv, k+"="+v)
			}
			args = append(args, "-e", "GITHUB_ACTIONS=true", "-e", "CI=true", "-v", host+":/var/run/docker.sock")
			for src, dst := range dirs {
				args = append(args, "-v", src+":"+dst)
			}
			args = append(args, tag)
			cmd := exec.Command(cli, args...)
			cmd.Env = runEnv
			out, err := cmd.CombinedOutput()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != 1 {
				t.Fatalf("docker run: %v, want exit 1 (the verify_pr gate fails on these suites)\n%s", err, out)
			}
			outputs := testenv.ReadGitHubOutput(t, filepath.Join(fc, "set_output_1"))
			if outputs["status"] != "fail" || outputs["exit-code"] != "1" || !strings.HasPrefix(outputs["summary-md"], "benchgate-results/") {
				t.Errorf("outputs = %v", outputs)
			}
			summary, _ := os.ReadFile(filepath.Join(fc, "step_summary_1"))
			if !strings.Contains(string(summary), "❌ **benchgate report: fail**") {
				t.Errorf("job summary:\n%s", summary)
			}
			if _, err := os.Stat(filepath.Join(ws, outputs["summary-md"])); err != nil {
				t.Errorf("the summary Markdown is not in the workspace: %v", err)
			}
		})
	}
}

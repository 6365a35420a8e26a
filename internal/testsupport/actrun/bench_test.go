package actrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// BenchmarkActionStep measures what an Action step adds over the bare
// command for each mode: the same work run as `benchgate <mode> <flags>`
// and as `benchgate action` with the inputs a workflow gives (outputs,
// job summary and annotations written to the runner's files; no artifact
// service, so no upload), plus the composite action's first step,
// scripts/obtain-benchgate.sh, with the binary already in the tool cache
// (every step after a runner's first). Reported per mode: cli-ms and
// action-ms per run, and their difference.
func BenchmarkActionStep(b *testing.B) {
	bin := testenv.Benchgate(b)
	root := testenv.RepoRoot(b)
	suites := filepath.Join(root, "testdata", "suites")
	py := os.Getenv("BENCHGATE_TEST_PYTHON")

	qaBank := "benchmarks:\n"
	for i, c := range []struct{ fqn, answer string }{{"json.dumps", "indent"}, {"logging.basicConfig", "format"}, {"json.JSONDecodeError", "lineno"}, {"os.path.join", "join"}} {
		qaBank += "- id: bench:" + string(rune('a'+i)) + "\n  category: c\n  question: q\n  rationale: r\n  benchmark_type: api_understanding\n  template: identifier\n  answers:\n  - answer_template: StringMatchAnswer\n    answer: " + c.answer + "\n    fully_qualified_class_name: [" + c.fqn + "]\n  file: f.py\n"
	}

	type mode struct {
		name   string
		setup  func(ws string)
		cli    []string
		inputs map[string]string
		skip   string
	}
	modes := []mode{
		{name: "report", setup: func(ws string) {
			for _, s := range []string{"agent_direct", "ghx"} {
				copyFile(filepath.Join(suites, "2026-02-25-"+s+"-suite.jsonl"), filepath.Join(ws, s+"-suite.jsonl"))
			}
		}, cli: []string{"report", "--suite-jsonl", "agent_direct-suite.jsonl", "--suite-jsonl", "ghx-suite.jsonl", "--summary-json", "out/s.json", "--summary-md", "out/s.md"},
			inputs: map[string]string{"mode": "report", "suite-jsonl": "agent_direct-suite.jsonl\nghx-suite.jsonl", "out-dir": "out"}},
		{name: "set", setup: func(ws string) {
			for _, f := range []string{"bench.json", "scenario-sets.json", "failures.json"} {
				copyFile(filepath.Join(root, "examples", f), filepath.Join(ws, f))
			}
			os.WriteFile(filepath.Join(ws, "failures.json"), []byte(`{"rules": []}`), 0o644)
			copyDir(filepath.Join(root, "examples", "scenarios"), filepath.Join(ws, "scenarios"))
			copyDir(filepath.Join(root, "examples", "config"), filepath.Join(ws, "config"))
			exec.Command(testenv.Benchsim(b), "fixtures", "seed", "--out", filepath.Join(ws, "fixtures", "latest.json")).Run()
		}, cli: []string{"set", "--set", "pr-exec", "--provider", "openai", "--config", "bench.json", "--out-dir", "out"},
			inputs: map[string]string{"mode": "set", "set": "pr-exec", "provider": "openai", "bench-config": "bench.json", "out-dir": "out"}},
		{name: "qa-audit", setup: func(ws string) {
			os.MkdirAll(filepath.Join(ws, "q"), 0o755)
			os.WriteFile(filepath.Join(ws, "q", "bench.yaml"), []byte(qaBank), 0o644)
		}, cli: []string{"qa-audit", "--definitions", "q", "--python", py, "--out-dir", "out"},
			inputs: map[string]string{"mode": "qa-audit", "definitions": "q", "python": py, "out-dir": "out"},
			skip:   map[bool]string{true: "no BENCHGATE_TEST_PYTHON"}[py == ""]},
	}
	path := filepath.Dir(testenv.Benchsim(b)) + string(os.PathListSeparator) + os.Getenv("PATH")

	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			if m.skip != "" {
				b.Skip(m.skip)
			}
			var cliTime, actionTime time.Duration
			for range b.N {
				for _, asAction := range []bool{false, true} {
					ws := b.TempDir()
					m.setup(ws)
					files := b.TempDir()
					var cmd *exec.Cmd
					if asAction {
						cmd = exec.Command(bin, "action")
						cmd.Env = []string{"PATH=" + path, "HOME=" + files, "GITHUB_WORKSPACE=" + ws,
							"GITHUB_OUTPUT=" + filepath.Join(files, "out"), "GITHUB_STEP_SUMMARY=" + filepath.Join(files, "summary"),
							"GITHUB_RUN_ID=1", "GITHUB_RUN_ATTEMPT=1", "GITHUB_JOB=bench", "INPUT_UPLOAD-ARTIFACTS=false"}
						for k, v := range m.inputs {
							cmd.Env = append(cmd.Env, "INPUT_"+strings.ToUpper(k)+"="+v)
						}
					} else {
						cmd = exec.Command(bin, m.cli...)
						cmd.Env = []string{"PATH=" + path, "HOME=" + files}
					}
					cmd.Dir = ws
					start := time.Now()
					out, err := cmd.CombinedOutput()
					d := time.Since(start)
					if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
						b.Fatalf("%v: %v\n%s", cmd.Args, err, out)
					}
					if asAction {
						actionTime += d
					} else {
						cliTime += d
					}
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(cliTime.Milliseconds())/n, "cli-ms")
			b.ReportMetric(float64(actionTime.Milliseconds())/n, "action-ms")
			b.ReportMetric(float64((actionTime-cliTime).Milliseconds())/n, "added-ms")
		})
	}

	b.Run("obtain-cached", func(b *testing.B) {
		src := actionSource(b)
		cache := b.TempDir()
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.TempDir(), "BENCHGATE_ACTION_PATH=" + src,
			"RUNNER_TOOL_CACHE=" + cache, "GITHUB_OUTPUT=" + filepath.Join(b.TempDir(), "out")}
		first := exec.Command("bash", filepath.Join(src, "scripts", "obtain-benchgate.sh"))
		first.Env = env
		if out, err := first.CombinedOutput(); err != nil {
			b.Fatalf("first obtain (build): %v\n%s", err, out)
		}
		b.ResetTimer()
		for range b.N {
			cmd := exec.Command("bash", filepath.Join(src, "scripts", "obtain-benchgate.sh"))
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil || strings.Contains(string(out), "building") {
				b.Fatalf("obtain with the binary cached: %v\n%s", err, out)
			}
		}
	})
}

func copyDir(src, dst string) {
	filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
}

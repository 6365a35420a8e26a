// Command fakecodex stands in for `codex` inside test images. It accepts
// only the unattended `exec -p local --json` form, acts on the plans
// folder the way the prompts ask, and prints codex-like --json events.
// FAKE_CODEX_SCENARIO picks the behaviour:
//
//	success           execute pass FAKE_CODEX_PASS (default 1) does what the
//	                  execute prompt says: edits f in the code folder, runs
//	                  the prompt's own `git diff ... > patch` command with
//	                  bash and archives the plans
//	commit            like success, then also commits the change in the code
//	                  folder (HEAD moves; the patch is still the base's)
//	handpatch         execute pass 1 writes a correct diff of f without git
//	                  (for images that have none) and archives
//	badcontext        execute pass 1 writes a diff whose context is not in
//	                  the code and archives
//	blocked           execute pass 1 moves the plans to blocked/
//	noop              nothing ever happens (incomplete at the loop budget)
//	archive_no_patch  execute pass 1 archives without a patch
//	badpatch          execute pass 1 writes text that is no diff and archives
//	crash             execute exits 3 after a turn.failed event
//	hang              execute sleeps until killed
//	retrying          plan repeats Codex's "Reconnecting..." error event
//	                  until killed, as against a refused endpoint
//	longcommand       like success, but execute pass 1 first runs a command
//	                  (item.started ... item.completed) that takes
//	                  FAKE_CODEX_COMMAND_TIME (a Go duration)
//	noplan            plan writes nothing
//	latin1            like success, but f becomes Latin-1 text (not UTF-8)
//	markup            like success, and also creates page.html, FAKE_CODEX_MARKUP_MB
//	                  (default 8.2) megabytes of HTML markup, with git add -N
//	crlf              like success, then rewrites the patch with CRLF line ends
//	addall            like success, but runs `git add -N .` first: every
//	                  untracked file of the image (build output) is in the patch
//	filter            like success, but first sets a clean filter in the
//	                  repository's config (tr a-z A-Z) and names f in a new
//	                  .gitattributes (git add -N) with it
//	byid              the scenario is the instance ID's repository name
//	                  (acme__latin1-1 runs latin1)
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	args := os.Args[1:]
	if len(args) == 1 && args[0] == "--version" {
		fmt.Println("codex-cli 0.169.0 (fake)")
		return
	}
	if len(args) < 4 || args[0] != "exec" || args[1] != "-p" || args[2] != "local" || args[3] != "--json" {
		fmt.Fprintf(os.Stderr, "fakecodex: expected `exec -p local --json ...`, got %q\n", args)
		os.Exit(2)
	}
	phase := os.Getenv("SWE_BENCH_RUNTIME_PHASE")
	pass, _ := strconv.Atoi(os.Getenv("SWE_BENCH_EXECUTE_PASS"))
	plans := os.Getenv("SWE_BENCH_PLANS_DIR")
	out := os.Getenv("SWE_BENCH_OUTPUT_DIR")
	resume := ""
	for i, a := range args {
		if a == "resume" && i+2 < len(args) {
			resume = args[i+2]
		}
	}
	logCall(out, map[string]any{"phase": phase, "pass": pass, "argv": args, "resume": resume})

	thread := fmt.Sprintf("thread-%s-%d", phase, pass)
	if resume != "" {
		thread = resume
	}
	emit(map[string]any{"type": "thread.started", "thread_id": thread})
	emit(map[string]any{"type": "turn.started"})

	scenario := os.Getenv("FAKE_CODEX_SCENARIO")
	if scenario == "byid" {
		id := os.Getenv("SWE_BENCH_INSTANCE_ID")
		_, rest, _ := strings.Cut(id, "__")
		scenario = rest[:strings.LastIndex(rest, "-")]
	}
	want, _ := strconv.Atoi(os.Getenv("FAKE_CODEX_PASS"))
	if want == 0 {
		want = 1
	}
	if scenario == "retrying" && phase == "plan" {
		for {
			emit(map[string]any{"type": "error", "message": "Reconnecting... waiting for network (Connection failed: error sending request)"})
			time.Sleep(50 * time.Millisecond)
		}
	}
	if scenario == "longcommand" && phase == "execute" {
		took, err := time.ParseDuration(os.Getenv("FAKE_CODEX_COMMAND_TIME"))
		must(err)
		item := map[string]any{"id": "item_9", "type": "command_execution", "command": "bash -lc 'make test'", "status": "in_progress"}
		emit(map[string]any{"type": "item.started", "item": item})
		time.Sleep(took)
		item["status"], item["exit_code"] = "completed", 0
		emit(map[string]any{"type": "item.completed", "item": item})
		scenario = "success"
	}
	switch phase {
	case "plan":
		if scenario != "noplan" {
			must(os.WriteFile(filepath.Join(plans, "EXECUTION_PLAN.md"), []byte("1. fix the bug\n"), 0o644))
		}
	case "execute":
		switch {
		case scenario == "crash":
			emit(map[string]any{"type": "error", "message": "unexpected status 500"})
			emit(map[string]any{"type": "turn.failed", "error": map[string]any{"message": "stream disconnected"}})
			os.Exit(3)
		case scenario == "hang":
			time.Sleep(time.Hour)
		case (scenario == "success" || scenario == "commit" || scenario == "latin1" || scenario == "markup" || scenario == "crlf" || scenario == "addall" || scenario == "filter") && pass == want:
			code := os.Getenv("SWE_BENCH_CODE_DIR")
			content := "new\n"
			if scenario == "latin1" {
				content = "caf\xe9 cr\xe8me\n"
			}
			if scenario == "filter" {
				git(code, "config", "filter.up.clean", "tr a-z A-Z")
				must(os.WriteFile(filepath.Join(code, ".gitattributes"), []byte("f filter=up\n"), 0o644))
				git(code, "add", "-N", ".gitattributes")
			}
			must(os.WriteFile(filepath.Join(code, "f"), []byte(content), 0o644))
			switch scenario {
			case "markup":
				must(os.WriteFile(filepath.Join(code, "page.html"), Markup(os.Getenv("FAKE_CODEX_MARKUP_MB")), 0o644))
				git(code, "add", "-N", "page.html")
			case "addall":
				git(code, "add", "-N", ".")
			}
			runPromptCommand(args[len(args)-1], "git diff")
			if scenario == "crlf" {
				patch := os.Getenv("SWE_BENCH_PATCH_PATH")
				b, err := os.ReadFile(patch)
				must(err)
				must(os.WriteFile(patch, []byte(strings.ReplaceAll(string(b), "\n", "\r\n")), 0o644))
			}
			if scenario == "commit" {
				cmd := exec.Command("git", "-c", "user.name=agent", "-c", "user.email=agent@example.com", "commit", "-qam", "fix")
				cmd.Dir, cmd.Stdout, cmd.Stderr = code, os.Stderr, os.Stderr
				must(cmd.Run())
			}
			move(plans, "archive")
		case scenario == "handpatch":
			must(os.WriteFile(os.Getenv("SWE_BENCH_PATCH_PATH"), []byte("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new\n"), 0o644))
			move(plans, "archive")
		case scenario == "badcontext":
			must(os.WriteFile(os.Getenv("SWE_BENCH_PATCH_PATH"), []byte("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-missing\n+new\n"), 0o644))
			move(plans, "archive")
		case scenario == "badpatch":
			must(os.WriteFile(os.Getenv("SWE_BENCH_PATCH_PATH"), []byte("this is not a diff\n"), 0o644))
			move(plans, "archive")
		case scenario == "archive_no_patch":
			move(plans, "archive")
		case scenario == "blocked":
			must(os.WriteFile(filepath.Join(plans, "EXECUTION_PLAN.md"), []byte("BLOCKED: the toolchain is missing\n"), 0o644))
			move(plans, "blocked")
		}
	}
	emit(map[string]any{"type": "item.completed", "item": map[string]any{"id": "item_0", "type": "agent_message", "text": "done " + phase}})
	// Like Codex, a resumed thread reports the thread's running total: the
	// execute turn before it plus this one.
	turns := int64(1)
	if resume != "" {
		turns = 2
	}
	emit(map[string]any{"type": "turn.completed", "usage": map[string]any{"input_tokens": 100 * turns, "cached_input_tokens": 10 * turns, "output_tokens": 20 * turns, "reasoning_output_tokens": 5 * turns}})
}

// runPromptCommand runs, with bash as Codex does, the first command the
// prompt quotes in backticks that contains marker: the agent follows the
// prompt's own instructions, so a change of the prompt shows in the tests.
func runPromptCommand(prompt, marker string) {
	parts := strings.Split(prompt, "`")
	for i := 1; i < len(parts); i += 2 {
		if !strings.Contains(parts[i], marker) {
			continue
		}
		cmd := exec.Command("bash", "-c", parts[i])
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		must(cmd.Run())
		return
	}
	must(fmt.Errorf("the prompt quotes no command with %q:\n%s", marker, prompt))
}

// Markup is mb megabytes (default 8.2) of HTML lines full of <, > and &.
func Markup(mb string) []byte {
	size := 8.2
	if mb != "" {
		var err error
		size, err = strconv.ParseFloat(mb, 64)
		must(err)
	}
	var b strings.Builder
	for i := 0; float64(b.Len()) < size*1e6; i++ {
		fmt.Fprintf(&b, "<div class=\"row\" data-i=\"%d\"><a href=\"/x?a=1&b=2\">&lt;item %d&gt;</a></div>\n", i, i)
	}
	return []byte(b.String())
}

func git(dir string, args ...string) {
	cmd := exec.Command("git", append([]string{"-c", "safe.directory=*"}, args...)...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, os.Stderr, os.Stderr
	must(cmd.Run())
}

func move(plans, to string) {
	must(os.MkdirAll(filepath.Join(plans, to), 0o755))
	for _, f := range []string{"SPECIFICATION.md", "EXECUTION_PLAN.md"} {
		must(os.Rename(filepath.Join(plans, f), filepath.Join(plans, to, f)))
	}
}

func emit(v any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

func logCall(dir string, v any) {
	f, err := os.OpenFile(filepath.Join(dir, "fake_calls.jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	must(err)
	b, _ := json.Marshal(v)
	_, err = f.Write(append(b, '\n'))
	must(err)
	must(f.Close())
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakecodex:", err)
		os.Exit(4)
	}
}

package codex_test

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/codex"
	"github.com/benchgate/benchgate/internal/proc"
	"github.com/benchgate/benchgate/internal/testsupport/fakeresponses"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

const testModel = "qwen3-coder-next-FP8"

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// realCodex is a real Codex CLI configured for one endpoint through a
// private CODEX_HOME holding only the local profile file.
type realCodex struct {
	bin  string
	home string
	env  []string
}

func newRealCodex(t *testing.T, baseURL string) realCodex {
	t.Helper()
	bin := testenv.Codex(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, codex.ProfileFile), codex.LocalConfigTOML(codex.Provider{BaseURL: baseURL, Model: testModel}), 0o600); err != nil {
		t.Fatal(err)
	}
	env := proc.EnvWith(os.Environ(), "CODEX_HOME="+home, "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "RUST_LOG=")
	return realCodex{bin: bin, home: home, env: env}
}

type runOut struct {
	res    proc.Result
	events codex.Events
	stdout string
	stderr string
}

func (c realCodex) run(t *testing.T, o codex.ExecOptions, timeout time.Duration) runOut {
	t.Helper()
	o.Binary = c.bin
	var stdout, stderr bytes.Buffer
	res, err := proc.Run(context.Background(), proc.Cmd{
		Argv: codex.ExecArgv(o), Dir: o.Workdir, Env: c.env,
		Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Timeout: timeout, Grace: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	ev, perr := codex.ParseEvents(bytes.NewReader(stdout.Bytes()))
	if perr != nil {
		t.Fatalf("parsing codex --json output: %v\n%s", perr, stdout.String())
	}
	return runOut{res: res, events: ev, stdout: stdout.String(), stderr: stderr.String()}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRealCodexExecAndResume drives the real CLI through a plan-like
// session and a handoff-like resume: the scripted model makes Codex move
// the plan files into archive/ and write a patch, and the resume continues
// the same thread with its history.
func TestRealCodexExecAndResume(t *testing.T) {
	srv := fakeresponses.New([]string{testModel},
		fakeresponses.Turn{
			Items: []fakeresponses.Item{
				fakeresponses.Message("Archiving the plan and writing the patch."),
				fakeresponses.Shell("mkdir -p plans/archive && mv plans/SPECIFICATION.md plans/EXECUTION_PLAN.md plans/archive/ && printf 'diff --git a/f b/f\\n' > fix.patch && echo MOVED_OK"),
			},
			Usage: fakeresponses.Usage{InputTokens: 100, CachedTokens: 40, OutputTokens: 7, ReasoningTokens: 2},
		},
		fakeresponses.Turn{
			Items: []fakeresponses.Item{fakeresponses.Message("EXECUTE_DONE")},
			Usage: fakeresponses.Usage{InputTokens: 150, CachedTokens: 100, OutputTokens: 3},
		},
		fakeresponses.Turn{
			Items: []fakeresponses.Item{fakeresponses.Message("HANDOFF_DONE")},
			Usage: fakeresponses.Usage{InputTokens: 200, OutputTokens: 5, ReasoningTokens: 1},
		},
	)
	defer srv.Close()
	c := newRealCodex(t, srv.BaseURL())
	work := t.TempDir()
	writeFile(t, filepath.Join(work, "plans", "SPECIFICATION.md"), "# spec\n")
	writeFile(t, filepath.Join(work, "plans", "EXECUTION_PLAN.md"), "# plan\n")
	last := filepath.Join(t.TempDir(), "last.txt")

	out := c.run(t, codex.ExecOptions{Workdir: work, Prompt: "EXECUTE_PROMPT_MARKER: do the plan", LastMessagePath: last}, 2*time.Minute)
	if out.res.ExitCode != 0 {
		t.Fatalf("codex exec exit %d\nstdout:\n%s\nstderr:\n%s", out.res.ExitCode, out.stdout, out.stderr)
	}
	if v := srv.Violations(); len(v) > 0 {
		t.Fatalf("protocol violations: %q", v)
	}
	for _, f := range []string{"plans/archive/SPECIFICATION.md", "plans/archive/EXECUTION_PLAN.md", "fix.patch"} {
		if _, err := os.Stat(filepath.Join(work, f)); err != nil {
			t.Errorf("scripted shell command did not produce %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "plans", "SPECIFICATION.md")); err == nil {
		t.Error("plans/SPECIFICATION.md is still in the plans root")
	}
	if b, _ := os.ReadFile(filepath.Join(work, "fix.patch")); string(b) != "diff --git a/f b/f\n" {
		t.Errorf("fix.patch = %q", b)
	}
	ev := out.events
	if !uuidRE.MatchString(ev.ThreadID) {
		t.Errorf("thread id %q is not a UUID", ev.ThreadID)
	}
	if want := (codex.Usage{InputTokens: 250, CachedInputTokens: 140, OutputTokens: 10, ReasoningOutputTokens: 2}); ev.Usage != want {
		t.Errorf("usage %+v, want %+v", ev.Usage, want)
	}
	if ev.Failed || ev.Commands != 1 || ev.LastMessage != "EXECUTE_DONE" {
		t.Errorf("events %+v: want not failed, 1 command, last message EXECUTE_DONE", ev)
	}
	if b, _ := os.ReadFile(last); strings.TrimSpace(string(b)) != "EXECUTE_DONE" {
		t.Errorf("-o file holds %q", b)
	}
	reqs := srv.ResponseRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests to /v1/responses, want 2", len(reqs))
	}
	if !strings.Contains(reqs[0].InputText(), "EXECUTE_PROMPT_MARKER") {
		t.Error("the prompt did not reach the model")
	}
	if got := reqs[0].Header.Get("Accept"); got != "text/event-stream" {
		t.Errorf("accept header %q", got)
	}
	if outs := reqs[1].FunctionOutputs(); len(outs) != 1 || !strings.Contains(outs[0], "MOVED_OK") || !strings.Contains(outs[0], "exited with code 0") {
		t.Errorf("tool output sent back: %q", outs)
	}

	// Resume the thread: same id, history re-sent, new prompt appended.
	res := c.run(t, codex.ExecOptions{Workdir: work, Prompt: "HANDOFF_PROMPT_MARKER: write the handoff", ResumeThreadID: ev.ThreadID}, 2*time.Minute)
	if res.res.ExitCode != 0 {
		t.Fatalf("codex exec resume exit %d\nstdout:\n%s\nstderr:\n%s", res.res.ExitCode, res.stdout, res.stderr)
	}
	if res.events.ThreadID != ev.ThreadID {
		t.Errorf("resumed thread %q, want %q", res.events.ThreadID, ev.ThreadID)
	}
	// turn.completed carries the thread's running total: the resumed
	// invocation's own share is what the Ledger gives.
	if want := (codex.Usage{InputTokens: 450, CachedInputTokens: 140, OutputTokens: 15, ReasoningOutputTokens: 3}); res.events.Usage != want {
		t.Errorf("resume reports %+v, want the thread total %+v", res.events.Usage, want)
	}
	var ledger codex.Ledger
	if got := ledger.Share(ev); got != ev.Usage {
		t.Errorf("ledger share of the first run %+v, want %+v", got, ev.Usage)
	}
	if want, got := (codex.Usage{InputTokens: 200, OutputTokens: 5, ReasoningOutputTokens: 1}), ledger.Share(res.events); got != want {
		t.Errorf("ledger share of the resume %+v, want %+v", got, want)
	}
	if res.events.LastMessage != "HANDOFF_DONE" {
		t.Errorf("resume last message %q", res.events.LastMessage)
	}
	reqs = srv.ResponseRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests after resume, want 3", len(reqs))
	}
	text := reqs[2].InputText()
	if !strings.Contains(text, "EXECUTE_PROMPT_MARKER") || !strings.Contains(text, "HANDOFF_PROMPT_MARKER") || !strings.Contains(text, "MOVED_OK") {
		t.Errorf("resumed request lacks the earlier history or the new prompt:\n%s", text)
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d scripted turns unused", srv.Remaining())
	}
}

// TestRealCodexFailures covers the endings a runner must tell apart.
func TestRealCodexFailures(t *testing.T) {
	dead := func(t *testing.T) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr + "/v1"
	}
	tests := []struct {
		name  string
		turns []fakeresponses.Turn // nil: no server at all
		// wantTimedOut: only the caller's timeout ends the run.
		wantTimedOut bool
		wantExit     int
		wantErr      string
	}{
		// Codex prints "Reconnecting... waiting for network" now and then
		// and never gives up; when it prints first depends on the machine.
		{name: "dead endpoint is retried until the caller's timeout", wantTimedOut: true},
		{name: "HTTP 400 fails the turn at once", turns: []fakeresponses.Turn{{Status: 400}}, wantExit: 1, wantErr: "400"},
		{name: "a stalled model is stopped by the caller's timeout", turns: []fakeresponses.Turn{{Stall: true}}, wantTimedOut: true},
		{name: "response.failed fails the turn", turns: []fakeresponses.Turn{{FailCode: "context_length_exceeded"}}, wantExit: 1, wantErr: "context window"},
		{name: "a stream closed early is retried", turns: []fakeresponses.Turn{
			{Items: []fakeresponses.Item{fakeresponses.Message("partial")}, CloseEarly: true},
			{Items: []fakeresponses.Item{fakeresponses.Message("RECOVERED")}},
		}, wantExit: 0, wantErr: "stream closed before response.completed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := ""
			if tt.turns == nil {
				base = dead(t)
			} else {
				srv := fakeresponses.New([]string{testModel}, tt.turns...)
				defer srv.Close()
				base = srv.BaseURL()
			}
			c := newRealCodex(t, base)
			out := c.run(t, codex.ExecOptions{Workdir: t.TempDir(), Prompt: "hello"}, 4*time.Second)
			t.Logf("exit %d after %v; errors %q", out.res.ExitCode, out.res.Duration, out.events.Errors)
			if out.res.TimedOut != tt.wantTimedOut {
				t.Fatalf("timed out %v, want %v (exit %d)\nstdout:\n%s\nstderr:\n%s", out.res.TimedOut, tt.wantTimedOut, out.res.ExitCode, out.stdout, out.stderr)
			}
			if tt.wantTimedOut && out.events.Turns != 0 {
				t.Errorf("a turn completed against a dead or stalled endpoint: %+v", out.events)
			}
			if !tt.wantTimedOut {
				if out.res.ExitCode != tt.wantExit || out.events.Failed != (tt.wantExit != 0) {
					t.Errorf("exit %d failed=%v, want exit %d", out.res.ExitCode, out.events.Failed, tt.wantExit)
				}
				if tt.wantExit == 0 && out.events.LastMessage != "RECOVERED" {
					t.Errorf("last message %q after the retry", out.events.LastMessage)
				}
			}
			if !strings.Contains(strings.Join(out.events.Errors, "\n"), tt.wantErr) {
				t.Errorf("errors %q, want one containing %q", out.events.Errors, tt.wantErr)
			}
		})
	}
}

// TestRealCodexConfig checks what the profile file and the argv make the
// real CLI send: the configured model, the bearer token only when the
// provider names a key variable, and a prompt that looks like a flag
// passed through as text.
func TestRealCodexConfig(t *testing.T) {
	tests := []struct {
		name      string
		keyEnv    string
		keyValue  string
		prompt    string
		wantAuth  string
		wantInput string
	}{
		{name: "no key, no Authorization header", prompt: "plain prompt", wantInput: "plain prompt"},
		{name: "env_key sends the bearer token", keyEnv: "BENCHGATE_TEST_LLM_KEY", keyValue: "sk-test-123", prompt: "with key", wantAuth: "Bearer sk-test-123", wantInput: "with key"},
		{name: "a prompt that looks like a flag", prompt: "-h is text here, not a flag", wantInput: "-h is text here, not a flag"},
		{name: "a prompt of a single dash", prompt: "-", wantInput: "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeresponses.New([]string{testModel}, fakeresponses.Turn{Items: []fakeresponses.Item{fakeresponses.Message("OK")}})
			defer srv.Close()
			c := newRealCodex(t, srv.BaseURL())
			if tt.keyEnv != "" {
				p := codex.Provider{BaseURL: srv.BaseURL(), Model: testModel, APIKeyEnv: tt.keyEnv}
				if err := os.WriteFile(filepath.Join(c.home, codex.ProfileFile), codex.LocalConfigTOML(p), 0o600); err != nil {
					t.Fatal(err)
				}
				c.env = proc.EnvWith(c.env, tt.keyEnv+"="+tt.keyValue)
			}
			out := c.run(t, codex.ExecOptions{Workdir: t.TempDir(), Prompt: tt.prompt}, time.Minute)
			if out.res.ExitCode != 0 || out.events.LastMessage != "OK" {
				t.Fatalf("exit %d, last message %q\nstdout:\n%s\nstderr:\n%s", out.res.ExitCode, out.events.LastMessage, out.stdout, out.stderr)
			}
			reqs := srv.ResponseRequests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Model != testModel || !r.Stream {
				t.Errorf("model %q stream %v", r.Model, r.Stream)
			}
			if got := r.Header.Get("Authorization"); got != tt.wantAuth {
				t.Errorf("Authorization %q, want %q", got, tt.wantAuth)
			}
			if got := r.Header.Get("Originator"); got != "codex_exec" {
				t.Errorf("originator %q, want codex_exec", got)
			}
			if !strings.Contains(r.InputText(), tt.wantInput+"\n") {
				t.Errorf("prompt %q not in the request input:\n%s", tt.wantInput, r.InputText())
			}
		})
	}
}

// TestPreflightAgainstFake: the preflight and the fake server agree on
// GET /v1/models.
func TestPreflightAgainstFake(t *testing.T) {
	srv := fakeresponses.New([]string{"other", testModel})
	defer srv.Close()
	if err := codex.Preflight(context.Background(), srv.BaseURL(), testModel, nil); err != nil {
		t.Fatal(err)
	}
	if err := codex.Preflight(context.Background(), srv.BaseURL(), "gpt-missing", nil); err == nil || !strings.Contains(err.Error(), `model "gpt-missing" is not served`) {
		t.Fatalf("error %v, want a missing model", err)
	}
	if v := srv.Violations(); len(v) != 0 {
		t.Fatalf("violations %q", v)
	}
}

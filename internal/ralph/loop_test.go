package ralph

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/failcode"
)

// scripted is an in-process agent that acts on the plans folder the way
// the execute prompt asks, following a per-test script.
type scripted struct {
	t        *testing.T
	plans    string
	patch    string
	act      func(s *scripted, r Request) (Result, error)
	requests []Request
}

func (s *scripted) Run(_ context.Context, r Request) (Result, error) {
	s.requests = append(s.requests, r)
	return s.act(s, r)
}

func (s *scripted) write(rel, content string) {
	p := filepath.Join(s.plans, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s *scripted) move(to string) {
	for _, f := range []string{SpecFile, PlanFile} {
		if err := os.MkdirAll(filepath.Join(s.plans, to), 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(s.plans, f), filepath.Join(s.plans, to, f)); err != nil {
			s.t.Fatal(err)
		}
	}
}

func planThen(execute func(s *scripted, r Request) (Result, error)) func(s *scripted, r Request) (Result, error) {
	return func(s *scripted, r Request) (Result, error) {
		switch r.Phase {
		case PhasePlan:
			s.write(PlanFile, "1. fix it\n")
			return Result{ThreadID: "plan-thread"}, nil
		case PhaseExecute:
			return execute(s, r)
		}
		return Result{ThreadID: r.ResumeThreadID}, nil
	}
}

func TestLoop(t *testing.T) {
	tests := []struct {
		name       string
		maxLoops   int
		act        func(s *scripted, r Request) (Result, error)
		wantStatus string
		wantCode   failcode.Code
		wantDetail string
		wantPhases int
		// callerJudges leaves PatchPath empty: archiving is done, the
		// caller judges the change (the SWE-bench runner).
		callerJudges bool
	}{
		{name: "archived with patch on pass 2", maxLoops: 5, wantStatus: StatusSuccess, wantPhases: 4,
			act: planThen(func(s *scripted, r Request) (Result, error) {
				if r.Pass == 2 {
					if err := os.WriteFile(s.patch, []byte("diff --git a/x b/x\n"), 0o644); err != nil {
						s.t.Fatal(err)
					}
					s.move("archive")
				}
				return Result{ThreadID: "exec-" + string(rune('0'+r.Pass))}, nil
			})},
		{name: "blocked", maxLoops: 5, wantStatus: StatusFailed, wantCode: failcode.Blocked, wantDetail: "needs a GPU", wantPhases: 2,
			act: planThen(func(s *scripted, r Request) (Result, error) {
				s.write(PlanFile, "BLOCKED: needs a GPU\n")
				s.move("blocked")
				return Result{ThreadID: "t"}, nil
			})},
		{name: "archived without patch", maxLoops: 5, wantStatus: StatusIncomplete, wantCode: failcode.Incomplete, wantDetail: "is empty", wantPhases: 2,
			act: planThen(func(s *scripted, r Request) (Result, error) {
				s.move("archive")
				return Result{ThreadID: "t"}, nil
			})},
		{name: "archived without patch, the caller judges the change", maxLoops: 5, callerJudges: true, wantStatus: StatusSuccess, wantPhases: 2,
			act: planThen(func(s *scripted, r Request) (Result, error) {
				s.move("archive")
				return Result{ThreadID: "t"}, nil
			})},
		{name: "budget runs out", maxLoops: 3, wantStatus: StatusIncomplete, wantCode: failcode.Incomplete, wantDetail: "after 3 execute passes", wantPhases: 7,
			act: planThen(func(s *scripted, r Request) (Result, error) { return Result{ThreadID: "t"}, nil })},
		{name: "codex crash", maxLoops: 3, wantStatus: StatusFailed, wantCode: failcode.RuntimeError, wantDetail: "execute pass 1: codex exited with code 3: boom", wantPhases: 2,
			act: planThen(func(s *scripted, r Request) (Result, error) {
				return Result{ExitCode: 3, Errors: []string{"boom"}}, nil
			})},
		{name: "phase timeout", maxLoops: 3, wantStatus: StatusFailed, wantCode: failcode.RuntimeError, wantDetail: "timed out", wantPhases: 2,
			act: planThen(func(s *scripted, r Request) (Result, error) { return Result{TimedOut: true, ExitCode: -1}, nil })},
		{name: "agent cannot start", maxLoops: 3, wantStatus: StatusFailed, wantCode: failcode.RuntimeError, wantDetail: "plan: no codex", wantPhases: 1,
			act: func(s *scripted, r Request) (Result, error) { return Result{}, errors.New("no codex") }},
		{name: "plan writes no plan", maxLoops: 3, wantStatus: StatusFailed, wantCode: failcode.RuntimeError, wantDetail: "without writing", wantPhases: 1,
			act: func(s *scripted, r Request) (Result, error) { return Result{}, nil }},
		{name: "no thread id for handoff", maxLoops: 3, wantStatus: StatusFailed, wantCode: failcode.RuntimeError, wantDetail: "no thread id", wantPhases: 2,
			act: planThen(func(s *scripted, r Request) (Result, error) { return Result{}, nil })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			plans := filepath.Join(dir, "plans")
			s := &scripted{t: t, plans: plans, patch: filepath.Join(dir, "x.patch"), act: tc.act}
			s.write(SpecFile, "the task\n")
			l := &Loop{Agent: s, Prompts: mustPrompts(t), PlansDir: plans, PatchPath: s.patch, MaxLoops: tc.maxLoops,
				Vars: map[string]string{"PLANS_DIR": plans, "CODE_DIR": "/testbed", "PATCH_PATH": s.patch}}
			if tc.callerJudges {
				l.PatchPath = ""
			}
			out := l.Run(context.Background())
			if out.Status != tc.wantStatus || out.Code != tc.wantCode {
				t.Fatalf("outcome %s/%s (%s), want %s/%s", out.Status, out.Code, out.Detail, tc.wantStatus, tc.wantCode)
			}
			if !strings.Contains(out.Detail, tc.wantDetail) {
				t.Errorf("detail %q does not contain %q", out.Detail, tc.wantDetail)
			}
			if len(out.Phases) != tc.wantPhases {
				t.Errorf("%d phases ran, want %d", len(out.Phases), tc.wantPhases)
			}
			for i, r := range s.requests {
				if r.Phase == PhaseHandoff && r.ResumeThreadID != s.requests[i-1].ResumeThreadID && r.ResumeThreadID == "" {
					t.Errorf("handoff %d does not resume", i)
				}
				if strings.Contains(r.Prompt, "{{") {
					t.Errorf("%s prompt has an unfilled placeholder: %s", r.Phase, r.Prompt)
				}
			}
		})
	}
}

func TestLoopInterrupted(t *testing.T) {
	dir := t.TempDir()
	plans := filepath.Join(dir, "plans")
	ctx, cancel := context.WithCancel(context.Background())
	s := &scripted{t: t, plans: plans, act: planThen(func(s *scripted, r Request) (Result, error) {
		cancel() // SIGTERM arrives while execute runs
		return Result{}, errors.New("exec: context canceled")
	})}
	s.write(SpecFile, "x")
	l := &Loop{Agent: s, Prompts: mustPrompts(t), PlansDir: plans, PatchPath: filepath.Join(dir, "p"), MaxLoops: 5}
	out := l.Run(ctx)
	if out.Status != StatusFailed || out.Code != failcode.RuntimeError || !out.Interrupted || out.Detail != "execute pass 1: interrupted" {
		t.Fatalf("%+v", out)
	}
}

func TestHandoffResumesTheExecuteThread(t *testing.T) {
	dir := t.TempDir()
	plans := filepath.Join(dir, "plans")
	s := &scripted{t: t, plans: plans, act: planThen(func(s *scripted, r Request) (Result, error) {
		return Result{ThreadID: "exec-thread-" + string(rune('0'+r.Pass))}, nil
	})}
	s.write(SpecFile, "x")
	l := &Loop{Agent: s, Prompts: mustPrompts(t), PlansDir: plans, PatchPath: filepath.Join(dir, "p"), MaxLoops: 2}
	l.Run(context.Background())
	var got []string
	for _, r := range s.requests {
		got = append(got, string(r.Phase)+":"+r.ResumeThreadID)
	}
	want := "plan: execute: handoff:exec-thread-1 execute: handoff:exec-thread-2"
	if strings.Join(got, " ") != want {
		t.Fatalf("phases %q, want %q", strings.Join(got, " "), want)
	}
}

func TestLoadPrompts(t *testing.T) {
	full := t.TempDir()
	partial := t.TempDir()
	for _, n := range []string{"plan.md", "execute.md", "handoff.md"} {
		if err := os.WriteFile(filepath.Join(full, n), []byte("custom "+n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(partial, "plan.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, wantErr, wantExecute string
	}{
		{name: "embedded", dir: "", wantExecute: "THIS STEP IS CRITICAL"},
		{name: "override", dir: full, wantExecute: "custom execute.md"},
		{name: "partial override", dir: partial, wantErr: "execute.md"},
		{name: "missing folder", dir: filepath.Join(full, "nope"), wantErr: "missing required prompt file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := LoadPrompts(tc.dir)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(p[PhaseExecute], tc.wantExecute) {
				t.Errorf("execute prompt %q lacks %q", p[PhaseExecute], tc.wantExecute)
			}
		})
	}
}

func mustPrompts(t *testing.T) Prompts {
	t.Helper()
	p, err := LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

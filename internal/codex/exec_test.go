package codex

import (
	"reflect"
	"strings"
	"testing"
)

func TestExecArgv(t *testing.T) {
	common := []string{"exec", "-p", "local", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "--color", "never"}
	tests := []struct {
		name string
		in   ExecOptions
		want []string
	}{
		{
			name: "new thread",
			in:   ExecOptions{Binary: "/opt/codex/bin/codex", Workdir: "/testbed", Prompt: "plan the work", LastMessagePath: "/out/plan.last.txt"},
			want: append(append([]string{"/opt/codex/bin/codex"}, common...), "-C", "/testbed", "-o", "/out/plan.last.txt", "--", "plan the work"),
		},
		{
			name: "resume",
			in:   ExecOptions{Binary: "codex", Workdir: "/testbed", Prompt: "hand off", ResumeThreadID: "01a20039-da53-7d90-a9e0-362ff39069f6"},
			want: append(append([]string{"codex"}, common...), "-C", "/testbed", "resume", "--", "01a20039-da53-7d90-a9e0-362ff39069f6", "hand off"),
		},
		{
			name: "defaults: codex from PATH, no workdir",
			in:   ExecOptions{Prompt: "x"},
			want: append(append([]string{"codex"}, common...), "--", "x"),
		},
		{
			name: "a single dash is text, not stdin",
			in:   ExecOptions{Binary: "codex", Prompt: "-", ResumeThreadID: "t"},
			want: append(append([]string{"codex"}, common...), "resume", "--", "t", "-\n"),
		},
		{
			name: "prompt that looks like a flag stays positional",
			in:   ExecOptions{Binary: "codex", Prompt: "--help"},
			want: append(append([]string{"codex"}, common...), "--", "--help"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ExecArgv(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ExecArgv(%+v)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestExecArgvAlwaysLocalProfile pins the hard requirement: exactly one
// profile flag, always "local".
func TestExecArgvAlwaysLocalProfile(t *testing.T) {
	for _, o := range []ExecOptions{{Prompt: "a"}, {Prompt: "b", ResumeThreadID: "t"}} {
		argv := ExecArgv(o)
		n := 0
		for i, a := range argv {
			if a == "-p" || a == "--profile" || strings.HasPrefix(a, "--profile=") {
				n++
				if argv[i+1] != "local" {
					t.Errorf("profile %q, want local", argv[i+1])
				}
			}
		}
		if n != 1 {
			t.Errorf("%q has %d profile flags, want 1", argv, n)
		}
	}
}

func TestLocalConfigTOML(t *testing.T) {
	tests := []struct {
		name    string
		in      Provider
		want    []string
		notWant []string
	}{
		{
			name: "no key",
			in:   Provider{BaseURL: "http://127.0.0.1:8000/v1/", Model: "qwen3-coder-next-FP8"},
			want: []string{
				`model = "qwen3-coder-next-FP8"`,
				`model_provider = "benchgate"`,
				`[model_providers.benchgate]`,
				`base_url = "http://127.0.0.1:8000/v1"` + "\n",
				`wire_api = "responses"`,
			},
			notWant: []string{"env_key", "[profiles", `"chat"`},
		},
		{
			name: "key env and quoting",
			in:   Provider{BaseURL: "http://h/v1", Model: "m\"odel\\x\n", APIKeyEnv: "LLM_KEY"},
			want: []string{`model = "m\"odel\\x\n"`, `env_key = "LLM_KEY"`},
		},
		{
			name: "control characters are escaped",
			in:   Provider{BaseURL: "http://h/v1", Model: "a\x01b"},
			want: []string{`model = "a\u0001b"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(LocalConfigTOML(tt.in))
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("unexpected %q in\n%s", w, got)
				}
			}
		})
	}
}

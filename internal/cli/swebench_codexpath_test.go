package cli

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCodexBinaryPath(t *testing.T) {
	bin := t.TempDir()
	exe := filepath.Join(bin, "codex")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, "codex"), []byte("not executable"), 0o644); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	tests := []struct {
		name, arg, path, want string
	}{
		{name: "bare name found in PATH", arg: "codex", path: plain + ":" + bin, want: exe},
		{name: "bare name not in PATH stays relative to the folder", arg: "codex", path: plain, want: filepath.Join(work, "codex")},
		{name: "relative path", arg: "tools/codex", path: bin, want: filepath.Join(work, "tools", "codex")},
		{name: "absolute path", arg: exe, path: "", want: exe},
		{name: "empty", arg: "", path: bin, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := &Env{Dir: work, Getenv: func(k string) string {
				if k == "PATH" {
					return tt.path
				}
				return ""
			}}
			if got := codexBinaryPath(env, tt.arg); got != tt.want {
				t.Errorf("codexBinaryPath(%q) = %q, want %q", tt.arg, got, tt.want)
			}
		})
	}
}

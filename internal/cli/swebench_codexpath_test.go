package cli

import (
	"os"
	"path/filepath"
	"strings"
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
	local := t.TempDir()
	if err := os.WriteFile(filepath.Join(local, "codex-here"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, arg, path, want, wantErr string
	}{
		{name: "bare name found in PATH", arg: "codex", path: plain + ":" + bin, want: exe},
		{name: "bare name in neither PATH nor the folder", arg: "codex", path: plain + ":relative",
			wantErr: "--codex-binary codex: no such program in PATH (1 folders) nor file in " + work},
		{name: "bare name of a file in the folder", dir: local, arg: "codex-here", path: bin, want: filepath.Join(local, "codex-here")},
		{name: "relative path", arg: "tools/codex", path: bin, want: filepath.Join(work, "tools", "codex")},
		{name: "absolute path", arg: exe, path: "", want: exe},
		{name: "empty", arg: "", path: bin, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := work
			if tt.dir != "" {
				dir = tt.dir
			}
			env := &Env{Dir: dir, Getenv: func(k string) string {
				if k == "PATH" {
					return tt.path
				}
				return ""
			}}
			got, err := codexBinaryPath(env, tt.arg)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Errorf("codexBinaryPath(%q) = %q, %v; want the error %q", tt.arg, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("codexBinaryPath(%q) = %q, %v; want %q", tt.arg, got, err, tt.want)
			}
		})
	}
}

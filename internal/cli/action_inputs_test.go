package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInputGetenv(t *testing.T) {
	env := map[string]string{"INPUT_MODE": "from-env", "GITHUB_WORKSPACE": "/w"}
	tests := []struct {
		name    string
		inputs  string
		key     string
		want    string
		wantErr string
	}{
		{name: "no JSON reads INPUT_ variables", key: "INPUT_MODE", want: "from-env"},
		{name: "JSON wins over INPUT_ variables", inputs: `{"mode":"set"}`, key: "INPUT_MODE", want: "set"},
		{name: "dashed names", inputs: `{"out-dir":"r"}`, key: "INPUT_OUT-DIR", want: "r"},
		{name: "absent input is empty", inputs: `{"mode":"set"}`, key: "INPUT_SET", want: ""},
		{name: "other variables pass through", inputs: `{"mode":"set"}`, key: "GITHUB_WORKSPACE", want: "/w"},
		{name: "booleans as text", inputs: `{"gate":true}`, key: "INPUT_GATE", want: "true"},
		{name: "not an object", inputs: `["set"]`, wantErr: "BENCHGATE_INPUTS: expected a JSON object"},
		{name: "nested value", inputs: `{"mode":{"a":1}}`, wantErr: `input "mode": expected a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == inputsVar {
					return tt.inputs
				}
				return env[k]
			}
			got, err := inputGetenv(getenv)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v := got.getenv(tt.key); v != tt.want {
				t.Errorf("%s = %q, want %q", tt.key, v, tt.want)
			}
		})
	}
}

func TestInputsFile(t *testing.T) {
	tests := []struct {
		name    string
		content string
		link    bool
		key     string
		want    string
		wantErr string
	}{
		{name: "inputs and the artifact token", content: "{\n  \"mode\": \"set\",\n  \"openai-api-key\": \"sk-x\"\n}\nACTIONS_RUNTIME_TOKEN=tok.en\n", key: "ACTIONS_RUNTIME_TOKEN", want: "tok.en"},
		{name: "an input", content: "{\"openai-api-key\": \"sk-x\"}\n", key: "INPUT_OPENAI-API-KEY", want: "sk-x"},
		{name: "other variables from the environment", content: "{}\n", key: "GITHUB_WORKSPACE", want: "/w"},
		{name: "an unknown variable after the inputs", content: "{}\nGITHUB_TOKEN=x\n", wantErr: "line 2 after the inputs: expected ACTIONS_RUNTIME_TOKEN=value or REMOVED_INPUT=name, got \"GITHUB_TOKEN\""},
		{name: "names of removed variables", content: "{}\nREMOVED_INPUT=INPUT_SUITE_JSONL\n", key: "INPUT_SUITE_JSONL", want: ""},
		{name: "not JSON", content: "mode=set\n", wantErr: "expected a JSON object of input names and values first"},
		{name: "a link is not followed", link: true, wantErr: "too many levels of symbolic links"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "inputs")
			if tt.link {
				secret := filepath.Join(dir, "secret")
				if err := os.WriteFile(secret, []byte("{}"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(secret, path); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{inputsFileVar: path, "GITHUB_WORKSPACE": "/w", "ACTIONS_RUNTIME_TOKEN": "from-env"}
			got, err := inputGetenv(func(k string) string { return env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v := got.getenv(tt.key); v != tt.want {
				t.Errorf("%s = %q, want %q", tt.key, v, tt.want)
			}
			if _, err := os.Lstat(path); !os.IsNotExist(err) {
				t.Errorf("the inputs file is still there after reading: %v", err)
			}
		})
	}
}

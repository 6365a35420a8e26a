package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckProfileFile(t *testing.T) {
	good := "model = \"qwen3-coder-next-FP8\"\nmodel_provider = \"dgx\"\n\n[model_providers.dgx]\nname = \"local\"\nbase_url = \"http://127.0.0.1:8000/v1\"\nwire_api = \"responses\"\n"
	tests := []struct {
		name, body, want string
	}{
		{"the shape benchgate writes", string(LocalConfigTOML(Provider{BaseURL: "http://127.0.0.1:8000/v1", Model: "m"})), ""},
		{"a hand-written profile", good, ""},
		{"a built-in provider", "model = \"gpt-5\"\nmodel_provider = \"openai\"\n", ""},
		{"the pre-0.134 shape", "model_provider = \"dgx\"\n[model_providers.dgx]\nbase_url = \"http://x/v1\"\n\n[profiles.local]\nmodel = \"m\"\n", ":5: profiles: a [profiles.*] table is the shape of Codex before 0.134"},
		{"a profile selector", "profile = \"local\"\nmodel = \"m\"\n", ":1: profile: a top-level profile selector"},
		{"no model", "model_provider = \"openai\"\n", ": model: expected model ="},
		{"no provider table", "model = \"m\"\nmodel_provider = \"dgx\"\n", ":2: model_provider: model_provider \"dgx\" has no [model_providers.dgx] table"},
		{"chat wire api", strings.Replace(good, `wire_api = "responses"`, `wire_api = "chat"`, 1), ":7: model_providers.dgx.wire_api: expected \"responses\""},
		{"no base url", strings.Replace(good, "base_url = \"http://127.0.0.1:8000/v1\"\n", "", 1), ":4: model_providers.dgx.base_url: expected base_url"},
		{"not TOML", "model = \"m\nmodel_provider = x\n", ":1: not valid TOML"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "local.config.toml")
			if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			err := CheckProfileFile(path)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), path+tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, path+tc.want)
			}
		})
	}
}

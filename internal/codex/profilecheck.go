package codex

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/benchgate/benchgate/internal/exitcode"
)

// builtinProviders are provider ids Codex knows without a
// [model_providers.<id>] table.
var builtinProviders = map[string]bool{"openai": true, "oss": true, "ollama": true, "lmstudio": true}

// CheckProfileFile checks a file meant to become
// $CODEX_HOME/local.config.toml, the file `codex exec -p local` layers on
// config.toml (Codex >= 0.134), before any instance starts. A file in the
// older shape (a [profiles.local] table, a top-level profile selector) or
// without a usable provider would otherwise fail inside the container,
// much later, as "plan phase ended without writing EXECUTION_PLAN.md".
// Errors name the file, the line and the key.
func CheckProfileFile(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return exitcode.Optionf("codex_config", ": %w", err)
	}
	text := string(raw)
	var cfg map[string]any
	if _, err := toml.Decode(text, &cfg); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return exitcode.Optionf("codex_config", " %s:%d: not valid TOML: %s", path, pe.Position.Line, pe.Message)
		}
		return exitcode.Optionf("codex_config", " %s: not valid TOML: %v", path, err)
	}
	at := func(key, pattern string) string {
		re := regexp.MustCompile(`(?m)^[ \t]*` + pattern)
		if loc := re.FindStringIndex(text); loc != nil {
			return fmt.Sprintf("%s:%d: %s", path, 1+strings.Count(text[:loc[0]], "\n"), key)
		}
		return fmt.Sprintf("%s: %s", path, key)
	}
	if _, ok := cfg["profiles"]; ok {
		return exitcode.Optionf("codex_config", " %s: a [profiles.*] table is the shape of Codex before 0.134; `codex exec -p local` reads this file as the profile itself and refuses the table: move its keys to the top level", at("profiles", `\[\s*profiles`))
	}
	if _, ok := cfg["profile"]; ok {
		return exitcode.Optionf("codex_config", " %s: a top-level profile selector is refused by Codex >= 0.134; remove it (this file is the profile)", at("profile", `profile\s*=`))
	}
	model, _ := cfg["model"].(string)
	if model == "" {
		return exitcode.Optionf("codex_config", " %s: expected model = \"<model slug>\" at the top level", at("model", `model\s*=`))
	}
	provider, _ := cfg["model_provider"].(string)
	if provider == "" {
		return exitcode.Optionf("codex_config", " %s: expected model_provider = \"<id>\" at the top level, naming a [model_providers.<id>] table", at("model_provider", `model_provider\s*=`))
	}
	if builtinProviders[provider] {
		return nil
	}
	providers, _ := cfg["model_providers"].(map[string]any)
	table, ok := providers[provider].(map[string]any)
	if !ok {
		return exitcode.Optionf("codex_config", " %s: model_provider %q has no [model_providers.%s] table in the file", at("model_provider", `model_provider\s*=`), provider, provider)
	}
	key := "model_providers." + provider
	header := `\[\s*model_providers\.` + regexp.QuoteMeta(provider) + `\s*\]`
	if u, _ := table["base_url"].(string); u == "" {
		return exitcode.Optionf("codex_config", " %s: expected base_url = \"http://host:port/v1\"", at(key+".base_url", header))
	}
	if w, ok := table["wire_api"]; ok && w != "responses" {
		return exitcode.Optionf("codex_config", " %s: expected \"responses\" (Codex 0.169 speaks only the Responses API), got %v", at(key+".wire_api", `wire_api\s*=`), w)
	}
	return nil
}

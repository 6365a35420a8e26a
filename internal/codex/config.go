package codex

import (
	"fmt"
	"strings"
)

// ProviderID is the model_providers table name benchgate writes. It is not
// one of Codex's built-in provider ids, so it never picks up OpenAI auth.
const ProviderID = "benchgate"

// Provider is an OpenAI Responses API compatible endpoint.
type Provider struct {
	// BaseURL ends before "/responses", e.g. "http://127.0.0.1:8000/v1";
	// Codex appends "/responses" itself.
	BaseURL string
	// Model is the model slug sent in every request.
	Model string
	// APIKeyEnv names the environment variable holding a bearer token.
	// Empty means Codex sends no Authorization header.
	APIKeyEnv string
}

// LocalConfigTOML returns the content of $CODEX_HOME/local.config.toml for
// p: the model, the provider selection and the provider table with
// wire_api = "responses" (0.169 rejects "chat" and knows no other API).
// Everything lives in the profile file so the base config.toml can stay
// empty; no [profiles.*] table is written, which 0.169 refuses.
func LocalConfigTOML(p Provider) []byte {
	var b strings.Builder
	b.WriteString("# Written by benchgate for `codex exec -p local` (Codex >= 0.134).\n")
	fmt.Fprintf(&b, "model = %s\n", tomlString(p.Model))
	fmt.Fprintf(&b, "model_provider = %s\n", tomlString(ProviderID))
	b.WriteString("\n")
	fmt.Fprintf(&b, "[model_providers.%s]\n", ProviderID)
	fmt.Fprintf(&b, "name = %s\n", tomlString("benchgate local endpoint"))
	fmt.Fprintf(&b, "base_url = %s\n", tomlString(strings.TrimRight(p.BaseURL, "/")))
	b.WriteString("wire_api = \"responses\"\n")
	if p.APIKeyEnv != "" {
		fmt.Fprintf(&b, "env_key = %s\n", tomlString(p.APIKeyEnv))
	}
	return []byte(b.String())
}

// tomlString quotes s as a TOML basic string: quotes, backslashes and
// control characters are escaped, everything else is kept as is.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

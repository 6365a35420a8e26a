package bench

import (
	"fmt"
	"regexp"
	"strings"
)

// baseEnv are the variables of benchgate's environment that the benchmark
// and fixture commands always get: what a program needs to find its
// tools, home, locale, temporary folder, proxy and certificates, the
// model keys the benchmark's agent calls its model with (the Action sets
// them from its openai-api-key and gemini-api-key inputs), and Node's and
// pnpm's own settings. A name ending in '*' is a prefix.
var baseEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_*", "TZ", "TMPDIR", "TERM", "CI",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "NODE_OPTIONS", "DOCKER_HOST",
	"PNPM_HOME", "npm_config_*", "NPM_CONFIG_*", "COREPACK_*", "XDG_*",
	"OPENAI_API_KEY", "GOOGLE_API_KEY",
}

// neverEnv are variables no child gets, whatever pass_env says: the
// job's token (the Action's github-token, which may write comments and
// pull requests) and the runner's file commands, through which a child
// could set the job's outputs, environment, PATH or summary. A token the
// benchmark needs on purpose goes under another name (docs/verify.md).
var neverEnv = []string{"GITHUB_TOKEN", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_STATE", "ACTIONS_*", "INPUT_*", "BENCHGATE_INPUTS*"}

var envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\*?$`)

// matchEnv reports whether the variable name matches one of the names
// (exact, or a prefix for a name ending in '*').
func matchEnv(name string, names []string) bool {
	for _, n := range names {
		if p, ok := strings.CutSuffix(n, "*"); ok {
			if strings.HasPrefix(name, p) {
				return true
			}
		} else if name == n {
			return true
		}
	}
	return false
}

// CheckPassEnv says what is wrong with pass_env names (field names them in messages). A prefix may
// cover a variable of neverEnv (GITHUB_* for GITHUB_REPOSITORY): ChildEnv
// leaves that one out all the same.
func CheckPassEnv(field string, names []string) error {
	for i, n := range names {
		switch {
		case !envNamePattern.MatchString(n):
			return fmt.Errorf("%s[%d]: expected a variable name (letters, digits, '_'), or a prefix ending in '*', got %q", field, i, n)
		case matchEnv(strings.TrimSuffix(n, "*"), neverEnv):
			return fmt.Errorf("%s[%d]: %s is never passed to the benchmark (the job's token and the runner's file commands); pass a token the benchmark needs under another name, such as BENCH_GH_TOKEN", field, i, n)
		}
	}
	return nil
}

// ChildEnv is the environment of the benchmark and fixture commands:
// the entries of environ (benchgate's own, KEY=VALUE) whose names are in
// baseEnv or in PassEnv, and never one in neverEnv. Env and ModeEnv add
// values of their own on top.
func (c Config) ChildEnv(environ []string) []string {
	out := []string{}
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if (matchEnv(k, baseEnv) || matchEnv(k, c.PassEnv)) && !matchEnv(k, neverEnv) {
			out = append(out, kv)
		}
	}
	return out
}

// Package codex knows how benchgate drives the Codex CLI (npm
// @openai/codex, pinned at 0.169.0): the exact unattended `codex exec`
// command line, the `-p local` profile file, the `--json` event stream and
// an endpoint preflight. Codex 0.169 changed both the profile mechanism and
// the wire API, and it retries a dead endpoint forever, so these facts live
// in one place that tests pin against the real binary.
package codex

// Profile is the only Codex profile benchgate ever selects. With Codex
// 0.134 and later `-p local` layers $CODEX_HOME/local.config.toml on top of
// config.toml; a legacy [profiles.local] table in config.toml is an error.
const Profile = "local"

// ProfileFile is the file name `-p local` reads under $CODEX_HOME.
const ProfileFile = Profile + ".config.toml"

// Version is the Codex CLI release this package is written and tested for.
const Version = "0.169.0"

// ExecOptions describes one `codex exec` invocation.
type ExecOptions struct {
	// Binary is the codex executable (a path, or "codex" to use PATH).
	Binary string
	// Workdir becomes `-C`, the agent's working root. Empty leaves the
	// process working directory in charge.
	Workdir string
	// Prompt is the instruction text, passed as one argument.
	Prompt string
	// ResumeThreadID, when set, continues that thread (`exec resume <id>`)
	// instead of starting a new one; the handoff phase uses it.
	ResumeThreadID string
	// LastMessagePath, when set, receives the agent's final message (`-o`).
	LastMessagePath string
}

// ExecArgv returns the argv for an unattended run: always `exec -p local
// --json`, no approvals and no Codex sandbox (the instance container is
// the sandbox), no git repository check, and the resume form when
// o.ResumeThreadID is set. Options go before the `resume` subcommand,
// where 0.169 accepts all of them. The positional arguments follow `--`
// so that a prompt starting with "-" is never read as a flag. Codex still
// reads a prompt of exactly "-" from stdin even after `--`, so that one
// prompt is sent as "-\n" (runners give codex an empty stdin).
func ExecArgv(o ExecOptions) []string {
	bin := o.Binary
	if bin == "" {
		bin = "codex"
	}
	argv := []string{bin, "exec",
		"-p", Profile,
		"--json",
		"--dangerously-bypass-approvals-and-sandbox",
		"--skip-git-repo-check",
		"--color", "never",
	}
	if o.Workdir != "" {
		argv = append(argv, "-C", o.Workdir)
	}
	if o.LastMessagePath != "" {
		argv = append(argv, "-o", o.LastMessagePath)
	}
	prompt := o.Prompt
	if prompt == "-" {
		prompt = "-\n"
	}
	if o.ResumeThreadID != "" {
		return append(argv, "resume", "--", o.ResumeThreadID, prompt)
	}
	return append(argv, "--", prompt)
}

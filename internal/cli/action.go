package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/benchgate/benchgate/internal/action"
	"github.com/benchgate/benchgate/internal/artifacts"
	"github.com/sethvargo/go-githubactions"
)

// runAction is the GitHub Action's entry point (the image's ENTRYPOINT is
// "benchgate action"). Everything it needs comes from the step's
// environment: INPUT_* for the options, GITHUB_* for the workspace and
// the file commands, ACTIONS_* for artifact uploads. It takes no flags.
func runAction(ctx context.Context, env *Env, args []string) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" {
			fmt.Fprintln(env.Stdout, "usage: benchgate action\n\nRuns as the GitHub Action: reads the INPUT_* variables action.yml declares, runs that mode, and writes step outputs, the job summary, annotations and artifacts. See docs/action.md.")
			return ExitOK
		}
		fmt.Fprintf(env.Stderr, "benchgate action: takes no arguments (got %q); options come from INPUT_* variables\n", args)
		return ExitUsage
	}
	gha := githubactions.New(githubactions.WithWriter(env.Stdout), githubactions.WithGetenv(env.Getenv))
	cfg := action.Config{
		GHA:    gha,
		Stdout: env.Stdout,
		Getenv: env.Getenv,
		Dir:    env.Dir,
		Now:    env.Now,
		Run: func(ctx context.Context, dir string, extra map[string]string, argv []string, stdout io.Writer) int {
			// Secrets reach the mode and the commands it starts through the
			// environment, never through argv.
			for k, v := range extra {
				os.Setenv(k, v)
			}
			child := *env
			child.Dir = dir
			child.Stdout = stdout
			if r, ok := stdout.(action.StderrRecorder); ok {
				child.Stderr = io.MultiWriter(env.Stderr, r.StderrWriter())
			}
			child.Getenv = func(k string) string {
				if v, ok := extra[k]; ok {
					return v
				}
				return env.Getenv(k)
			}
			return Main(ctx, &child, argv)
		},
	}
	if client, err := artifacts.NewClientFromEnv(env.Getenv); err != nil {
		cfg.UploadUnavailable = err
	} else {
		client.SetLogger(func(format string, a ...any) { gha.Infof(format, a...) })
		cfg.Upload = func(ctx context.Context, name, dir string) (int64, int64, error) {
			up, err := client.UploadDir(ctx, name, dir)
			// A link in a results folder may point anywhere (a planted
			// /proc/self/environ holds the job's tokens): it is never
			// followed, and the user is told which ones were left out.
			for _, link := range up.Skipped {
				gha.Warningf("artifact %s: %s is a symbolic link; left out of the upload", name, link)
			}
			return up.ID, up.Size, err
		}
	}
	return action.Run(ctx, cfg)
}

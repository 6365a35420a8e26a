package action

import (
	"context"
	"fmt"

	"github.com/sethvargo/go-githubactions"

	"github.com/benchgate/benchgate/internal/artifacts"
	"github.com/benchgate/benchgate/internal/cli"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// RunStep is "benchgate action" once the command line has read the
// step's inputs (cli.Env.Action): it builds the adapter's Config from the
// step, with the artifact client when the runner offers uploads, and
// runs it. The adapter depends on the command line, never the other way.
func RunStep(ctx context.Context, step *cli.ActionStep) int {
	gha := githubactions.New(githubactions.WithWriter(step.Stdout), githubactions.WithGetenv(step.Getenv))
	cfg := Config{
		Environ:        step.Environ,
		InputsFromJSON: step.InputsFromJSON,
		InputNames:     step.InputNames,
		GHA:            gha,
		Stdout:         step.Stdout,
		Getenv:         step.Getenv,
		Dir:            step.Dir,
		Now:            step.Now,
		Run:            step.RunMode,
	}
	if client, err := artifacts.NewClientFromEnv(step.Getenv); err != nil {
		cfg.UploadUnavailable = err
	} else {
		// Its lines name files of the results folder, which the mode's
		// children may have named.
		client.SetLogger(func(format string, a ...any) { gha.Infof("%s", textfmt.LogLine(fmt.Sprintf(format, a...))) })
		cfg.Upload = func(ctx context.Context, name, dir string, exclude []string) (int64, int64, error) {
			up, err := client.UploadDirExcept(ctx, name, dir, exclude)
			// A link in a results folder may point anywhere (a planted
			// /proc/self/environ holds the job's tokens) and a FIFO would
			// block the upload: neither is read, and the user is told
			// which files were left out.
			for _, sk := range up.Skipped {
				gha.Warningf("artifact %s: %s is a %s; left out of the upload", name, sk.Path, sk.Kind)
			}
			return up.ID, up.Size, err
		}
	}
	return Run(ctx, cfg)
}

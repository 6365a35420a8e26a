package action

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/benchgate/benchgate/internal/verify"
)

// runFolder is the folder that holds the whole run: the out-dir, or the
// run root a SWE-bench batch chose below it.
func runFolder(p *Plan, res *results) string {
	if res.Batch != nil {
		return res.Batch.Root
	}
	return p.OutDir
}

type artifact struct {
	Name, Dir string
	// Exclude are paths below Dir that are not part of this artifact.
	Exclude  []string
	ID, Size int64
	Err      error
}

var badArtifactChars = regexp.MustCompile(`[":<>|*?\r\n\\/\s]+`)

func (r *reporter) artifactName(prefix, part string) string {
	name := prefix
	if job := r.cfg.Getenv("GITHUB_JOB"); job != "" {
		name += "-" + job
	}
	if at := r.cfg.Getenv("GITHUB_RUN_ATTEMPT"); at != "" && at != "1" {
		name += "-attempt" + at
	}
	return badArtifactChars.ReplaceAllString(name+"-"+part, "-")
}

// upload sends one artifact per set folder and one for the whole run. A
// SWE-bench run root is one artifact, instance folders included: it is
// what `swebench merge` reads back, so a shard's artifact must be whole,
// and an instance artifact beside it would upload every instance twice.
// A failure is a warning: the results are still on disk, in the summary
// and in the outputs.
func (r *reporter) upload(ctx context.Context, p *Plan, res *results) []artifact {
	if !p.Upload {
		return nil
	}
	var want []artifact
	runDir, runPart := runFolder(p, res), "run"
	for _, s := range res.Sets {
		if s.Dir != runDir {
			want = append(want, artifact{Name: r.artifactName(p.ArtifactPrefix, s.Tracking.Set), Dir: s.Dir})
		} else {
			// set mode: the run folder is the set folder; name it so.
			runPart = s.Tracking.Set
		}
	}
	if runDir != "" {
		if info, err := os.Stat(runDir); err == nil && info.IsDir() {
			// The run artifact holds what the per-set artifacts do
			// not: the consolidated summary, the manifest.
			run := artifact{Name: r.artifactName(p.ArtifactPrefix, runPart), Dir: runDir}
			for _, w := range want {
				if rel, err := filepath.Rel(runDir, w.Dir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
					run.Exclude = append(run.Exclude, filepath.ToSlash(rel))
				}
			}
			want = append(want, run)
		}
	}
	for i := range want {
		want[i].Exclude = append(want[i].Exclude, verify.LockFile)
	}
	if len(want) == 0 {
		return nil
	}
	if r.cfg.Upload == nil {
		reason := "no artifact service configured"
		if r.cfg.UploadUnavailable != nil {
			reason = r.cfg.UploadUnavailable.Error()
		}
		r.a.Warningf("artifacts not uploaded (%s); results stay in %s", reason, r.rel(runDir))
		return nil
	}
	for i := range want {
		w := &want[i]
		w.ID, w.Size, w.Err = r.cfg.Upload(ctx, w.Name, w.Dir, w.Exclude)
		if w.Err != nil {
			r.a.WithFieldsMap(map[string]string{"title": "artifact " + w.Name}).Warningf("upload of %s failed: %v; the files stay in %s", w.Name, w.Err, r.rel(w.Dir))
		}
	}
	return want
}

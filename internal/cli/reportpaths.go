package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/lookback"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/runrecord"
)

// outputIsInput names the first output of report that is one of its
// inputs: a suite file, the expectations file, or a file the baseline or
// history was read from. Every write is atomic, so the input would be
// replaced whole by a summary: the suite rows would be gone. Paths are
// compared as files (after resolving links, hard links included), and
// an output that does not exist yet cannot be an input.
func outputIsInput(env *Env, opts report.Options, x *lookback.Options) string {
	inputs, outputs := report.Files(opts)
	for _, f := range []*runrecord.Folder{x.Base, x.Past} {
		if f == nil {
			continue
		}
		for _, r := range f.Runs {
			inputs = append(inputs, report.NamedFile{Option: "", Path: r.Source})
		}
		for _, s := range f.Summaries {
			inputs = append(inputs, report.NamedFile{Option: "", Path: s.Path})
		}
	}
	for i := range inputs {
		switch {
		case inputs[i].Option != "":
		case x.Base != nil && contains(x.Base, inputs[i].Path):
			inputs[i].Option = "baseline"
		default:
			inputs[i].Option = "history"
		}
	}
	if x.RunRecord != "" {
		outputs = append(outputs, report.NamedFile{Option: "run_record", Path: abs(env, x.RunRecord)})
	}
	if x.Baseline != "" || x.History != "" {
		dir := filepath.Dir(outputs[0].Path)
		outputs = append(outputs, report.NamedFile{Option: "stats_json", Path: filepath.Join(dir, StatsJSONName)},
			report.NamedFile{Option: "stats_md", Path: filepath.Join(dir, StatsMDName)})
	}
	for _, out := range outputs {
		oi, err := os.Stat(out.Path)
		if err != nil {
			continue
		}
		for _, in := range inputs {
			if ii, err := os.Stat(in.Path); err == nil && os.SameFile(oi, ii) {
				return fmt.Sprintf("%s %s is the input %s %s (the same file); the output would replace it: give an output path that is none of the inputs",
					flagName(out.Option), out.Path, flagName(in.Option), in.Path)
			}
		}
	}
	return ""
}

func contains(f *runrecord.Folder, path string) bool {
	for _, r := range f.Runs {
		if r.Source == path {
			return true
		}
	}
	for _, s := range f.Summaries {
		if s.Path == path {
			return true
		}
	}
	return false
}

// flagName is the command line's name of a report option key.
func flagName(key string) string {
	if f, ok := reportFlags[key]; ok {
		return f
	}
	b := []byte(key)
	for i, c := range b {
		if c == '_' {
			b[i] = '-'
		}
	}
	return "--" + string(b)
}

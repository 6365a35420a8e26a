package report

// NamedFile is a file Run reads or writes, with the option that names it
// (summary_json, suite_jsonl, ...), for messages.
type NamedFile struct {
	Option string
	Path   string
}

// Files returns the files Run would read (the suites, after discovery,
// and the expectations file) and write (the summaries and, with stats,
// the stats files) for opts, as absolute paths. Callers check them
// against each other before Run, so that no output replaces an input.
// Discovery errors are left for Run to report.
func Files(opts Options) (inputs, outputs []NamedFile) {
	if paths, err := suitePaths(opts); err == nil {
		for _, p := range paths {
			inputs = append(inputs, NamedFile{"suite_jsonl", p})
		}
	}
	inputs = append(inputs, NamedFile{"expectations_config", resolvePath(opts.Dir, orDefault(opts.ExpectationsConfig, "config/expectations.json"))})
	summaryJSON := resolvePath(opts.Dir, orDefault(opts.SummaryJSON, "reports/latest-summary.json"))
	outputs = append(outputs, NamedFile{"summary_json", summaryJSON},
		NamedFile{"summary_md", resolvePath(opts.Dir, orDefault(opts.SummaryMD, "reports/latest-summary.md"))})
	if opts.Stats.Enabled {
		j, m := statsPaths(opts.Stats, opts.Dir, summaryJSON)
		outputs = append(outputs, NamedFile{"stats_json", j}, NamedFile{"stats_md", m})
	}
	return inputs, outputs
}

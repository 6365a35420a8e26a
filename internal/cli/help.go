package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// Help is what a command's --help teaches: how to call it, what it does,
// its flags in groups, and examples that run as written (a test runs
// every one of them).
type Help struct {
	// Usage lines, each a synopsis: "benchgate set --set <name> --provider <id> [flags]".
	Usage []string
	// About is one paragraph on what the command does.
	About string
	// Groups name the flags by what they are for; a flag in no group is
	// listed under "Other flags".
	Groups []FlagGroup
	// Examples are two or three commands with what each does.
	Examples []Example
}

// FlagGroup is a titled list of flag names.
type FlagGroup struct {
	Title string
	Flags []string
}

// Example is one command line of a help text. Needs, when set, says
// what outside the repository it needs to do its work (a Docker engine,
// a model endpoint); the test then checks that its flags parse.
type Example struct {
	Comment string
	Command string
	Needs   string
}

// Write prints the help for the flags of fs.
func (h Help) Write(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintln(w, "Usage:")
	for _, u := range h.Usage {
		fmt.Fprintf(w, "  %s\n", u)
	}
	fmt.Fprintf(w, "\n%s\n", wrap(h.About, 78))
	if fs != nil {
		seen := map[string]bool{}
		groups := append([]FlagGroup(nil), h.Groups...)
		var rest []string
		fs.VisitAll(func(f *pflag.Flag) {
			for _, g := range h.Groups {
				for _, n := range g.Flags {
					if n == f.Name {
						return
					}
				}
			}
			rest = append(rest, f.Name)
		})
		if len(rest) > 0 {
			groups = append(groups, FlagGroup{Title: "Other flags", Flags: rest})
		}
		for _, g := range groups {
			set := pflag.NewFlagSet(g.Title, pflag.ContinueOnError)
			set.SortFlags = true
			for _, n := range g.Flags {
				if f := fs.Lookup(n); f != nil && !f.Hidden && !seen[n] {
					set.AddFlag(f)
					seen[n] = true
				}
			}
			if !set.HasFlags() {
				continue
			}
			fmt.Fprintf(w, "\n%s:\n%s", g.Title, set.FlagUsagesWrapped(100))
		}
	}
	if len(h.Examples) > 0 {
		fmt.Fprintln(w, "\nExamples:")
		for i, e := range h.Examples {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "  # %s\n  %s\n", e.Comment, e.Command)
		}
	}
}

// wrap breaks text into lines of at most width characters.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for _, word := range strings.Fields(text) {
		if n > 0 && n+1+len(word) > width {
			b.WriteByte('\n')
			n = 0
		} else if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

// helpFor is the help of the flag set named name ("set", "swebench
// batch"); ok is false for a name without one.
func helpFor(name string) (Help, bool) {
	h, ok := helps()[name]
	return h, ok
}

// verifyGroups are the flag groups set and ordered share.
func verifyGroups(selection ...string) []FlagGroup {
	return []FlagGroup{
		{Title: "What to run", Flags: append(selection, "provider", "model", "repetitions")},
		{Title: "The benchmark", Flags: []string{"config", "bench-dir", "fixture-manifest", "benchmark-timeout", "skip-preflight", "pass-env"}},
		{Title: "Judging", Flags: []string{"gate-profile", "stats", "baseline", "baseline-tolerance", "history", "history-window", "run-record"}},
		{Title: "Output", Flags: []string{"out-dir", "progress-md", "quiet"}},
	}
}

func helps() map[string]Help {
	const suites = "--suite-jsonl results/agent_direct-suite.jsonl --suite-jsonl results/ghx-suite.jsonl"
	swebenchRunFlags := []string{"max-loops", "phase-timeout", "idle-timeout", "instance-timeout", "max-tokens"}
	swebenchAgent := []string{"base-url", "model", "api-key-env", "codex-binary", "codex-config", "prompts-dir", "env"}
	swebenchImage := []string{"dataset-file", "image-template", "code-dir", "network"}
	return map[string]Help{
		"report": {
			Usage: []string{"benchgate report --suite-jsonl <file>... [--gate] [--gate-profile verify_pr|verify_release] [flags]"},
			About: "Reads the suite JSONL rows of the benchmark's modes, computes Metric System v2 (per-mode summary, reliability and efficiency gate) and writes the summary JSON and Markdown. Without --suite-jsonl it takes the newest results/*-<mode>-suite.jsonl of each mode. It exits 0 when it wrote the summaries, 1 only when --gate is given and the gate fails, 2 on bad flags or rows it cannot read.",
			Groups: []FlagGroup{
				{Title: "Input", Flags: []string{"suite-jsonl", "skip-bad-rows", "expectations-config", "expectations-model"}},
				{Title: "Gate", Flags: []string{"gate", "gate-profile", "stats", "stats-confidence", "stats-scope", "stats-benchmark-scenarios", "stats-allow-undecided", "plan"}},
				{Title: "Against earlier runs", Flags: []string{"baseline", "baseline-tolerance", "history", "history-window", "run-record"}},
				{Title: "Output", Flags: []string{"summary-json", "summary-md", "stats-json", "stats-md"}},
			},
			Examples: []Example{
				{Comment: "summary of two suite files, written to reports/latest-summary.{json,md}", Command: "benchgate report " + suites},
				{Comment: "fail (exit 1) when the release gate does not pass", Command: "benchgate report " + suites + " --gate --gate-profile verify_release --summary-md out/summary.md --summary-json out/summary.json"},
				{Comment: "add the statistical gate and keep a run record for a later --baseline", Command: "benchgate report " + suites + " --stats --run-record out/run-record.json --summary-json out/s.json --summary-md out/s.md"},
			},
		},
		"set": {
			Usage:  []string{"benchgate set --set <name> --provider <id> [flags]"},
			About:  "Verifies one scenario set: runs the benchmark's two modes at once over the set's scenarios, judges every row (success, output_valid, error null, one row per scenario and iteration), reruns the failing scenarios at most twice, regenerates the summaries from the merged rows and writes tracking.json. While the benchmark runs it prints a progress line per batch of new rows and at least every 30 s. Run it in the benchmark package, or point at it with --bench-dir or --config. Exit 0 when the set passes, 1 when it does not, 2 for bad flags or bad setup (nothing is written then).",
			Groups: verifyGroups("set", "scenario-id"),
			Examples: []Example{
				{Comment: "one set with the simulator's contract (bench.json; without --config: the pnpm scripts of @ghx-dev/benchmark)", Command: "benchgate set --config bench.json --set pr-exec --provider openai --model gpt-5.1-codex-mini"},
				{Comment: "rerun chosen scenarios of a set", Command: "benchgate set --config bench.json --set issues --provider openai --scenario-id issue-close-001 --scenario-id issue-reopen-001"},
				{Comment: "two repetitions with the statistical gate recorded, no progress lines", Command: "benchgate set --config bench.json --set ci-diagnostics --provider openai --repetitions 2 --stats --quiet"},
			},
		},
		"ordered": {
			Usage:  []string{"benchgate ordered --provider <id> [flags]"},
			About:  "Verifies the nine scenario sets in their fixed order: checks the shared fixture manifest once, runs each set as `benchgate set` does (progress lines name its place, set 3 of 9), stops at the first set that does not pass, writes the consolidated summary over the set folders, cleans the fixtures up and hands over the canonical confirmation commands (run with --confirm). Exit 0 when every set passed, 1 when one did not, 2 for bad flags or bad setup.",
			Groups: append(verifyGroups(), FlagGroup{Title: "After the sets", Flags: []string{"cleanup-on-failure", "confirm"}}),
			Examples: []Example{
				{Comment: "the nine sets with the simulator's contract", Command: "benchgate ordered --config bench.json --provider openai --model gpt-5.1-codex-mini"},
				{Comment: "into a folder of your own, with a table of finished sets kept up to date", Command: "benchgate ordered --config bench.json --provider openai --out-dir reports/nightly --progress-md reports/progress.md"},
				{Comment: "run the canonical confirmation commands after the sets passed", Command: "benchgate ordered --config bench.json --provider openai --repetitions 2 --confirm"},
			},
		},
		"qa-audit": {
			Usage: []string{"benchgate qa-audit [flags] <question file or folder>..."},
			About: "Proves or disproves every option of every benchmark question by running generated pytest files in a sandbox (no network), decides Valid, Ambiguous, Incorrect or Inconclusive in code, remediates flawed multiple-choice questions and, with --open-prs, opens pull requests with the fixed files. api_understanding and fix_error questions are checked by execution alone and need no model. A model endpoint that does not answer the check call (wrong URL, key or model) ends the run with exit 2 before any question is judged. Exit 0 when every audited question is Valid, 1 when one is not, 2 on bad flags or bad setup.",
			Groups: []FlagGroup{
				{Title: "What to audit", Flags: []string{"definitions", "case", "kinds", "repo-root"}},
				{Title: "Sandbox", Flags: []string{"python", "require-module", "image", "docker-host", "test-timeout", "case-timeout"}},
				{Title: "Model", Flags: []string{"model-backend", "model", "model-url", "api-key-env", "model-timeout", "model-call-budget", "max-consecutive-model-failures", "max-proof-iterations", "max-remediations", "jobs"}},
				{Title: "Pull requests", Flags: []string{"open-prs", "dry-run", "repo", "base-branch", "pr-grouping", "pr-labels", "run-id", "github-api-url"}},
				{Title: "Output", Flags: []string{"out-dir"}},
			},
			Examples: []Example{
				{Comment: "check the api_understanding and fix_error questions by execution (no model)", Command: "benchgate qa-audit --python .venv/bin/python --kinds api_understanding,fix_error benchmarks/", Needs: "a Python with pytest and the benchmark's library, and question files"},
				{Comment: "every question, with an OpenAI-compatible endpoint", Command: "benchgate qa-audit --python .venv/bin/python --model-backend openai --model-url http://127.0.0.1:8000/v1 --model qwen3-coder benchmarks/", Needs: "a model endpoint"},
				{Comment: "write the pull requests it would open, without calling GitHub", Command: "benchgate qa-audit --python .venv/bin/python --open-prs --dry-run --out-dir qa-audit benchmarks/", Needs: "a Gemini key in GEMINI_API_KEY"},
			},
		},
		"drift": {
			Usage: []string{"benchgate drift --history <folder> [--out-dir <folder>] [--fail-on none|worse|any] [flags]"},
			About: "Reads every run record (run-record.json, written by report --run-record) and suite file under --history, at any depth, orders the runs by when they started and finds where each metric changed level (median active tokens, median wall latency, median tool calls, success rate) for each mode and for the ghx/agent_direct ratio, over the suite and each scenario, with a forward scan whose splits a permutation test judges (docs/drift.md). Each change point names the last run before and the first run after, their commits and the range between them, the levels on each side and the shift with a 95% interval. It writes drift.json and drift.md in --out-dir. A row or record it cannot read stops it with the file, line and field. Exit 0 once it wrote them, also when it found change points; 1 only when --fail-on asks and an open change point matches; 2 on bad flags or input.",
			Groups: []FlagGroup{
				{Title: "Input", Flags: []string{"history", "suite-only", "repo"}},
				{Title: "Method", Flags: []string{"alpha", "min-runs", "seed"}},
				{Title: "Output", Flags: []string{"out-dir", "fail-on"}},
			},
			Examples: []Example{
				{Comment: "change points of the runs kept under results/, written to drift/drift.{json,md}", Command: "benchgate drift --history results"},
				{Comment: "fail (exit 1) when a metric changed for the worse, with commits linked to the repository", Command: "benchgate drift --history results --out-dir out/drift --fail-on worse --repo octo/bench"},
			},
		},
		"pr-comment": {
			Usage: []string{"benchgate pr-comment --file <pr-comment.json> --head-sha <sha> --workflow <name> [--repo owner/name]"},
			About: "Posts the pull-request comment a run kept in its artifact (pr-comment.json: the run's verdict as data), updating the run's earlier comment in place. It is the second stage for pull requests from forks, whose own run has a read-only token: a workflow_run workflow with a token that can write downloads the file and runs this. The file is checked strictly and must name this repository and the head commit of the run that left it; the comment is rendered here from the verdict, with every text in it inert, and posted only while the pull request's head is that commit. Without --head-sha and --workflow (the workflow_run event's head_sha and workflow name) nothing is posted.",
			Examples: []Example{
				{Comment: "post the comment of a downloaded artifact, bound to the workflow_run that left it", Command: "benchgate pr-comment --file pr-comment.json --repo octo/bench --head-sha 0123456789abcdef0123456789abcdef01234567 --workflow 'benchmark comment'", Needs: "GITHUB_TOKEN and a pull request"},
				{Comment: "the same with a GitHub App's installation token, whose comments are its bot's", Command: "benchgate pr-comment --file pr-comment.json --head-sha 0123456789abcdef0123456789abcdef01234567 --workflow 'benchmark comment' --author 'bench-bot[bot]'", Needs: "GITHUB_TOKEN, GITHUB_REPOSITORY and a pull request"},
			},
		},
		"swebench run": {
			Usage: []string{"benchgate swebench run --instance-id <id> [flags]"},
			About: "Solves one SWE-bench instance: starts its container, drives `codex exec -p local` through plan, execute and handoff phases (the Ralph loop) until the agent is done or a budget is spent, and writes the instance's patch, status.json and logs. Exit 0 for a finished instance, 1 for a failed one, 20 when it ended incomplete, 2 for bad flags.",
			Groups: []FlagGroup{
				{Title: "Instance", Flags: append([]string{"instance-id", "output-dir", "manifest-dir"}, swebenchImage...)},
				{Title: "Agent", Flags: append([]string{"skip-preflight"}, swebenchAgent...)},
				{Title: "Budgets", Flags: swebenchRunFlags},
			},
			Examples: []Example{
				{Comment: "one instance against a local Responses API endpoint", Command: "benchgate swebench run --instance-id apache__druid-13704 --dataset-file examples/swebench/instances.jsonl --base-url http://127.0.0.1:8000/v1 --output-dir out/apache__druid-13704", Needs: "a Docker engine with the instance image and a model endpoint"},
				{Comment: "with a Codex CLI mounted into an image that has none, and a token budget", Command: "benchgate swebench run --instance-id apache__druid-13704 --dataset-file examples/swebench/instances.jsonl --codex-binary codex --max-tokens 2000000 --base-url http://127.0.0.1:8000/v1", Needs: "a Docker engine with the instance image, codex in PATH and a model endpoint"},
			},
		},
		"swebench batch": {
			Usage: []string{"benchgate swebench batch [--instance-file <file>] [--shard i/n] [flags]"},
			About: "Runs `swebench run` over many instances (by default the SWE-bench Multilingual test split) one after another into a timestamped run root, checks the model endpoint first, stops after repeated endpoint failures, and writes predictions.jsonl for the harness. --shard splits the sorted instances over a matrix of runners (join them with `swebench merge`); --resume skips the instances an earlier batch finished.",
			Groups: []FlagGroup{
				{Title: "Instances", Flags: append([]string{"instance-file", "shard", "slice", "filter", "resume", "retry-failed"}, swebenchImage...)},
				{Title: "Agent", Flags: append([]string{"skip-preflight", "max-consecutive-endpoint-failures"}, swebenchAgent...)},
				{Title: "Budgets", Flags: swebenchRunFlags},
				{Title: "Output", Flags: []string{"results-dir", "progress-md", "fail-on"}},
			},
			Examples: []Example{
				{Comment: "the instances of a file (it is also their problem statements)", Command: "benchgate swebench batch --instance-file examples/swebench/instances.jsonl --base-url http://127.0.0.1:8000/v1 --model qwen3-coder-next-FP8", Needs: "a Docker engine with the instance images and a model endpoint"},
				{Comment: "one runner of two in a matrix", Command: "benchgate swebench batch --instance-file examples/swebench/instances.jsonl --shard 1/2 --base-url http://127.0.0.1:8000/v1", Needs: "a Docker engine with the instance images and a model endpoint"},
				{Comment: "run again the instances an earlier batch failed with a runtime error", Command: "benchgate swebench batch --resume results/phase5/ralph-codex-local/20260101T000000Z --retry-failed runtime_error --base-url http://127.0.0.1:8000/v1", Needs: "an earlier batch's run root, a Docker engine and a model endpoint"},
				{Comment: "once its image is built, run again one instance that failed with missing_image; the run root keeps every instance", Command: "benchgate swebench batch --resume results/phase5/ralph-codex-local/20260101T000000Z --retry-failed missing_image --filter '^apache__druid-13704$' --base-url http://127.0.0.1:8000/v1", Needs: "an earlier batch's run root, a Docker engine and a model endpoint"},
			},
		},
		"swebench prepare-images": {
			Usage: []string{"benchgate swebench prepare-images (--instance-id <id> | --instance-file <file>) [flags]"},
			About: "Builds a new image over each instance image, tagged as the same image, that holds the Codex CLI of --codex-binary at /usr/local/bin/codex (and --codex-config), so that runs need not mount it; an image that already holds the same binary and config is left as it is. --dry-run lists the images it would build. Runs never need it: without it they mount the runner's codex read-only.",
			Examples: []Example{
				{Comment: "list the images of a file's instances", Command: "benchgate swebench prepare-images --instance-file examples/swebench/instances.jsonl --dry-run", Needs: "a Docker engine"},
				{Comment: "build the Codex CLI from PATH into one instance's image", Command: "benchgate swebench prepare-images --instance-id apache__druid-13704 --codex-binary codex", Needs: "a Docker engine with the instance image"},
			},
		},
		"swebench merge": {
			Usage: []string{"benchgate swebench merge --output-dir <folder> <run root>..."},
			About: "Joins the run roots of a sharded batch into one predictions.jsonl and one summary. It knows from the shards' manifests which shards to expect and refuses to merge with one missing unless --allow-missing-shards.",
			Examples: []Example{
				{Comment: "join the run roots of two shards", Command: "benchgate swebench merge --output-dir merged shard-1/run shard-2/run", Needs: "the run roots of the shards"},
				{Comment: "join shards whose batches were started with different filters, saying so", Command: "benchgate swebench merge --allow-scope-mismatch --output-dir merged shard-1/run shard-2/run", Needs: "the run roots of the shards"},
				{Comment: "merge what arrived, and fail when an instance failed", Command: "benchgate swebench merge --output-dir merged --allow-missing-shards --fail-on failed shard-1/run", Needs: "the run root of a shard"},
			},
		},
	}
}

// swebenchHelp lists the subcommands of benchgate swebench.
const swebenchHelp = `Usage:
  benchgate swebench <subcommand> [flags]

SWE-bench predictions with a plan / execute / handoff loop driving
codex exec -p local inside each instance's container (docs/swebench.md).

Subcommands:
  run             solve one instance
  batch           solve many instances, one after another (a shard of them with --shard)
  prepare-images  build the Codex CLI into the instance images (optional)
  merge           join the run roots of a sharded batch

Run 'benchgate swebench <subcommand> --help' for its flags and examples.

Examples:
  # the flags and examples of the batch
  benchgate swebench batch --help

  # the flags and examples of one instance's run
  benchgate swebench run --help
`

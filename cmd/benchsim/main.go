// Command benchsim simulates the benchmark CLI contract benchgate drives:
// "benchmark <mode> <repetitions> --provider --model --output-jsonl
// [--scenario-set <set> | --scenario <id>...]" writing one suite JSONL row
// per scenario and iteration from the scenario files' data, and
// "fixtures status|seed|cleanup --out <path> [--seed-id <id>]". A
// failures file injects the failures benchgate must handle: a scenario
// that fails on the full-set run and passes when rerun, one that always
// fails, a mode that writes zero rows, a crash, a hang, a malformed row.
//
// It is the embedded default of scripts/demo.sh and the benchmark of
// benchgate's end-to-end tests.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

func run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: benchsim benchmark|fixtures|confirm ...")
		return 2
	}
	root := getenv("BENCHSIM_ROOT")
	if root == "" {
		root = "."
	}
	// `pnpm run <script> -- <args>` hands the script its own command
	// followed by the separator (pnpm 7 and later keep it): a package.json
	// script "benchsim benchmark" gets `benchmark -- ghx 1 ...`. The
	// benchmark's own CLI drops it, so the simulator does too.
	rest := args[1:]
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	var err error
	switch args[0] {
	case "benchmark":
		err = runBenchmark(rest, root, stdout, stderr, getenv)
	case "fixtures":
		err = runFixtures(rest, stdout, func(action string) error { return fixturesFailure(root, getenv, action) })
	case "confirm":
		err = runConfirm(rest, stdout, getenv)
	default:
		err = fmt.Errorf("unknown command %q (expected benchmark, fixtures or confirm)", args[0])
	}
	if err != nil {
		fmt.Fprintln(stderr, "benchsim:", err)
		return 1
	}
	return 0
}

func runConfirm(args []string, stdout io.Writer, getenv func(string) string) error {
	if len(args) != 1 || (args[0] != "verify_pr" && args[0] != "verify_release") {
		return fmt.Errorf("confirm: expected verify_pr or verify_release, got %q", args)
	}
	fmt.Fprintf(stdout, "confirmation %s on %s/%s: ok\n", args[0], getenv("BENCH_PROVIDER_ID"), getenv("BENCH_MODEL_ID"))
	return nil
}

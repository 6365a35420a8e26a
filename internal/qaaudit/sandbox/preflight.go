package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// Interpreter is what a preflight learned of the local Python.
type Interpreter struct {
	Python  string   // the interpreter run
	Version string   // Python's version, e.g. 3.11.2
	Pytest  string   // pytest's version
	Missing []string // required modules that do not import, with the error
	// Notes lists what of the sandbox is missing here without weakening
	// its isolation (a /proc of its own).
	Notes []string
}

// preflightScript prints one JSON object: the versions, and for each
// module named on the command line the import error, if any.
const preflightScript = `import importlib, json, sys
out = {"python": sys.version.split()[0], "pytest": None, "missing": []}
try:
    import pytest
    out["pytest"] = pytest.__version__
except Exception as e:
    out["pytest_error"] = "%s: %s" % (type(e).__name__, e)
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except Exception as e:
        out["missing"].append("%s (%s: %s)" % (name, type(e).__name__, e))
print(json.dumps(out))
`

// Preflight checks the local interpreter once, before any case runs: it
// must start and import pytest (without it every test would end as
// "pytest exited 1 but wrote no readable JUnit report"), and it reports
// which of the required modules (the benchmark's library) do not import.
// With Image set there is nothing to check here. An error about the
// interpreter is an exitcode.OptionError of the option "python".
func (r *Runner) Preflight(ctx context.Context, require []string) (Interpreter, error) {
	it := Interpreter{Python: r.python()}
	if r.Image != "" {
		return it, nil
	}
	dir, err := os.MkdirTemp(r.WorkDir, "qa_preflight_")
	if err != nil {
		return it, fmt.Errorf("sandbox preflight: %w", err)
	}
	defer os.RemoveAll(dir)
	var out limitedBuffer
	out.limit = 64 << 10
	// Through the sandbox's bootstrap, so that a sandbox the kernel
	// refuses is known before the first case, and no test runs.
	res, st, err := r.runBootstrap(ctx, dir, r.environment(dir), append([]string{"-c", preflightScript}, require...), &out, max(time.Minute, r.timeout()))
	if err != nil {
		return it, exitcode.Optionf("python", " %s: cannot run it: %w", r.python(), err)
	}
	if !st.ready && len(st.refused) == 0 {
		return it, exitcode.Optionf("python", " %s: exited %d before its sandbox was ready: %s", r.python(), res.ExitCode, textfmt.KeepEnds(strings.TrimSpace(string(out.Bytes())), 500))
	}
	if !st.ready {
		return it, fmt.Errorf("the kernel refused the local sandbox (%s), so no test runs here: run the tests in a container (%w), or, knowing that a test can then read this machine's files and reach its network, choose %w",
			st.why(), exitcode.Optionf("image", " IMAGE"), exitcode.Optionf("sandbox", " none"))
	}
	it.Notes = st.notes
	r.cgroup, r.noCgroup = st.cgroup, st.noCgroup
	text := strings.TrimSpace(string(out.Bytes()))
	var got struct {
		Python      string   `json:"python"`
		Pytest      *string  `json:"pytest"`
		PytestError string   `json:"pytest_error"`
		Missing     []string `json:"missing"`
	}
	last := text[strings.LastIndexByte(text, '\n')+1:]
	if res.ExitCode != 0 || json.Unmarshal([]byte(last), &got) != nil {
		return it, exitcode.Optionf("python", " %s: exited %d without reporting its versions: %s", r.python(), res.ExitCode, textfmt.KeepEnds(text, 500))
	}
	it.Version, it.Missing = got.Python, got.Missing
	if got.Pytest == nil {
		return it, exitcode.Optionf("python", " %s (Python %s): pytest is not importable (%s); install pytest into that interpreter (python -m pip install pytest) or name another interpreter", r.python(), got.Python, got.PytestError)
	}
	it.Pytest = *got.Pytest
	return it, nil
}

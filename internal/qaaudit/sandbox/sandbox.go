// Package sandbox runs one generated pytest file per option of a
// benchmark question and classifies the result, so that only a clean pass
// or a clean assertion failure ever counts as evidence about the option.
//
// Each test runs in its own temporary folder, with a scrubbed environment
// (no tokens reach generated code), a wall-clock timeout that kills the
// whole process group, and its results read from pytest's JUnit XML. The
// interpreter is either a Python on this machine (typically a virtualenv
// with the benchmark's library installed) or a container image run with no
// network.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// Status classifies how one test run ended.
type Status string

// The statuses of a test run. Only StatusPassed and StatusFailed are
// evidence about the option.
const (
	StatusPassed          Status = "passed"           // exit 0, every test passed: the option is true
	StatusFailed          Status = "failed"           // exit 1, assertion or exception in a test body: the option is false
	StatusError           Status = "error"            // setup/teardown error, internal or usage error, crash, unreadable report
	StatusTimeout         Status = "timeout"          // killed at the timeout
	StatusCollectionError Status = "collection_error" // exit 2: syntax or import error, interrupted
	StatusNoTests         Status = "no_tests"         // exit 5: nothing collected
	StatusSkipped         Status = "skipped"          // every test skipped or xfailed
)

// Runner runs option tests. The zero value runs "python3" from PATH with a
// 60-second timeout.
type Runner struct {
	// Python is the interpreter: a path on this machine, or the command
	// inside Image. Empty means "python3".
	Python string
	// Wrapper is an argv prefix for the local interpreter, e.g.
	// ["unshare", "--net", "--"] (as root) or ["bwrap", ...], to take the
	// network away from tests that run on this machine. Ignored with Image.
	Wrapper []string
	// Image, when set, runs each test in a fresh container of this image
	// with --network none through the Docker Engine API.
	Image string
	// DockerHost is the engine for Image (a unix:// DOCKER_HOST); empty
	// means the default socket.
	DockerHost string
	// Timeout bounds each test run; zero means DefaultTimeout.
	Timeout time.Duration
	// AllowEnv names parent environment variables passed to the test
	// besides the fixed minimal set (PATH, LANG, HOME=<temp>,
	// PYTHONDONTWRITEBYTECODE=1). Never list secrets here.
	AllowEnv []string
	// Env adds fixed KEY=VALUE entries, e.g. PYTHONPATH of a checkout.
	Env []string
	// WorkDir is the parent of the per-test temporary folders; empty
	// means the system temporary folder.
	WorkDir string
	// Keep leaves each test's folder in place after the run (the report
	// links the test files); otherwise it is removed.
	Keep bool
	// OutputLimit caps Outcome.Output in bytes; zero means DefaultOutputLimit.
	OutputLimit int
	// Getenv reads the parent environment; nil means os.Getenv.
	Getenv func(string) string
	// Limits bound each local test's memory, CPU time, file size and
	// processes (zero fields: the defaults).
	Limits Limits
	// NoSandbox runs a local test without namespaces of its own (the
	// limits still hold): it can read this machine's files and reach its
	// network. Only an explicit choice sets it; where the kernel refuses
	// the sandbox, a local test otherwise does not run at all.
	NoSandbox bool
	// Secrets are values (the job's tokens and keys) replaced by "***"
	// wherever a test's output or message is kept: a test never gets
	// them from its environment or the file system, but a test without
	// the sandbox, or in an image that holds one, could print one.
	Secrets []string

	// cgroup and noCgroup are what the preflight learned: whether a test
	// gets a cgroup of its own here, and why not.
	cgroup, noCgroup string
}

// Defaults of a zero Runner.
const (
	DefaultTimeout     = 60 * time.Second
	DefaultOutputLimit = 8 << 10
)

// MessageLimit bounds Outcome.Message and each case's message in bytes.
const MessageLimit = 2000

// mask replaces every secret of r in s.
func (r *Runner) mask(s string) string {
	for _, sec := range r.Secrets {
		if len(sec) >= 6 {
			s = strings.ReplaceAll(s, sec, "***")
		}
	}
	return s
}

// TestSpec is one option's test file.
type TestSpec struct {
	CaseID string // the question's id (any text; sanitised for folder names)
	Option string // the option key: letters, digits and underscores
	Source []byte // the content of test_option_<Option>.py
	// SupportFiles are extra files (relative paths) written beside the
	// test, e.g. the question's code snippet as a module.
	SupportFiles map[string][]byte
	// FileName, when set, names the test file instead of
	// test_option_<Option>.py: a benchmark's own test keeps its name, since
	// pytest collects by name and the test may refer to it.
	FileName string
}

// Outcome is how one option test ended.
type Outcome struct {
	Status    Status        `json:"status"`
	Evidence  bool          `json:"evidence"` // passed or failed: a statement about the option
	ExitCode  int           `json:"exit_code"`
	Duration  time.Duration `json:"duration_ns"`
	TestPath  string        `json:"test_path"`  // where the test ran; removed afterwards unless Runner.Keep
	JUnitPath string        `json:"junit_path"` // the JUnit report when kept, else ""
	Tests     int           `json:"tests"`
	Failures  int           `json:"failures"`
	Errors    int           `json:"errors"`
	Skipped   int           `json:"skipped"`
	Message   string        `json:"message,omitempty"` // first failure or error message
	// Limit names the resource limit the test ran into (memory, cpu,
	// file_size, processes), or "".
	Limit string `json:"limit,omitempty"`
	// Cases is the outcome of each test of the file, from the JUnit report.
	Cases  []TestCase `json:"cases,omitempty"`
	Output string     `json:"output"` // pytest's output, truncated to OutputLimit
}

// Proven tells what the outcome proves about the option as stated:
// (true, true) for a pass, (false, true) for an assertion failure, and
// evidence=false for everything else.
func (o Outcome) Proven() (truth, evidence bool) {
	switch o.Status {
	case StatusPassed:
		return true, true
	case StatusFailed:
		return false, true
	}
	return false, false
}

var (
	optionPattern   = regexp.MustCompile(`^[A-Za-z0-9_]{1,16}$`)
	fileNamePattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,100}\.py$`)
)

// TestFileName is the name of an option's test file.
func TestFileName(option string) string { return "test_option_" + option + ".py" }

// RunTest writes spec into a fresh folder and runs it. The error is
// non-nil only when the test could not be run at all (bad spec, no
// interpreter, engine down) or ctx was cancelled; every other ending,
// including a hang, is an Outcome.
func (r *Runner) RunTest(ctx context.Context, spec TestSpec) (Outcome, error) {
	if !optionPattern.MatchString(spec.Option) {
		return Outcome{}, fmt.Errorf("option %q: expected 1-16 letters, digits or underscores", spec.Option)
	}
	if len(spec.Source) == 0 {
		return Outcome{}, fmt.Errorf("case %s option %s: empty test source", spec.CaseID, spec.Option)
	}
	testName := TestFileName(spec.Option)
	if spec.FileName != "" {
		if !fileNamePattern.MatchString(spec.FileName) {
			return Outcome{}, fmt.Errorf("case %s option %s: test file name %q: expected a plain .py file name", spec.CaseID, spec.Option, spec.FileName)
		}
		testName = spec.FileName
	}
	for name := range spec.SupportFiles {
		if err := checkRelPath(name); err != nil {
			return Outcome{}, fmt.Errorf("case %s option %s: support file %q: %w", spec.CaseID, spec.Option, name, err)
		}
		if path.Clean(name) == testName || path.Clean(name) == reportName {
			return Outcome{}, fmt.Errorf("case %s option %s: support file %q would replace the test or its report", spec.CaseID, spec.Option, name)
		}
	}
	dir, err := os.MkdirTemp(r.WorkDir, "qa_"+slug(spec.CaseID)+"_"+spec.Option+"_")
	if err != nil {
		return Outcome{}, fmt.Errorf("create sandbox folder: %w", err)
	}
	if !r.Keep {
		defer os.RemoveAll(dir)
	}
	files := map[string][]byte{testName: spec.Source}
	if !hasPytestConfig(spec.SupportFiles) {
		// An ini file in the folder makes it pytest's rootdir and stops
		// pytest from picking up configuration from parent folders.
		files["pytest.ini"] = []byte("[pytest]\n")
	}
	for name, data := range spec.SupportFiles {
		files[path.Clean(name)] = data
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return Outcome{}, fmt.Errorf("write sandbox file: %w", err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return Outcome{}, fmt.Errorf("write sandbox file: %w", err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, homeName), 0o755); err != nil {
		return Outcome{}, fmt.Errorf("create sandbox home: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, rootName), 0o755); err != nil {
		return Outcome{}, fmt.Errorf("create sandbox root: %w", err)
	}
	run := runLocal
	if r.Image != "" {
		run = runContainer
	}
	raw, err := run(ctx, r, dir, files, testName)
	if err != nil {
		return Outcome{}, err
	}
	if r.Keep {
		// The kept folder is uploaded with the report, and an upload
		// follows links: none stays, nor any special file.
		found, err := fsutil.ScrubForUpload(dir)
		for _, f := range found {
			raw.output = append(raw.output, []byte("\nsandbox: left by the test: "+f.String()+"\n")...)
		}
		if err != nil {
			return Outcome{}, err
		}
	}
	out := classify(raw)
	if out.Status != StatusPassed {
		if out.Limit = limitHit(raw.status, out.Message+"\n"+string(raw.output)); out.Limit != "" {
			out.Message = "stopped by " + r.Limits.effective(r.timeout()).describe(out.Limit) + ": " + out.Message
		}
	}
	out.TestPath = filepath.Join(dir, testName)
	out.Output = textfmt.KeepEnds(r.mask(string(raw.output)), r.outputLimit())
	out.Message = textfmt.KeepEnds(r.mask(out.Message), MessageLimit)
	for i := range out.Cases {
		out.Cases[i].Message = textfmt.KeepEnds(r.mask(out.Cases[i].Message), MessageLimit)
	}
	if raw.junit != nil && r.Keep {
		out.JUnitPath = filepath.Join(dir, reportName)
	}
	if ctx.Err() != nil {
		return out, fmt.Errorf("case %s option %s: %w", spec.CaseID, spec.Option, ctx.Err())
	}
	return out, nil
}

const (
	reportName = "junit.xml"
	homeName   = ".home"
	rootName   = ".sandbox_root" // where the bootstrap builds the test's file system
)

// rawResult is what a backend observed.
type rawResult struct {
	exitCode int
	timedOut bool
	duration time.Duration
	junit    []byte // nil when pytest wrote no report
	output   []byte
	status   sandboxStatus // what the sandbox itself reported
}

// pytestArgs are the arguments after the interpreter.
func pytestArgs(reportPath, testName string) []string {
	return []string{"-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "junit_family=xunit2",
		"--junitxml=" + reportPath, testName}
}

// environment builds the scrubbed environment of a test.
func (r *Runner) environment(home string) []string {
	getenv := r.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	pathVar := getenv("PATH")
	if pathVar == "" {
		pathVar = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	}
	lang := getenv("LANG")
	if lang == "" {
		lang = "C.UTF-8"
	}
	env := []string{"PATH=" + pathVar, "HOME=" + home, "LANG=" + lang, "PYTHONDONTWRITEBYTECODE=1"}
	for _, name := range r.AllowEnv {
		if v := getenv(name); v != "" && name != "PATH" && name != "HOME" {
			env = append(env, name+"="+v)
		}
	}
	return append(env, r.Env...)
}

func (r *Runner) python() string {
	if r.Python != "" {
		return r.Python
	}
	return "python3"
}

func (r *Runner) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return DefaultTimeout
}

func (r *Runner) outputLimit() int {
	if r.OutputLimit > 0 {
		return r.OutputLimit
	}
	return DefaultOutputLimit
}

// classify maps pytest's exit code and JUnit report to a Status. The exit
// code alone is not enough: exit 1 also covers setup errors, which prove
// nothing about the option.
func classify(raw rawResult) Outcome {
	o := Outcome{ExitCode: raw.exitCode, Duration: raw.duration}
	if raw.timedOut {
		o.Status = StatusTimeout
		o.Message = "killed after the timeout"
		return o
	}
	var j JUnit
	var jerr error
	if raw.junit != nil {
		j, jerr = ParseJUnit(raw.junit)
		o.Tests, o.Failures, o.Errors, o.Skipped, o.Message, o.Cases = j.Tests, j.Failures, j.Errors, j.Skipped, j.Message, j.Cases
	}
	reportOK := raw.junit != nil && jerr == nil
	switch raw.exitCode {
	case 0:
		switch {
		case !reportOK:
			o.Status, o.Message = StatusError, "pytest exited 0 but wrote no readable JUnit report"
		case j.Tests == 0:
			o.Status, o.Message = StatusNoTests, "the JUnit report lists no tests"
		case j.Failures > 0 || j.Errors > 0:
			o.Status, o.Message = StatusError, "pytest exited 0 but its report lists failures: "+j.Message
		case j.Skipped == j.Tests:
			o.Status, o.Message = StatusSkipped, "skipped: "+j.SkipReason
		default:
			o.Status, o.Evidence = StatusPassed, true
		}
	case 1:
		switch {
		case !reportOK:
			o.Status, o.Message = StatusError, "pytest exited 1 but wrote no readable JUnit report"
		case j.Errors > 0:
			o.Status = StatusError // setup or teardown error: not a statement about the option
		case j.Failures > 0:
			o.Status, o.Evidence = StatusFailed, true
		default:
			o.Status, o.Message = StatusError, "pytest exited 1 but its report lists no failure"
		}
	case 2:
		o.Status = StatusCollectionError
		if o.Message == "" {
			o.Message = "interrupted or collection error (pytest exit 2)"
		}
	case 5:
		o.Status, o.Message = StatusNoTests, "no tests collected (pytest exit 5)"
		if reportOK && j.Skipped > 0 {
			// The module skipped itself while being collected (or the
			// missing-package guard skipped it): say why.
			o.Status, o.Message = StatusSkipped, "skipped: "+j.SkipReason
		}
	case 3:
		o.Status, o.Message = StatusError, "pytest internal error (exit 3)"
	case 4:
		o.Status, o.Message = StatusError, "pytest usage error (exit 4)"
	default:
		o.Status, o.Message = StatusError, fmt.Sprintf("pytest ended with exit code %d", raw.exitCode)
	}
	return o
}

func checkRelPath(name string) error {
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, "\\") {
		return errors.New("expected a relative path with forward slashes")
	}
	clean := path.Clean(name)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return errors.New("path leaves the sandbox folder")
	}
	if strings.HasPrefix(clean, homeName) || strings.HasPrefix(clean, rootName) {
		return errors.New("path is reserved for the sandbox")
	}
	return nil
}

var slugPattern = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// slug turns a case id into a folder-name fragment: the whole id, made
// safe.
func slug(id string) string {
	s := strings.Trim(slugPattern.ReplaceAllString(id, "_"), "_")
	if len(s) > 150 {
		// Whole ids fit; a longer one keeps its head and its tail, where
		// ids differ, within a file name's 255 bytes.
		s = s[:70] + "_" + s[len(s)-70:]
	}
	if s == "" {
		s = "case"
	}
	return s
}

// hasPytestConfig reports whether the support files hold a pytest
// configuration of their own (a case folder's pytest.ini, or a
// pyproject.toml, tox.ini or setup.cfg with a pytest section), which
// pytest reads from the test's folder as it would in the case's
// repository.
func hasPytestConfig(files map[string][]byte) bool {
	if _, ok := files["pytest.ini"]; ok {
		return true
	}
	for name, section := range map[string]string{"pyproject.toml": "[tool.pytest.ini_options]", "tox.ini": "[pytest]", "setup.cfg": "[tool:pytest]"} {
		if data, ok := files[name]; ok && strings.Contains(string(data), section) {
			return true
		}
	}
	return false
}

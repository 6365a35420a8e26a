package execproof

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/internal/ident"
	"github.com/benchgate/benchgate/internal/qaaudit/caseresult"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
)

// The two checks of a fix_error case.
const (
	UnfixedCheck = "unfixed"
	FixedCheck   = "fixed"
)

// fixFiles are a fix_error case's three files, read from the repository.
type fixFiles struct {
	test, unfixed, fixed           []byte
	testName, unfixedMod, fixedMod string
	// folder holds the other files of the test's folder (data files the
	// code reads, helper modules), by path relative to it.
	folder map[string][]byte
}

// fixChecks runs the case's test twice, each time in its own sandbox
// folder laid out like the benchmark's case folder
// (cases/NN_name/{test_agent,unfixed,fixed}.py): the test imports the
// solution as the fixed file's module (`import fixed`), so the first run
// puts the unfixed code under that name (the test must fail), the second
// the fixed code (every test must pass). The unfixed module keeps its own
// content in both runs, since the benchmark's own test checks that the
// unfixed code is broken. Files that are missing, unreadable or outside
// the repository root are problems of the case; nothing runs then.
func (a *Auditor) fixChecks(ctx context.Context, c *questions.Case) ([]caseresult.OptionResult, []questions.Problem, error) {
	checks := []caseresult.OptionResult{
		{Option: UnfixedCheck, Text: c.UnfixedFile, Claim: "the test fails against the unfixed code", Truth: verdict.Unknown, AnswerCheck: true},
		{Option: FixedCheck, Text: c.FixedFile, Claim: "the test passes against the fixed code", Truth: verdict.Unknown, AnswerCheck: true},
	}
	files, problems := a.readFixFiles(c)
	if len(problems) > 0 {
		for i := range checks {
			checks[i].Message = "not run: " + problems[0].Field + ": " + problems[0].Message
		}
		return checks, problems, nil
	}
	dir := a.caseDir(c.ID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return checks, nil, err
	}
	var errs []error
	runs := map[string]*fixRun{UnfixedCheck: {}, FixedCheck: {}}
	for i := range checks {
		solution := files.fixed
		if checks[i].Option == UnfixedCheck {
			solution = files.unfixed
		}
		support := map[string][]byte{}
		for name, data := range files.folder {
			support[name] = data
		}
		support[files.unfixedMod] = files.unfixed
		support[files.fixedMod] = solution
		support["conftest.py"] = withGuard(files.folder["conftest.py"])
		support[guardModule] = []byte(sandbox.MissingPackageGuard)
		r := a.Runner
		r.WorkDir, r.Keep = dir, true
		r.Env = a.repoPythonPath()
		out, err := r.RunTest(ctx, sandbox.TestSpec{CaseID: c.ID, Option: checks[i].Option, FileName: files.testName, Source: files.test, SupportFiles: support})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s run: %w", checks[i].Option, err))
			checks[i].Message = err.Error()
			continue
		}
		o := &checks[i]
		o.TestPath, o.Outcome, o.Runs, o.DurationMS, o.Limit = out.TestPath, string(out.Status), 1, out.Duration.Milliseconds(), out.Limit
		run := runs[o.Option]
		// Paths inside the run's folder read relative to it (the case
		// folder's own layout), not as this machine's temporary paths.
		rel := strings.NewReplacer(filepath.Dir(out.TestPath)+string(filepath.Separator), "")
		*run = fixRun{Status: out.Status, Limit: out.Limit, Message: rel.Replace(out.Message), Output: out.Message + "\n" + out.Output, Tests: out.Tests}
		if !out.Evidence && out.Status != sandbox.StatusSkipped {
			// The skip reason says it all; other outcomes need the output.
			run.Message = strings.TrimSpace(run.Message + "\n" + rel.Replace(tail(out.Output, 1500)))
		}
		if out.Status == sandbox.StatusPassed {
			for _, tc := range out.Cases {
				if tc.Status == sandbox.StatusSkipped {
					run.Skipped = append(run.Skipped, tc.Name+": "+tc.Message)
				}
			}
		}
	}
	ev := fixEvidence{Unfixed: *runs[UnfixedCheck], Fixed: *runs[FixedCheck], FixedSource: files.fixed, FixedModule: files.fixedMod}
	if needsCompileProbe(ev.Unfixed, ev.Fixed) {
		probe := a.compileProbe(ctx, c.ID, dir, files, c.UnfixedFile, c.FixedFile)
		ev.Compile = &probe
		// The probe's run is part of the check it can decide.
		target := &checks[1]
		if ev.Fixed.Status == sandbox.StatusPassed {
			target = &checks[0]
		}
		target.Runs += probe.runs
		target.DurationMS += probe.durationMS
	}
	un, fx := decideFix(ev)
	for i, d := range []checkDecision{un, fx} {
		if runs[checks[i].Option].Status == "" {
			continue // the run's error stays its message
		}
		checks[i].Truth, checks[i].Message = d.Truth, d.Message
		checks[i].Evidence = d.Truth != verdict.Unknown
	}
	return checks, nil, errors.Join(errs...)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// readFixFiles resolves and reads the three files of a case.
func (a *Auditor) readFixFiles(c *questions.Case) (fixFiles, []questions.Problem) {
	var f fixFiles
	var problems []questions.Problem
	problem := func(field, msg string) {
		line := c.Line
		if l, ok := c.FieldLines[field]; ok {
			line = l
		}
		problems = append(problems, questions.Problem{CaseID: c.ID, File: c.File, Line: line, Field: field, Message: msg})
	}
	read := func(field, rel string) []byte {
		if rel == "" {
			problem(field, "missing or empty; proving a fix_error case needs the test, unfixed and fixed files")
			return nil
		}
		p, err := a.resolve(rel)
		if err != nil {
			problem(field, err.Error())
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				problem(field, fmt.Sprintf("%s: file not found under the repository root %s", rel, a.root()))
			} else {
				problem(field, fmt.Sprintf("%s: %v", rel, err))
			}
			return nil
		}
		return data
	}
	f.test = read("test_file", c.TestFile)
	f.unfixed = read("unfixed_file", c.UnfixedFile)
	f.fixed = read("fixed_file", c.FixedFile)
	if len(problems) > 0 {
		return f, problems
	}
	f.testName = path.Base(filepath.ToSlash(c.TestFile))
	f.unfixedMod = path.Base(filepath.ToSlash(c.UnfixedFile))
	f.fixedMod = path.Base(filepath.ToSlash(c.FixedFile))
	folder, err := readCaseFolder(filepath.Dir(a.mustResolve(c.TestFile)), map[string]bool{f.testName: true, f.unfixedMod: true, f.fixedMod: true})
	if err != nil {
		problem("test_file", err.Error())
	}
	f.folder = folder
	for field, name := range map[string]string{"unfixed_file": f.unfixedMod, "fixed_file": f.fixedMod} {
		if !strings.HasSuffix(name, ".py") || !ident.PythonName.Match(strings.TrimSuffix(name, ".py")) {
			problem(field, fmt.Sprintf("%s: expected a Python module file name (letters, digits, _; .py)", name))
		}
		if name == f.testName || name == "conftest.py" {
			problem(field, fmt.Sprintf("%s: the same file name as test_file", name))
		}
	}
	return f, problems
}

// repoPythonPath is the runner's environment with the repository root
// appended to PYTHONPATH for a local interpreter: the benchmark's tests run
// from its root upstream and import shared helpers from it (for instance
// benchmarks.test_helpers). The case's own folder still comes first, since
// pytest puts the test's folder at the front of sys.path, so `import fixed`
// finds the file under test. A container does not see this machine's
// files, so its environment is left alone.
func (a *Auditor) repoPythonPath() []string {
	env := append([]string(nil), a.Runner.Env...)
	if a.Runner.Image != "" {
		return env
	}
	root, err := filepath.Abs(a.root())
	if err != nil {
		return env
	}
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PYTHONPATH="); ok {
			env[i] = "PYTHONPATH=" + v + string(filepath.ListSeparator) + root
			return env
		}
	}
	return append(env, "PYTHONPATH="+root)
}

func (a *Auditor) root() string {
	if a.RepoRoot == "" {
		return "."
	}
	return a.RepoRoot
}

// resolve turns a path from the question file into a path under the
// repository root, refusing absolute paths and paths that leave the root,
// including through symbolic links.
func (a *Auditor) resolve(rel string) (string, error) {
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return "", fmt.Errorf("%s: expected a path relative to the repository root", rel)
	}
	root, err := filepath.Abs(a.root())
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	if !inside(root, p) {
		return "", fmt.Errorf("%s: path leaves the repository root %s", rel, root)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("repository root %s: %w", root, err)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil && !inside(realRoot, real) {
		return "", fmt.Errorf("%s: path leaves the repository root %s through a symbolic link", rel, root)
	}
	return p, nil
}

func inside(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

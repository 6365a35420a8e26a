package execproof

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/benchgate/benchgate/internal/qaaudit/caseresult"
	"github.com/benchgate/benchgate/internal/qaaudit/sandbox"
	"github.com/benchgate/benchgate/internal/qaaudit/verdict"
)

// Bounds of a case folder copied into the sandbox: a question's folder
// holds its code and a few data files, not a data set.
const (
	maxFolderBytes = 64 << 20
	maxFolderFiles = 2000
)

// readCaseFolder reads every regular file under dir (the folder of a
// fix_error case's test), so that the sandbox holds the case as its author
// ran it: a data file next to the code, a helper module. The files named
// in skip (the three files of the case, placed by the caller), caches,
// hidden folders and symbolic links are left out. The case's conftest.py,
// pytest.ini, pyproject.toml or setup.cfg come along: its tests run with
// the fixtures and options they were written for.
func readCaseFolder(dir string, skip map[string]bool) (map[string][]byte, error) {
	files := map[string][]byte{}
	total := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if d.IsDir() {
			if strings.HasPrefix(name, ".") || name == "__pycache__" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".pyc") || skip[rel] ||
			rel == "junit.xml" || rel == guardModule {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += int(info.Size())
		if len(files) >= maxFolderFiles || total > maxFolderBytes {
			return fmt.Errorf("the case folder %s holds more than %d files or %d MiB; only a case's own files are copied into the sandbox", dir, maxFolderFiles, maxFolderBytes>>20)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[rel] = data
		return nil
	})
	return files, err
}

// mustResolve is resolve for a path already resolved once (readFixFiles
// read it), so it cannot fail here; on error it returns the path as given.
func (a *Auditor) mustResolve(rel string) string {
	p, err := a.resolve(rel)
	if err != nil {
		return rel
	}
	return p
}

var notInstalled = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.]*) is not installed in this Python`)

// decideFromFixedRun applies the contract of a fix_error case, "fails
// unfixed, passes fixed", to an unfixed run no single outcome decided: when
// the same test passes cleanly against the fixed code, in the same Python
// and folder, every way of not passing against the unfixed code is the
// unfixed code's failure (an exception at import, a collection error, an
// interpreter that exits, a limit, a module it imports that the fixed code
// does without). Only a package the fixed code imports as well would be
// the environment's doing; that stays unknown.
func decideFromFixedRun(checks []caseresult.OptionResult, f fixFiles) {
	var un, fx *caseresult.OptionResult
	for i := range checks {
		switch checks[i].Option {
		case UnfixedCheck:
			un = &checks[i]
		case FixedCheck:
			fx = &checks[i]
		}
	}
	if un == nil || fx == nil || un.Truth != verdict.Unknown || fx.Truth != verdict.True || fx.Outcome != string(sandbox.StatusPassed) {
		return
	}
	if m := notInstalled.FindAllStringSubmatch(un.Message, -1); m != nil {
		for _, g := range m {
			if imports(f.fixed, g[1]) {
				un.Message = fmt.Sprintf("%s (the fixed code imports %s too, so the environment lacks it)", un.Message, g[1])
				return
			}
		}
		un.Truth = verdict.True
		un.Message = fmt.Sprintf("the test does not pass against the unfixed code, which needs %s; the fixed code does without it and passes: %s", m[0][1], firstLine(un.Message))
		return
	}
	if un.Outcome == string(sandbox.StatusPassed) {
		return
	}
	un.Truth = verdict.True
	un.Message = fmt.Sprintf("the test does not pass against the unfixed code (%s) and passes against the fixed code: %s", un.Outcome, failureLine(un.Message))
}

// imports reports whether src imports module (or a submodule of it, or the
// package it is a portion of) by an import statement at any indentation.
func imports(src []byte, module string) bool {
	top, _, _ := strings.Cut(module, ".")
	re := regexp.MustCompile(`(?m)^\s*(?:import|from)\s+` + regexp.QuoteMeta(top) + `(?:[\s.,]|$)`)
	return re.Match(src)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return line
}

var errorLine = regexp.MustCompile(`(?m)^E\s+([A-Za-z_][A-Za-z0-9_.]*(?:Error|Exception|Exit|Interrupt)\b.*)$`)

// failureLine picks the exception pytest reported ("E   RuntimeError:
// ...", the last one: the cause comes first in a chain) from a run's
// message, or its first line.
func failureLine(s string) string {
	if m := errorLine.FindAllStringSubmatch(s, -1); m != nil {
		return strings.TrimSpace(m[len(m)-1][1])
	}
	return firstLine(s)
}

// guardModule is the missing-package guard as a pytest plugin module
// beside the case's files; guardPlugin is its import name.
const (
	guardModule = "_benchgate_missing_package_guard.py"
	guardPlugin = "_benchgate_missing_package_guard"
)

// withGuard is the case's own conftest.py (or none) with the
// missing-package guard added as a plugin, never in its place: the case's
// fixtures and hooks stay, and so does a pytest_plugins it declares.
func withGuard(conftest []byte) []byte {
	var b strings.Builder
	b.Write(conftest)
	if len(conftest) > 0 && !strings.HasSuffix(string(conftest), "\n") {
		b.WriteString("\n")
	}
	b.WriteString(`

# Added by benchgate qa-audit: a test that fails because a package is not
# installed is skipped (see ` + guardModule + `).
try:
    pytest_plugins
except NameError:
    pytest_plugins = []
pytest_plugins = ([pytest_plugins] if isinstance(pytest_plugins, str) else list(pytest_plugins)) + ["` + guardPlugin + `"]
`)
	return []byte(b.String())
}

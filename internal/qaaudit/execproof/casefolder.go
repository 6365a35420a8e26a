package execproof

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
